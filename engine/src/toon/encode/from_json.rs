//! TOON text from JSON text without holding the document (`toon::encode_json`): a root array
//! over the plan's size is read window by window (`json/windows/`): first every byte
//! validated and the array's TOON form decided over all windows ([`ToonFacts`]), then the
//! windows encoded in order ([`write_windows`], with `root_windows.rs`): each run of windows
//! the first reading kept one after the other (their tapes fit in the budget) spread over the
//! pool, every other window as it is parsed again. Anything else is parsed whole.

use super::{
    EncodeOptions, RootAnalysis, RootForm, Sink, encode, write_kept_windows, write_root_header,
    write_root_window,
};
use crate::doc::Doc;
use crate::error::{Error, Result};
use crate::json::{
    Facts, Kept, ParseOptions, Reading, WindowPlan, first_reading, parse, second_reading,
};

/// The TOON facts of a first reading: the first error of `toon::check`, in window order, and
/// the array's form over every window.
#[derive(Debug)]
pub(crate) struct ToonFacts<'o> {
    opts: &'o EncodeOptions,
    error: Option<Error>,
    analysis: RootAnalysis,
}

impl<'o> ToonFacts<'o> {
    /// Facts of the array from its first row (`continuing`: of a later part of it, read on
    /// another thread, whose windows repeat the first row).
    pub(crate) fn new(opts: &'o EncodeOptions, continuing: bool) -> ToonFacts<'o> {
        ToonFacts {
            opts,
            error: None,
            analysis: if continuing {
                RootAnalysis::continuing()
            } else {
                RootAnalysis::new()
            },
        }
    }

    /// The form of the rows added so far, `None` after an error.
    pub(crate) fn form_so_far(&self) -> Option<RootForm> {
        match self.error {
            Some(_) => None,
            None => Some(self.analysis.clone().form()),
        }
    }

    /// The array's form, or the first error `toon::check` found.
    pub(crate) fn form(self) -> Result<RootForm> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.analysis.form()),
        }
    }
}

impl Facts for ToonFacts<'_> {
    fn add(&mut self, doc: &Doc<'_>) {
        if self.error.is_some() {
            return;
        }
        match super::check(doc.root(), self.opts) {
            Ok(()) => {
                if let Some(arr) = doc.root().as_array() {
                    self.analysis.add(arr, self.opts);
                }
            }
            Err(e) => self.error = Some(e),
        }
    }

    fn then(self, later: Self) -> Self {
        ToonFacts {
            opts: self.opts,
            error: self.error.or(later.error),
            analysis: self.analysis.then(later.analysis),
        }
    }
}

/// The second reading: the TOON of the root array `src` in `form` (decided by the first
/// reading with `plan` over its `rows` rows), encoded a run of kept windows or a window
/// parsed again at a time.
pub(crate) fn write_windows<W: Sink + ?Sized>(
    src: &[u8],
    kept: Option<&Kept<'_>>,
    plan: &WindowPlan,
    form: &RootForm,
    rows: usize,
    opts: &EncodeOptions,
    out: &mut W,
) {
    write_root_header(form, rows, opts, out);
    let mut written = 0;
    second_reading(src, kept, plan, out, |run, out| {
        // A run of kept windows is spread over the pool; a window parsed again, or a run too
        // short for the pool, is written on this thread.
        if run.len() > 1 && write_kept_windows(form, run, opts, out) {
            written += run
                .iter()
                .map(|(arr, skip, _)| arr.len() - skip)
                .sum::<usize>();
            return;
        }
        for &(arr, skip, _) in run {
            write_root_window(form, arr, skip, written, opts, out);
            written += arr.len() - skip;
        }
    });
}

/// `toon::encode_json`: JSON text to TOON text, read as `plan` says.
///
/// # Errors
///
/// Those of [`parse`], then those of [`super::check`]; nothing is written then.
pub(crate) fn encode_json<W: Sink + ?Sized>(
    json: &[u8],
    opts: &EncodeOptions,
    plan: &WindowPlan,
    out: &mut W,
) -> Result<()> {
    if plan.windowed(json.len()) {
        let facts = (ToonFacts::new(opts, false), ToonFacts::new(opts, true));
        if let Some(Reading { facts, rows, kept }) =
            first_reading(json, plan, true, facts.0, facts.1)?
        {
            let form = facts.form().map_err(|e| at_surrogate(e, json))?;
            write_windows(json, kept.as_ref(), plan, &form, rows, opts, out);
            return Ok(());
        }
    }
    let doc = parse(json, &ParseOptions::default())?;
    encode(doc.root(), opts, out).map_err(|e| at_surrogate(e, json))
}

/// The encoder's lone-surrogate error (it has no position: the string was decoded from its
/// escapes) placed at the opening quote of the first string of the JSON text `json` that
/// escapes a lone surrogate. Other errors pass unchanged.
#[cold]
fn at_surrogate(e: Error, json: &[u8]) -> Error {
    if e.classify() != crate::Category::Encode
        || e.position().is_some()
        || !e.message().contains("lone surrogate")
    {
        return e;
    }
    match first_lone_surrogate_string(json) {
        Some(at) => Error::at(e.classify(), e.message().to_owned(), json, at),
        None => e,
    }
}

/// The offset of the opening quote of the first string (or key) of valid JSON text `json`
/// whose `\uXXXX` escapes leave a surrogate unpaired.
fn first_lone_surrogate_string(json: &[u8]) -> Option<usize> {
    let hex4 = |at: usize| -> Option<u16> {
        let h = json.get(at..at + 4)?;
        u16::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    };
    let mut i = 0;
    while let Some(q) = memchr::memchr(b'"', &json[i..]) {
        let open = i + q;
        let mut j = open + 1;
        // A high surrogate escape waiting for its low half.
        let mut pending_high = false;
        let mut lone = false;
        while j < json.len() && json[j] != b'"' {
            if json[j] != b'\\' {
                lone |= pending_high;
                pending_high = false;
                j += 1;
                continue;
            }
            if json.get(j + 1) == Some(&b'u') {
                let u = hex4(j + 2).unwrap_or(0);
                match u {
                    0xD800..=0xDBFF => {
                        lone |= pending_high;
                        pending_high = true;
                    }
                    0xDC00..=0xDFFF => {
                        lone |= !pending_high;
                        pending_high = false;
                    }
                    _ => {
                        lone |= pending_high;
                        pending_high = false;
                    }
                }
                j += 6;
            } else {
                lone |= pending_high;
                pending_high = false;
                j += 2;
            }
        }
        if lone || pending_high {
            return Some(open);
        }
        i = j + 1;
        if i >= json.len() {
            break;
        }
    }
    None
}
