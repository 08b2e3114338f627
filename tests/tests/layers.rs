//! The engine's layers only point down (issue #11 item 2): reads `engine/src`, collects every
//! `crate::<module>` path of each top-level module's non-test code, and fails on any cycle
//! between top-level modules and on any import the layer table of `lib.rs` does not allow.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The engine's source directory.
fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/src")
}

/// Rust files under `dir`, recursively.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `text` without comments, string literals and `#[cfg(test)]` modules (test code may use
/// anything).
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            // Skip the item that follows: up to its matching closing brace.
            let mut depth = 0i32;
            let mut opened = false;
            for l in lines.by_ref() {
                for c in l.chars() {
                    match c {
                        '{' => {
                            depth += 1;
                            opened = true;
                        }
                        '}' => depth -= 1,
                        _ => {}
                    }
                }
                if opened && depth <= 0 || !opened && l.trim_end().ends_with(';') {
                    break;
                }
            }
            continue;
        }
        let no_comment = match t.find("//") {
            Some(i) => &t[..i],
            None => t,
        };
        out.push_str(no_comment);
        out.push('\n');
    }
    out
}

/// The top-level module a file belongs to (`lib` for lib.rs).
fn module_of(path: &Path) -> String {
    let rel = path.strip_prefix(src()).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_owned()
}

/// module → the top-level modules its code names through `crate::`.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut all = Vec::new();
    files(&src(), &mut all);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in all {
        let m = module_of(&f);
        // lib.rs is the map; a `tests.rs` file is a `#[cfg(test)] mod tests;` (test code).
        let test_file = f
            .file_name()
            .is_some_and(|n| n == "tests.rs" || n.to_string_lossy().ends_with("_tests.rs"));
        if m == "lib" || test_file {
            continue;
        }
        let text = code(&std::fs::read_to_string(&f).unwrap());
        let deps = g.entry(m.clone()).or_default();
        for (i, _) in text.match_indices("crate::") {
            let rest = &text[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // `crate::{a, b}` groups: every name in the braces.
            if name.is_empty() && rest.starts_with('{') {
                let inner = &rest[1..rest.find('}').unwrap_or(rest.len())];
                for part in inner.split(',') {
                    let n: String = part
                        .trim()
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if !n.is_empty() && n != m && n.chars().next().unwrap().is_lowercase() {
                        deps.insert(n);
                    }
                }
                continue;
            }
            if !name.is_empty() && name != m && name.chars().next().unwrap().is_lowercase() {
                deps.insert(name);
            }
        }
    }
    g
}

/// A cycle through `start`, if any (depth-first search).
fn cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        g: &BTreeMap<String, BTreeSet<String>>,
        m: &str,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = stack.iter().position(|x| x == m) {
            let mut c = stack[i..].to_vec();
            c.push(m.to_owned());
            return Some(c);
        }
        if done.contains(m) {
            return None;
        }
        stack.push(m.to_owned());
        for d in g.get(m).into_iter().flatten() {
            if let Some(c) = visit(g, d, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(m.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    for m in g.keys() {
        if let Some(c) = visit(g, m, &mut Vec::new(), &mut done) {
            return Some(c);
        }
    }
    None
}

#[test]
fn no_cycle_between_top_level_modules() {
    let g = graph();
    assert!(g.len() >= 10, "read too few modules: {g:?}");
    if let Some(c) = cycle(&g) {
        panic!("module cycle: {}\nwhole graph: {g:#?}", c.join(" -> "));
    }
}

/// module → the modules the table at the top of `engine/src/lib.rs` lets it import.
fn table() -> BTreeMap<String, BTreeSet<String>> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let mut t = BTreeMap::new();
    for line in lib.lines() {
        let Some(row) = line.strip_prefix("//! | ") else {
            continue;
        };
        let cells: Vec<&str> = row.split(" | ").collect();
        if cells.len() != 3 || !cells[0].contains('`') {
            continue;
        }
        let ticked = |s: &str| -> Vec<String> {
            s.split('`')
                .skip(1)
                .step_by(2)
                .map(|n| n.trim_start_matches('[').to_owned())
                .collect()
        };
        let Some(module) = ticked(cells[0]).into_iter().next() else {
            continue;
        };
        let allowed = ticked(cells[2].trim_end_matches(" |").trim_end_matches('|'));
        t.insert(module, allowed.into_iter().collect());
    }
    t
}

#[test]
fn every_import_is_one_the_layer_table_allows() {
    let g = graph();
    let t = table();
    assert!(t.len() >= 10, "read too few table rows: {t:?}");
    for (m, deps) in &g {
        let allowed = t
            .get(m)
            .unwrap_or_else(|| panic!("module `{m}` is missing from the table in lib.rs"));
        let extra: Vec<&String> = deps.difference(allowed).collect();
        assert!(
            extra.is_empty(),
            "`{m}` imports {extra:?}, which the table in lib.rs does not allow"
        );
    }
    for m in t.keys() {
        assert!(
            g.contains_key(m),
            "the table names `{m}`, which is not a module"
        );
    }
}

#[test]
fn the_checker_finds_a_cycle() {
    // The checker itself can fail: a graph with a cycle is reported.
    let mut g = BTreeMap::new();
    g.insert("a".to_owned(), BTreeSet::from(["b".to_owned()]));
    g.insert("b".to_owned(), BTreeSet::from(["c".to_owned()]));
    g.insert("c".to_owned(), BTreeSet::from(["a".to_owned()]));
    assert_eq!(cycle(&g).unwrap(), ["a", "b", "c", "a"]);
    g.insert("c".to_owned(), BTreeSet::new());
    assert_eq!(cycle(&g), None);
    // Test modules and comments do not count.
    let text = "use crate::x;\n// crate::y\n#[cfg(test)]\nmod tests {\n    use crate::z;\n}\n";
    assert!(!code(text).contains("crate::y") && !code(text).contains("crate::z"));
    assert!(code(text).contains("crate::x"));
}
