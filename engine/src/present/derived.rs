//! The derived document: what the stages write when the data block cannot be the input itself
//! (stripped, redacted, projected). A builder that carries the input's flags, and the node
//! copies its writers share (`present::writer`, `_select`'s projection in `present::select`,
//! the output schema in `present::describe`).

use crate::doc::{Doc, DocBuilder, Node, Toon, Value};

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

/// Copies a subtree into `b` (spans into the same input stay borrowed).
#[inline]
pub(crate) fn copy_value(b: &mut DocBuilder<'_>, v: Value<'_>) {
    b.copy_from(v.doc(), v.index());
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
