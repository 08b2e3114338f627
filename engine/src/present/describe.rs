//! Tool descriptions (WIRE.md §6) and the output schema (WIRE.md §7), as JSON or text built
//! with the engine's own writers.

use super::redact::RNode;
use super::schema::{Schema, Type};
use super::{Plan, Presenter};
use crate::doc::DocBuilder;
use crate::toon::{Delimiter, EncodeOptions};

/// One action of a tool, for its description.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ActionDescription {
    /// The action name (`list`, or `invoices.list` for a grouped tool).
    pub name: String,
    /// What it does (may be empty).
    pub description: String,
    /// Its required parameters, in declaration order.
    pub required: Vec<String>,
    /// Whether it destroys data.
    pub destructive: bool,
}

/// Layer one of a description: the description (or the tool name when empty), then
/// `. Select operation via the `<discriminator>` parameter.` (no second period).
fn layer_one(tool_name: &str, description: &str, discriminator: &str) -> String {
    let head = if description.is_empty() {
        tool_name
    } else {
        description
    };
    let sep = if head.ends_with('.') { " " } else { ". " };
    format!("{head}{sep}Select operation via the `{discriminator}` parameter.")
}

/// The TOON tool description of WIRE.md §6: layer one, an empty line, then the TOON
/// (delimiter `|`) of one row per action `{action, desc, required}`, plus `destructive: true`
/// only on destructive actions (so a tool that mixes them falls back to the list form).
///
/// ```
/// use toolwire::present::{ActionDescription, toon_description};
/// let actions = [
///     ActionDescription { name: "list".into(), description: "List invoices".into(), ..Default::default() },
///     ActionDescription { name: "get".into(), description: "One invoice".into(), required: vec!["id".into()], destructive: false },
/// ];
/// assert_eq!(
///     toon_description("billing", "Manage invoices", "action", &actions),
///     "Manage invoices. Select operation via the `action` parameter.\n\n[2|]{action|desc|required}:\n  list|List invoices|\"\"\n  get|One invoice|id"
/// );
/// ```
pub fn toon_description(
    tool_name: &str,
    description: &str,
    discriminator: &str,
    actions: &[ActionDescription],
) -> String {
    let mut b = DocBuilder::new(b"");
    let arr = b.begin_array();
    for a in actions {
        let o = b.begin_object();
        b.string(b"action");
        b.string(a.name.as_bytes());
        b.string(b"desc");
        b.string(a.description.as_bytes());
        b.string(b"required");
        b.string(a.required.join(",").as_bytes());
        if a.destructive {
            b.string(b"destructive");
            b.bool(true);
        }
        b.end_object(o, if a.destructive { 4 } else { 3 });
    }
    b.end_array(arr, actions.len());
    let doc = b.finish();
    let opts = EncodeOptions::new()
        .delimiter(Delimiter::Pipe)
        .parallel(false);
    // Strings from `&str` hold no lone surrogate and the depth is 2: encoding cannot fail.
    let toon = crate::toon::to_string(doc.root(), &opts).unwrap_or_default();
    format!(
        "{}\n\n{toon}",
        layer_one(tool_name, description, discriminator)
    )
}

/// The plain (non-TOON) description: layer one, an empty line, then one line per action
/// `- <action>: <desc>`, with ` (requires: a, b)` when it has required fields and
/// ` [destructive]` when destructive.
pub fn plain_description(
    tool_name: &str,
    description: &str,
    discriminator: &str,
    actions: &[ActionDescription],
) -> String {
    let mut s = layer_one(tool_name, description, discriminator);
    s.push('\n');
    for a in actions {
        s.push_str("\n- ");
        s.push_str(&a.name);
        if !a.description.is_empty() {
            s.push_str(": ");
            s.push_str(&a.description);
        }
        if !a.required.is_empty() {
            s.push_str(" (requires: ");
            s.push_str(&a.required.join(", "));
            s.push(')');
        }
        if a.destructive {
            s.push_str(" [destructive]");
        }
    }
    s
}

/// The protocol revision from which `structuredContent` may be any JSON value.
const UNWRAPPED_FROM: &str = "2026-07-28";

fn push_types(b: &mut DocBuilder<'_>, types: &[Type]) {
    b.string(b"type");
    if let [t] = types {
        b.string(t.as_str().as_bytes());
    } else {
        let m = b.begin_array();
        for t in types {
            b.string(t.as_str().as_bytes());
        }
        b.end_array(m, types.len());
    }
}

/// Writes `schema` as JSON Schema; `red` types redacted paths as strings; `drop_required`
/// omits this node's `required`; `embeds` replace the schema of embedded root keys.
fn push_schema(
    b: &mut DocBuilder<'_>,
    schema: Option<&Schema>,
    red: Option<&RNode>,
    drop_required: bool,
    plan: Option<&Plan>,
) {
    if red.is_some_and(|r| r.here) {
        let o = b.begin_object();
        b.string(b"type");
        b.string(b"string");
        b.end_object(o, 1);
        return;
    }
    let empty = Schema::any();
    let s = schema.unwrap_or(&empty);
    let o = b.begin_object();
    let mut n = 0;
    if !s.types.is_empty() {
        push_types(b, &s.types);
        n += 1;
    }
    if let Some(values) = &s.enum_values {
        b.string(b"enum");
        let m = b.begin_array();
        for v in values {
            v.push(b);
        }
        b.end_array(m, values.len());
        n += 1;
    }
    let embeds = plan.map_or(&[][..], |p| &p.embeds[..]);
    if let Some(props) = &s.properties {
        b.string(b"properties");
        let m = b.begin_object();
        let mut count = 0;
        // By name through maps: scans here were quadratic in wide presenters.
        let by_key: std::collections::HashMap<&str, &super::EmbedPlan> =
            embeds.iter().map(|e| (e.key.as_str(), e)).collect();
        let declared: std::collections::HashSet<&str> =
            props.iter().map(|(k, _)| k.as_str()).collect();
        for (k, ps) in props {
            b.string(k.as_bytes());
            let r = red.and_then(|r| r.member(k.as_bytes()));
            match by_key.get(k.as_str()) {
                Some(e) if !r.is_some_and(|r| r.here) => push_embedded(b, ps, e),
                _ => push_schema(b, Some(ps), r, false, None),
            }
            count += 1;
        }
        for e in embeds {
            if !declared.contains(e.key.as_str()) {
                b.string(e.key.as_bytes());
                push_embedded(b, &Schema::any(), e);
                count += 1;
            }
        }
        b.end_object(m, count);
        n += 1;
    }
    if !drop_required && !s.required.is_empty() {
        b.string(b"required");
        let m = b.begin_array();
        for r in &s.required {
            b.string(r.as_bytes());
        }
        b.end_array(m, s.required.len());
        n += 1;
    }
    if let Some(items) = &s.items {
        b.string(b"items");
        push_schema(b, Some(items), red.and_then(RNode::element), false, None);
        n += 1;
    }
    if s.additional {
        b.string(b"additionalProperties");
        b.bool(true);
        n += 1;
    }
    b.end_object(o, n);
}

/// An embedded key: the child's item schema, or an array of it when the parent declares an
/// array there.
fn push_embedded(b: &mut DocBuilder<'_>, parent: &Schema, e: &super::EmbedPlan) {
    let array = parent.types.contains(&Type::Array) || parent.items.is_some();
    let plan = if array { &e.array } else { &e.object };
    let child = plan.cfg.schema.as_ref();
    let red = Some(&plan.redact);
    if array {
        let o = b.begin_object();
        push_types(b, &parent.types);
        b.string(b"items");
        push_schema(b, child, red, false, Some(plan));
        b.end_object(o, 2);
    } else {
        push_schema(b, child, red, false, Some(plan));
    }
}

impl Presenter {
    /// The tool's `outputSchema` (WIRE.md §7) as compact JSON: JSON Schema 2020-12 of the
    /// presenter schema (of one item, or of the array of items when `collection`), `required`
    /// dropped at the root when select is enabled, redacted paths typed as strings, embedded
    /// keys described by the child's schema. For protocols before `2026-07-28` a collection
    /// is wrapped as `{"items": [...]}` and any other non-object as `{"value": x}`.
    pub fn output_schema(&self, protocol: &str, collection: bool) -> String {
        let plan = &*self.plan;
        let schema = plan.cfg.schema.as_ref();
        let select = plan.cfg.select;
        let red = Some(&plan.redact);
        let is_object = schema.is_some_and(|s| s.types == [Type::Object]);
        let wrap = protocol < UNWRAPPED_FROM;
        let mut b = DocBuilder::new(b"");
        let o = b.begin_object();
        b.string(b"$schema");
        b.string(b"https://json-schema.org/draft/2020-12/schema");
        let item = |b: &mut DocBuilder<'_>| push_schema(b, schema, red, select, Some(plan));
        let array_of = |b: &mut DocBuilder<'_>| {
            let a = b.begin_object();
            b.string(b"type");
            b.string(b"array");
            b.string(b"items");
            item(b);
            b.end_object(a, 2);
        };
        let n = if wrap && (collection || !is_object) {
            let key: &[u8] = if collection { b"items" } else { b"value" };
            b.string(b"type");
            b.string(b"object");
            b.string(b"properties");
            let p = b.begin_object();
            b.string(key);
            if collection {
                array_of(&mut b);
            } else {
                item(&mut b);
            }
            b.end_object(p, 1);
            b.string(b"required");
            let r = b.begin_array();
            b.string(key);
            b.end_array(r, 1);
            4
        } else {
            // Splice the item (or array) schema's members after `$schema`.
            let mut inner = DocBuilder::new(b"");
            if collection {
                array_of(&mut inner);
            } else {
                item(&mut inner);
            }
            let inner = inner.finish();
            let mut n = 1;
            if let Some(obj) = inner.root().as_object() {
                for (k, v) in obj.iter() {
                    b.string(k.as_bytes());
                    super::derived::copy_value(&mut b, v);
                    n += 1;
                }
            }
            n
        };
        b.end_object(o, n);
        crate::json::to_string_compact(b.finish().root())
    }
}
