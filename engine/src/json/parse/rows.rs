//! The row-layout path: an object whose bytes repeat, piece by piece, the layout of the last
//! object the general walk closed at its level (the next row of a collection) is read
//! without lexing a key or a structural byte: only its values ([`Parser::row_members`],
//! [`Parser::rows_run`]). Once a row of a run closed as `same_keys`, the rows that match the
//! layout to their `}` go through a loop of their own ([`Parser::same_rows`]).

use super::layout::{ROW_LEVELS, ROW_MEMBERS, RowState, Sep};
use super::lex::Parser;
use super::scan;
use super::swar::short_int;
use crate::doc::{DocBuilder, Mark};
use crate::error::Result;

/// What [`Parser::row_members`] stopped at.
pub(super) enum RowStop {
    /// The object matched its layout to the `}` (the position is past it): this many
    /// members.
    Closed(usize),
    /// The members before this one are complete; the bytes that follow are not the
    /// layout's (nothing of them consumed).
    Member(usize),
    /// The key of this member is pushed and its value is not a string, number or literal
    /// (the position is at it, whitespace skipped).
    Value(usize),
}

/// What [`Parser::rows_run`] did.
pub(super) struct RowsRun {
    /// Objects closed before the last one.
    pub(super) extra: usize,
    /// The last one (open unless `stop` is [`RowStop::Closed`]; `None` while skipping), and
    /// whether its keys so far are the builder's remembered ones.
    pub(super) mark: Option<Mark>,
    pub(super) repeated: bool,
    pub(super) stop: RowStop,
}

/// A layout as [`Parser::walk`] walks it: its member pieces and its closing one, with the
/// parser's string classifier and string bound.
#[derive(Clone, Copy)]
struct Walker<'l> {
    close: &'l Sep,
    members: &'l [Sep],
    classify: scan::StrKernel,
    max_string: usize,
}

impl<'s, 'o> Parser<'s, 'o> {
    /// Records the piece of member `count` of the object the general loop is parsing at
    /// `level`: from `at` to the position (just past the `:`), its key at `key` when that is
    /// in the input as is (otherwise the object gets no layout).
    #[inline(always)]
    pub(super) fn note_member(
        &mut self,
        level: usize,
        count: usize,
        at: usize,
        key: Option<(usize, usize)>,
    ) {
        if self.classify.is_none() || level >= ROW_LEVELS {
            return;
        }
        if self.rows.len() <= level {
            self.rows.resize_with(level + 1, RowState::default);
            self.layouts.resize_with(level + 1, Vec::new);
        }
        let row = &mut self.rows[level];
        if count == 0 {
            row.next.clear();
            row.next_ok = true;
        }
        let sep = match key {
            Some((k, key_len)) if row.next_ok && row.next.len() == count && count < ROW_MEMBERS => {
                Sep::new(self.src, at, self.pos, k - at, key_len)
            }
            _ => None,
        };
        match sep {
            Some(sep) => row.next.push(sep),
            None => row.next_ok = false,
        }
    }

    /// The general loop closed the object at `level` whose last value ended at `at` (the
    /// position is past the `}`): when its pieces are all known, they are the level's layout.
    #[inline(always)]
    pub(super) fn note_close(&mut self, level: usize, at: usize) {
        let Some(row) = self.rows.get_mut(level) else {
            return;
        };
        if row.next_ok && !row.next.is_empty() {
            // A closing piece has no key (0 bytes, which always fit).
            row.next.extend(Sep::new(self.src, at, self.pos, 0, 0));
            std::mem::swap(&mut row.next, &mut self.layouts[level]);
            row.checked = false;
        }
        row.next_ok = false;
    }

    /// Whether the keys of the layout at `level` are the ones the builder remembers at the
    /// level of the object just opened (so an object that repeats the layout is
    /// `repeated`); rechecked only when the layout or those keys changed.
    #[inline(always)]
    fn row_agrees(&mut self, level: usize, seps: &[Sep]) -> bool {
        let generation = self.b.keys_gen();
        let row = &self.rows[level];
        if row.checked && row.generation == generation {
            return row.agree;
        }
        let src = self.src;
        let keys = seps[..seps.len() - 1]
            .iter()
            .map(|s| &src[(s.at + s.key) as usize..][..DocBuilder::key_head_len(s.key_head)]);
        let agree = self.b.remembered_keys_are(keys);
        let row = &mut self.rows[level];
        row.agree = agree;
        row.generation = generation;
        row.checked = true;
        agree
    }

    /// Parses objects at `level` (the position is at a `{`) through the level's layout
    /// ([`Parser::row_members`]), each opened and, when it matched to its `}`, closed
    /// (`EMIT`; otherwise only validated); while `in_array` and the next element of the array
    /// is an object too, that one next, without going back to the general loop (the rows of
    /// a collection). Returns how many objects it closed before the last one, and where it
    /// stopped in that one (closed, or open at `mark`).
    #[inline(never)]
    pub(super) fn rows_run<const EMIT: bool>(
        &mut self,
        level: usize,
        in_array: bool,
    ) -> Result<RowsRun> {
        let seps = std::mem::take(&mut self.layouts[level]);
        let mut extra = 0;
        let run = loop {
            let mark = EMIT.then(|| self.b.begin_object());
            let repeated = EMIT && self.row_agrees(level, &seps);
            let stop = match self.row_walk::<EMIT>(&seps, 0) {
                Ok(stop) => stop,
                Err(e) => break Err(e),
            };
            if let RowStop::Closed(n) = stop {
                let same = mark.is_some_and(|m| self.b.end_object_repeated::<true>(m, n, repeated));
                if in_array && self.next_row() {
                    extra += 1;
                    if same {
                        break self.same_rows(&seps).map(|(closed, mark, stop)| RowsRun {
                            extra: extra + closed,
                            mark: Some(mark),
                            repeated: true,
                            stop,
                        });
                    }
                    continue;
                }
            }
            break Ok(RowsRun {
                extra,
                mark,
                repeated,
                stop,
            });
        };
        if let Ok(RowsRun {
            stop: RowStop::Member(i @ 1..),
            ..
        }) = run
        {
            self.continue_layout(level, &seps[..i]);
        }
        self.layouts[level] = seps;
        run
    }

    /// The rows of a run (the position is at the `{` of one) after a row that
    /// [`DocBuilder::end_object_repeated`] closed as `same_keys` and `flat` through the
    /// layout `seps`: each one that matches the layout to its `}` is too, opened and closed
    /// with none of the builder's checks ([`DocBuilder::begin_same_row`]). A loop of its
    /// own, apart from the first row's: fewer values live through it. Returns how many rows
    /// it closed before the last one, and where it stopped in that one (open at the mark
    /// unless the stop is [`RowStop::Closed`], the end of the run).
    #[inline(never)]
    fn same_rows(&mut self, seps: &[Sep]) -> Result<(usize, Mark, RowStop)> {
        let mut closed = 0;
        let walker = self.walker(seps);
        loop {
            let mark = self.b.begin_same_row();
            let stop = match walker {
                Some(w) => self.walk::<true>(w, 0)?,
                None => RowStop::Member(0),
            };
            let RowStop::Closed(n) = stop else {
                return Ok((closed, mark, stop));
            };
            self.b.end_same_row(mark, n);
            if !self.next_row() {
                return Ok((closed, mark, stop));
            }
            closed += 1;
        }
    }

    /// Moves past `,` and the whitespace around it to the `{` of the next element when that
    /// is what follows (otherwise stays).
    #[inline(always)]
    pub(crate) fn next_row(&mut self) -> bool {
        let at = self.pos;
        // The common case, rows written without whitespace between them: `,{` in one compare.
        if self.src.get(at..at + 2) == Some(b",{") {
            self.pos = at + 1;
            return true;
        }
        self.skip_ws();
        if self.peek() == Some(b',') {
            self.pos += 1;
            self.skip_ws();
            if self.peek() == Some(b'{') {
                return true;
            }
        }
        self.pos = at;
        false
    }

    /// The object at `level` matched the layout's pieces `seps` and goes on in the general
    /// loop: they are the first pieces of the layout it makes.
    fn continue_layout(&mut self, level: usize, seps: &[Sep]) {
        let row = &mut self.rows[level];
        row.next.clear();
        row.next.extend_from_slice(seps);
        row.next_ok = true;
    }

    /// Parses the members of the object open at `level` from member `from` on while its bytes
    /// repeat the level's layout piece by piece (the position is where piece `from` starts:
    /// at the `{`, or at the end of the value before), pushing (`EMIT`) each key and each
    /// string, number and literal value. Those bytes are the ones the general loop validated
    /// (a key at the same member count, so within the same limits, and flags already set), so
    /// they need no lexing: identical input, identical document and errors. When it stops
    /// before the end, the general loop goes on, and the layout's pieces so far are the first
    /// of the next one.
    #[inline(always)]
    pub(super) fn row_members<const EMIT: bool>(
        &mut self,
        level: usize,
        from: usize,
    ) -> Result<RowStop> {
        let seps = std::mem::take(&mut self.layouts[level]);
        let stop = self.row_walk_apart::<EMIT>(&seps, from);
        if let Ok(RowStop::Member(i @ 1..)) = stop {
            self.continue_layout(level, &seps[..i]);
        }
        self.layouts[level] = seps;
        stop
    }

    /// [`Parser::row_walk`] on its own: inlined into the general loop it took more
    /// instructions (the registers the general loop holds spilled).
    #[inline(never)]
    fn row_walk_apart<const EMIT: bool>(&mut self, seps: &[Sep], from: usize) -> Result<RowStop> {
        self.row_walk::<EMIT>(seps, from)
    }

    /// The loop of [`Parser::row_members`] and [`Parser::rows_run`] (inlined into the run: a
    /// call per row cost its prologue and a result through memory).
    #[inline(always)]
    fn row_walk<const EMIT: bool>(&mut self, seps: &[Sep], from: usize) -> Result<RowStop> {
        match self.walker(seps) {
            Some(w) => self.walk::<EMIT>(w, from),
            None => Ok(RowStop::Member(from)),
        }
    }

    /// What [`Parser::walk`] takes of the layout `seps` and of the parser (once for a run of
    /// rows): `None` for an empty layout, or without a kernel (layouts are made only with
    /// one).
    #[inline(always)]
    fn walker<'l>(&self, seps: &'l [Sep]) -> Option<Walker<'l>> {
        let (close, members) = seps.split_last()?;
        Some(Walker {
            close,
            members,
            classify: self.classify_str?,
            max_string: self.opts.max_string_bytes.min(DocBuilder::SHORT_STR_MAX),
        })
    }

    /// The loop of [`Parser::row_walk`], from member `from`.
    #[inline(always)]
    fn walk<const EMIT: bool>(&mut self, w: Walker<'_>, from: usize) -> Result<RowStop> {
        let Walker {
            close,
            members,
            classify,
            max_string,
        } = w;
        let src = self.src;
        // The position lives in a register through the row; `self.pos` is set where the
        // general lexers take over, and read back after them.
        let mut pos = self.pos;
        // No counter through the loop: a member's number is how many pieces are left.
        let mut rest = members.get(from..).unwrap_or_default().iter();
        while let Some(sep) = rest.next() {
            let i = members.len() - 1 - rest.len();
            if !sep.matches(src, pos) {
                self.pos = pos;
                return Ok(RowStop::Member(i));
            }
            if EMIT {
                self.b.key_head(sep.key_head, pos + sep.key as usize);
            }
            pos += sep.len as usize;
            match self.walk_scalar::<EMIT>(src, pos, classify, max_string)? {
                Some(next) => pos = next,
                None => {
                    self.pos = pos;
                    return Ok(RowStop::Value(i));
                }
            }
        }
        self.pos = pos;
        if close.matches(src, pos) {
            self.pos = pos + close.len as usize;
            return Ok(RowStop::Closed(members.len()));
        }
        Ok(RowStop::Member(members.len()))
    }

    /// The string, number or literal at `pos` (a value's place in a row layout), pushed
    /// (`EMIT`) or only validated, strings without escapes from the block masks of
    /// `classify`: the position after it, or `None` (nothing read) when the value there is
    /// something else. `max_string` is the options' string limit taken once by the caller,
    /// and at most [`DocBuilder::SHORT_STR_MAX`]: a longer string goes to the general
    /// lexer, which checks the options' limit itself.
    #[inline(always)]
    pub(crate) fn walk_scalar<const EMIT: bool>(
        &mut self,
        src: &'s [u8],
        pos: usize,
        classify: scan::StrKernel,
        max_string: usize,
    ) -> Result<Option<usize>> {
        let next = match src.get(pos) {
            Some(b'"') => {
                let start = pos + 1;
                match self.plain_with::<EMIT>(src, start, classify) {
                    Ok((end, toon)) if end - start <= max_string => {
                        if EMIT {
                            self.b.str_plain_short(start, end - start, toon);
                        }
                        end + 1
                    }
                    _ => {
                        self.pos = pos;
                        let tok = self.lex_string()?;
                        if EMIT {
                            self.push_str(tok);
                        }
                        self.pos
                    }
                }
            }
            Some(b'-' | b'0'..=b'9') => match short_int(src, pos) {
                // A short integer from one word (a count, an amount in cents).
                Some(end) => {
                    if EMIT {
                        self.b.int_src(pos, end - pos);
                    }
                    end
                }
                None => {
                    self.pos = pos;
                    self.number::<EMIT>()?;
                    self.pos
                }
            },
            Some(b't') => {
                self.pos = pos;
                self.literal(b"true")?;
                if EMIT {
                    self.b.bool(true);
                }
                pos + 4
            }
            Some(b'f') => {
                self.pos = pos;
                self.literal(b"false")?;
                if EMIT {
                    self.b.bool(false);
                }
                pos + 5
            }
            Some(b'n') => {
                self.pos = pos;
                self.literal(b"null")?;
                if EMIT {
                    self.b.null();
                }
                pos + 4
            }
            _ => return Ok(None),
        };
        Ok(Some(next))
    }
}
