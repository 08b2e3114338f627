//! `present`: the stages of WIRE.md §5 in order, the entry points of a presentation.
//!
//! Stages 1–3 (truncate, validate/strip, redact) and the children's schema and redaction are one
//! recursive walk that writes the derived document (`present::writer`); stages 4–7 read the
//! derived data (`derive`); `_select` projects the data block last (`present::select`).
//!
//! Before that walk, a collection whose plan allows it is tried as a row view
//! (`present::view`): validation without writing, then a data block read from the input tape.
//! `with_general_path` switches the view off for tests that compare both paths.

use super::template::Counts;
use super::writer::Writer;
use super::{Plan, PresentError, Presenter, SuggestSource, UiSource};
use crate::doc::{DocBuilder, Value, ValueRef};
use crate::wire::{
    Data, Format, Suggestion, ToolError, ToolResponse, UiBlock, response, response_view, ui,
};

const RECOVERY: &str = "The server returned data that does not match its declared schema. Retrying the same call will not help.";

fn note_censors(b: &mut DocBuilder<'_>, plan: &Plan) {
    // Computed once per plan (a walk here visited shared child plans once per path).
    if plan.censor_tag {
        b.mark_reserved_tag();
    }
    if plan.censor_surrogate {
        b.mark_lone_surrogate();
    }
}

/// The blocks derived from the presented data (stages 4–7).
#[derive(Default)]
pub(crate) struct Derived {
    pub(crate) ui: Vec<UiBlock>,
    pub(crate) embedded: Vec<UiBlock>,
    pub(crate) rules: Vec<String>,
    pub(crate) suggestions: Vec<Suggestion>,
}

#[derive(Clone, Copy)]
enum Shape {
    /// A collection of `total` items before truncation.
    Collection { total: usize },
    /// One item.
    Item,
    /// A root `null`: no item.
    Nothing,
}

fn push_unique<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if !list.contains(&item) {
        list.push(item);
    }
}

fn suggest(src: &SuggestSource, v: Value<'_>, out: &mut Vec<Suggestion>) {
    match src {
        SuggestSource::Fn(r) => out.extend((r.f)(v)),
        SuggestSource::Static(s) => out.push(s.clone()),
    }
}

fn has_derived(plan: &Plan) -> bool {
    plan.derived
}

/// Stages 4–7 over the derived data `root`.
fn derive(plan: &Plan, root: Value<'_>, shape: Shape, d: &mut Derived) {
    let cfg = &plan.cfg;
    d.rules.extend(cfg.rules.iter().cloned());
    let items: Vec<Value<'_>> = match shape {
        Shape::Collection { total } => {
            // The kept items as a list, only when templates or embeds need them.
            let needs_list = cfg
                .collection_ui
                .iter()
                .any(|u| matches!(u, UiSource::Entry(_)))
                || plan.embeds.iter().any(|e| has_derived(&e.object));
            let arr = root.as_array();
            let first = arr.and_then(|a| a.iter().next());
            let shown = arr.map_or(0, |a| a.len());
            let items: Vec<Value<'_>> = if needs_list {
                arr.map(|a| a.iter().collect()).unwrap_or_default()
            } else {
                first.into_iter().collect()
            };
            let counts = Counts {
                count: total,
                shown,
            };
            for src in &cfg.collection_ui {
                match src {
                    UiSource::Fn(r) => d.ui.extend((r.f)(root)),
                    UiSource::Entry(e) => d.ui.push(e.render(&items, counts)),
                }
            }
            if let Some(first) = first {
                for r in &cfg.item_rules {
                    d.rules.extend((r.f)(first));
                }
            }
            for r in &cfg.collection_rules {
                d.rules.extend((r.f)(root));
            }
            if !cfg.collection_suggest.is_empty() {
                if first.is_some() {
                    for s in &cfg.collection_suggest {
                        suggest(s, root, &mut d.suggestions);
                    }
                }
            } else if let Some(first) = first {
                for s in &cfg.item_suggest {
                    suggest(s, first, &mut d.suggestions);
                }
            }
            items
        }
        Shape::Item => {
            let counts = Counts { count: 1, shown: 1 };
            for src in &cfg.item_ui {
                match src {
                    UiSource::Fn(r) => d.ui.extend((r.f)(root)),
                    UiSource::Entry(e) => d.ui.push(e.render(&[root], counts)),
                }
            }
            for r in &cfg.item_rules {
                d.rules.extend((r.f)(root));
            }
            for s in &cfg.item_suggest {
                suggest(s, root, &mut d.suggestions);
            }
            vec![root]
        }
        Shape::Nothing => Vec::new(),
    };
    // Stage 7: embedded children, over the item or every kept element.
    for e in &plan.embeds {
        if !has_derived(&e.object) {
            continue;
        }
        for (i, item) in items.iter().enumerate() {
            let Some(child) = item.as_object().and_then(|o| o.get(e.key.as_bytes())) else {
                continue;
            };
            let (child_plan, child_shape) = match child.get() {
                ValueRef::Null => continue,
                ValueRef::Array(a) => (&e.array, Shape::Collection { total: a.len() }),
                _ => (&e.object, Shape::Item),
            };
            let mut cd = Derived::default();
            derive(child_plan, child, child_shape, &mut cd);
            for r in cd.rules {
                push_unique(&mut d.rules, r);
            }
            for s in cd.suggestions {
                push_unique(&mut d.suggestions, s);
            }
            if i == 0 {
                for b in cd.ui.into_iter().chain(cd.embedded) {
                    push_unique(&mut d.embedded, b);
                }
            }
        }
    }
}

/// True when a stage after the data of a collection may read more than its first kept row:
/// collection UI, collection rules, collection suggestion callbacks, embeds. (Item UI is not
/// used for collections; item rules and suggestions read the first row only.)
fn reads_all_rows(plan: &Plan) -> bool {
    let c = &plan.cfg;
    !c.collection_rules.is_empty()
        || !c.collection_ui.is_empty()
        || c.collection_suggest
            .iter()
            .any(|s| matches!(s, SuggestSource::Fn(_)))
        || !plan.embeds.is_empty()
}

/// True when a stage after the data reads the first kept row (item rules and suggestions, or
/// static collection suggestions, which are skipped for an empty collection).
fn reads_first_row(plan: &Plan) -> bool {
    let c = &plan.cfg;
    !(c.item_rules.is_empty() && c.item_suggest.is_empty() && c.collection_suggest.is_empty())
}

/// The presentation of the first `kept` rows of `a` (projected on `select`, the checked
/// `_select` names) as a row view (`present::view`), when the
/// plan allows one and every row passes the fast path's checks; `None` sends the call to the
/// general writer (which also produces the validation messages). Stages 4–7 read the first
/// kept row, materialised alone for them, or, when they read every row, the input array
/// itself, whose canonical rows are the derived ones ([`input_is_derived`]).
fn present_view<'d>(
    plan: &Plan,
    format: crate::wire::Format,
    a: crate::doc::Array<'d>,
    kept: usize,
    total: usize,
    select: Option<&[&str]>,
) -> Option<Result<ToolResponse<'d>, PresentError>> {
    let cfg = &plan.cfg;
    let all_rows = reads_all_rows(plan);
    if FORCE_GENERAL.with(std::cell::Cell::get) || (all_rows && !input_is_derived(plan, a, kept)) {
        return None;
    }
    let view = super::view::validate(plan, a, kept, select)?;
    // Canonical rows (`view.offsets` is `None`) are the derived rows themselves.
    if all_rows && view.offsets.is_some() {
        return None;
    }
    let mut d = Derived::default();
    if kept < total {
        d.ui.push(truncation_notice(kept, total));
    }
    let shape = Shape::Collection { total };
    if all_rows {
        derive(plan, a.as_value(), shape, &mut d);
    } else if reads_first_row(plan) {
        let first = view.first_row();
        derive(plan, first.root(), shape, &mut d);
    } else {
        // Static rules only; `derive` would read nothing.
        d.rules.extend(cfg.rules.iter().cloned());
    }
    Some(
        response_view(view)
            .format(format)
            .ui_blocks(d.ui)
            .system_rules(d.rules)
            .system_hint(d.suggestions)
            .build()
            .map_err(PresentError::Encode),
    )
}

/// True when the stages that read every kept row may read the input array `a` itself in place
/// of the derived one, provided the row view finds every row canonical (exactly the declared
/// fields, in schema order, primitives): all of `a` is kept, nothing is redacted, and `a` is
/// its document's root (whose flags are then the derived document's). Its first row is
/// checked here, so rows that are not canonical (extra or missing fields) go to the writer
/// without a scan that would be wasted.
fn input_is_derived(plan: &Plan, a: crate::doc::Array<'_>, kept: usize) -> bool {
    let Some(f) = plan.fast.as_ref() else {
        return false;
    };
    let first = a.iter().next().and_then(|r| r.as_object());
    kept >= a.len()
        && plan.redact.is_empty()
        && a.as_value().index() == 0
        && first.is_some_and(|o| {
            o.len() == f.keys.len()
                && o.iter()
                    .zip(&f.keys)
                    .all(|((k, _), want)| k.as_bytes() == &want[..])
        })
}

/// The presentation of a whole collection (every row kept) under a plan that changes no
/// value — no schema, no redaction, no embeds, no `_select` — straight from the input: the
/// data block encodes `data` itself, nothing is copied (a server's plain collection of a
/// million rows). Only for the root of its document, whose flags (reserved tags, lone
/// surrogates) are then exactly the data's; anything else goes through the writer.
fn present_as_is<'d>(
    plan: &Plan,
    data: Value<'d>,
    select: Option<&[&str]>,
    max: usize,
    format: Format,
    total_of: impl Fn(crate::doc::Array<'_>) -> usize,
) -> Option<Result<ToolResponse<'d>, PresentError>> {
    let cfg = &plan.cfg;
    let a = data.as_array()?;
    let plain = cfg.schema.is_none()
        && plan.redact.is_empty()
        && plan.embeds.is_empty()
        && select.is_none()
        && data.index() == 0
        && max >= a.len()
        && !FORCE_GENERAL.with(std::cell::Cell::get);
    if !plain {
        return None;
    }
    let total = total_of(a);
    let mut d = Derived::default();
    if a.len() < total {
        d.ui.push(truncation_notice(a.len(), total));
    }
    derive(plan, data, Shape::Collection { total }, &mut d);
    Some(build_with(Data::Value(data), format, d))
}

/// The response of the data block `data` in `format` with the blocks of stages 4–7.
fn build_with(
    data: Data<'_>,
    format: Format,
    d: Derived,
) -> Result<ToolResponse<'_>, PresentError> {
    let mut r = response(data)
        .format(format)
        .ui_blocks(d.ui)
        .system_rules(d.rules)
        .system_hint(d.suggestions);
    for b in d.embedded {
        r = r.embedded_block(b);
    }
    r.build().map_err(PresentError::Encode)
}

/// The truncation notice of a collection that shows `kept` of its `total` items
/// ([`UNCOUNTED`](super::UNCOUNTED): more, not counted): the summary UI block a presenter adds
/// when it cuts its data, for a caller that writes the data itself (a streamed page).
pub fn truncation_notice(kept: usize, total: usize) -> UiBlock {
    if total == super::UNCOUNTED {
        return ui::summary(&format!(
            "⚠️ Dataset truncated. {kept} shown, more hidden. Use filters to narrow results."
        ));
    }
    ui::summary(&format!(
        "⚠️ Dataset truncated. {kept} shown, {} hidden. Use filters to narrow results.",
        total - kept
    ))
}

thread_local! {
    /// Test oracle switch: when set, presentations never take the row view.
    static FORCE_GENERAL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with the row view disabled on this thread: every presentation goes through the
/// general writer and a derived document. For tests that compare both paths (the row view must
/// be byte-identical), through `test_hooks`.
pub(crate) fn with_general_path<T>(f: impl FnOnce() -> T) -> T {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            FORCE_GENERAL.with(|c| c.set(self.0));
        }
    }
    let _reset = Reset(FORCE_GENERAL.with(|c| c.replace(true)));
    f()
}

impl Presenter {
    /// [`Presenter::present`] with the raw `_select` argument as the client sent it (already
    /// removed from the arguments): validated with [`Presenter::parse_select`] when select is
    /// enabled, ignored otherwise.
    ///
    /// # Errors
    ///
    /// As [`Presenter::present`]; a non-array, a non-string element or an unknown name is
    /// [`PresentError::Select`].
    pub fn present_with_select_arg<'d>(
        &self,
        data: Value<'d>,
        select: Option<Value<'_>>,
    ) -> Result<ToolResponse<'d>, PresentError> {
        match select {
            Some(arg) if self.plan.cfg.select => {
                let names = self.parse_select(arg).map_err(PresentError::Select)?;
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                self.present(data, Some(&names))
            }
            _ => self.present(data, None),
        }
    }

    /// Presents `data` (WIRE.md §5): truncation, validation and stripping, redaction, UI,
    /// rules, suggestions, embeds, then `_select` on the data block only.
    ///
    /// `select` is the requested `_select` (already taken out of the arguments); it is ignored
    /// when the presenter does not enable select, and `Some(&[])` means all fields.
    ///
    /// # Errors
    ///
    /// * [`PresentError::Select`]: a `_select` name that is not a root key of the schema.
    /// * [`PresentError::Output`]: `OUTPUT_VALIDATION_FAILED` (WIRE.md §8).
    /// * [`PresentError::Encode`]: the data cannot be encoded in the chosen format.
    pub fn present<'d>(
        &self,
        data: Value<'d>,
        select: Option<&[&str]>,
    ) -> Result<ToolResponse<'d>, PresentError> {
        self.present_counted(data, select, None)
    }

    /// [`Presenter::present`] of a collection that stands for `total` items (at least its
    /// length; `None`: its length): a page of a larger one, whose `{count}` and truncation
    /// notice count the items the page was taken from.
    pub(crate) fn present_counted<'d>(
        &self,
        data: Value<'d>,
        select: Option<&[&str]>,
        total: Option<usize>,
    ) -> Result<ToolResponse<'d>, PresentError> {
        let plan = &*self.plan;
        let cfg = &plan.cfg;
        let select = match select {
            Some(names) if cfg.select && !names.is_empty() => {
                Some(super::select::check_names(self, names).map_err(PresentError::Select)?)
            }
            _ => None,
        };
        let select = select.as_deref();
        let ValueRef::Array(a) = data.get() else {
            return self.present_rows(data, select, 0, self.format(), None);
        };
        // Stage 1 for a collection: `limit`, the format (`Auto` chosen on the data as the
        // block shows it), then `token_budget` in that format (`present::fit`).
        let max = self.limit().map_or(a.len(), |l| l.min(a.len()));
        let format = match self.format() {
            Format::Auto => super::fit::auto_format(self, data, max, select),
            f => f,
        };
        match self.token_budget() {
            Some(budget) => {
                let fit = super::fit::Fit {
                    max,
                    total,
                    budget,
                    format,
                };
                super::fit::fit_budget(self, data, a, fit, select)
            }
            None => self.present_rows(data, select, max, format, total),
        }
    }

    /// Stages 1–8 with `max` rows kept of a collection (ignored for other roots) that stands
    /// for `total` items (`None`: its length), in `format`, `select` already checked.
    pub(crate) fn present_rows<'d>(
        &self,
        data: Value<'d>,
        select: Option<&[&str]>,
        max: usize,
        format: Format,
        total: Option<usize>,
    ) -> Result<ToolResponse<'d>, PresentError> {
        let plan = &*self.plan;
        let cfg = &plan.cfg;
        let total_of = |a: crate::doc::Array<'_>| total.map_or(a.len(), |t| t.max(a.len()));
        if let ValueRef::Array(a) = data.get() {
            if let Some(r) = present_view(plan, format, a, max, total_of(a), select) {
                return r;
            }
        }
        if let Some(r) = present_as_is(plan, data, select, max, format, total_of) {
            return r;
        }
        let doc = data.doc();
        let mut w = Writer::new(doc, doc.node_count());
        // Censors are written without a scan per value: note their flags once.
        note_censors(&mut w.b, plan);
        let (shape, kept) = match data.get() {
            ValueRef::Array(a) => {
                let total = total_of(a);
                let m = w.b.begin_array();
                for (i, el) in a.iter().take(max).enumerate() {
                    w.item = i;
                    w.write_item(plan, el, true);
                }
                w.b.end_array(m, max);
                (Shape::Collection { total }, max)
            }
            ValueRef::Null => {
                w.b.null();
                (Shape::Nothing, 0)
            }
            _ => {
                w.write_item(plan, data, true);
                (Shape::Item, 1)
            }
        };
        if w.count > 0 {
            let message = format!(
                "[{} presenter] {} problem(s): {}",
                cfg.name,
                w.count,
                w.messages.join("; ")
            );
            return Err(PresentError::Output(Box::new(
                ToolError::new("OUTPUT_VALIDATION_FAILED")
                    .message(message)
                    .recovery(RECOVERY),
            )));
        }
        let full = w.b.finish();
        let mut d = Derived::default();
        if let Shape::Collection { total } = shape {
            if kept < total {
                d.ui.push(truncation_notice(kept, total));
            }
        }
        derive(plan, full.root(), shape, &mut d);
        let out = match select {
            Some(names) => super::select::project(doc, &full, names),
            None => full,
        };
        build_with(Data::Doc(out), format, d)
    }
}
