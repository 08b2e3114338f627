//! Declarative UI entries (CLI.md "Presenter file"): `table`, `summary`, `markdown`, `list`.
//!
//! Templates: `{count}` is the number of items before truncation, `{shown}` the number kept,
//! `{hidden}` the difference (for a single item: 1, 1, 0); any other `{path}` is a dot path
//! into the item (for collection `summary`/`markdown`, the first kept item; for `list`, each
//! kept item). A `{` without a closing `}` and `{}` are literal text. Values render as table
//! cells do: strings verbatim, numbers and booleans as in JSON, objects and arrays as compact
//! JSON, `null` or missing as empty text.

use super::schema::Schema;
use crate::doc::{Value, ValueRef};
use crate::wire::{UiBlock, UiMeta, ui};

/// A declarative UI entry.
#[derive(Clone, Debug, PartialEq)]
pub enum UiEntry {
    /// `ui::table` (type `markdown`) of the named columns (field names or dot paths; the
    /// header shows them as written), one row per kept item (one row in item UI).
    Table {
        /// The columns.
        columns: Vec<String>,
        /// Block attributes.
        meta: UiMeta,
    },
    /// `ui::summary` of the template.
    Summary {
        /// The template.
        template: String,
        /// Block attributes.
        meta: UiMeta,
    },
    /// `ui::markdown` of the template.
    Markdown {
        /// The template.
        template: String,
        /// Block attributes.
        meta: UiMeta,
    },
    /// `ui::list`: one line per item, each the template over that item.
    List {
        /// The template.
        template: String,
        /// Block attributes.
        meta: UiMeta,
    },
}

#[derive(Clone, Debug, PartialEq)]
enum Part {
    Lit(String),
    Count,
    Shown,
    Hidden,
    Path(Vec<String>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Table,
    Summary,
    Markdown,
    List,
}

/// A parsed entry.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CompiledEntry {
    kind: Kind,
    columns: Vec<(String, Vec<String>)>,
    parts: Vec<Part>,
    meta: UiMeta,
}

fn split_path(p: &str) -> Vec<String> {
    p.split('.').map(str::to_owned).collect()
}

fn parse_template(t: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut lit = String::new();
    let mut rest = t;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find(['}', '{']) {
            Some(close) if after.as_bytes()[close] == b'}' && close > 0 => {
                lit.push_str(&rest[..open]);
                if !lit.is_empty() {
                    parts.push(Part::Lit(std::mem::take(&mut lit)));
                }
                let name = &after[..close];
                parts.push(match name {
                    "count" => Part::Count,
                    "shown" => Part::Shown,
                    "hidden" => Part::Hidden,
                    _ => Part::Path(split_path(name)),
                });
                rest = &after[close + 1..];
            }
            _ => {
                lit.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    lit.push_str(rest);
    if !lit.is_empty() {
        parts.push(Part::Lit(lit));
    }
    parts
}

/// The `total` of a page ([`Input::page`](crate::call::Input::page)) whose collection was
/// not counted (a database that could not count the matching rows in time): the truncation
/// notice says `N shown, more hidden`, `{count}` in templates reads `more than N` and
/// `{hidden}` `more`, and [`ToolCall::paging`](crate::call::ToolCall::paging) receives it as
/// the total.
///
/// ```
/// use toolwire::call::{Input, ToolCall, UNCOUNTED};
/// use toolwire::present::Presenter;
///
/// let rows = toolwire::json::parse(br#"[{"id":1},{"id":2}]"#, &Default::default())?;
/// let presenter = Presenter::from_json(br#"{"name": "Row", "limit": 1, "format": "compact"}"#)?;
/// let input = Input::page(rows.root().as_array().unwrap().iter(), UNCOUNTED);
/// let reply = ToolCall::new().presenter(&presenter).respond(&input)?;
/// assert_eq!(reply.response().texts()[0], r#"[{"id":1}]"#);
/// assert!(reply.response().texts()[1].contains("1 shown, more hidden."));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const UNCOUNTED: usize = usize::MAX;

/// Counts a collection template sees.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Counts {
    pub(crate) count: usize,
    pub(crate) shown: usize,
}

/// The value at a dot path, if every step is an object member.
pub(crate) fn lookup<'d>(item: Value<'d>, path: &[String]) -> Option<Value<'d>> {
    let mut v = item;
    for seg in path {
        v = v.as_object()?.get(seg.as_bytes())?;
    }
    Some(v)
}

/// A value as text (cells and template fields).
pub(crate) fn push_text(out: &mut String, v: Option<Value<'_>>) {
    let Some(v) = v else { return };
    match v.get() {
        ValueRef::Null => {}
        ValueRef::String(s) => out.push_str(&String::from_utf8_lossy(s.as_bytes())),
        _ => out.push_str(&crate::json::to_string_compact(v)),
    }
}

impl CompiledEntry {
    pub(crate) fn compile(entry: UiEntry) -> CompiledEntry {
        match entry {
            UiEntry::Table { columns, meta } => CompiledEntry {
                kind: Kind::Table,
                columns: columns
                    .into_iter()
                    .map(|c| {
                        let p = split_path(&c);
                        (c, p)
                    })
                    .collect(),
                parts: Vec::new(),
                meta,
            },
            UiEntry::Summary { template, meta } => Self::templ(Kind::Summary, &template, meta),
            UiEntry::Markdown { template, meta } => Self::templ(Kind::Markdown, &template, meta),
            UiEntry::List { template, meta } => Self::templ(Kind::List, &template, meta),
        }
    }

    fn templ(kind: Kind, t: &str, meta: UiMeta) -> CompiledEntry {
        CompiledEntry {
            kind,
            columns: Vec::new(),
            parts: parse_template(t),
            meta,
        }
    }

    fn paths(&self) -> impl Iterator<Item = &Vec<String>> {
        self.columns
            .iter()
            .map(|(_, p)| p)
            .chain(self.parts.iter().filter_map(|p| match p {
                Part::Path(p) => Some(p),
                _ => None,
            }))
    }

    /// Checks that every path can exist under `schema`; the error names the first bad one.
    pub(crate) fn check_paths<'s>(
        &self,
        schema: Option<&'s Schema>,
        lookup: &mut super::check::Lookup<'s>,
    ) -> Result<(), String> {
        let Some(schema) = schema else { return Ok(()) };
        for p in self.paths() {
            let segs: Vec<super::redact::Seg> = p
                .iter()
                .map(|k| super::redact::Seg::Key(k.clone()))
                .collect();
            if !super::check::redact_path_can_exist(schema, &segs, lookup) {
                return Err(format!(
                    "path '{}' cannot exist under the schema",
                    p.join(".")
                ));
            }
        }
        Ok(())
    }

    /// A table with no column (it would render as `|` lines).
    pub(crate) fn is_table_without_columns(&self) -> bool {
        self.kind == Kind::Table && self.columns.is_empty()
    }

    /// The root keys this entry reads.
    pub(crate) fn reads(&self) -> impl Iterator<Item = &str> {
        self.paths().filter_map(|p| p.first().map(String::as_str))
    }

    fn fill(&self, out: &mut String, item: Option<Value<'_>>, counts: Counts) {
        for part in &self.parts {
            match part {
                Part::Lit(s) => out.push_str(s),
                // A page of an uncounted collection has no number for these.
                Part::Count if counts.count == UNCOUNTED => {
                    out.push_str("more than ");
                    out.push_str(itoa::Buffer::new().format(counts.shown));
                }
                Part::Hidden if counts.count == UNCOUNTED => out.push_str("more"),
                Part::Count => out.push_str(itoa::Buffer::new().format(counts.count)),
                Part::Shown => out.push_str(itoa::Buffer::new().format(counts.shown)),
                Part::Hidden => out.push_str(
                    itoa::Buffer::new().format(counts.count.saturating_sub(counts.shown)),
                ),
                Part::Path(p) => push_text(out, item.and_then(|i| lookup(i, p))),
            }
        }
    }

    fn row(&self, item: Value<'_>) -> Vec<String> {
        self.columns
            .iter()
            .map(|(_, p)| {
                let mut s = String::new();
                push_text(&mut s, lookup(item, p));
                s
            })
            .collect()
    }

    /// Renders over `items` (the single item, or the kept items of a collection).
    pub(crate) fn render(&self, items: &[Value<'_>], counts: Counts) -> UiBlock {
        let block = match self.kind {
            Kind::Table => {
                let headers: Vec<&str> = self.columns.iter().map(|(h, _)| h.as_str()).collect();
                let rows = items.iter().map(|i| self.row(*i));
                // Every row has exactly one cell per header, so `table` cannot fail.
                ui::table(&headers, rows).unwrap_or_else(|_| ui::markdown(""))
            }
            Kind::Summary | Kind::Markdown => {
                let mut s = String::new();
                self.fill(&mut s, items.first().copied(), counts);
                if self.kind == Kind::Summary {
                    ui::summary(&s)
                } else {
                    ui::markdown(&s)
                }
            }
            Kind::List => ui::list(items.iter().map(|i| {
                let mut s = String::new();
                self.fill(&mut s, Some(*i), counts);
                s
            })),
        };
        block.with_meta(self.meta.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_parse_placeholders_and_literals() {
        assert_eq!(
            parse_template("{count} x {a.b}{} {open"),
            vec![
                Part::Count,
                Part::Lit(" x ".into()),
                Part::Path(vec!["a".into(), "b".into()]),
                Part::Lit("{} {open".into()),
            ]
        );
        assert_eq!(
            parse_template("{{x}"),
            vec![Part::Lit("{".into()), Part::Path(vec!["x".into()])]
        );
    }
}
