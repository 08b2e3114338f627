//! Serving a large collection through the front door: a page that stands for more rows than
//! it holds, the directive naming the next page, and the message cap that cuts a response to
//! whole rows before its first byte.
//!
//! ```
//! use toolwire::call::{Input, Shape, ToolCall};
//! use toolwire::frame::{Id, Protocol};
//! use toolwire::present::Presenter;
//!
//! let rows = toolwire::json::parse(br#"[{"id":1},{"id":2},{"id":3},{"id":4}]"#, &Default::default())?;
//! let all: Vec<_> = rows.root().as_array().unwrap().iter().collect();
//! let presenter = Presenter::from_json(br#"{"name": "Row", "limit": 2, "format": "toon-comma"}"#)?;
//! // Rows 2.. of the collection: the page holds them, the notice counts them all.
//! let call = ToolCall::new()
//!     .presenter(&presenter)
//!     .paging(|shown, total| format!("{shown} of {total} shown; next offset {}", 1 + shown));
//! let input = Input::page(all[1..].iter().copied(), 3);
//! let shape = Shape::Frame { id: Id::Number("7".into()), protocol: Protocol::default() };
//! let reply = call.respond_within(&input, &shape, 1 << 20)?;
//! let texts = reply.response().texts();
//! assert_eq!(texts[0], "[2]{id}:\n  2\n  3");
//! assert!(texts[1].contains("2 shown, 1 hidden"));
//! assert!(texts[2].contains("2 of 3 shown; next offset 3"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{Input, InputKind, Problem, Reply, Shape, ToolCall};
use crate::doc::{DocBuilder, Value};
use crate::error::{Category, Error, Result};
use crate::frame::{self, Id};
use crate::sink::{CountingSink, Sink};
use crate::wire::{Structured, ToolError};

/// The directive of a call whose response shows fewer items than its data holds:
/// `(shown, total)` → the text (SERVE.md §2: the exact next call).
#[derive(Clone)]
pub(super) struct Paging(Arc<dyn Fn(usize, usize) -> String + Send + Sync>);

impl std::fmt::Debug for Paging {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Paging(..)")
    }
}

impl<'d> Input<'d> {
    /// A page of a larger collection: `rows` (values of one document, in order — the rows a
    /// filter kept from an offset on), standing for `total` items (at least the rows given).
    /// The presenter's `limit` and budgets apply to the rows; `{count}`, the truncation
    /// notice and [`ToolCall::paging`] count `total`.
    ///
    /// Only the page's nodes are copied; its strings stay in the source document's input.
    pub fn page<I: IntoIterator<Item = Value<'d>>>(rows: I, total: usize) -> Input<'d> {
        let mut rows = rows.into_iter().peekable();
        let src = rows.peek().map_or(&b""[..], |v| v.doc().src());
        let (lo, _) = rows.size_hint();
        let mut b = DocBuilder::with_capacity(src, 1 + lo * 16, 0);
        let m = b.begin_array();
        let mut n = 0;
        for r in rows {
            // A row of a document flagged for reserved tags or lone surrogates is rescanned
            // (the flags are the page's own); any other is copied node for node.
            if r.doc().has_reserved_tag() || r.doc().has_lone_surrogate() {
                b.copy_value(r);
            } else {
                b.copy_from(r.doc(), r.index());
            }
            n += 1;
        }
        b.end_array(m, n);
        Input(InputKind::Page {
            doc: b.finish(),
            total: total.max(n),
        })
    }

    /// The number of items the input stands for, when it is a collection.
    pub(super) fn total(&self) -> Option<usize> {
        match &self.0 {
            InputKind::Page { total, .. } => Some(*total),
            InputKind::Doc(d) => d.root().as_array().map(|a| a.len()),
            InputKind::Value(v) => v.as_array().map(|a| a.len()),
            InputKind::Json(..) | InputKind::Nothing => None,
        }
    }
}

impl ToolCall {
    /// When the response shows fewer items than the data holds, `next(shown, total)` becomes
    /// one more directive of its `<llm_directives>` block: the call that gets the rest.
    pub fn paging(mut self, next: impl Fn(usize, usize) -> String + Send + Sync + 'static) -> Self {
        self.paging = Some(Paging(Arc::new(next)));
        self
    }

    /// The data of a success response also travels as `structuredContent`
    /// `{"items": [...]}`: the rows of the data block after redaction and `_select` (an item
    /// as a list of one), matching [`Presenter::output_schema`](crate::present::Presenter::output_schema).
    pub fn structured(mut self, on: bool) -> Self {
        self.structured = on;
        self
    }

    /// [`ToolCall::respond_within`] stops between its probes once `flag` is set (the client
    /// went away), with an error instead of a reply.
    pub fn cancel_flag(mut self, flag: Arc<AtomicBool>) -> Self {
        self.cancel = Some(flag);
        self
    }

    fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// The paging directive and `structuredContent` of a presented response.
    pub(super) fn finish_response(&self, input: &Input<'_>, reply: &mut Reply<'_>) {
        if reply.is_error() {
            return;
        }
        if self.structured {
            reply.response.set_structured(Some(Structured::Items));
        }
        if let (Some(p), Some(total), Some(shown)) =
            (&self.paging, input.total(), reply.response.items())
        {
            if shown < total {
                reply.response.push_hint((p.0)(shown, total));
            }
        }
    }

    /// [`ToolCall::respond`], cut so that its message written in `shape` is at most `cap`
    /// bytes: a collection keeps the largest number of whole items that fits (with the
    /// truncation notice and [`ToolCall::paging`]'s directive counting them); anything else
    /// that does not fit, or a collection whose first item alone does not, is a
    /// `<tool_error code="TOO_LARGE">` ([`Problem::TooLarge`]). Decided before the first byte.
    ///
    /// # Errors
    ///
    /// As [`ToolCall::respond`]; and an error of category `Io` when the
    /// [`ToolCall::cancel_flag`] was set (nothing is to be written then).
    pub fn respond_within<'d>(
        &self,
        input: &'d Input<'_>,
        shape: &Shape,
        cap: usize,
    ) -> Result<Reply<'d>> {
        let full = self.respond_bounded(input, true)?;
        // The cheap bound (a walk over the data, no encoding) answers most calls; it also
        // places the first probe when the message does not fit.
        let bound = frame::framed_len_bound(shape_id(shape), &full.response);
        if bound <= cap || counted(&full, shape, cap).is_some() {
            return Ok(full);
        }
        // Not a collection, an error, or no item to drop: nothing can be cut.
        let Some(shown) = full.response.items().filter(|&n| n > 0 && !full.is_error()) else {
            return Ok(self.too_large(cap));
        };
        // `lo` rows fit (`lo_len` bytes; none known yet: `best` is `None`), `hi` do not. The
        // first probe is where the cheap bound's bytes per row put the cap (under it, as the
        // bound is over the truth); then the bytes per row of the largest fit so far guess
        // the next, and a guess that misses is followed by a bisection, so the probes stay
        // logarithmic even when rows differ wildly in size.
        let bound = bound.max(cap + 1);
        let (mut lo, mut lo_len, mut hi) = (0usize, 0usize, shown);
        let mut best: Option<Reply<'d>> = None;
        let mut guess = ((shown as u128 * cap as u128) / bound as u128) as usize;
        let mut bisect = false;
        while hi - lo > 1 || best.is_none() {
            if self.cancelled() {
                return Err(Error::new(Category::Io, "the call was cancelled"));
            }
            let k = guess.clamp(lo + usize::from(best.is_some()), hi - 1);
            let reply = self.clone().limit(k).respond(input)?;
            let missed = match counted(&reply, shape, cap) {
                Some(len) => {
                    (lo, lo_len) = (k, len);
                    best = Some(reply);
                    false
                }
                // Not even the response without items: its other blocks are too large.
                None if k == 0 => return Ok(self.too_large_without_items(cap)),
                None => {
                    hi = k;
                    true
                }
            };
            guess = if bisect || lo == 0 {
                lo + (hi - lo) / 2
            } else {
                lo + (cap - lo_len) / lo_len.div_ceil(lo).max(1)
            };
            bisect = missed && !bisect;
        }
        match best {
            Some(r) if lo > 0 => Ok(r),
            // Not even one whole item fits.
            _ => Ok(self.too_large(cap)),
        }
    }

    fn too_large(&self, cap: usize) -> Reply<'static> {
        let what = self.presenter.as_ref().map_or("item", |p| p.name());
        self.too_large_reply(
            cap,
            format!("One {what} alone is larger than the message cap of {cap} bytes."),
            "Call again with _select naming fewer fields, or a more compact format.",
        )
    }

    /// The response holding none of its items is over the cap: its other blocks (rules, UI,
    /// the next-call directive, which repeats the call's arguments) are.
    fn too_large_without_items(&self, cap: usize) -> Reply<'static> {
        self.too_large_reply(
            cap,
            format!(
                "The response's other blocks (rules, UI, the next-call directive with this call's arguments) are larger than the message cap of {cap} bytes without any item."
            ),
            "Call again with shorter arguments (a shorter where value, fewer _select fields).",
        )
    }

    fn too_large_reply(&self, cap: usize, message: String, recovery: &str) -> Reply<'static> {
        let response = ToolError::new("TOO_LARGE")
            .message(message)
            .recovery(recovery)
            .into_response();
        Reply {
            response,
            problem: Some(Problem::TooLarge { cap }),
            select_ignored: false,
        }
    }
}

/// The id a message in `shape` carries, for the cheap bound (`0` outside a frame: the bound
/// of a frame is over the bare result's and the blocks' lengths too).
fn shape_id(shape: &Shape) -> &Id {
    static ZERO: std::sync::LazyLock<Id> = std::sync::LazyLock::new(|| Id::Number("0".into()));
    match shape {
        Shape::Frame { id, .. } => id,
        _ => &ZERO,
    }
}

/// The length of `reply` written in `shape` when it is at most `cap` (`None`: over it),
/// counted by writing it into a counting sink that stops the encoders once past the cap.
/// (Probes near the cap skip the cheap bound: it is over the truth, so there it would
/// rarely decide.)
fn counted(reply: &Reply<'_>, shape: &Shape, cap: usize) -> Option<usize> {
    let mut counter = CountingSink::up_to(cap);
    reply.write(shape, &mut counter);
    Some(counter.written()).filter(|&n| n <= cap)
}
