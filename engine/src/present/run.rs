//! `present`: the stages of WIRE.md §5 in order.
//!
//! Stages 1–3 (truncate, validate/strip, redact) and the children's schema and redaction are one
//! recursive walk that writes the derived document. The walk keeps one scratch vector (the
//! members of the object being written, in schema order) and one path stack (for messages)
//! for the whole call: no allocation per row beyond the derived tape and heap.
//!
//! Before that walk, a collection whose plan allows it is tried as a row view
//! (`present::view`): validation without writing, then a data block read from the input tape.
//! `with_general_path` switches the view off for tests that compare both paths.

use super::redact::RNode;
use super::schema::Schema;
use super::template::Counts;
use super::{EmbedPlan, Plan, PresentError, Presenter, SuggestSource, UiSource};
use crate::doc::{Doc, DocBuilder, KeysToken, Node, Str, Toon, Value, ValueRef, key_eq};
use crate::wire::{
    Data, Format, Suggestion, ToolError, ToolResponse, UiBlock, response, response_view, ui,
};

/// Output validation lists at most this many problems (WIRE.md §8).
const MAX_PROBLEMS: usize = 10;

const RECOVERY: &str = "The server returned data that does not match its declared schema. Retrying the same call will not help.";

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
    item: usize,
    count: usize,
    messages: Vec<String>,
    /// Depth of redacted values being validated: their messages never quote them.
    redacted: u32,
}

/// Copies a subtree into `b` (spans into the same input stay borrowed).
#[inline]
pub(crate) fn copy_value(b: &mut DocBuilder<'_>, v: Value<'_>) {
    b.copy_from(v.doc(), v.index());
}

/// Type bits of a tape node, matched against [`Schema::mask`].
#[inline]
pub(crate) fn kind(node: &Node) -> u8 {
    use super::schema::kinds::*;
    match *node {
        Node::Null => NULL,
        Node::Bool(_) => BOOL,
        Node::IntSrc(_) | Node::IntHeap(_) => INT | NUM,
        Node::Float(x) if x.get().is_finite() && x.get().fract() == 0.0 => INT | NUM,
        // Its lexeme ends in a nonzero fraction digit.
        Node::Float(_) | Node::FloatSrc(_) => NUM,
        Node::StrSrc(_)
        | Node::StrPlain(_)
        | Node::StrBare(_)
        | Node::StrQuoted(_)
        | Node::StrHeap(_) => STR,
        Node::Array { .. } => ARR,
        Node::Object { .. } => OBJ,
    }
}

/// Pushes one primitive node of `doc` (whose input the builder shares).
#[inline]
pub(crate) fn push_node(b: &mut DocBuilder<'_>, doc: &Doc<'_>, idx: usize) {
    match doc.nodes().at(idx) {
        Node::Null => b.null(),
        Node::Bool(x) => b.bool(x),
        Node::Float(x) => b.float(x.get()),
        Node::FloatSrc(s) => b.float_src(s.start as usize, s.len as usize),
        Node::StrSrc(s) => b.str_src(s.start as usize, s.len as usize),
        Node::StrPlain(s) => b.str_plain(s.start as usize, s.len as usize, Toon::Delim),
        Node::StrBare(s) => b.str_plain(s.start as usize, s.len as usize, Toon::Bare),
        Node::StrQuoted(s) => b.str_plain(s.start as usize, s.len as usize, Toon::Quoted),
        Node::IntSrc(s) => b.int_src(s.start as usize, s.len as usize),
        Node::StrHeap(s) => b.str_heap(doc.heap_bytes(s)),
        Node::IntHeap(s) => b.int_lexeme(doc.heap_bytes(s)),
        Node::Array { .. } | Node::Object { .. } => b.copy_from(doc, idx),
    }
}

/// The compiled row writer (field index table) for an object schema with `properties`, without
/// `additionalProperties` or embeds. One pass over the row's members finds the declared ones
/// (in-order guess first, then a scan) and checks their types by a bit mask and `required` by
/// presence; then the row is written in schema order straight from the tape: leaf properties as
/// raw node copies, wholesale-redacted ones as the censor, and the others (nested `properties`,
/// `items`, `enum`, redaction below them) through the general writer. A row that fails a check
/// goes to the general writer before anything is written, which produces the exact messages.
pub(crate) struct FastRow {
    pub(crate) keys: Vec<Box<[u8]>>,
    pub(crate) masks: Vec<u8>,
    pub(crate) redacted: Vec<bool>,
    /// Properties written by the general writer (nested schema or redaction below them).
    complex: Vec<bool>,
    /// Per property: its index in `required` order, checked for presence.
    pub(crate) required: Vec<usize>,
    /// No property is complex: a presentation can be a row view (`present::view`).
    pub(crate) flat: bool,
    /// Key → index, for wide schemas (a scan per out-of-order key was quadratic per row).
    index: Option<std::collections::HashMap<Box<[u8]>, usize>>,
}

impl FastRow {
    pub(crate) fn compile(
        schema: Option<&Schema>,
        red: &RNode,
        embeds: &[EmbedPlan],
        censor: &str,
    ) -> Option<FastRow> {
        let s = schema?;
        let props = s.properties.as_ref()?;
        if s.additional || !embeds.is_empty() || red.here || red.elems.is_some() {
            return None;
        }
        if !s.types.is_empty() && s.types != [super::schema::Type::Object] {
            return None;
        }
        let mut f = FastRow {
            keys: Vec::with_capacity(props.len()),
            masks: Vec::with_capacity(props.len()),
            redacted: Vec::with_capacity(props.len()),
            complex: Vec::with_capacity(props.len()),
            required: Vec::new(),
            flat: false,
            index: None,
        };
        for (k, ps) in props {
            let r = red.member(k.as_bytes());
            // A redacted property with checks below its type (enum, nested schema) is
            // validated by the general writer like any other: redaction never skips a check.
            let checked = ps.properties.is_some() || ps.items.is_some() || ps.enum_values.is_some();
            // A parent's path with the parent's censor is written by the general writer.
            let foreign = r.is_some_and(|r| r.here && r.censor_or(censor) != censor);
            let redacted = r.is_some_and(|r| r.here) && !checked && !foreign;
            let complex = !redacted && (checked || r.is_some());
            f.keys.push(k.as_bytes().into());
            f.masks.push(ps.mask());
            f.redacted.push(redacted);
            f.complex.push(complex);
        }
        // By name through a map: a scan per name was quadratic in wide schemas.
        let at: std::collections::HashMap<&str, usize> = props
            .iter()
            .enumerate()
            .rev()
            .map(|(i, (k, _))| (k.as_str(), i))
            .collect();
        for name in &s.required {
            f.required.push(*at.get(name.as_str())?);
        }
        f.flat = !f.complex.iter().any(|&c| c);
        if f.keys.len() > 16 {
            let mut m = std::collections::HashMap::with_capacity(f.keys.len());
            for (i, k) in f.keys.iter().enumerate() {
                m.entry(k.clone()).or_insert(i);
            }
            f.index = Some(m);
        }
        Some(f)
    }

    /// The index of declared property `key` (when the in-order guess missed).
    #[inline]
    pub(crate) fn find(&self, key: &[u8]) -> Option<usize> {
        match &self.index {
            Some(m) => m.get(key).copied(),
            None => self.keys.iter().position(|k| key_eq(k, key)),
        }
    }
}

/// A builder for a document derived from `doc`, carrying its flags (WIRE.md §2: the TOON
/// fallback looks at the whole input, stripped and redacted parts included).
pub(crate) fn derived_builder<'d>(doc: &'d Doc<'d>, nodes: usize) -> DocBuilder<'d> {
    let mut b = DocBuilder::with_capacity(doc.src(), nodes, 0);
    if doc.has_reserved_tag() {
        b.mark_reserved_tag();
    }
    if doc.has_lone_surrogate() {
        b.mark_lone_surrogate();
    }
    b
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
                    self.b.str_heap(r.censor_or(censor).as_bytes());
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
                        self.b.str_heap(r.censor_or(censor).as_bytes());
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
/// general writer (which also produces the validation messages). Stages 4–7 read at most the
/// first kept row here, which is materialised alone for them.
fn present_view<'d>(
    plan: &Plan,
    format: crate::wire::Format,
    a: crate::doc::Array<'d>,
    kept: usize,
    total: usize,
    select: Option<&[&str]>,
) -> Option<Result<ToolResponse<'d>, PresentError>> {
    let cfg = &plan.cfg;
    if reads_all_rows(plan) || FORCE_GENERAL.with(std::cell::Cell::get) {
        return None;
    }
    let view = super::view::validate(plan, a, kept, select)?;
    let mut d = Derived::default();
    if kept < total {
        d.ui.push(truncation_notice(kept, total));
    }
    let shape = Shape::Collection { total };
    if reads_first_row(plan) {
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

fn truncation_notice(kept: usize, total: usize) -> UiBlock {
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
#[cfg(test)]
mod fast_tests {
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
