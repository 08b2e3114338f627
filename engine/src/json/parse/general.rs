//! The general walk: one value of any shape, its containers on an explicit stack (no
//! recursion), every key and structural byte lexed. An object at a level that has a row
//! layout goes through the row-layout path first (`rows.rs`), and the general walk goes on
//! where that path stops.

use super::lex::{Frame, Parser, StrTok};
use super::rows::RowStop;
use crate::error::Result;

impl<'s, 'o> Parser<'s, 'o> {
    /// Lexes the key of member `count` and the `:` after it (as [`Parser::member_key`]) and
    /// pushes it (`EMIT`). While every key so far repeated the remembered one at its place
    /// (`*repeated`, [`DocBuilder::remembered_key`]), this one is first compared with that
    /// key's bytes: a repeat (the next row of a collection) needs no lexing, and once every key
    /// repeated, the closed object no key comparison ([`DocBuilder::end_object_repeated`]).
    /// Identical bytes of a key lexed before in this document set no new flags. Returns where
    /// the key is in the input when it is there as is (no escapes).
    ///
    /// [`DocBuilder::remembered_key`]: crate::doc::DocBuilder::remembered_key
    /// [`DocBuilder::end_object_repeated`]: crate::doc::DocBuilder::end_object_repeated
    #[inline(always)]
    fn key<const EMIT: bool>(
        &mut self,
        count: usize,
        repeated: &mut bool,
    ) -> Result<Option<(usize, usize)>> {
        if EMIT && *repeated {
            if let Some((start, len)) = self.b.remembered_key(count) {
                let at = self.pos + 1;
                if self.repeats_key(start, len, count) {
                    self.b.str_src(at, len);
                    return Ok(Some((at, len)));
                }
            }
            *repeated = false;
        }
        let key = self.member_key(count)?;
        let span = match key {
            StrTok::Plain { start, len, .. } | StrTok::Src { start, len } => Some((start, len)),
            StrTok::Scratch => None,
        };
        if EMIT {
            // Keys are never plain nodes ([`Node::StrPlain`] is for values).
            match key {
                StrTok::Plain { start, len, .. } => self.b.str_src(start, len),
                key => self.push_str(key),
            }
        }
        Ok(span)
    }

    /// Validates and skips one value at the current position (whitespace already skipped)
    /// inside `depth` open containers: [`Parser::value`] without output, with the scalars
    /// dispatched here so a skipped member costs no call into the container loop. Same
    /// errors, same document flags.
    #[inline(always)]
    pub(crate) fn skip_value(&mut self, depth: usize) -> Result<()> {
        match self.peek() {
            Some(b'"') => self.lex_string().map(drop),
            Some(b'-' | b'0'..=b'9') => self.number::<false>().map(drop),
            Some(b't' | b'f' | b'n') => self.skip_literal(depth),
            _ => self.value::<false>(depth),
        }
    }

    /// Skips `true`, `false` or `null` at the current position without branching on
    /// which (a random `true`/`false` column would mispredict); anything else takes
    /// [`Parser::value`] for its error.
    #[inline(always)]
    fn skip_literal(&mut self, depth: usize) -> Result<()> {
        let at = self.pos;
        let n = match self.src.get(at..at + 8) {
            Some(w) => {
                let mut word = [0u8; 8];
                word.copy_from_slice(w);
                let w = u64::from_le_bytes(word);
                let w4 = w as u32;
                let four = w4 == u32::from_le_bytes(*b"true") || w4 == u32::from_le_bytes(*b"null");
                let five = w & 0xFF_FFFF_FFFF == u64::from_le_bytes(*b"false\0\0\0");
                usize::from(four) * 4 + usize::from(five) * 5
            }
            None => 0,
        };
        if n == 0 {
            return self.value::<false>(depth);
        }
        self.pos = at + n;
        Ok(())
    }

    /// Parses (`EMIT`) or validates and skips (`!EMIT`) one complete value at the current
    /// position (whitespace first), inside `depth` open containers. Skipped values still set
    /// the document flags.
    pub(crate) fn value<const EMIT: bool>(&mut self, depth: usize) -> Result<()> {
        // The explicit stack: `self.stack[base..]` are the containers opened by this call.
        let base = self.stack.len();
        'value: loop {
            self.skip_ws();
            let Some(c) = self.peek() else {
                return Err(self.eof("expected a value"));
            };
            match c {
                b'"' => {
                    let tok = self.lex_string()?;
                    if EMIT {
                        self.push_str(tok);
                    }
                }
                b'{' | b'[' => {
                    let level = depth + (self.stack.len() - base) + 1;
                    self.check_depth(level)?;
                    let is_object = c == b'{';
                    // The next rows of a collection: their members as the level's layout.
                    let laid_out =
                        is_object && self.layouts.get(level).is_some_and(|l| !l.is_empty());
                    let mut general = true;
                    let mut mark = None;
                    if laid_out {
                        let in_array = self.stack.len() > base
                            && self.stack.last().is_some_and(|f| !f.is_object);
                        let run = self.rows_run::<EMIT>(level, in_array)?;
                        if let Some(top) = self.stack.last_mut().filter(|_| run.extra > 0) {
                            top.count += run.extra;
                        }
                        let frame = |count, row| Frame {
                            mark: run.mark,
                            count,
                            is_object,
                            repeated: run.repeated,
                            row,
                        };
                        match run.stop {
                            RowStop::Member(0) => mark = run.mark,
                            RowStop::Closed(_) => general = false,
                            // The container loop below counts the member just completed.
                            RowStop::Member(i) => {
                                self.stack.push(frame(i - 1, false));
                                general = false;
                            }
                            RowStop::Value(i) => {
                                self.stack.push(frame(i, true));
                                continue 'value;
                            }
                        }
                    } else {
                        mark = match (EMIT, is_object) {
                            (false, _) => None,
                            (true, true) => Some(self.b.begin_object()),
                            (true, false) => Some(self.b.begin_array()),
                        };
                    }
                    if general {
                        let brace = self.pos;
                        self.pos += 1;
                        self.skip_ws();
                        let close = if is_object { b'}' } else { b']' };
                        if self.peek() == Some(close) {
                            self.pos += 1;
                            if let Some(m) = mark {
                                if is_object {
                                    self.b.end_object(m, 0);
                                } else {
                                    self.b.end_array(m, 0);
                                }
                            }
                        } else {
                            let mut repeated = EMIT;
                            if is_object {
                                let key = self.key::<EMIT>(0, &mut repeated)?;
                                self.skip_ws();
                                self.note_member(level, 0, brace, key);
                            }
                            self.stack.push(Frame {
                                mark,
                                count: 0,
                                is_object,
                                repeated,
                                row: false,
                            });
                            continue 'value;
                        }
                    }
                }
                b't' => {
                    self.literal(b"true")?;
                    if EMIT {
                        self.b.bool(true);
                    }
                }
                b'f' => {
                    self.literal(b"false")?;
                    if EMIT {
                        self.b.bool(false);
                    }
                }
                b'n' => {
                    self.literal(b"null")?;
                    if EMIT {
                        self.b.null();
                    }
                }
                b'-' | b'0'..=b'9' => {
                    self.number::<EMIT>()?;
                }
                _ => return Err(self.unexpected("expected a value", self.pos)),
            }
            // A value is complete: close the containers it completes.
            loop {
                if self.stack.len() == base {
                    return Ok(());
                }
                let level = depth + (self.stack.len() - base);
                let Some(top) = self.stack.last_mut() else {
                    return Ok(());
                };
                top.count += 1;
                let (mut count, is_object, repeated) = (top.count, top.is_object, top.repeated);
                if top.row {
                    match self.row_members::<EMIT>(level, count)? {
                        RowStop::Closed(n) => {
                            if let Some(Frame { mark: Some(m), .. }) = self.stack.pop() {
                                self.b.end_object_repeated::<false>(m, n, repeated);
                            }
                            continue;
                        }
                        RowStop::Value(i) => {
                            if let Some(top) = self.stack.last_mut() {
                                top.count = i;
                            }
                            continue 'value;
                        }
                        RowStop::Member(i) => {
                            if let Some(top) = self.stack.last_mut() {
                                top.count = i;
                                top.row = false;
                            }
                            count = i;
                        }
                    }
                }
                let value_end = self.pos;
                self.skip_ws();
                match (self.peek(), is_object) {
                    (Some(b','), false) => {
                        self.pos += 1;
                        continue 'value;
                    }
                    (Some(b','), true) => {
                        self.pos += 1;
                        self.skip_ws();
                        let mut repeated = repeated;
                        let key = self.key::<EMIT>(count, &mut repeated)?;
                        if let Some(top) = self.stack.last_mut() {
                            top.repeated = repeated;
                        }
                        self.skip_ws();
                        self.note_member(level, count, value_end, key);
                        continue 'value;
                    }
                    (Some(b']'), false) | (Some(b'}'), true) => {
                        self.pos += 1;
                        if let Some(Frame {
                            mark,
                            count,
                            is_object,
                            repeated,
                            ..
                        }) = self.stack.pop()
                        {
                            if is_object {
                                if let Some(m) = mark {
                                    self.b.end_object_repeated::<false>(m, count, repeated);
                                }
                                self.note_close(level, value_end);
                            } else if let Some(m) = mark {
                                self.b.end_array(m, count);
                            }
                        }
                    }
                    (_, false) => {
                        return Err(
                            self.unexpected("expected ',' or ']' after an array element", self.pos)
                        );
                    }
                    (_, true) => {
                        return Err(
                            self.unexpected("expected ',' or '}' after an object member", self.pos)
                        );
                    }
                }
            }
        }
    }
}
