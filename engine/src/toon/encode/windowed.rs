//! [`WindowedEncoder`]: a root array's TOON written while its rows are still being made, a
//! window at a time (a binding walking its language's objects on the thread that may touch
//! them, this encoder on another), with `root_windows.rs`' analysis and writers.
//!
//! The array's form is decided over every window, which the last window settles; the text is
//! written ahead in the form the first window shows (with the row count the caller declared),
//! which is the array's form unless a later row breaks it. At the end, a form or count that
//! came out otherwise rewrites the text from the windows, kept for that; so the result is
//! always exactly what [`encode`](super::encode) writes for the whole array.

use super::{
    EncodeOptions, RootForm, ToonFacts, write_kept_windows, write_root_header, write_root_window,
};
use crate::doc::{Array, Doc};
use crate::error::Result;
use crate::json::Facts;

/// The most room [`WindowedEncoder`] makes for the text ahead of its rows.
const RESERVE_MAX: usize = 1 << 30;

/// The TOON of a root array given a window of rows at a time, written as the windows come:
/// exactly what [`encode`](super::encode) writes for the array of all their rows, with its
/// errors (those of [`check`](super::check), the first in window order).
///
/// Each window is a document whose root is an array of rows: the first window's rows as they
/// are (at least the array's first row, unless the array is empty), every later window with
/// the array's first row in front of it (repeated, to compare its rows with it; not written
/// again).
///
/// ```
/// use toolwire::json::{parse, ParseOptions};
/// use toolwire::toon::{EncodeOptions, WindowedEncoder};
///
/// let opts = EncodeOptions::new();
/// let mut rows = WindowedEncoder::new(3, &opts);
/// rows.push(parse(br#"[{"id":1,"ok":true},{"id":2,"ok":false}]"#, &ParseOptions::default())?);
/// rows.push(parse(br#"[{"id":1,"ok":true},{"id":3,"ok":true}]"#, &ParseOptions::default())?);
/// assert_eq!(rows.finish()?, b"[3]{id,ok}:\n  1,true\n  2,false\n  3,true");
/// # Ok::<(), toolwire::Error>(())
/// ```
#[derive(Debug)]
pub struct WindowedEncoder<'o> {
    opts: &'o EncodeOptions,
    facts: ToonFacts<'o>,
    /// The row count the header written ahead says.
    declared: usize,
    /// The form the text is written in so far; `None` before the first window, and once a
    /// window broke it (the text is then rewritten at the end).
    ahead: Option<RootForm>,
    /// How many rows the text holds.
    written: usize,
    out: Vec<u8>,
    windows: Vec<Doc<'static>>,
}

impl<'o> WindowedEncoder<'o> {
    /// The TOON of a root array of (most likely) `rows` rows, encoded with `opts`.
    pub fn new(rows: usize, opts: &'o EncodeOptions) -> WindowedEncoder<'o> {
        WindowedEncoder {
            opts,
            facts: ToonFacts::new(opts, false),
            declared: rows,
            ahead: None,
            written: 0,
            out: Vec::new(),
            windows: Vec::new(),
        }
    }

    /// Takes the next window (an array of rows, as the type's documentation says): checked,
    /// analysed, and written when its rows keep the form written so far.
    pub fn push(&mut self, window: Doc<'static>) {
        let first = self.windows.is_empty();
        self.facts.add(&window);
        if let Some(arr) = window.root().as_array() {
            self.write_ahead(arr, first);
        }
        self.windows.push(window);
    }

    fn write_ahead(&mut self, arr: Array<'_>, first: bool) {
        let Some(now) = self.facts.form_so_far() else {
            // An error: nothing more is written.
            self.ahead = None;
            return;
        };
        if first {
            let mut out = Vec::with_capacity(self.opts.indent * 4 + 64);
            write_root_header(&now, self.declared, self.opts, &mut out);
            self.out = out;
            self.ahead = Some(now.clone());
        }
        let Some(ahead) = &self.ahead else { return };
        if !same_form(ahead, &now) {
            self.ahead = None;
            return;
        }
        let skip = usize::from(!first).min(arr.len());
        // Written in the form as it is now: a table's `ordered` may have been cleared by this
        // window's rows, which then are written by field name.
        write_root_window(&now, arr, skip, self.written, self.opts, &mut self.out);
        self.written += arr.len() - skip;
        if first && !arr.is_empty() {
            // Room for the rows declared, at the first window's bytes a row (and an eighth
            // more), so the text is not copied as it grows; at most 1 GiB ahead.
            let per_row = self.out.len() / arr.len() + 1;
            let rest = self.declared.saturating_sub(arr.len());
            crate::sink::reserve_output(
                &mut self.out,
                (per_row.saturating_mul(rest) / 8 * 9).min(RESERVE_MAX),
            );
        }
    }

    /// The TOON text of the whole array.
    ///
    /// # Errors
    ///
    /// Those of [`check`](super::check) for the array of all the windows' rows.
    pub fn finish(self) -> Result<Vec<u8>> {
        self.finish_keeping().0
    }

    /// [`WindowedEncoder::finish`], and the windows it was given, in order: for a caller
    /// that keeps what it encoded (a binding's side door presents it again).
    pub fn finish_keeping(self) -> (Result<Vec<u8>>, Vec<Doc<'static>>) {
        let WindowedEncoder {
            opts,
            facts,
            ahead,
            written,
            declared,
            mut out,
            windows,
        } = self;
        let text = (|| {
            let form = facts.form()?;
            if ahead.is_some_and(|a| same_form(&a, &form)) && written == declared {
                return Ok(out);
            }
            out.clear();
            let arrays: Vec<(Array<'_>, usize, usize)> = windows
                .iter()
                .enumerate()
                .filter_map(|(i, d)| {
                    let arr = d.root().as_array()?;
                    let skip = usize::from(i > 0).min(arr.len());
                    Some((arr, skip, d.heap_len() + d.src().len()))
                })
                .collect();
            let rows = arrays.iter().map(|(a, skip, _)| a.len() - skip).sum();
            write_root_header(&form, rows, opts, &mut out);
            if !write_kept_windows(&form, &arrays, opts, &mut out) {
                let mut written = 0;
                for (arr, skip, _) in arrays {
                    write_root_window(&form, arr, skip, written, opts, &mut out);
                    written += arr.len() - skip;
                }
            }
            Ok(out)
        })();
        (text, windows)
    }
}

/// Whether text written in form `a` is text of form `b` (a table's `ordered` only says how
/// its rows are read).
fn same_form(a: &RootForm, b: &RootForm) -> bool {
    match (a, b) {
        (RootForm::Table(a), RootForm::Table(b)) => a.fields == b.fields,
        (RootForm::Empty, RootForm::Empty)
        | (RootForm::Inline, RootForm::Inline)
        | (RootForm::List, RootForm::List) => true,
        _ => false,
    }
}
