//! Presenter files (CLI.md "Presenter file"): a presenter written as JSON.
//!
//! Every key at every level is optional except `name`; `null` means absent. An unknown key, a
//! wrong type or a bad path is a [`PresenterError`] naming the key path
//! (`ui.collection[0].table.columns: expected an array of strings`).
//!
//! A program that builds presenters in code (the Python binding's `Presenter` builder) writes
//! the same file, with a `{"callback": n, "reads": [...]}` entry wherever one of its callbacks
//! goes — in `item_rules`, `collection_rules`, `ui.item`, `ui.collection`, `suggest.item`,
//! `suggest.collection`, `redact.censor` — and reads it with [`Presenter::from_doc_with`], which puts
//! callback `n` of its list there, in the entry's order. One reader, so a presenter built in
//! code and the same presenter as a file are the same presenter. [`Presenter::from_json`]
//! and the CLI refuse such entries like any other wrong entry.

use super::schema::{EnumValue, Schema, Type};
use super::template::{CompiledEntry, UiEntry};
use super::{
    CensorFn, Presenter, PresenterBuilder, PresenterError, Reading, RulesFn, SuggestFn,
    SuggestSource, UiFn, UiSource,
};
use crate::doc::{Number, Object, Value, ValueRef};
use crate::wire::{Format, UiMeta, Width};

type R<T> = Result<T, PresenterError>;

/// A callback of a presenter built in code, for a `{"callback": n}` entry of its file (see
/// the module docs and [`Presenter::from_doc_with`]).
pub enum Callback {
    /// Rules: for an `item_rules` entry (the item, or the first kept item) or a
    /// `collection_rules` entry (the kept collection).
    Rules(Box<RulesFn>),
    /// UI blocks: for a `ui.item` or `ui.collection` entry.
    Ui(Box<UiFn>),
    /// Suggestions: for a `suggest.item` or `suggest.collection` entry.
    Suggest(Box<SuggestFn>),
    /// A censor made from each redacted value: for a `redact.censor` entry.
    Censor(Box<CensorFn>),
}

impl Callback {
    fn kind(&self) -> &'static str {
        match self {
            Callback::Rules(_) => "rules",
            Callback::Ui(_) => "UI blocks",
            Callback::Suggest(_) => "suggestions",
            Callback::Censor(_) => "a censor",
        }
    }

    fn rules(self) -> Option<Box<RulesFn>> {
        match self {
            Callback::Rules(f) => Some(f),
            _ => None,
        }
    }

    fn ui(self) -> Option<Box<UiFn>> {
        match self {
            Callback::Ui(f) => Some(f),
            _ => None,
        }
    }

    fn suggest(self) -> Option<Box<SuggestFn>> {
        match self {
            Callback::Suggest(f) => Some(f),
            _ => None,
        }
    }

    fn censor(self) -> Option<Box<CensorFn>> {
        match self {
            Callback::Censor(f) => Some(f),
            _ => None,
        }
    }
}

/// The callbacks a file's `{"callback": n}` entries take, each once; `None` for a plain
/// presenter file, where such an entry is as wrong as any other unknown entry.
struct Slots(Option<Vec<Option<Callback>>>);

impl Slots {
    /// The callback of `v` when it is a `{"callback": n, "reads": [...]}` entry and
    /// callbacks are given: its kind checked against `want`, taken out of the table.
    fn take<F: ?Sized>(
        &mut self,
        v: Value<'_>,
        path: &str,
        want: &'static str,
        pick: fn(Callback) -> Option<Box<F>>,
    ) -> R<Option<Reading<F>>> {
        let Some(table) = self.0.as_mut() else {
            return Ok(None);
        };
        if v.as_object().and_then(|o| o.get(b"callback")).is_none() {
            return Ok(None);
        }
        let mut n = None;
        let mut reads = None;
        for (k, val) in members(v, path, &["callback", "reads"])? {
            let p = join(path, &k);
            if k == "callback" {
                n = Some(natural(val, &p)?);
            } else {
                reads = Some(strings(val, &p, false)?);
            }
        }
        let n = n.ok_or_else(|| PresenterError::new(&join(path, "callback"), "missing"))?;
        let p = join(path, "callback");
        let slot = table
            .get_mut(n)
            .ok_or_else(|| PresenterError::new(&p, format!("no callback {n}")))?;
        let cb = slot
            .take()
            .ok_or_else(|| PresenterError::new(&p, format!("callback {n} is used twice")))?;
        let kind = cb.kind();
        let f = pick(cb).ok_or_else(|| {
            PresenterError::new(&p, format!("callback {n} gives {kind}, expected {want}"))
        })?;
        Ok(Some(Reading { reads, f }))
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn text(v: Value<'_>) -> Option<String> {
    v.as_str()
        .map(|s| String::from_utf8_lossy(s.as_bytes()).into_owned())
}

/// The members of an object, checked against `allowed` keys; `null` members are dropped.
fn members<'d>(v: Value<'d>, path: &str, allowed: &[&str]) -> R<Vec<(String, Value<'d>)>> {
    let o: Object<'d> = v
        .as_object()
        .ok_or_else(|| PresenterError::new(path, "expected an object"))?;
    let mut out = Vec::with_capacity(o.len());
    for (k, val) in o.iter() {
        let key = String::from_utf8_lossy(k.as_bytes()).into_owned();
        if !allowed.is_empty() && !allowed.contains(&key.as_str()) {
            return Err(PresenterError::new(&join(path, &key), "unknown key"));
        }
        if !val.is_null() {
            out.push((key, val));
        }
    }
    Ok(out)
}

fn string(v: Value<'_>, path: &str) -> R<String> {
    text(v).ok_or_else(|| PresenterError::new(path, "expected a string"))
}

fn strings(v: Value<'_>, path: &str, nulls_ok: bool) -> R<Vec<String>> {
    let msg = "expected an array of strings";
    let a = v.as_array().ok_or_else(|| PresenterError::new(path, msg))?;
    let mut out = Vec::with_capacity(a.len());
    for el in a.iter() {
        match text(el) {
            Some(s) => out.push(s),
            None if nulls_ok && el.is_null() => {}
            None => return Err(PresenterError::new(path, msg)),
        }
    }
    Ok(out)
}

fn natural(v: Value<'_>, path: &str) -> R<usize> {
    match v.get() {
        ValueRef::Number(Number::Int(lex)) if !lex.starts_with(b"-") => std::str::from_utf8(lex)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| PresenterError::new(path, "expected a natural number or null")),
        _ => Err(PresenterError::new(
            path,
            "expected a natural number or null",
        )),
    }
}

fn boolean(v: Value<'_>, path: &str) -> R<bool> {
    match v.get() {
        ValueRef::Bool(b) => Ok(b),
        _ => Err(PresenterError::new(path, "expected true or false")),
    }
}

/// Parses a JSON Schema node of the subset.
pub(crate) fn schema(v: Value<'_>, path: &str) -> R<Schema> {
    let mut s = Schema::any();
    let allowed = [
        "type",
        "properties",
        "required",
        "items",
        "enum",
        "additionalProperties",
        "description",
        "title",
    ];
    for (k, val) in members(v, path, &allowed)? {
        let p = join(path, &k);
        match k.as_str() {
            "type" => {
                let names = match val.get() {
                    ValueRef::String(_) => vec![string(val, &p)?],
                    ValueRef::Array(_) => strings(val, &p, false)?,
                    _ => {
                        return Err(PresenterError::new(
                            &p,
                            "expected a type name or an array of them",
                        ));
                    }
                };
                for n in names {
                    s.types.push(
                        Type::parse(&n).ok_or_else(|| {
                            PresenterError::new(&p, format!("unknown type '{n}'"))
                        })?,
                    );
                }
            }
            "properties" => {
                // Object keys are unique in a document: push, no lookup per property
                // (`Schema::property` replaces in place, a scan each).
                let ms = members(val, &p, &[])?;
                let mut props = Vec::with_capacity(ms.len());
                for (name, ps) in ms {
                    let child = schema(ps, &join(&p, &name))?;
                    props.push((name, child));
                }
                s.properties = Some(props);
            }
            "required" => s.required = strings(val, &p, false)?,
            "items" => s.items = Some(Box::new(schema(val, &p)?)),
            "enum" => {
                let a = val
                    .as_array()
                    .ok_or_else(|| PresenterError::new(&p, "expected an array"))?;
                let mut values = Vec::with_capacity(a.len());
                for el in a.iter() {
                    values.push(match el.get() {
                        ValueRef::Null => EnumValue::Null,
                        ValueRef::Bool(b) => EnumValue::Bool(b),
                        ValueRef::Number(Number::Int(l)) => {
                            EnumValue::Int(String::from_utf8_lossy(l).into_owned())
                        }
                        ValueRef::Number(Number::Float(x)) => EnumValue::Float(x),
                        ValueRef::String(t) => {
                            EnumValue::String(String::from_utf8_lossy(t.as_bytes()).into_owned())
                        }
                        _ => return Err(PresenterError::new(&p, "expected primitive enum values")),
                    });
                }
                s.enum_values = Some(values);
            }
            "additionalProperties" => s.additional = boolean(val, &p)?,
            // Documentation keys: accepted, not published.
            _ => {
                string(val, &p)?;
            }
        }
    }
    Ok(s)
}

fn meta(m: &mut UiMeta, key: &str, val: Value<'_>, p: &str) -> R<bool> {
    match key {
        "title" => m.title = Some(string(val, p)?),
        "width" => {
            let w = string(val, p)?;
            m.width = Some(
                Width::parse(&w)
                    .map_err(|_| PresenterError::new(p, "expected full, half or third"))?,
            );
        }
        "priority" => match val.get() {
            ValueRef::Number(Number::Int(l)) => {
                m.priority = Some(
                    std::str::from_utf8(l)
                        .ok()
                        .and_then(|s| s.parse().ok())
                        .ok_or_else(|| PresenterError::new(p, "expected an integer"))?,
                );
            }
            _ => return Err(PresenterError::new(p, "expected an integer")),
        },
        _ => return Ok(false),
    }
    Ok(true)
}

fn ui_entry(v: Value<'_>, path: &str) -> R<UiEntry> {
    let mut m = UiMeta::default();
    let mut entry: Option<UiEntry> = None;
    let allowed = [
        "table", "summary", "markdown", "list", "title", "width", "priority",
    ];
    for (k, val) in members(v, path, &allowed)? {
        let p = join(path, &k);
        if meta(&mut m, &k, val, &p)? {
            continue;
        }
        if entry.is_some() {
            return Err(PresenterError::new(&p, "a UI entry has exactly one kind"));
        }
        entry = Some(match k.as_str() {
            "table" => {
                let mut tm = UiMeta::default();
                let mut columns = None;
                for (tk, tv) in members(val, &p, &["columns", "title", "width", "priority"])? {
                    let tp = join(&p, &tk);
                    if !meta(&mut tm, &tk, tv, &tp)? {
                        columns = Some(strings(tv, &tp, false)?);
                    }
                }
                let columns =
                    columns.ok_or_else(|| PresenterError::new(&join(&p, "columns"), "missing"))?;
                UiEntry::Table { columns, meta: tm }
            }
            "summary" => UiEntry::Summary {
                template: string(val, &p)?,
                meta: UiMeta::default(),
            },
            "markdown" => UiEntry::Markdown {
                template: string(val, &p)?,
                meta: UiMeta::default(),
            },
            _ => UiEntry::List {
                template: string(val, &p)?,
                meta: UiMeta::default(),
            },
        });
    }
    let mut entry = entry.ok_or_else(|| {
        PresenterError::new(path, "expected one of table, summary, markdown, list")
    })?;
    // Attributes given next to the kind apply to the block (the table's own win).
    let target = match &mut entry {
        UiEntry::Table { meta, .. }
        | UiEntry::Summary { meta, .. }
        | UiEntry::Markdown { meta, .. }
        | UiEntry::List { meta, .. } => meta,
    };
    if target.title.is_none() {
        target.title = m.title;
    }
    if target.width.is_none() {
        target.width = m.width;
    }
    if target.priority.is_none() {
        target.priority = m.priority;
    }
    Ok(entry)
}

/// An `item_rules` or `collection_rules` list: each run of strings one static source (nulls
/// dropped), each `{"callback": n}` entry its callback, in the list's order.
fn rule_list(v: Value<'_>, path: &str, slots: &mut Slots) -> R<Vec<Reading<RulesFn>>> {
    let a = v
        .as_array()
        .ok_or_else(|| PresenterError::new(path, "expected an array of strings"))?;
    let mut out: Vec<Reading<RulesFn>> = Vec::new();
    let mut run: Vec<String> = Vec::new();
    let flush = |run: &mut Vec<String>, out: &mut Vec<Reading<RulesFn>>| {
        if !run.is_empty() {
            let rules = std::mem::take(run);
            out.push(Reading {
                reads: Some(Vec::new()),
                f: Box::new(move |_| rules.clone()),
            });
        }
    };
    for (i, el) in a.iter().enumerate() {
        if let Some(r) = slots.take(el, &format!("{path}[{i}]"), "rules", Callback::rules)? {
            flush(&mut run, &mut out);
            out.push(r);
            continue;
        }
        match text(el) {
            Some(s) => run.push(s),
            None if el.is_null() => {}
            None => return Err(PresenterError::new(path, "expected an array of strings")),
        }
    }
    flush(&mut run, &mut out);
    Ok(out)
}

fn format(v: Value<'_>, path: &str) -> R<Format> {
    string(v, path)?
        .parse()
        .map_err(|e: crate::wire::UnknownFormat| PresenterError::new(path, e.to_string()))
}

fn presenter(v: Value<'_>, path: &str, slots: &mut Slots) -> R<Presenter> {
    let allowed = [
        "name",
        "schema",
        "rules",
        "item_rules",
        "collection_rules",
        "limit",
        "token_budget",
        "redact",
        "select",
        "ui",
        "suggest",
        "embed",
        "format",
    ];
    let ms = members(v, path, &allowed)?;
    let name = match ms.iter().find(|(k, _)| k == "name") {
        Some((_, n)) => string(*n, &join(path, "name"))?,
        None => return Err(PresenterError::new(&join(path, "name"), "missing")),
    };
    let mut b: PresenterBuilder = Presenter::builder(name);
    // The schema first: UI paths are checked against it.
    for (k, val) in &ms {
        let p = join(path, k);
        let val = *val;
        b = match k.as_str() {
            "schema" => b.schema(schema(val, &p)?),
            "rules" => b.rules(strings(val, &p, true)?),
            "item_rules" | "collection_rules" => {
                let list = rule_list(val, &p, slots)?;
                let target = if k.as_str() == "item_rules" {
                    &mut b.cfg.item_rules
                } else {
                    &mut b.cfg.collection_rules
                };
                target.extend(list);
                b
            }
            "limit" => b.limit(natural(val, &p)?),
            "token_budget" => b.token_budget(natural(val, &p)?),
            "redact" => {
                let mut paths = Vec::new();
                let mut censor = None;
                let mut call = None;
                for (rk, rv) in members(val, &p, &["paths", "censor"])? {
                    let rp = join(&p, &rk);
                    if rk == "paths" {
                        paths = strings(rv, &rp, false)?;
                    } else if let Some(r) = slots.take(rv, &rp, "a censor", Callback::censor)? {
                        call = Some(r.f);
                    } else {
                        censor = Some(string(rv, &rp)?);
                    }
                }
                match call {
                    Some(f) => b.redact_with(paths, f),
                    None => b.redact(paths, censor.as_deref()),
                }
            }
            "select" => b.select(boolean(val, &p)?),
            "ui" => {
                for (uk, uv) in members(val, &p, &["item", "collection"])? {
                    let up = join(&p, &uk);
                    let a = uv
                        .as_array()
                        .ok_or_else(|| PresenterError::new(&up, "expected an array"))?;
                    for (i, el) in a.iter().enumerate() {
                        let ep = format!("{up}[{i}]");
                        let src = match slots.take(el, &ep, "UI blocks", Callback::ui)? {
                            Some(r) => UiSource::Fn(r),
                            None => UiSource::Entry(CompiledEntry::compile(ui_entry(el, &ep)?)),
                        };
                        if uk == "item" {
                            b.cfg.item_ui.push(src);
                        } else {
                            b.cfg.collection_ui.push(src);
                        }
                    }
                }
                b
            }
            "suggest" => {
                for (sk, sv) in members(val, &p, &["item", "collection"])? {
                    let sp = join(&p, &sk);
                    let a = sv
                        .as_array()
                        .ok_or_else(|| PresenterError::new(&sp, "expected an array"))?;
                    for (i, el) in a.iter().enumerate() {
                        let ep = format!("{sp}[{i}]");
                        if let Some(r) = slots.take(el, &ep, "suggestions", Callback::suggest)? {
                            let src = SuggestSource::Fn(r);
                            if sk == "item" {
                                b.cfg.item_suggest.push(src);
                            } else {
                                b.cfg.collection_suggest.push(src);
                            }
                            continue;
                        }
                        let mut tool = None;
                        let mut reason = String::new();
                        for (fk, fv) in members(el, &ep, &["tool", "reason"])? {
                            let fp = join(&ep, &fk);
                            if fk == "tool" {
                                tool = Some(string(fv, &fp)?);
                            } else {
                                reason = string(fv, &fp)?;
                            }
                        }
                        let tool =
                            tool.ok_or_else(|| PresenterError::new(&join(&ep, "tool"), "missing"))?;
                        b = if sk == "item" {
                            b.item_suggestion(&tool, &reason)
                        } else {
                            b.collection_suggestion(&tool, &reason)
                        };
                    }
                }
                b
            }
            "embed" => {
                for (ek, ev) in members(val, &p, &[])? {
                    let child = presenter(ev, &join(&p, &ek), slots)?;
                    b = b.embed(ek, child);
                }
                b
            }
            "format" => b.format(format(val, &p)?),
            _ => b,
        };
    }
    b.build().map_err(|mut e| {
        if !path.is_empty() {
            e.path = join(path, &e.path);
        }
        e
    })
}

impl Presenter {
    /// Reads a presenter file already parsed into a document.
    ///
    /// # Errors
    ///
    /// A [`PresenterError`] naming the key path of the first problem.
    pub fn from_doc(v: Value<'_>) -> Result<Presenter, PresenterError> {
        presenter(v, "", &mut Slots(None))
    }

    /// Reads a presenter file whose `{"callback": n, "reads": [...]}` entries stand for
    /// `callbacks[n]` (see the module docs): how a presenter built in code becomes one, the
    /// file's reading and checks included. `reads` (optional) names the root fields the
    /// callback reads, as [`PresenterBuilder::item_rules_reading`] does.
    ///
    /// ```
    /// use toolwire::present::{Callback, Presenter};
    ///
    /// let file = br#"{"name": "Invoice", "item_rules": ["Amounts are in cents.", {"callback": 0}]}"#;
    /// let doc = toolwire::json::parse(file, &toolwire::json::ParseOptions::new()).unwrap();
    /// let count = Callback::Rules(Box::new(|v| vec![format!("{} fields", v.as_object().map_or(0, |o| o.len()))]));
    /// let p = Presenter::from_doc_with(doc.root(), vec![count]).unwrap();
    /// let data = toolwire::json::parse(br#"{"id": "A", "n": 1}"#, &toolwire::json::ParseOptions::new()).unwrap();
    /// let r = p.present(data.root(), None).unwrap();
    /// assert_eq!(r.meta().rules, ["Amounts are in cents.", "2 fields"]);
    /// // A plain file cannot hold a callback.
    /// assert!(Presenter::from_json(file).is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Presenter::from_doc`]; also a callback number out of range, used twice, never
    /// used, or of the wrong kind for its list (UI blocks in a rules list).
    pub fn from_doc_with(
        v: Value<'_>,
        callbacks: Vec<Callback>,
    ) -> Result<Presenter, PresenterError> {
        let mut slots = Slots(Some(callbacks.into_iter().map(Some).collect()));
        let p = presenter(v, "", &mut slots)?;
        if let Some(n) = slots.0.iter().flatten().position(Option::is_some) {
            return Err(PresenterError::new("", format!("callback {n} is not used")));
        }
        Ok(p)
    }

    /// Reads a presenter file (JSON text).
    ///
    /// ```
    /// let p = toolwire::present::Presenter::from_json(br#"{"name": "Invoice", "limit": 5}"#).unwrap();
    /// assert_eq!(p.name(), "Invoice");
    /// let e = toolwire::present::Presenter::from_json(br#"{"name": "X", "limt": 5}"#).unwrap_err();
    /// assert_eq!(e.to_string(), "limt: unknown key");
    /// ```
    ///
    /// # Errors
    ///
    /// A [`PresenterError`] with line and column for invalid JSON, else naming the key path.
    pub fn from_json(bytes: &[u8]) -> Result<Presenter, PresenterError> {
        let doc = crate::json::parse(bytes, &crate::json::ParseOptions::new()).map_err(|e| {
            PresenterError {
                path: String::new(),
                message: e.message().to_owned(),
                position: Some((e.line(), e.column())),
            }
        })?;
        Presenter::from_doc(doc.root())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{Suggestion, ui};

    fn doc(text: &str) -> crate::Doc<'_> {
        crate::json::parse(text.as_bytes(), &crate::json::ParseOptions::new()).unwrap()
    }

    fn with(file: &str, callbacks: Vec<Callback>) -> Result<Presenter, PresenterError> {
        Presenter::from_doc_with(doc(file).root(), callbacks)
    }

    fn rule(text: &'static str) -> Callback {
        Callback::Rules(Box::new(move |_| vec![text.to_owned()]))
    }

    #[test]
    fn callbacks_take_their_entries_place_among_static_ones() {
        let file = r#"{"name": "I",
            "item_rules": ["s1", {"callback": 0}, "s2", null, "s3", {"callback": 1}],
            "collection_rules": [{"callback": 2}, "c1"],
            "ui": {"collection": [{"callback": 3}, {"summary": "{count} rows"}]},
            "suggest": {"collection": [{"tool": "t.get", "reason": "r"}, {"callback": 4}]}}"#;
        let p = with(
            file,
            vec![
                rule("d1"),
                rule("d2"),
                Callback::Rules(Box::new(|v| {
                    vec![format!("{} kept", v.as_array().map_or(0, |a| a.len()))]
                })),
                Callback::Ui(Box::new(|_| vec![ui::markdown("chart")])),
                Callback::Suggest(Box::new(|_| {
                    vec![Suggestion {
                        tool: "t.more".into(),
                        reason: "next".into(),
                    }]
                })),
            ],
        )
        .unwrap();
        let data = doc(r#"[{"a": 1}, {"a": 2}]"#);
        let r = p.present(data.root(), None).unwrap();
        let m = r.meta();
        assert_eq!(m.rules, ["s1", "d1", "s2", "s3", "d2", "2 kept", "c1"]);
        let ui: Vec<&str> = m.ui_blocks.iter().map(|b| b.content()).collect();
        assert_eq!(ui, ["chart", "📊 **Summary**: 2 rows"]);
        let tools: Vec<&str> = m.suggestions.iter().map(|s| s.tool.as_str()).collect();
        assert_eq!(tools, ["t.get", "t.more"]);
    }

    #[test]
    fn a_censor_entry_takes_a_censor_callback_and_nothing_else() {
        let file = r#"{"name": "I", "redact": {"paths": ["pin"], "censor": {"callback": 0}}}"#;
        let censor = || {
            Callback::Censor(Box::new(|v| {
                format!("#{}", v.as_str().map_or(0, |s| s.len()))
            }))
        };
        let p = with(file, vec![censor()]).unwrap();
        let d = doc(r#"{"pin": "1234", "k": 1}"#);
        let r = p.present(d.root(), None).unwrap();
        assert_eq!(r.block_text(0), "{\n  \"pin\": \"#4\",\n  \"k\": 1\n}");
        let e = with(file, vec![rule("x")]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "redact.censor.callback: callback 0 gives rules, expected a censor"
        );
        let e = with(
            r#"{"name": "I", "item_rules": [{"callback": 0}]}"#,
            vec![censor()],
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "item_rules[0].callback: callback 0 gives a censor, expected rules"
        );
        // A plain file has no callbacks: the entry is a wrong censor.
        assert!(Presenter::from_json(file.as_bytes()).is_err());
    }

    #[test]
    fn a_pure_file_reads_the_same_with_and_without_the_table() {
        let file = r#"{"name": "I", "item_rules": ["a", null, "b"], "collection_rules": ["c"],
            "ui": {"item": [{"markdown": "{a}"}]}, "suggest": {"item": [{"tool": "x"}]}}"#;
        let plain = Presenter::from_json(file.as_bytes()).unwrap();
        let coded = with(file, Vec::new()).unwrap();
        for data in [r#"{"a": 1}"#, r#"[{"a": 1}]"#, "[]"] {
            let d = doc(data);
            let (x, y) = (
                plain.present(d.root(), None).unwrap(),
                coded.present(d.root(), None).unwrap(),
            );
            assert_eq!(x.texts(), y.texts(), "{data}");
        }
    }

    #[test]
    fn embedded_children_take_callbacks_from_the_same_table() {
        let file = r#"{"name": "I", "embed": {"client": {"name": "C",
            "item_rules": [{"callback": 0, "reads": ["name"]}]}}}"#;
        let p = with(
            file,
            vec![Callback::Rules(Box::new(|v| {
                let name = v.as_object().and_then(|o| o.get(b"name"));
                vec![format!(
                    "client {}",
                    name.and_then(|n| n.as_str())
                        .and_then(|s| s.to_str())
                        .unwrap_or("?")
                )]
            }))],
        )
        .unwrap();
        let d = doc(r#"{"id": 1, "client": {"name": "Acme"}}"#);
        assert_eq!(
            p.present(d.root(), None).unwrap().meta().rules,
            ["client Acme"]
        );
    }

    #[test]
    fn callback_entries_are_checked() {
        let cases: [(&str, Vec<Callback>, &str); 6] = [
            (
                r#"{"name": "I", "item_rules": [{"callback": 1}]}"#,
                vec![rule("x")],
                "item_rules[0].callback: no callback 1",
            ),
            (
                r#"{"name": "I", "item_rules": [{"callback": 0}], "collection_rules": [{"callback": 0}]}"#,
                vec![rule("x")],
                "collection_rules[0].callback: callback 0 is used twice",
            ),
            (
                r#"{"name": "I", "ui": {"item": [{"callback": 0}]}}"#,
                vec![rule("x")],
                "ui.item[0].callback: callback 0 gives rules, expected UI blocks",
            ),
            (
                r#"{"name": "I", "suggest": {"item": [{"callback": 0, "tool": "x"}]}}"#,
                vec![rule("x")],
                "suggest.item[0].tool: unknown key",
            ),
            (
                r#"{"name": "I", "rules": ["a"]}"#,
                vec![rule("x")],
                "callback 0 is not used",
            ),
            (
                r#"{"name": "I", "embed": {"c": {"name": "C", "item_rules": [{"callback": 0, "reads": 3}]}}}"#,
                vec![rule("x")],
                "embed.c.item_rules[0].reads: expected an array of strings",
            ),
        ];
        for (file, cbs, want) in cases {
            let e = with(file, cbs).map(|_| ()).unwrap_err();
            assert_eq!(e.to_string(), want, "{file}");
        }
        // A plain presenter file has no callbacks: the entry is wrong like any other.
        let plain = |f: &str| Presenter::from_json(f.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            plain(r#"{"name": "I", "item_rules": [{"callback": 0}]}"#),
            "item_rules: expected an array of strings"
        );
        assert_eq!(
            plain(r#"{"name": "I", "ui": {"item": [{"callback": 0}]}}"#),
            "ui.item[0].callback: unknown key"
        );
    }
}
