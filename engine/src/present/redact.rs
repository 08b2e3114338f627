//! Redaction paths compiled once into a trie (WIRE.md §5 stage 3).
//!
//! Path syntax, relative to one item: `a.b` (member `b` of member `a`), `a[*].b` (member `b`
//! of every element of the array `a`), `*` (every member of an object at that level), and
//! any combination (`*.secret`, `rows[*].*`, `[*].x` for items that are arrays). The trie is
//! normalised at build time so that a `*` branch is merged into every named sibling: looking
//! up one member then gives exactly one node, so the writer carries a single pointer and
//! never allocates per row.

/// One node of the compiled redaction trie.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RNode {
    /// The value reaching this node is replaced by the censor.
    pub(crate) here: bool,
    /// Named members.
    pub(crate) keys: Vec<(String, RNode)>,
    /// `*`: every member of an object.
    pub(crate) star: Option<Box<RNode>>,
    /// `[*]`: every element of an array.
    pub(crate) elems: Option<Box<RNode>>,
}

#[derive(Clone, Debug, PartialEq)]
enum Seg {
    Key(String),
    Star,
    Elems,
}

/// Parses a redaction path into segments.
fn parse(path: &str) -> Result<Vec<Seg>, String> {
    let mut segs = Vec::new();
    let bytes = path.as_bytes();
    let mut i = 0;
    let mut expect_name = true;
    if path.is_empty() {
        return Err("empty redaction path".into());
    }
    while i < bytes.len() {
        if bytes[i] == b'[' {
            if !bytes[i..].starts_with(b"[*]") {
                return Err(format!(
                    "bad redaction path '{path}': only [*] may follow a name"
                ));
            }
            segs.push(Seg::Elems);
            i += 3;
            expect_name = false;
            continue;
        }
        if !expect_name {
            if bytes[i] != b'.' {
                return Err(format!(
                    "bad redaction path '{path}': expected '.' or '[*]'"
                ));
            }
            i += 1;
        }
        let start = i;
        while i < bytes.len() && bytes[i] != b'.' && bytes[i] != b'[' {
            i += 1;
        }
        let name = &path[start..i];
        if name.is_empty() {
            return Err(format!("bad redaction path '{path}': empty segment"));
        }
        segs.push(if name == "*" {
            Seg::Star
        } else {
            Seg::Key(name.to_owned())
        });
        expect_name = false;
    }
    Ok(segs)
}

impl RNode {
    /// Compiles `paths` into a normalised trie.
    pub(crate) fn compile<S: AsRef<str>>(paths: &[S]) -> Result<RNode, String> {
        let mut root = RNode::default();
        for p in paths {
            let segs = parse(p.as_ref())?;
            let mut node = &mut root;
            for seg in segs {
                node = match seg {
                    Seg::Key(k) => {
                        let pos = match node.keys.iter().position(|(n, _)| *n == k) {
                            Some(pos) => pos,
                            None => {
                                node.keys.push((k, RNode::default()));
                                node.keys.len() - 1
                            }
                        };
                        &mut node.keys[pos].1
                    }
                    Seg::Star => node.star.get_or_insert_with(Box::default),
                    Seg::Elems => node.elems.get_or_insert_with(Box::default),
                };
            }
            node.here = true;
        }
        root.normalize();
        Ok(root)
    }

    /// Unions `other` into `self`.
    pub(crate) fn merge(&mut self, other: &RNode) {
        self.here |= other.here;
        for (k, o) in &other.keys {
            match self.keys.iter_mut().find(|(n, _)| n == k) {
                Some((_, mine)) => mine.merge(o),
                None => self.keys.push((k.clone(), o.clone())),
            }
        }
        if let Some(o) = &other.star {
            self.star.get_or_insert_with(Box::default).merge(o);
        }
        if let Some(o) = &other.elems {
            self.elems.get_or_insert_with(Box::default).merge(o);
        }
    }

    /// Merges the `*` branch into every named branch, recursively.
    pub(crate) fn normalize(&mut self) {
        if let Some(star) = self.star.clone() {
            for (_, child) in &mut self.keys {
                child.merge(&star);
            }
        }
        for (_, child) in &mut self.keys {
            child.normalize();
        }
        if let Some(s) = &mut self.star {
            s.normalize();
        }
        if let Some(e) = &mut self.elems {
            e.normalize();
        }
    }

    /// The node for object member `key`.
    #[inline]
    pub(crate) fn member(&self, key: &[u8]) -> Option<&RNode> {
        self.keys
            .iter()
            .find(|(k, _)| k.as_bytes() == key)
            .map(|(_, n)| n)
            .or(self.star.as_deref())
    }

    /// The node for array elements.
    #[inline]
    pub(crate) fn element(&self) -> Option<&RNode> {
        self.elems.as_deref()
    }

    /// True when nothing is ever redacted below (or at) this node.
    pub(crate) fn is_empty(&self) -> bool {
        !self.here && self.keys.is_empty() && self.star.is_none() && self.elems.is_none()
    }

    /// The root keys this trie reads: `None` when a `*` at the root makes it read them all.
    pub(crate) fn root_keys(&self) -> Option<Vec<&str>> {
        if self.star.is_some() || self.here {
            return None;
        }
        Some(self.keys.iter().map(|(k, _)| k.as_str()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_paths_and_rejects_bad_ones() {
        assert_eq!(
            parse("a[*].b").unwrap(),
            vec![Seg::Key("a".into()), Seg::Elems, Seg::Key("b".into())]
        );
        assert_eq!(parse("*").unwrap(), vec![Seg::Star]);
        assert_eq!(
            parse("[*].x").unwrap(),
            vec![Seg::Elems, Seg::Key("x".into())]
        );
        assert_eq!(
            parse("a..b").unwrap_err(),
            "bad redaction path 'a..b': empty segment"
        );
        assert_eq!(
            parse("a[0]").unwrap_err(),
            "bad redaction path 'a[0]': only [*] may follow a name"
        );
        assert_eq!(parse("").unwrap_err(), "empty redaction path");
    }

    #[test]
    fn star_is_merged_into_named_siblings() {
        let t = RNode::compile(&["*.secret", "a.b"]).unwrap();
        let a = t.member(b"a").unwrap();
        assert!(a.member(b"secret").unwrap().here);
        assert!(a.member(b"b").unwrap().here);
        assert!(t.member(b"zzz").unwrap().member(b"secret").unwrap().here);
        assert!(t.member(b"zzz").unwrap().member(b"b").is_none());
        assert_eq!(t.root_keys(), None);
        let plain = RNode::compile(&["x.y", "z"]).unwrap();
        assert_eq!(plain.root_keys(), Some(vec!["x", "z"]));
    }
}
