//! `_select` (WIRE.md §4): the tool's input property, request validation, projection of the
//! data block, and the root keys the parser must materialise (pushdown).

use super::derived::{copy_value, derived_builder};
use super::{Plan, Presenter, UiSource};
use crate::doc::{Doc, DocBuilder, Value, ValueRef};
use crate::wire::{FieldProblem, you_sent_string};

const DESCRIPTION: &str = "⚡ Context optimization: select only the response fields you need. Omit to receive all fields.";

/// The `_select` input property of a tool whose actions use `presenters`: the enum is the
/// union of the root keys of every presenter schema that enables select, sorted bytewise.
/// `None` when no presenter enables select.
///
/// ```
/// use toolwire::present::{Presenter, Schema, select_input_property};
/// let p = Presenter::builder("T")
///     .schema(Schema::object().property("b", Schema::any()).property("a", Schema::any()))
///     .select(true)
///     .build()
///     .unwrap();
/// assert_eq!(
///     select_input_property(&[&p]).unwrap(),
///     r#"{"type":"array","description":"⚡ Context optimization: select only the response fields you need. Omit to receive all fields.","items":{"type":"string","enum":["a","b"]}}"#
/// );
/// ```
pub fn select_input_property(presenters: &[&Presenter]) -> Option<String> {
    let enabled: Vec<&&Presenter> = presenters.iter().filter(|p| p.select_enabled()).collect();
    if enabled.is_empty() {
        return None;
    }
    let mut names: Vec<&str> = enabled.iter().flat_map(|p| p.select_names()).collect();
    names.sort_unstable();
    names.dedup();
    let mut b = DocBuilder::new(b"");
    let o = b.begin_object();
    b.string(b"type");
    b.string(b"array");
    b.string(b"description");
    b.string(DESCRIPTION.as_bytes());
    b.string(b"items");
    let items = b.begin_object();
    b.string(b"type");
    b.string(b"string");
    b.string(b"enum");
    let e = b.begin_array();
    for n in &names {
        b.string(n.as_bytes());
    }
    b.end_array(e, names.len());
    b.end_object(items, 2);
    b.end_object(o, 3);
    Some(crate::json::to_string_compact(b.finish().root()))
}

/// ` You sent: <value>` rendering of WIRE.md §8 for any value.
pub(crate) fn you_sent(v: Value<'_>) -> String {
    match v.get() {
        ValueRef::String(s) => you_sent_string(&String::from_utf8_lossy(s.as_bytes())),
        ValueRef::Null => "null".into(),
        ValueRef::Array(a) => format!("array({})", a.len()),
        ValueRef::Object(_) => crate::json::to_string_compact(v).chars().take(50).collect(),
        _ => crate::json::to_string_compact(v),
    }
}

fn options(valid: &[&str]) -> String {
    // A presenter that enables `_select` over a schema without properties offers none.
    if valid.is_empty() {
        return "none".into();
    }
    valid
        .iter()
        .map(|v| format!("'{v}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn problem(detail: String) -> FieldProblem {
    FieldProblem {
        name: "_select".into(),
        detail,
    }
}

fn unknown(name: &str, sent: &str, valid: &[&str]) -> FieldProblem {
    // The name is the client's: echoed whole as WIRE.md §4 writes it, but a name longer
    // than any field's is cut, so the error's size does not grow with it.
    let name = if name.chars().count() > MAX_NAME_CHARS {
        let cut: String = name.chars().take(MAX_NAME_CHARS - 3).collect();
        format!("{cut}...")
    } else {
        name.to_owned()
    };
    problem(format!(
        "Unknown field '{name}'. You sent: {sent}. Valid options: {}.",
        options(valid)
    ))
}

/// The longest unknown name echoed whole.
const MAX_NAME_CHARS: usize = 128;

/// The problems one `_select` reports: past them, one more counts the rest (the client
/// decides how many names it sends; the error's size does not grow with them).
const MAX_PROBLEMS: usize = 8;

/// Validates a requested `_select` value against `valid` (the enum, in enum order): a
/// non-array, a non-string element or a name outside `valid` is a problem on field `_select`
/// (render them with [`validation_error`](crate::wire::validation_error)). Returns the names
/// in request order, duplicates collapsed (an empty list means all fields).
///
/// # Errors
///
/// The problems, one per bad element (or one for a non-array).
pub fn validate_select(value: Value<'_>, valid: &[&str]) -> Result<Vec<String>, Vec<FieldProblem>> {
    let Some(arr) = value.as_array() else {
        return Err(vec![problem(format!(
            "Expected an array of field names. You sent: {}. Valid options: {}.",
            you_sent(value),
            options(valid)
        ))]);
    };
    let mut names: Vec<String> = Vec::new();
    let mut problems = Vec::new();
    // Sets beside the lists: `_select` comes from the agent, and a scan per element was
    // quadratic in its length times the schema's width.
    let valid_set: std::collections::HashSet<&str> = valid.iter().copied().collect();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for el in arr.iter() {
        match el.as_str() {
            None => problems.push(problem(format!(
                "Expected a field name (string). You sent: {}. Valid options: {}.",
                you_sent(el),
                options(valid)
            ))),
            Some(s) => {
                let name = String::from_utf8_lossy(s.as_bytes()).into_owned();
                if !valid_set.contains(name.as_str()) {
                    problems.push(unknown(&name, &you_sent(el), valid));
                } else if seen.insert(name.clone()) {
                    names.push(name);
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(names)
    } else {
        Err(capped(problems))
    }
}

/// `problems`, at most [`MAX_PROBLEMS`] of them and one that counts the rest.
fn capped(mut problems: Vec<FieldProblem>) -> Vec<FieldProblem> {
    if problems.len() > MAX_PROBLEMS {
        let more = problems.len() - MAX_PROBLEMS;
        problems.truncate(MAX_PROBLEMS);
        problems.push(problem(format!("{more} more problems not listed.")));
    }
    problems
}

impl Presenter {
    /// [`validate_select`] against this presenter's own names ([`Presenter::select_names`]).
    ///
    /// # Errors
    ///
    /// See [`validate_select`].
    pub fn parse_select(&self, value: Value<'_>) -> Result<Vec<String>, Vec<FieldProblem>> {
        validate_select(value, &self.select_names())
    }
}

/// Checks already-extracted names (for [`Presenter::present`]): unknown names are problems;
/// duplicates collapse.
pub(crate) fn check_names<'n>(
    p: &Presenter,
    names: &[&'n str],
) -> Result<Vec<&'n str>, Vec<FieldProblem>> {
    let valid = p.select_names();
    let mut out: Vec<&'n str> = Vec::with_capacity(names.len());
    let mut problems = Vec::new();
    let valid_set: std::collections::HashSet<&str> = valid.iter().copied().collect();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for &n in names {
        if !valid.is_empty() && !valid_set.contains(n) {
            problems.push(unknown(n, &you_sent_string(n), &valid));
        } else if seen.insert(n) {
            out.push(n);
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(capped(problems))
    }
}

fn project_object(b: &mut DocBuilder<'_>, v: Value<'_>, names: &[&str]) {
    let Some(o) = v.as_object() else {
        copy_value(b, v);
        return;
    };
    let m = b.begin_object();
    let mut n = 0;
    for name in names {
        if let Some(val) = o.get(name.as_bytes()) {
            // The key node sits right before its value.
            b.copy_from(val.doc(), val.index() - 1);
            copy_value(b, val);
            n += 1;
        }
    }
    b.end_object_unique(m, n);
}

/// The data block under `_select`: the requested root keys in request order, of the root
/// object or of each object element of a root array; anything else unchanged.
pub(crate) fn project<'d>(input: &'d Doc<'d>, full: &Doc<'d>, names: &[&str]) -> Doc<'d> {
    let mut b = derived_builder(input, full.node_count());
    // And the flags `full` noted for its censors: a selected redacted field shows one (a
    // censor holding a reserved tag must still make TOON fall back, WIRE.md §2).
    if full.has_reserved_tag() {
        b.mark_reserved_tag();
    }
    if full.has_lone_surrogate() {
        b.mark_lone_surrogate();
    }
    let root = full.root();
    match root.get() {
        ValueRef::Array(a) => {
            let m = b.begin_array();
            for el in a.iter() {
                project_object(&mut b, el, names);
            }
            b.end_array(m, a.len());
        }
        _ => project_object(&mut b, root, names),
    }
    b.finish()
}

/// See [`Presenter::needed_root_keys`].
pub(crate) fn needed_root_keys(plan: &Plan, select: Option<&[&str]>) -> Option<Vec<String>> {
    let cfg = &plan.cfg;
    let mut keys: Vec<String> = Vec::new();
    // A set beside the list: a scan per key was quadratic in wide schemas.
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut add = |keys: &mut Vec<String>, k: &str| {
        if seen.insert(k.to_owned()) {
            keys.push(k.to_owned());
        }
    };
    if let Some(schema) = &cfg.schema {
        if schema.properties.is_some() && !schema.additional {
            for k in schema.root_keys() {
                add(&mut keys, k);
            }
            for (k, _) in &cfg.embeds {
                add(&mut keys, k);
            }
            return Some(keys);
        }
    }
    let select = select.filter(|s| cfg.select && !s.is_empty())?;
    for k in select {
        add(&mut keys, k);
    }
    let fns = cfg
        .item_rules
        .iter()
        .chain(&cfg.collection_rules)
        .map(|r| r.reads.as_deref());
    for reads in fns {
        for k in reads? {
            add(&mut keys, k);
        }
    }
    for src in cfg.item_ui.iter().chain(&cfg.collection_ui) {
        match src {
            UiSource::Fn(r) => {
                for k in r.reads.as_deref()? {
                    add(&mut keys, k);
                }
            }
            UiSource::Entry(e) => {
                for k in e.reads() {
                    add(&mut keys, k);
                }
            }
        }
    }
    for s in cfg.item_suggest.iter().chain(&cfg.collection_suggest) {
        if let super::SuggestSource::Fn(r) = s {
            for k in r.reads.as_deref()? {
                add(&mut keys, k);
            }
        }
    }
    for k in plan.redact.root_keys()? {
        add(&mut keys, k);
    }
    if let Some(schema) = &cfg.schema {
        for k in &schema.required {
            add(&mut keys, k);
        }
    }
    for (k, _) in &cfg.embeds {
        add(&mut keys, k);
    }
    Some(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The client decides how many names and how long: the error lists eight problems, counts
    /// the rest, and echoes a long name cut.
    #[test]
    fn many_or_long_unknown_names_give_a_bounded_error() {
        let long = "ab cd ".repeat(2000);
        let mut names: Vec<String> = (0..19).map(|i| format!("x{i}")).collect();
        names.insert(0, long.clone());
        let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
        let src = format!("[{}]", quoted.join(","));
        let doc = crate::json::parse(src.as_bytes(), &Default::default()).unwrap();
        let problems = validate_select(doc.root(), &["id", "name"]).unwrap_err();
        assert_eq!(problems.len(), 9);
        assert_eq!(problems[8].detail, "12 more problems not listed.");
        let first = &problems[0].detail;
        assert!(
            first.starts_with(&format!("Unknown field '{}...'.", &long[..125])),
            "{first}"
        );
        assert!(first.len() < 400, "{first}");
    }
}
