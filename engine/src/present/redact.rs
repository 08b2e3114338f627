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
    /// Whose censor replaces it (with `here`): the presenter whose path this is. `None` until
    /// [`RNode::own_censor`] names the compiling presenter's; a parent's path reaching into an
    /// embedded child keeps the parent's censor.
    pub(crate) censor: Option<Censor>,
    /// Named members.
    pub(crate) keys: Vec<(String, RNode)>,
    /// `*`: every member of an object.
    pub(crate) star: Option<Box<RNode>>,
    /// `[*]`: every element of an array.
    pub(crate) elems: Option<Box<RNode>>,
    /// Indices of `keys` sorted by name, for nodes with many keys (built by `normalize`).
    sorted: Vec<u32>,
}

/// A presenter's censor: its text, or the function that makes the text from the value it
/// replaces (`redact_with`). Two censors are the same when their texts are and they share
/// one function (or have none).
#[derive(Clone)]
pub(crate) struct Censor {
    pub(crate) text: std::sync::Arc<str>,
    pub(crate) call: Option<std::sync::Arc<super::CensorFn>>,
}

impl PartialEq for Censor {
    fn eq(&self, other: &Censor) -> bool {
        self.text == other.text
            && match (&self.call, &other.call) {
                (None, None) => true,
                (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
                _ => false,
            }
    }
}

impl std::fmt::Debug for Censor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.call {
            Some(_) => f.write_str("Censor(fn)"),
            None => write!(f, "Censor({:?})", self.text),
        }
    }
}

/// Keys up to which [`RNode::member`] scans instead of searching the sorted index.
const SCAN_KEYS: usize = 8;

/// A bound on the work of compiling redaction tries: normalising copies each `*` branch into
/// every named sibling, which a hostile set of paths (`*.x`, `*.*.x`, …) makes exponential.
/// Every node created and every key compared is taken from it.
pub(crate) struct Budget {
    left: usize,
}

impl Budget {
    /// Room for `units` of work (nodes and key comparisons).
    pub(crate) fn new(units: usize) -> Budget {
        Budget { left: units }
    }

    fn take(&mut self, n: usize) -> Result<(), String> {
        match self.left.checked_sub(n) {
            Some(l) => {
                self.left = l;
                Ok(())
            }
            None => Err(
                "redaction paths too complex: compiling them (each `*` is copied into every \
                 named sibling, also of embedded presenters) exceeds the limit"
                    .into(),
            ),
        }
    }
}

/// One segment of a redaction path.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Seg {
    Key(String),
    Star,
    Elems,
}

/// Parses a redaction path into segments.
pub(crate) fn parse(path: &str) -> Result<Vec<Seg>, String> {
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
    ///
    /// Linear in the paths' length (named members are found through a hash map while
    /// building) plus the copies normalisation makes, which `budget` bounds.
    pub(crate) fn compile<S: AsRef<str>>(
        paths: &[S],
        budget: &mut Budget,
    ) -> Result<RNode, String> {
        // An arena of nodes; (parent, name) -> child for named members.
        #[derive(Default)]
        struct A {
            here: bool,
            keys: Vec<(String, usize)>,
            star: Option<usize>,
            elems: Option<usize>,
        }
        fn build(arena: &mut [A], i: usize) -> RNode {
            let a = std::mem::take(&mut arena[i]);
            RNode {
                here: a.here,
                censor: None,
                keys: a
                    .keys
                    .into_iter()
                    .map(|(k, c)| (k, build(arena, c)))
                    .collect(),
                star: a.star.map(|c| Box::new(build(arena, c))),
                elems: a.elems.map(|c| Box::new(build(arena, c))),
                sorted: Vec::new(),
            }
        }
        let mut arena = vec![A::default()];
        let mut named: std::collections::HashMap<(usize, String), usize> =
            std::collections::HashMap::new();
        for p in paths {
            let segs = parse(p.as_ref())?;
            let mut node = 0;
            for seg in segs {
                let next = arena.len();
                node = match seg {
                    Seg::Key(k) => match named.entry((node, k)) {
                        std::collections::hash_map::Entry::Occupied(e) => *e.get(),
                        std::collections::hash_map::Entry::Vacant(e) => {
                            arena[node].keys.push((e.key().1.clone(), next));
                            e.insert(next);
                            arena.push(A::default());
                            next
                        }
                    },
                    Seg::Star => *arena[node].star.get_or_insert(next),
                    Seg::Elems => *arena[node].elems.get_or_insert(next),
                };
                if node == next {
                    if arena.len() == next {
                        arena.push(A::default());
                    }
                    budget.take(1)?;
                }
            }
            arena[node].here = true;
        }
        let mut root = build(&mut arena, 0);
        root.normalize(budget)?;
        Ok(root)
    }

    /// A canonical text of this trie (equal tries, equal texts), paid for from `budget`.
    pub(crate) fn fingerprint(&self, budget: &mut Budget) -> Result<String, String> {
        fn walk(n: &RNode, out: &mut String, budget: &mut Budget) -> Result<(), String> {
            budget.take(1)?;
            out.push(if n.here { 'H' } else { '(' });
            if let (true, Some(c)) = (n.here, &n.censor) {
                out.push_str(itoa::Buffer::new().format(c.text.len()));
                out.push(':');
                out.push_str(&c.text);
                if let Some(f) = &c.call {
                    // A function censor is itself: two are the same only when one.
                    out.push_str(&format!("@{:p}", std::sync::Arc::as_ptr(f)));
                }
            }
            for (k, c) in &n.keys {
                out.push_str(itoa::Buffer::new().format(k.len()));
                out.push(':');
                out.push_str(k);
                walk(c, out, budget)?;
            }
            if let Some(c) = &n.star {
                out.push('*');
                walk(c, out, budget)?;
            }
            if let Some(c) = &n.elems {
                out.push('[');
                walk(c, out, budget)?;
            }
            out.push(')');
            Ok(())
        }
        let mut out = String::new();
        walk(self, &mut out, budget)?;
        Ok(out)
    }

    /// The number of nodes of this trie.
    fn size(&self) -> usize {
        1 + self.keys.iter().map(|(_, n)| n.size()).sum::<usize>()
            + self.star.as_ref().map_or(0, |n| n.size())
            + self.elems.as_ref().map_or(0, |n| n.size())
    }

    /// The index of named member `key`.
    /// The sorted index serves when it covers every key (after `normalize`, or `index`).
    fn key_index(&self, key: &[u8]) -> Option<usize> {
        if self.sorted.len() == self.keys.len() && self.keys.len() > SCAN_KEYS {
            return self
                .sorted
                .binary_search_by(|&i| self.keys[i as usize].0.as_bytes().cmp(key))
                .ok()
                .map(|j| self.sorted[j] as usize);
        }
        self.keys.iter().position(|(k, _)| k.as_bytes() == key)
    }

    /// Unions `other` into `self` (call [`RNode::normalize`] after).
    pub(crate) fn merge(&mut self, other: &RNode, budget: &mut Budget) -> Result<(), String> {
        // Where both redact, the censor of `self`'s presenter stays.
        if other.here && !self.here {
            self.censor.clone_from(&other.censor);
        }
        self.here |= other.here;
        self.index();
        // `other`'s keys are distinct: only the keys `self` had before are looked up.
        let existing = self.keys.len();
        for (k, o) in &other.keys {
            budget.take(1)?;
            let found = if existing > SCAN_KEYS {
                self.sorted
                    .binary_search_by(|&i| self.keys[i as usize].0.as_bytes().cmp(k.as_bytes()))
                    .ok()
                    .map(|j| self.sorted[j] as usize)
            } else {
                self.keys[..existing].iter().position(|(n, _)| n == k)
            };
            match found {
                Some(i) => self.keys[i].1.merge(o, budget)?,
                None => {
                    budget.take(o.size())?;
                    self.keys.push((k.clone(), o.clone()));
                }
            }
        }
        if let Some(o) = &other.star {
            budget.take(1)?;
            self.star
                .get_or_insert_with(Box::default)
                .merge(o, budget)?;
        }
        if let Some(o) = &other.elems {
            budget.take(1)?;
            self.elems
                .get_or_insert_with(Box::default)
                .merge(o, budget)?;
        }
        Ok(())
    }

    /// Names `censor` (the compiling presenter's) as the censor of every redacted node that
    /// has none yet: its own paths. Nodes merged from a parent keep the parent's.
    pub(crate) fn own_censor(&mut self, censor: &Censor) {
        if self.here && self.censor.is_none() {
            self.censor = Some(censor.clone());
        }
        for (_, c) in &mut self.keys {
            c.own_censor(censor);
        }
        if let Some(c) = &mut self.star {
            c.own_censor(censor);
        }
        if let Some(c) = &mut self.elems {
            c.own_censor(censor);
        }
    }

    /// The censor of this (redacted) node, or `default` when none was named.
    #[inline]
    pub(crate) fn censor_or<'a>(&'a self, default: &'a str) -> &'a str {
        self.censor.as_ref().map_or(default, |c| &c.text)
    }

    /// The function making the censor of this (redacted) node from the value it replaces,
    /// when its presenter was given one.
    pub(crate) fn censor_call(&self) -> Option<&super::CensorFn> {
        self.censor.as_ref().and_then(|c| c.call.as_deref())
    }

    /// (Re)builds the sorted index of the named members when it is out of date.
    fn index(&mut self) {
        if self.keys.len() > SCAN_KEYS && self.sorted.len() != self.keys.len() {
            let keys = &self.keys;
            let mut sorted: Vec<u32> = (0..keys.len() as u32).collect();
            sorted.sort_unstable_by(|&a, &b| keys[a as usize].0.cmp(&keys[b as usize].0));
            self.sorted = sorted;
        }
    }

    /// Merges the `*` branch into every named branch, recursively, and indexes the named
    /// members.
    pub(crate) fn normalize(&mut self, budget: &mut Budget) -> Result<(), String> {
        if let Some(star) = self.star.clone() {
            for (_, child) in &mut self.keys {
                child.merge(&star, budget)?;
            }
        }
        for (_, child) in &mut self.keys {
            child.normalize(budget)?;
        }
        if let Some(s) = &mut self.star {
            s.normalize(budget)?;
        }
        if let Some(e) = &mut self.elems {
            e.normalize(budget)?;
        }
        self.sorted.clear();
        self.index();
        Ok(())
    }

    /// The node for object member `key`.
    #[inline]
    pub(crate) fn member(&self, key: &[u8]) -> Option<&RNode> {
        self.key_index(key)
            .map(|i| &self.keys[i].1)
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
        let t = RNode::compile(&["*.secret", "a.b"], &mut Budget::new(100)).unwrap();
        let a = t.member(b"a").unwrap();
        assert!(a.member(b"secret").unwrap().here);
        assert!(a.member(b"b").unwrap().here);
        assert!(t.member(b"zzz").unwrap().member(b"secret").unwrap().here);
        assert!(t.member(b"zzz").unwrap().member(b"b").is_none());
        assert_eq!(t.root_keys(), None);
        let plain = RNode::compile(&["x.y", "z"], &mut Budget::new(100)).unwrap();
        assert_eq!(plain.root_keys(), Some(vec!["x", "z"]));
    }
}
