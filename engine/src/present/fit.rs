//! Stage 1 of WIRE.md §5 for a collection: the format `Auto` resolves to, and the rows that
//! fit `token_budget`.
//!
//! ## The budget
//!
//! The data block as it will be written (stripped, redacted, selected, in the final format)
//! never exceeds the budget by [`measure`]: with feature `tokenizer`, the `o200k_base` count
//! (`tokens::count_bound`, never below tiktoken's exact count); without it, the
//! block's length in bytes (a token is at least one byte, so the promise holds for any
//! tokenizer whose tokens are byte strings, at the price of keeping about a quarter of the
//! rows the tokenizer would allow).
//!
//! 1. Each row is costed on its own by [`measure`] (its text in the format, with the
//!    separator before it, only the root keys the schema lets through, so select pushdown
//!    cannot change the result), plus the array's brackets or header once; the candidate is
//!    the longest prefix whose costs fit. Costs are taken only as far as they are needed.
//! 2. The presentation of that many rows is built and its data block measured whole. Over
//!    budget: rows are dropped from the end until their costs cover the excess; under: rows
//!    are added while their costs fit in what is left. Repeat with the new count. Every step
//!    narrows the interval between the largest count known to fit and the smallest known not
//!    to; after [`MAX_JUMPS`] steps it is bisected. Row costs are nearly additive (only the
//!    pieces at row boundaries and the changed values of redaction differ), so one or two
//!    presentations are usual.
//!
//! The result is the largest count that was verified to fit (0 rows when even the empty
//! collection does not).

use super::{PresentError, Presenter};
use crate::doc::{Array, Value, ValueRef};
use crate::toon::{Delimiter, EncodeOptions};
use crate::wire::{Format, ToolResponse};

/// Jumps by row costs before the search bisects.
const MAX_JUMPS: usize = 6;

/// What the budget counts of `text`: `o200k_base` tokens (an upper bound of the exact count)
/// with feature `tokenizer`, else bytes.
pub fn measure(text: &[u8]) -> usize {
    #[cfg(feature = "tokenizer")]
    {
        match std::str::from_utf8(text) {
            Ok(t) => crate::tokens::count_bound(crate::tokens::Vocabulary::O200k, t),
            Err(_) => text.len(),
        }
    }
    #[cfg(not(feature = "tokenizer"))]
    {
        text.len()
    }
}

/// The format `Auto` resolves to for a collection under `p`: [`crate::wire::choose_auto`] on the
/// data as the block would show it (its first rows up to `max`, at most
/// [`crate::wire::AUTO_SAMPLE_ROWS`], stripped, redacted, selected), with TOON's fallback applied.
/// When those rows fail validation, the choice is made on the input rows (the presentation
/// that follows reports the problem if a kept row has it).
pub(crate) fn auto_format(
    p: &Presenter,
    data: Value<'_>,
    max: usize,
    select: Option<&[&str]>,
) -> Format {
    let sample = max.min(crate::wire::AUTO_SAMPLE_ROWS);
    match p.present_rows(data, select, sample, Format::Auto, None) {
        Ok(r) => r.meta().format,
        Err(_) => crate::wire::choose_auto(data),
    }
}

/// What [`fit_budget`] fits: at most `max` rows of a collection standing for `total` items
/// (`None`: its length), `budget` tokens of the data block in `format`.
pub(crate) struct Fit {
    pub(crate) max: usize,
    pub(crate) total: Option<usize>,
    pub(crate) budget: usize,
    pub(crate) format: Format,
}

/// The presentation of the first rows of `a` (at most `max`) whose data block fits `budget`
/// by [`measure`] in `format` (module docs).
pub(crate) fn fit_budget<'d>(
    p: &Presenter,
    data: Value<'d>,
    a: Array<'d>,
    fit: Fit,
    select: Option<&[&str]>,
) -> Result<ToolResponse<'d>, PresentError> {
    let Fit {
        max,
        total,
        budget,
        format,
    } = fit;
    let keep = super::select::needed_root_keys(&p.plan, None);
    let format = effective(data, format);
    let mut costs = RowCosts::new(a, max, format, keep.as_deref());
    // The candidate: the longest prefix whose costs fit.
    let mut k = costs.fitting(0, budget.saturating_sub(costs.header));
    // (largest count verified to fit, its response); smallest count verified not to fit.
    let mut best: Option<(usize, ToolResponse<'d>)> = None;
    let mut over = max + 1;
    let mut jumps = 0;
    loop {
        let r = p.present_rows(data, select, k, format, total)?;
        let mut text = Vec::new();
        r.write_block(0, &mut text);
        let t = measure(&text);
        if t <= budget {
            best = Some((k, r));
            if k == max || k + 1 >= over {
                break;
            }
        } else {
            over = k;
            if k == 0 {
                // Not even the empty collection fits: it is the least there is to show.
                return Ok(r);
            }
        }
        let lo = best.as_ref().map_or(0, |b| b.0);
        if lo + 1 >= over {
            break;
        }
        jumps += 1;
        let next = if jumps > MAX_JUMPS {
            lo + (over - lo) / 2
        } else if t <= budget {
            // Add rows while their costs fit in what is left; none fits: done (the next
            // row's own cost is over what is left, so the block is within one row of full).
            let n = costs.fitting(k, budget - t);
            if n == k {
                break;
            }
            n
        } else {
            // Drop rows from the end until their costs cover the excess.
            let mut excess = t - budget;
            let mut n = k;
            while n > 0 && excess > 0 {
                n -= 1;
                excess = excess.saturating_sub(costs.cost(n).max(1));
            }
            n.min(k - 1)
        };
        k = next
            .clamp(lo + usize::from(best.is_some()), over - 1)
            .min(max);
        if best.as_ref().is_some_and(|b| b.0 == k) {
            break;
        }
    }
    match best {
        Some((_, r)) => Ok(r),
        None => p.present_rows(data, select, 0, format, total),
    }
}

/// The format TOON is really written in for `data` (compact JSON when the input holds a
/// reserved tag sequence or a lone surrogate, WIRE.md §2).
fn effective(data: Value<'_>, format: Format) -> Format {
    let doc = data.doc();
    match format {
        Format::Toon(_) if doc.has_reserved_tag() || doc.has_lone_surrogate() => Format::Compact,
        f => f,
    }
}

/// The costs of the rows of a collection, each on its own, taken as far as they are needed.
struct RowCosts<'a, 'd> {
    rows: crate::doc::Elements<'d>,
    max: usize,
    costs: Vec<usize>,
    header: usize,
    format: Format,
    tabular: bool,
    inline: bool,
    keep: Option<&'a [String]>,
    scratch: Vec<u8>,
}

impl<'a, 'd> RowCosts<'a, 'd> {
    fn new(a: Array<'d>, max: usize, format: Format, keep: Option<&'a [String]>) -> Self {
        let kept_member = |k: crate::doc::Str<'_>| {
            keep.is_none_or(|keys| keys.iter().any(|x| x.as_bytes() == k.as_bytes()))
        };
        let tabular = matches!(format, Format::Toon(_))
            && max > 0
            && a.iter().take(max).all(|v| {
                v.as_object().is_some_and(|o| {
                    o.iter()
                        .filter(|(k, _)| kept_member(*k))
                        .all(|(_, x)| x.is_primitive())
                })
            });
        // TOON writes an array of primitives on one line.
        let inline =
            matches!(format, Format::Toon(_)) && a.iter().take(max).all(|v| v.is_primitive());
        let mut scratch = Vec::new();
        // The array's own brackets or header.
        match (format, a.iter().next()) {
            (Format::Toon(d), Some(first)) if tabular => {
                scratch.extend_from_slice(b"[");
                crate::num::write_u64(&mut scratch, max as u64);
                if d != Delimiter::Comma {
                    scratch.push(d.as_byte());
                }
                scratch.extend_from_slice(b"]{");
                if let Some(o) = first.as_object() {
                    for (i, (k, _)) in o.iter().filter(|(k, _)| kept_member(*k)).enumerate() {
                        if i > 0 {
                            scratch.push(d.as_byte());
                        }
                        scratch.extend_from_slice(k.as_bytes());
                    }
                }
                scratch.extend_from_slice(b"}:");
            }
            (Format::Toon(_), _) => {
                scratch.extend_from_slice(b"[");
                crate::num::write_u64(&mut scratch, max as u64);
                scratch.extend_from_slice(b"]:");
            }
            (Format::Pretty, _) => scratch.extend_from_slice(b"[\n]"),
            _ => scratch.extend_from_slice(b"[]"),
        }
        let header = measure(&scratch);
        RowCosts {
            rows: a.iter(),
            max,
            costs: Vec::new(),
            header,
            format,
            tabular,
            inline,
            keep,
            scratch,
        }
    }

    /// The cost of row `i` (computing the costs up to it).
    fn cost(&mut self, i: usize) -> usize {
        while self.costs.len() <= i {
            let Some(raw) = self.rows.next() else {
                return 0;
            };
            let c = self.row_cost(raw);
            self.costs.push(c);
        }
        self.costs[i]
    }

    /// The largest `n` such that rows `from..n` cost at most `room` (at most the rows there).
    fn fitting(&mut self, from: usize, room: usize) -> usize {
        let mut used = 0usize;
        let mut n = from;
        loop {
            if n >= self.max {
                return n;
            }
            let c = self.cost(n);
            if used + c > room {
                return n;
            }
            used += c;
            n += 1;
        }
    }

    fn row_cost(&mut self, raw: Value<'_>) -> usize {
        let keep = self.keep;
        let kept_member = |k: crate::doc::Str<'_>| {
            keep.is_none_or(|keys| keys.iter().any(|x| x.as_bytes() == k.as_bytes()))
        };
        let scratch = &mut self.scratch;
        scratch.clear();
        // The item as the data block will show it (only the kept members).
        let projected = match (keep, raw.as_object()) {
            (Some(_), Some(o)) if !self.tabular => Some(project(raw.doc(), o, &kept_member)),
            _ => None,
        };
        let item = projected.as_ref().map_or(raw, |d| d.root());
        match self.format {
            Format::Toon(d) if self.tabular => {
                scratch.extend_from_slice(b"\n  ");
                if let Some(o) = item.as_object() {
                    let opts = EncodeOptions::new().delimiter(d).parallel(false);
                    for (i, (_, v)) in o.iter().filter(|(k, _)| kept_member(*k)).enumerate() {
                        if i > 0 {
                            scratch.push(d.as_byte());
                        }
                        match v.get() {
                            ValueRef::String(_) => {
                                // The cell as TOON writes it (quoted when it must be).
                                let at = scratch.len();
                                if crate::toon::encode(v, &opts, scratch).is_err() {
                                    scratch.truncate(at);
                                }
                            }
                            _ => crate::json::write_compact(v, scratch),
                        }
                    }
                }
            }
            Format::Toon(d) if self.inline => {
                scratch.push(d.as_byte());
                let opts = EncodeOptions::new().delimiter(d).parallel(false);
                if crate::toon::encode(item, &opts, scratch).is_err() {
                    scratch.clear();
                }
            }
            Format::Toon(_) => {
                scratch.extend_from_slice(b"\n  - ");
                crate::wire::write_format(item, self.format, scratch);
            }
            Format::Pretty => {
                scratch.extend_from_slice(b",\n  ");
                crate::wire::write_format(item, self.format, scratch);
            }
            Format::Compact | Format::Auto => {
                scratch.push(b',');
                crate::wire::write_format(item, self.format, scratch);
            }
        }
        measure(scratch)
    }
}

/// `o` with only the members `keep` accepts, as a small document of its own.
fn project<'s>(
    doc: &crate::doc::Doc<'s>,
    o: crate::doc::Object<'_>,
    keep: &dyn Fn(crate::doc::Str<'_>) -> bool,
) -> crate::doc::Doc<'s> {
    let mut b = crate::doc::DocBuilder::new(doc.src());
    let m = b.begin_object();
    let mut n = 0;
    for (_, v) in o.iter().filter(|(k, _)| keep(*k)) {
        b.copy_from(doc, v.index() - 1);
        b.copy_from(doc, v.index());
        n += 1;
    }
    b.end_object_unique(m, n);
    b.finish()
}

#[cfg(test)]
mod tests {
    use crate::present::Presenter;
    use crate::wire::Format;

    #[test]
    fn the_block_fits_the_budget_by_measure_in_every_format() {
        let mut json = String::from("[");
        for i in 0..300 {
            if i > 0 {
                json.push(',');
            }
            json.push_str(&format!(
                r#"{{"id":{i},"name":"Zoë 漢字 {i}","tags":["a","b|c"],"ok":true}}"#
            ));
        }
        json.push(']');
        let doc = crate::json::parse(json.as_bytes(), &crate::json::ParseOptions::new()).unwrap();
        for f in Format::ALL {
            for n in [0, 10, 100, 1000, 5000] {
                let p = Presenter::builder("T")
                    .format(f)
                    .token_budget(n)
                    .build()
                    .unwrap();
                let r = p.present(doc.root(), None).unwrap();
                let text = r.block_text(0);
                let kept = r.data().unwrap().as_array().unwrap().len();
                assert!(
                    kept == 0 || super::measure(text.as_bytes()) <= n,
                    "{f:?} {n}: {kept} rows"
                );
                // One more row would not fit.
                if kept < 300 {
                    let q = Presenter::builder("T")
                        .format(r.meta().format)
                        .limit(kept + 1)
                        .build()
                        .unwrap();
                    let more = q.present(doc.root(), None).unwrap().block_text(0);
                    assert!(
                        super::measure(more.as_bytes()) > n,
                        "{f:?} {n}: {kept} rows"
                    );
                }
            }
        }
    }
}
