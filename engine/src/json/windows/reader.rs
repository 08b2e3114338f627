//! A root JSON array parsed window by window: each window is a small [`Doc`] whose root array
//! holds the next rows, so a caller that walks the input twice (validate and analyse, then
//! encode) never holds more than one window's tape, whatever the input's size.
//!
//! The windows of an input, concatenated, are exactly the array [`parse`](crate::json::parse())
//! returns: the same values, the same spans into the input, the same flags, and the same
//! errors at the same offsets (the rows are parsed by the same code at the same depth).

use crate::doc::{Doc, DocBuilder};
use crate::error::Result;
use crate::json::ParseOptions;
use crate::json::parse::Parser;

/// The windows of a root array (see the module documentation).
pub(crate) struct RowWindows<'s, 'o> {
    src: &'s [u8],
    opts: &'o ParseOptions,
    /// Where the next element (or the closing bracket) starts, whitespace before it included.
    pos: usize,
    /// Elements parsed so far.
    rows: usize,
    /// The closing bracket and the trailing whitespace were read.
    done: bool,
    /// Byte range of the first element.
    first: Option<(usize, usize)>,
    scratch: Vec<u8>,
    /// Where to stop ([`Self::stop_at`]), and whether a window ended exactly there.
    stop: usize,
    stopped: bool,
}

impl<'s, 'o> RowWindows<'s, 'o> {
    /// The windows of `src`, or `None` when its value is not an array (the caller parses
    /// it whole; the input limit and an empty input are reported here as
    /// [`parse`](crate::json::parse()) would).
    ///
    /// # Errors
    ///
    /// Those of [`parse`](crate::json::parse()) that concern the start of the input.
    pub(crate) fn new(src: &'s [u8], opts: &'o ParseOptions) -> Result<Option<Self>> {
        let mut p = Parser::new(src, opts, 0)?;
        if p.peek() != Some(b'[') {
            return Ok(None);
        }
        p.check_depth(1)?;
        p.pos += 1;
        p.skip_ws();
        let mut w = RowWindows {
            src,
            opts,
            pos: p.pos,
            rows: 0,
            done: false,
            first: None,
            scratch: Vec::new(),
            stop: usize::MAX,
            stopped: false,
        };
        if p.peek() == Some(b']') {
            p.pos += 1;
            w.pos = p.pos;
            w.done = true;
            p.expect_end()?;
        }
        Ok(Some(w))
    }

    /// The rest of a reading from `pos`, which must be where an element of the root array
    /// may start (just past a comma); `first`: the array's first element (see
    /// [`Self::first`]), for windows that repeat it. Parsing from a position that is not an
    /// element's start gives nonsense or an error: the caller only uses the result once the
    /// reading from the start has stopped exactly at `pos` ([`Self::stopped`]).
    pub(crate) fn resume_at(
        src: &'s [u8],
        opts: &'o ParseOptions,
        pos: usize,
        first: Option<(usize, usize)>,
    ) -> Self {
        RowWindows {
            src,
            opts,
            pos,
            rows: 0,
            done: false,
            first,
            scratch: Vec::new(),
            stop: usize::MAX,
            stopped: false,
        }
    }

    /// The byte range of the array's first element, once a window has read it.
    pub(crate) fn first(&self) -> Option<(usize, usize)> {
        self.first
    }

    /// True when the array was read to its end.
    pub(crate) fn done(&self) -> bool {
        self.done
    }

    /// Where the next window starts.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Ends the reading at `pos` if an element ends just before it (its comma included): the
    /// window that reaches it ends there and [`Self::stopped`] says so. A reading that passes
    /// `pos` inside an element goes on to the end as usual.
    pub(crate) fn stop_at(&mut self, pos: usize) {
        self.stop = pos;
    }

    /// True when the reading stopped at the [`Self::stop_at`] position.
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }

    /// Elements parsed so far.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// The next window: rows until about `bytes` of input were read (at least one row), as a
    /// document whose root is an array of them; `None` after the last. `recycled`, a window
    /// the caller is done with, lends its allocations. With `repeat_first`, the window's
    /// first element is the array's first row parsed again (not counted in [`Self::rows`]).
    ///
    /// # Errors
    ///
    /// The first error of the input in this window, as [`parse`](crate::json::parse()) reports it.
    pub(crate) fn next_window(
        &mut self,
        recycled: Option<Doc<'s>>,
        bytes: usize,
        repeat_first: bool,
    ) -> Result<Option<Doc<'s>>> {
        if self.done || self.stopped {
            return Ok(None);
        }
        let b = match recycled {
            Some(doc) => DocBuilder::recycle(doc),
            None => DocBuilder::with_capacity(self.src, bytes / 8 + 16, 0),
        };
        let mut p = Parser::resume(
            self.src,
            self.opts,
            self.pos,
            b,
            std::mem::take(&mut self.scratch),
        );
        let mark = p.b.begin_array();
        let mut n = 0;
        if let (true, Some((start, _))) = (repeat_first, self.first) {
            let resume = p.pos;
            p.pos = start;
            p.value::<true>(1)?;
            p.pos = resume;
            n += 1;
        }
        let start = p.pos;
        loop {
            p.skip_ws();
            let at = p.pos;
            p.value::<true>(1)?;
            if self.first.is_none() {
                self.first = Some((at, p.pos));
            }
            n += 1;
            self.rows += 1;
            p.skip_ws();
            match p.peek() {
                Some(b',') => {
                    p.pos += 1;
                    if p.pos >= self.stop {
                        if p.pos == self.stop {
                            self.stopped = true;
                            break;
                        }
                        // Passed inside an element: not a place to stop.
                        self.stop = usize::MAX;
                    }
                    if p.pos - start >= bytes {
                        break;
                    }
                }
                Some(b']') => {
                    p.pos += 1;
                    self.done = true;
                    p.expect_end()?;
                    break;
                }
                _ => {
                    return Err(p.unexpected("expected ',' or ']' after an array element", p.pos));
                }
            }
        }
        p.b.end_array(mark, n);
        self.pos = p.pos;
        let (b, scratch) = p.into_parts();
        self.scratch = scratch;
        Ok(Some(b.finish_window()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{parse, to_string_compact};

    /// The windows' rows, concatenated, as compact JSON; or the first error's text.
    fn windowed(src: &[u8], bytes: usize) -> std::result::Result<String, String> {
        let opts = ParseOptions::new().max_depth(4);
        let Some(mut w) = RowWindows::new(src, &opts).map_err(|e| e.to_string())? else {
            return Ok("not an array".into());
        };
        let mut rows = Vec::new();
        let mut last = None;
        while let Some(doc) = w
            .next_window(last.take(), bytes, false)
            .map_err(|e| e.to_string())?
        {
            let arr = doc.root().as_array().expect("a window is an array");
            assert!(!arr.is_empty(), "a window holds at least one row");
            rows.extend(arr.iter().map(to_string_compact));
            last = Some(doc);
        }
        assert_eq!(w.rows(), rows.len());
        Ok(format!("[{}]", rows.join(",")))
    }

    fn whole(src: &[u8]) -> std::result::Result<String, String> {
        match parse(src, &ParseOptions::new().max_depth(4)) {
            Ok(doc) if doc.root().as_array().is_some() => Ok(to_string_compact(doc.root())),
            Ok(_) => Ok("not an array".into()),
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn windows_equal_the_whole_parse_values_and_errors() {
        let cases: &[&[u8]] = &[
            b"[]",
            b" [ ] \n",
            b"[1]",
            b"[1,2,3,4,5,6,7]",
            br#"[{"a":1,"b":"x\"y"},{"a":2,"b":"\u00e9"},{"b":3,"a":[1,{"c":null}]}]"#,
            b"[1,2,[3,[4,[5]]]]",
            b"[1,2,[3,[4,[5,[6]]]]]",
            b"[1,2,]",
            b"[1,2",
            b"[1,2 3]",
            b"[1,2]x",
            b"[1,2] ]",
            b"[1,\"\xff\"]",
            br#"[{"a":1,"a":2},{"k":"<tool_error>"}]"#,
            b"{\"a\":1}",
            b"7",
            b"",
            b"[",
            b"[[[[[1]]]]]",
        ];
        for src in cases {
            for bytes in [1, 3, 8, 1 << 20] {
                assert_eq!(
                    windowed(src, bytes),
                    whole(src),
                    "{:?} in windows of {bytes} bytes",
                    String::from_utf8_lossy(src)
                );
            }
        }
    }

    /// All rows of `w`, one window each, as compact JSON texts.
    fn rest(w: &mut RowWindows<'_, '_>, repeat: bool) -> Vec<String> {
        let mut rows = Vec::new();
        while let Some(doc) = w.next_window(None, 1, repeat).unwrap() {
            rows.extend(doc.root().as_array().unwrap().iter().map(to_string_compact));
        }
        rows
    }

    #[test]
    fn a_reading_stops_only_at_an_element_start_and_the_rest_resumes_there() {
        let src = br#"[{"k":1}, {"a":[2,3]} ,4,5]"#;
        let opts = ParseOptions::new();
        // Just past the comma after `{"a":[2,3]} `: an element starts there.
        let at = src.iter().rposition(|&b| b == b'4').unwrap();
        let mut w = RowWindows::new(src, &opts).unwrap().unwrap();
        w.stop_at(at);
        assert_eq!(rest(&mut w, false), [r#"{"k":1}"#, r#"{"a":[2,3]}"#]);
        assert!(w.stopped() && !w.done());
        let mut tail = RowWindows::resume_at(src, &opts, at, w.first());
        assert_eq!(
            rest(&mut tail, true),
            [r#"{"k":1}"#, "4", r#"{"k":1}"#, "5"]
        );
        assert_eq!(tail.rows(), 2, "repeated first rows are not counted");
        // Inside the nested array (just past `2,`): the reading passes it and goes on.
        let inside = src.iter().position(|&b| b == b'3').unwrap();
        let mut w = RowWindows::new(src, &opts).unwrap().unwrap();
        w.stop_at(inside);
        assert_eq!(rest(&mut w, false).len(), 4);
        assert!(!w.stopped() && w.done());
    }

    #[test]
    fn repeat_first_prepends_the_first_row_and_flags_carry_per_window() {
        let src = br#"[{"a":1},{"a":"<tool_error>"},{"a":3}]"#;
        let opts = ParseOptions::new();
        let mut w = RowWindows::new(src, &opts).unwrap().unwrap();
        let first = w.next_window(None, 1, false).unwrap().unwrap();
        assert_eq!(to_string_compact(first.root()), r#"[{"a":1}]"#);
        assert!(!first.has_reserved_tag());
        let second = w.next_window(Some(first), 1, true).unwrap().unwrap();
        assert_eq!(
            to_string_compact(second.root()),
            r#"[{"a":1},{"a":"\u003ctool_error>"}]"#
        );
        assert!(second.has_reserved_tag());
        let third = w.next_window(Some(second), 1, true).unwrap().unwrap();
        assert_eq!(to_string_compact(third.root()), r#"[{"a":1},{"a":3}]"#);
        assert!(
            !third.has_reserved_tag(),
            "a recycled window starts with clean flags"
        );
        assert!(w.next_window(Some(third), 1, true).unwrap().is_none());
        assert_eq!(w.rows(), 3);
    }
}
