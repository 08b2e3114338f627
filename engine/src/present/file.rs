//! Presenter files (CLI.md "Presenter file"): a presenter written as JSON.
//!
//! Every key at every level is optional except `name`; `null` means absent. An unknown key, a
//! wrong type or a bad path is a [`PresenterError`] naming the key path
//! (`ui.collection[0].table.columns: expected an array of strings`).

use super::schema::{EnumValue, Schema, Type};
use super::template::UiEntry;
use super::{Presenter, PresenterBuilder, PresenterError};
use crate::doc::{Number, Object, Value, ValueRef};
use crate::wire::{Format, UiMeta, Width};

type R<T> = Result<T, PresenterError>;

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

fn format(v: Value<'_>, path: &str) -> R<Format> {
    string(v, path)?
        .parse()
        .map_err(|e: crate::wire::UnknownFormat| PresenterError::new(path, e.to_string()))
}

fn presenter(v: Value<'_>, path: &str) -> R<Presenter> {
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
            "item_rules" => {
                let rules = strings(val, &p, true)?;
                b.item_rules_reading(&[], move |_| rules.clone())
            }
            "collection_rules" => {
                let rules = strings(val, &p, true)?;
                b.collection_rules_reading(&[], move |_| rules.clone())
            }
            "limit" => b.limit(natural(val, &p)?),
            "token_budget" => b.token_budget(natural(val, &p)?),
            "redact" => {
                let mut paths = Vec::new();
                let mut censor = None;
                for (rk, rv) in members(val, &p, &["paths", "censor"])? {
                    let rp = join(&p, &rk);
                    if rk == "paths" {
                        paths = strings(rv, &rp, false)?;
                    } else {
                        censor = Some(string(rv, &rp)?);
                    }
                }
                b.redact(paths, censor.as_deref())
            }
            "select" => b.select(boolean(val, &p)?),
            "ui" => {
                for (uk, uv) in members(val, &p, &["item", "collection"])? {
                    let up = join(&p, &uk);
                    let a = uv
                        .as_array()
                        .ok_or_else(|| PresenterError::new(&up, "expected an array"))?;
                    for (i, el) in a.iter().enumerate() {
                        let e = ui_entry(el, &format!("{up}[{i}]"))?;
                        b = if uk == "item" {
                            b.item_ui_entry(e)
                        } else {
                            b.collection_ui_entry(e)
                        };
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
                    let child = presenter(ev, &join(&p, &ek))?;
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
        presenter(v, "")
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
