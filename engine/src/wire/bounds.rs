//! Upper bounds of a block's framed length, computed without encoding: exact for text, a
//! walk over the tape for data. The size cap's checks (`frame::check_size`) read
//! them before any byte is written; the row view and the windowed data block sum them too.

use crate::doc::{Node, Value};

/// Length of `text` escaped as the body of a JSON string (framing).
pub(super) fn escaped_len(text: &[u8]) -> usize {
    text.iter()
        .map(|&b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0C => 2,
            0..=0x1F => 6,
            _ => 1,
        })
        .sum()
}

/// Upper bound of the framed length of a value's data block in any format (pretty and compact
/// JSON, TOON with any delimiter and the default indent). Per string byte at most 7 (a JSON
/// `\u00xx` escape whose backslash the frame doubles); per node at most 24 bytes of
/// punctuation, number digits or TOON header, plus its line's indentation.
pub(super) fn data_len_bound(v: Value<'_>) -> usize {
    let doc = v.doc();
    let nodes = doc.nodes();
    let start = v.index();
    let end = doc.next_sibling(start);
    // The sum of `node_len_bound` over the nodes, walked without tracking every node's depth:
    // a node's `2 * depth` is counted by the containers around it instead (each adds 2 per
    // node inside it), so only containers look at the stack of open ones.
    let mut ends: Vec<usize> = Vec::new();
    let mut bound = 0usize;
    for (i, node) in nodes.slice(start..end).iter().enumerate() {
        bound += match node {
            Node::StrSrc(s)
            | Node::StrPlain(s)
            | Node::StrBare(s)
            | Node::StrQuoted(s)
            | Node::StrHeap(s) => 28 + 7 * s.len as usize,
            Node::IntSrc(s) | Node::IntHeap(s) => 24 + s.len as usize,
            Node::Array { end, .. } | Node::Object { end, .. } => {
                let i = start + i;
                while ends.last().is_some_and(|&e| e <= i) {
                    ends.pop();
                }
                let depth = ends.len();
                ends.push(end as usize);
                // Its own line (whose depth the containers around it count) and its closing
                // line at its depth, and one level for each node inside it.
                48 + 2 * depth + 2 * (end as usize - i - 1)
            }
            _ => 24,
        };
    }
    debug_assert_eq!(bound, data_len_bound_by_depth(v));
    bound
}

/// [`data_len_bound`] as [`node_len_bound`] defines it, each node at its depth (the check
/// of debug builds).
fn data_len_bound_by_depth(v: Value<'_>) -> usize {
    let nodes = v.doc().nodes();
    let start = v.index();
    let end = v.doc().next_sibling(start);
    let mut ends: Vec<usize> = Vec::new();
    let mut bound = 0usize;
    for (i, node) in nodes.slice(start..end).iter().enumerate() {
        while ends.last().is_some_and(|&e| e <= start + i) {
            ends.pop();
        }
        bound += node_len_bound(&node, ends.len());
        if let Node::Array { end, .. } | Node::Object { end, .. } = node {
            ends.push(end as usize);
        }
    }
    bound
}

/// The share of one tape node at nesting `depth` in [`data_len_bound`] (a container's includes
/// its closing line).
#[inline]
pub(super) fn node_len_bound(node: &Node, depth: usize) -> usize {
    24 + 2 * depth
        + match *node {
            Node::StrSrc(s)
            | Node::StrPlain(s)
            | Node::StrBare(s)
            | Node::StrQuoted(s)
            | Node::StrHeap(s) => 7 * s.len as usize + 4,
            Node::IntSrc(s) | Node::IntHeap(s) => s.len as usize,
            // The closing bracket's line.
            Node::Array { .. } | Node::Object { .. } => 24 + 2 * depth,
            _ => 0,
        }
}
