//! Serving a large collection through the front door: a page that stands for more rows than
//! it holds, the directive naming the next page, and the message cap that cuts a response to
//! whole rows before its first byte.
//!
//! ```
//! use toolwire::call::{Input, Framing, ToolCall};
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
//! let framing = Framing::Frame { id: Id::Number("7".into()), protocol: Protocol::default() };
//! let reply = call.respond_within(&input, &framing, 1 << 20)?;
//! let texts = reply.response().texts();
//! assert_eq!(texts[0], "[2]{id}:\n  2\n  3");
//! assert!(texts[1].contains("2 shown, 1 hidden"));
//! assert!(texts[2].contains("2 of 3 shown; next offset 3"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{Framing, Input, InputKind, Problem, Reply, ToolCall};
use crate::doc::{Doc, DocBuilder, Value};
use crate::error::{Category, Error, Result};
use crate::frame::{self, Id};
use crate::sink::{CountingSink, Sink};
use crate::wire::{Structured, ToolError, ToolResponse};

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

    /// A page of a larger collection that is a document of its own (its root array holds the
    /// page's rows, e.g. a page a database wrote as JSON), standing for `total` items:
    /// [`Input::page`] without copying the rows' nodes.
    pub fn page_of(doc: Doc<'d>, total: usize) -> Input<'d> {
        let n = doc.root().as_array().map_or(0, |a| a.len());
        Input(InputKind::Page {
            doc,
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

    /// [`ToolCall::respond`], cut so that its message written in `framing` is at most `cap`
    /// bytes: [`ToolCall::respond_fitted`] with a cap and no token budget.
    ///
    /// # Errors
    ///
    /// As [`ToolCall::respond_fitted`].
    pub fn respond_within<'d>(
        &self,
        input: &'d Input<'_>,
        framing: &Framing,
        cap: usize,
    ) -> Result<Reply<'d>> {
        self.respond_fitted(
            input,
            framing,
            Fit {
                cap: Some(cap),
                tokens: None,
            },
        )
    }

    /// [`ToolCall::respond`], cut so that it fits `fit`: its message written in `framing` at
    /// most `fit.cap` bytes, and the text of its content (every block, as the client
    /// receives it) at most `fit.tokens` tokens ([`Fit`]). A collection keeps the largest
    /// number of whole items that fits both (with the truncation notice and
    /// [`ToolCall::paging`]'s directive counting them); anything else that does not fit, or
    /// a collection whose first item alone does not, is a `<tool_error code="TOO_LARGE">`
    /// ([`Problem::TooLarge`], [`Problem::TooManyTokens`]). Decided before the first byte.
    ///
    /// # Errors
    ///
    /// As [`ToolCall::respond`]; and an error of category `Io` when the
    /// [`ToolCall::cancel_flag`] was set (nothing is to be written then).
    pub fn respond_fitted<'d>(
        &self,
        input: &'d Input<'_>,
        framing: &Framing,
        fit: Fit,
    ) -> Result<Reply<'d>> {
        let full = self.respond_bounded(input, true)?;
        if fit.cap.is_none() && fit.tokens.is_none() {
            return Ok(full);
        }
        // The cheap bound (a walk over the data, no encoding) answers most calls; it also
        // places the first probe when the message does not fit.
        let over = match fit.measure(&full, framing, true) {
            Measure::Fits(_) => return Ok(full),
            Measure::Over(over) => over,
        };
        // An error response (a bad `_select`, output validation) is not cut: a short
        // TOO_LARGE stands in for it, saying what it is.
        if full.is_error() {
            let response = fit.fit_response(full.response, framing);
            return Ok(Reply {
                response,
                problem: full.problem,
                select_ignored: full.select_ignored,
                item_over: false,
            });
        }
        let shown = match full.response.items() {
            // One item, not a collection: nothing can be cut.
            None => return Ok(self.too_large(fit, over)),
            // No item to drop: the other blocks are over.
            Some(0) => return Ok(self.too_large_without_items(fit, over)),
            Some(n) => n,
        };
        // `lo` items fit (using `lo_use` of the limits; none known yet: `best` is `None`),
        // `hi` do not. The first probe is where the full response's estimated use puts the
        // limits (under them, as the estimates are over the truth); then the use per item
        // of the largest fit so far guesses the next, and a guess that misses is followed
        // by a bisection, so the probes stay logarithmic even when items differ wildly.
        let (mut lo, mut lo_use, mut hi) = (0usize, 0f64, shown);
        let mut best: Option<Reply<'d>> = None;
        let mut guess = (shown as f64 / over.usage.max(1.0)) as usize;
        let mut bisect = false;
        let mut last_over = over;
        while hi - lo > 1 || best.is_none() {
            if self.cancelled() {
                return Err(Error::new(Category::Io, "the call was cancelled"));
            }
            let k = guess.clamp(lo + usize::from(best.is_some()), hi - 1);
            let reply = self.clone().limit(k).respond(input)?;
            let missed = match fit.measure(&reply, framing, false) {
                Measure::Fits(used) => {
                    (lo, lo_use) = (k, used);
                    best = Some(reply);
                    false
                }
                // Not even the response without items: its other blocks are too large.
                Measure::Over(o) if k == 0 => return Ok(self.too_large_without_items(fit, o)),
                Measure::Over(o) => {
                    hi = k;
                    last_over = o;
                    true
                }
            };
            guess = if bisect || lo == 0 {
                lo + (hi - lo) / 2
            } else {
                (lo as f64 / lo_use.max(f64::MIN_POSITIVE)) as usize
            };
            bisect = missed && !bisect;
        }
        match best {
            Some(r) if lo > 0 => Ok(r),
            // Not even one whole item fits.
            _ => Ok(self.too_large(fit, last_over)),
        }
    }

    fn too_large(&self, fit: Fit, over: Over) -> Reply<'static> {
        let what = self.presenter.as_ref().map_or("item", |p| p.name());
        let (limit, problem) = fit.describe(over);
        let mut reply = self.too_large_reply(
            problem,
            format!("One {what} alone is larger than {limit}."),
            "Call again with _select naming fewer fields, or a more compact format.",
        );
        reply.item_over = true;
        reply
    }

    /// The response holding none of its items is over the limits: its other blocks (rules,
    /// UI, the next-call directive, which repeats the call's arguments) are.
    fn too_large_without_items(&self, fit: Fit, over: Over) -> Reply<'static> {
        let (limit, problem) = fit.describe(over);
        self.too_large_reply(
            problem,
            format!(
                "The response's other blocks (rules, UI, the next-call directive with this call's arguments) are larger than {limit} without any item."
            ),
            "Call again with shorter arguments (a shorter where value, fewer _select fields).",
        )
    }

    fn too_large_reply(&self, problem: Problem, message: String, recovery: &str) -> Reply<'static> {
        let response = ToolError::new("TOO_LARGE")
            .message(message)
            .recovery(recovery)
            .into_response();
        Reply {
            response,
            problem: Some(problem),
            select_ignored: false,
            item_over: false,
        }
    }
}

/// What a response must fit in ([`ToolCall::respond_fitted`]): `None` is no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fit {
    /// The message written in its framing, in bytes.
    pub cap: Option<usize>,
    /// The text of the content, every block as the client receives it, in tokens: counted
    /// with `o200k_base` (`tokens::count_bound`, never under
    /// tiktoken's count) with feature `tokenizer`, else in bytes (never under any byte-level
    /// tokenizer's count).
    pub tokens: Option<usize>,
}

/// How far a response is over a [`Fit`].
#[derive(Clone, Copy, Debug)]
struct Over {
    /// Over the token budget (else over the cap).
    tokens: bool,
    /// An estimate of the response's use of the limits (over 1), at or above the truth
    /// when it comes from the cheap bound; 1 when unknown.
    usage: f64,
}

enum Measure {
    /// Fits, using this fraction of the tighter limit.
    Fits(f64),
    Over(Over),
}

impl Fit {
    /// `response` (an error response a caller built itself: a validation error, not found)
    /// when it fits in `framing`, else a short `<tool_error code="TOO_LARGE">` saying that the
    /// error is over the limits (which fits any cap of 4096 bytes and budget of 500 tokens
    /// or more).
    pub fn fit_response<'d>(
        &self,
        response: ToolResponse<'d>,
        framing: &Framing,
    ) -> ToolResponse<'d> {
        let reply = Reply {
            response,
            problem: None,
            select_ignored: false,
            item_over: false,
        };
        match self.measure(&reply, framing, false) {
            Measure::Fits(_) => reply.response,
            Measure::Over(over) => {
                let (limit, _) = self.describe(over);
                ToolError::new("TOO_LARGE")
                    .message(format!(
                        "The error response to this call is larger than {limit}."
                    ))
                    .recovery("Call again with fewer or shorter arguments.")
                    .into_response()
            }
        }
    }

    /// Whether `reply` written in `framing` fits, and how much of the limits it uses. With
    /// `estimate`, an over response's use is estimated (for the first probe).
    fn measure(&self, reply: &Reply<'_>, framing: &Framing, estimate: bool) -> Measure {
        let mut used = 0f64;
        if let Some(cap) = self.cap {
            let bound = frame::framed_len_bound(framing_id(framing), &reply.response);
            let len = if bound <= cap {
                Some(bound)
            } else {
                counted(reply, framing, cap)
            };
            match len {
                Some(len) => used = used.max(len as f64 / cap.max(1) as f64),
                None => {
                    return Measure::Over(Over {
                        tokens: false,
                        usage: if estimate {
                            bound as f64 / cap.max(1) as f64
                        } else {
                            1.0
                        },
                    });
                }
            }
        }
        if let Some(budget) = self.tokens {
            match content_tokens_within(&reply.response, budget) {
                Ok(n) => used = used.max(n as f64 / budget.max(1) as f64),
                Err(usage) => {
                    return Measure::Over(Over {
                        tokens: true,
                        usage,
                    });
                }
            }
        }
        Measure::Fits(used)
    }

    /// The limit `over` passed, in words, and its [`Problem`].
    fn describe(&self, over: Over) -> (String, Problem) {
        let problem = match (over.tokens, self.tokens, self.cap) {
            (true, Some(budget), _) | (_, Some(budget), None) => Problem::TooManyTokens { budget },
            (_, _, Some(cap)) => Problem::TooLarge { cap },
            (_, None, None) => return ("the limits".into(), Problem::TooLarge { cap: 0 }),
        };
        (problem.limit().unwrap_or_default(), problem)
    }
}

/// The tokens of `response`'s content when at most `budget` (`Ok`), else `Err` with an
/// estimate of its use of the budget (over 1). A content whose bytes are within the budget
/// needs no tokenizer: a token is at least one byte (then the bytes are returned, a bound
/// of the tokens).
fn content_tokens_within(
    response: &ToolResponse<'_>,
    budget: usize,
) -> std::result::Result<usize, f64> {
    let blocks = response.block_count();
    let bound: usize = (0..blocks).map(|i| response.block_len_bound(i)).sum();
    if bound <= budget {
        return Ok(bound);
    }
    // The bound is loose (it allows for every escape); the exact bytes, counted only up to
    // the budget, spare most pages the tokenizer (a 50-row TOON page: 9 KB of text).
    let mut counter = CountingSink::up_to(budget);
    for i in 0..blocks {
        response.write_block(i, &mut counter);
        if counter.written() > budget {
            break;
        }
    }
    if counter.written() <= budget {
        return Ok(counter.written());
    }
    let mut total = 0usize;
    for i in 0..blocks {
        let left = budget - total;
        // Enough of the block to pass what is left, whatever its tokens: a token is at
        // least one byte, and runs count one token a byte at most; a prefix long enough to
        // hold `left` tokens of any text is read, not the whole block.
        let (text, whole) = block_prefix(response, i, left.saturating_mul(16).max(1 << 20));
        match count_within(&text, left) {
            Ok(n) if whole => total += n,
            // The prefix fits but the block goes on: count the whole block.
            Ok(_) => match count_within(&response.block_text(i), left) {
                Ok(n) => total += n,
                Err(_) => return Err(1.0),
            },
            Err(read) => {
                let block_len = response.block_len_bound(i).max(text.len());
                // The block's tokens estimated from the part read, plus the blocks before.
                let est = (total as f64 + left as f64 * block_len as f64 / read.max(1) as f64)
                    / budget.max(1) as f64;
                return Err(est.max(1.0));
            }
        }
    }
    Ok(total)
}

/// At most about `max` bytes of block `i`'s text, and whether that is all of it.
fn block_prefix(response: &ToolResponse<'_>, i: usize, max: usize) -> (String, bool) {
    let mut text = Vec::new();
    let mut sink = crate::sink::ChunkedSink::new(64 << 10, |chunk: bytes::Bytes| {
        text.extend_from_slice(&chunk);
        text.len() < max
    });
    response.write_block(i, &mut sink);
    let whole = sink.finish();
    // A cut may fall inside a character: keep the valid prefix.
    let valid = match std::str::from_utf8(&text) {
        Ok(_) => text.len(),
        Err(e) => e.valid_up_to(),
    };
    text.truncate(valid);
    (String::from_utf8(text).unwrap_or_default(), whole)
}

/// The tokens of `text` when at most `limit`, else `Err(bytes read)`.
#[cfg(feature = "tokenizer")]
fn count_within(text: &str, limit: usize) -> std::result::Result<usize, usize> {
    crate::tokens::count_bound_within(crate::tokens::Vocabulary::O200k, text, limit)
}

/// Without a tokenizer, tokens are bounded by bytes.
#[cfg(not(feature = "tokenizer"))]
fn count_within(text: &str, limit: usize) -> std::result::Result<usize, usize> {
    if text.len() <= limit {
        Ok(text.len())
    } else {
        Err(limit + 1)
    }
}

/// The id a message in `framing` carries, for the cheap bound (`0` outside a frame: the bound
/// of a frame is over the bare result's and the blocks' lengths too).
fn framing_id(framing: &Framing) -> &Id {
    static ZERO: std::sync::LazyLock<Id> = std::sync::LazyLock::new(|| Id::Number("0".into()));
    match framing {
        Framing::Frame { id, .. } => id,
        _ => &ZERO,
    }
}

/// The length of `reply` written in `framing` when it is at most `cap` (`None`: over it),
/// counted by writing it into a counting sink that stops the encoders once past the cap.
/// (Probes near the cap skip the cheap bound: it is over the truth, so there it would
/// rarely decide.)
fn counted(reply: &Reply<'_>, framing: &Framing, cap: usize) -> Option<usize> {
    let mut counter = CountingSink::up_to(cap);
    reply.write(framing, &mut counter);
    Some(counter.written()).filter(|&n| n <= cap)
}
