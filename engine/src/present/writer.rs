//! The general writer: the recursive walk of stages 2–3 (validate and strip against the schema,
//! redact) and of the embedded children's schema and redaction, over the rows `present::run`
//! keeps (stage 1), writing the derived document and the `OUTPUT_VALIDATION_FAILED` messages.
//! The walk keeps one scratch vector (the members of the object being written, in schema
//! order) and one path stack (for messages) for the whole call: no allocation per row beyond
//! the derived tape and heap. Rows that fit the compiled field list (`present::fast_row`) take
//! its fast path.

use super::derived::{derived_builder, push_node};
use super::fast_row::FastRow;
use super::redact::RNode;
use super::schema::{Schema, kind};
use super::{EmbedPlan, Plan};
use crate::doc::{Doc, DocBuilder, KeysToken, Node, Str, Value, ValueRef, key_eq};

/// Output validation lists at most this many problems (WIRE.md §8).
const MAX_PROBLEMS: usize = 10;

#[derive(Clone, Copy)]
enum Seg<'d> {
    Key(&'d [u8]),
    Index(usize),
}

/// Writes the derived document.
pub(crate) struct Writer<'d> {
    pub(crate) b: DocBuilder<'d>,
    scratch: Vec<Option<(Str<'d>, Value<'d>)>>,
    slots: Vec<Option<Value<'d>>>,
    path: Vec<Seg<'d>>,
    pub(crate) item: usize,
    pub(crate) count: usize,
    pub(crate) messages: Vec<String>,
    /// Depth of redacted values being validated: their messages never quote them.
    redacted: u32,
}

#[inline]
fn find_prop(props: &[(String, Schema)], key: &[u8], hint: usize) -> Option<usize> {
    // Rows usually list fields in schema order: try the next declared one first.
    if let Some((k, _)) = props.get(hint) {
        if k.as_bytes() == key {
            return Some(hint);
        }
    }
    props.iter().position(|(k, _)| k.as_bytes() == key)
}

impl<'d> Writer<'d> {
    pub(crate) fn new(doc: &'d Doc<'d>, nodes: usize) -> Writer<'d> {
        Writer {
            b: derived_builder(doc, nodes),
            scratch: Vec::new(),
            slots: Vec::new(),
            path: Vec::new(),
            item: 0,
            count: 0,
            messages: Vec::new(),
            redacted: 0,
        }
    }

    #[cold]
    fn problem(&mut self, extra_key: Option<&str>, msg: String) {
        self.count += 1;
        if self.messages.len() >= MAX_PROBLEMS {
            return;
        }
        let mut path = String::new();
        for seg in &self.path {
            match seg {
                Seg::Key(k) => {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    // Keys come from the data too: cut like quoted values.
                    path.push_str(&super::schema::cut_bytes(k));
                }
                Seg::Index(i) => {
                    path.push('[');
                    path.push_str(itoa::Buffer::new().format(*i));
                    path.push(']');
                }
            }
        }
        if let Some(k) = extra_key {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(k);
        }
        self.messages.push(if path.is_empty() {
            format!("item {}: {msg}", self.item)
        } else {
            format!("item {} '{path}': {msg}", self.item)
        });
    }

    /// The fast path of [`FastRow`]: returns false, having written nothing, when the row
    /// needs the general writer.
    #[inline]
    fn fast_row(&mut self, f: &FastRow, plan: &Plan, v: Value<'d>) -> bool {
        let doc = v.doc();
        let nodes = doc.nodes();
        let Some(o) = v.as_object() else {
            return false;
        };
        let n = f.keys.len();
        self.slots.clear();
        self.slots.resize(n, None);
        let mut hint = 0;
        for (key, val) in o.iter() {
            let key = key.as_bytes();
            let p = if hint < n && key_eq(&f.keys[hint], key) {
                Some(hint)
            } else {
                f.find(key)
            };
            if let Some(p) = p {
                if kind(&nodes.at(val.index())) & f.masks[p] == 0 {
                    return false;
                }
                self.slots[p] = Some(val);
                hint = p + 1;
            }
        }
        if f.required.iter().any(|&r| self.slots[r].is_none()) {
            return false;
        }
        let censor = plan.cfg.censor.as_str();
        let m = self.b.begin_object();
        let mut count = 0;
        let mut written = 0u64;
        for p in 0..n {
            let Some(val) = self.slots[p] else { continue };
            written |= 1u64.checked_shl(p as u32).unwrap_or(0);
            let vi = val.index();
            push_node(&mut self.b, doc, vi - 1);
            if f.redacted[p] {
                self.b.str_heap(censor.as_bytes());
            } else if f.complex[p] {
                let props = plan
                    .cfg
                    .schema
                    .as_ref()
                    .and_then(|s| s.properties.as_deref());
                let schema = props.map(|ps| &ps[p].1);
                let key = &f.keys[p];
                let red = plan.redact.member(key);
                self.path.push(Seg::Key(doc.key_at(vi - 1)));
                self.write_value(val, schema, red, censor, true, &[]);
                self.path.pop();
            } else {
                push_node(&mut self.b, doc, vi);
            }
            count += 1;
        }
        // The row's keys are `f.keys` at the slots written, in slot order.
        close_projected(
            &mut self.b,
            m,
            count,
            f as *const FastRow as usize,
            n,
            written,
        );
        true
    }

    /// Writes one item under `plan` (its schema, redaction and embeds).
    pub(crate) fn write_item(&mut self, plan: &Plan, v: Value<'d>, emit: bool) {
        if emit {
            if let Some(f) = &plan.fast {
                if self.fast_row(f, plan, v) {
                    return;
                }
            }
        }
        let red = Some(&plan.redact).filter(|r| !r.is_empty());
        self.write_value(
            v,
            plan.cfg.schema.as_ref(),
            red,
            &plan.cfg.censor,
            emit,
            &plan.embeds,
        );
    }

    fn write_value(
        &mut self,
        v: Value<'d>,
        schema: Option<&Schema>,
        red: Option<&RNode>,
        censor: &str,
        emit: bool,
        embeds: &[EmbedPlan],
    ) {
        if let Some(r) = red {
            if r.here {
                // Validation sees the original value; only the censor is ever written, and
                // messages never quote it.
                self.redacted += 1;
                self.write_value(v, schema, None, censor, false, embeds);
                self.redacted -= 1;
                if emit {
                    self.censor(r, censor, v);
                }
                return;
            }
        }
        let doc = v.doc();
        let idx = v.index();
        let node = doc.nodes().at(idx);
        if let Some(s) = schema {
            if s.mask() & kind(&node) == 0 || s.enum_values.is_some() {
                if let Err(msg) = s.check_here(v, self.redacted > 0) {
                    self.problem(None, msg);
                    if emit {
                        self.b.null();
                    }
                    return;
                }
            }
        }
        match node {
            Node::Object { .. } => {
                let props = schema.and_then(|s| s.properties.as_deref());
                if props.is_none() && red.is_none() && embeds.is_empty() {
                    if emit {
                        self.b.copy_from(doc, idx);
                    }
                    return;
                }
                let Some(o) = v.as_object() else { return };
                let additional = schema.is_some_and(|s| s.additional);
                let required = schema.map_or(&[][..], |s| &s.required[..]);
                self.write_object(o, props, required, additional, red, censor, emit, embeds);
            }
            Node::Array { .. } => {
                let items = schema.and_then(|s| s.items.as_deref());
                let er = red.and_then(RNode::element);
                if items.is_none() && er.is_none() {
                    if emit {
                        self.b.copy_from(doc, idx);
                    }
                    return;
                }
                let Some(a) = v.as_array() else { return };
                let m = emit.then(|| self.b.begin_array());
                for (i, el) in a.iter().enumerate() {
                    self.path.push(Seg::Index(i));
                    self.write_value(el, items, er, censor, emit, &[]);
                    self.path.pop();
                }
                if let Some(m) = m {
                    self.b.end_array(m, a.len());
                }
            }
            _ => {
                if emit {
                    push_node(&mut self.b, doc, idx);
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn write_object(
        &mut self,
        o: crate::doc::Object<'d>,
        props: Option<&[(String, Schema)]>,
        required: &[String],
        additional: bool,
        red: Option<&RNode>,
        censor: &str,
        emit: bool,
        embeds: &[EmbedPlan],
    ) {
        let Some(props) = props else {
            let m = emit.then(|| self.b.begin_object());
            for (k, val) in o.iter() {
                self.member(k, val, None, red, censor, emit, embeds);
            }
            self.check_required_undeclared(o, required, None);
            if let Some(m) = m {
                self.b.end_object_unique(m, o.len());
            }
            return;
        };
        let base = self.scratch.len();
        self.scratch.resize(base + props.len(), None);
        let mut hint = 0;
        let mut extras = 0usize;
        for (k, val) in o.iter() {
            match find_prop(props, k.as_bytes(), hint) {
                Some(i) => {
                    self.scratch[base + i] = Some((k, val));
                    hint = i + 1;
                }
                None => {
                    if additional || embeds.iter().any(|e| e.key.as_bytes() == k.as_bytes()) {
                        extras += 1;
                    }
                }
            }
        }
        self.check_required_undeclared(o, required, Some((props, base)));
        let m = emit.then(|| self.b.begin_object());
        let mut n = 0;
        let mut written = 0u64;
        for (i, (_, prop)) in props.iter().enumerate() {
            if let Some((k, val)) = self.scratch[base + i] {
                self.member(k, val, Some(prop), red, censor, emit, embeds);
                n += 1;
                written |= 1u64.checked_shl(i as u32).unwrap_or(0);
            }
        }
        self.scratch.truncate(base);
        if extras > 0 {
            for (k, val) in o.iter() {
                if find_prop(props, k.as_bytes(), 0).is_none()
                    && (additional || embeds.iter().any(|e| e.key.as_bytes() == k.as_bytes()))
                {
                    self.member(k, val, None, red, censor, emit, embeds);
                    n += 1;
                }
            }
        }
        if let Some(m) = m {
            if extras > 0 {
                self.b.end_object_unique(m, n);
            } else {
                // The object's keys are the declared ones written, in declaration order.
                close_projected(
                    &mut self.b,
                    m,
                    n,
                    props.as_ptr() as usize,
                    props.len(),
                    written,
                );
            }
        }
    }

    /// Missing required fields.
    fn check_required_undeclared(
        &mut self,
        o: crate::doc::Object<'d>,
        required: &[String],
        props: Option<(&[(String, Schema)], usize)>,
    ) {
        // Many required names in a wide schema: by name through a map (a scan per name was
        // quadratic per object; building the map is linear, as the member pass already is).
        let at: Option<std::collections::HashMap<&str, usize>> = match props {
            Some((props, _)) if required.len() > 4 && props.len() > 16 => Some(
                props
                    .iter()
                    .enumerate()
                    .rev()
                    .map(|(i, (k, _))| (k.as_str(), i))
                    .collect(),
            ),
            _ => None,
        };
        for name in required {
            let (present, expected) = match props {
                Some((props, base)) => match at.as_ref().map_or_else(
                    || props.iter().position(|(k, _)| k == name),
                    |m| m.get(name.as_str()).copied(),
                ) {
                    Some(i) => (
                        self.scratch[base + i].is_some(),
                        props[i].1.expected_types(),
                    ),
                    None => (o.get(name.as_bytes()).is_some(), "any value".into()),
                },
                None => (o.get(name.as_bytes()).is_some(), "any value".into()),
            };
            if !present {
                self.problem(Some(name), format!("expected {expected}, got missing"));
            }
        }
    }

    /// Writes the censor of the redacted node `r` in place of `v`: its text (`default` when
    /// it names none), or what its function makes of `v`, scanned for the document flags as
    /// any copied string (a censor text's flags are noted once per call).
    fn censor(&mut self, r: &RNode, default: &str, v: Value<'d>) {
        match r.censor_call() {
            Some(f) => {
                let text = f(v);
                self.b.string(text.as_bytes());
            }
            None => self.b.str_heap(r.censor_or(default).as_bytes()),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn member(
        &mut self,
        k: Str<'d>,
        val: Value<'d>,
        schema: Option<&Schema>,
        red: Option<&RNode>,
        censor: &str,
        emit: bool,
        embeds: &[EmbedPlan],
    ) {
        if emit {
            // The key node sits right before its value.
            push_node(&mut self.b, val.doc(), val.index() - 1);
        }
        self.path.push(Seg::Key(k.as_bytes()));
        let r = red.and_then(|r| r.member(k.as_bytes()));
        match embeds.iter().find(|e| e.key.as_bytes() == k.as_bytes()) {
            Some(e) => {
                if let Some(r) = r.filter(|r| r.here) {
                    self.redacted += 1;
                    self.embedded(e, val, false);
                    self.redacted -= 1;
                    if emit {
                        self.censor(r, censor, val);
                    }
                } else {
                    self.embedded(e, val, emit);
                }
            }
            None => self.write_value(val, schema, r, censor, emit, &[]),
        }
        self.path.pop();
    }

    /// `item[key]` under an embedded child: each element of an array, or the value itself.
    fn embedded(&mut self, e: &EmbedPlan, val: Value<'d>, emit: bool) {
        match val.get() {
            ValueRef::Null => {
                if emit {
                    self.b.null();
                }
            }
            ValueRef::Array(a) => {
                let m = emit.then(|| self.b.begin_array());
                for (i, el) in a.iter().enumerate() {
                    self.path.push(Seg::Index(i));
                    self.write_item(&e.array, el, emit);
                    self.path.pop();
                }
                if let Some(m) = m {
                    self.b.end_array(m, a.len());
                }
            }
            _ => self.write_item(&e.object, val, emit),
        }
    }
}

/// Closes an object whose keys are those of `keys` of an `owner`'s list of `declared` (a
/// schema's properties, a fast row's slots), in its order: marked as its predecessor's keys
/// when that object was closed here with the same ones. A list wider than a token's bits is
/// closed unmarked.
fn close_projected(
    b: &mut DocBuilder<'_>,
    m: crate::doc::Mark,
    len: usize,
    owner: usize,
    declared: usize,
    keys: u64,
) {
    if declared > 64 {
        return b.end_object_unique(m, len);
    }
    b.end_object_keyed(m, len, KeysToken { owner, keys });
}

#[cfg(test)]
mod tests {
    #[test]
    fn flat_rows_take_the_fast_path() {
        use crate::present::{Presenter, Schema};
        let bytes = br#"[{"id":"A","customer":"c","amount_cents":5,"paid":true}]"#;
        let doc = crate::json::parse(bytes, &crate::json::ParseOptions::new()).unwrap();
        let p = Presenter::builder("I")
            .schema(
                Schema::object()
                    .property("id", Schema::string())
                    .property("customer", Schema::string())
                    .property("amount_cents", Schema::integer())
                    .property("paid", Schema::boolean()),
            )
            .redact(["customer"], None)
            .build()
            .unwrap();
        assert!(p.plan.fast.is_some());
        let mut w = super::Writer::new(&doc, 10);
        let row = doc.root().as_array().unwrap().iter().next().unwrap();
        assert!(w.fast_row(p.plan.fast.as_ref().unwrap(), &p.plan, row));
    }

    /// The derived rows of a projection (the general writer's objects and an embed's fast
    /// rows) are marked as having their predecessor's keys wherever they do, so the TOON
    /// encoder's shape analysis compares none of their keys; a row with another set of
    /// declared fields breaks the chain for itself only.
    #[test]
    fn projected_rows_are_marked_with_their_predecessors_keys() {
        use crate::doc::Node;
        use crate::present::{Presenter, Schema};
        let client = Presenter::builder("Client")
            .schema(
                Schema::object()
                    .property("name", Schema::string())
                    .property("email", Schema::string()),
            )
            .redact(["email"], None)
            .build()
            .unwrap();
        let p = Presenter::builder("Invoice")
            .schema(
                Schema::object()
                    .property("id", Schema::string())
                    .property("client", Schema::object())
                    .property("total", Schema::integer()),
            )
            .embed("client", client)
            .build()
            .unwrap();
        let bytes = br#"[
            {"id":"A","extra":1,"client":{"name":"x","email":"e"},"total":1},
            {"total":2,"id":"B","client":{"email":"e","name":"y"}},
            {"id":"C","client":{"name":"z","email":"e"}},
            {"id":"D","client":{"name":"w","email":"e"},"total":4},
            {"id":"E","client":{"name":"v","email":"e"},"total":5}
        ]"#;
        let doc = crate::json::parse(bytes, &crate::json::ParseOptions::new()).unwrap();
        let r = p.present(doc.root(), None).unwrap();
        let data = r.data().expect("a data block");
        let out = data.doc();
        let marked = |v: crate::doc::Value<'_>| {
            matches!(
                out.nodes().at(v.index()),
                Node::Object {
                    same_keys: true,
                    ..
                }
            )
        };
        let rows = data.as_array().unwrap();
        let flags: Vec<bool> = rows.iter().map(marked).collect();
        assert_eq!(flags, [false, true, false, false, true]);
        let clients: Vec<bool> = rows
            .iter()
            .map(|row| marked(row.as_object().unwrap().get(b"client").unwrap()))
            .collect();
        assert_eq!(clients, [false, true, true, true, true]);
        // The data are the projection: declared fields in declaration order.
        let mut compact = Vec::new();
        crate::json::write_compact(data, &mut compact);
        assert_eq!(
            String::from_utf8(compact).unwrap(),
            r#"[{"id":"A","client":{"name":"x","email":"[REDACTED]"},"total":1},{"id":"B","client":{"name":"y","email":"[REDACTED]"},"total":2},{"id":"C","client":{"name":"z","email":"[REDACTED]"}},{"id":"D","client":{"name":"w","email":"[REDACTED]"},"total":4},{"id":"E","client":{"name":"v","email":"[REDACTED]"},"total":5}]"#
        );
    }
}
