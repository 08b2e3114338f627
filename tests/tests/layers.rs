//! The engine's layers only point down (issue #11 item 2) and no module's files import each
//! other in a circle (issue #44 item 3). Reads the sources (`engine/src`, `bindings/mcp/src`)
//! without their comments, literals and test code, and fails
//!
//! * on any cycle between the engine's top-level modules and on any import the layer table of
//!   `lib.rs` does not allow (every `crate::<module>` path of each top-level module);
//! * on any circle among the files of one module: in every folder module of the engine (at any
//!   depth) and in the `toolwire-mcp` crate (its top-level files, module `mcp`), a file that
//!   names a sibling (`super::x`, `crate::module::x`, `self::x` in the module's root file, a
//!   `use` group `crate::module::{x, y}`, or an item the root file re-exports from `x`)
//!   imports `x`. A file's own folder of submodules counts as that file; the root file
//!   (`mod.rs`, `lib.rs`) is the module itself, not one of its files.

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

/// `text` without comments, string and character literals (their bytes become spaces, lines
/// stay where they were) and `#[cfg(test)]` items (test code may use anything).
fn code(text: &str) -> String {
    let stripped = strip(text);
    let mut out = String::with_capacity(stripped.len());
    let mut lines = stripped.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("#[cfg(test)]") {
            // Skip the item that follows (on this line or the next ones): up to its matching
            // closing brace, or its `;`.
            let mut depth = 0i32;
            let mut opened = false;
            for l in std::iter::once(rest).chain(lines.by_ref()) {
                if l.trim().is_empty() {
                    continue;
                }
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
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// `text` with every comment and the contents of every string, raw string and character
/// literal replaced by spaces (newlines kept), so that neither a `crate::` in a message nor a
/// `'{'` is read as code.
fn strip(text: &str) -> String {
    let s = text.as_bytes();
    let mut out = s.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        if rest.starts_with(b"//") {
            let end = s[i..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(s.len(), |p| i + p);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            let mut j = i;
            while j < s.len() {
                if s[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if s[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if s[i] == b'r' && raw_string_at(s, i) {
            // A raw string: `r"…"`, `r#"…"#`, `br#"…"#`.
            let hashes = rest[1..].iter().take_while(|&&b| b == b'#').count();
            let open = i + 2 + hashes;
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let mut j = open;
            while j < s.len() && !s[j..].starts_with(&close) {
                j += 1;
            }
            blank(&mut out, open, j.min(s.len()));
            i = (j + close.len()).min(s.len());
        } else if s[i] == b'"' {
            let mut j = i + 1;
            while j < s.len() && s[j] != b'"' {
                j += if s[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i + 1, j.min(s.len()));
            i = j + 1;
        } else if s[i] == b'\'' {
            // A character literal (`'x'`, `'\''`, `'\u{7f}'`, `'é'`) or a lifetime (`'a`).
            let end = if rest.get(1) == Some(&b'\\') {
                let after = s.get(i + 3..).unwrap_or_default();
                after.iter().position(|&b| b == b'\'').map(|p| i + 3 + p)
            } else {
                let c = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (s.get(i + 1 + c) == Some(&b'\'')).then_some(i + 1 + c)
            };
            match end {
                Some(end) => {
                    blank(&mut out, i + 1, end);
                    i = end + 1;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).expect("whole characters were replaced by spaces")
}

/// Whether a raw string (`r"…"`, `r#"…"#`, `br"…"`, `cr"…"`) starts at the `r` at `i`.
fn raw_string_at(s: &[u8], i: usize) -> bool {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let starts_token = match i {
        0 => true,
        1 => !ident(s[0]) || b"bc".contains(&s[0]),
        _ => !ident(s[i - 1]) || b"bc".contains(&s[i - 1]) && !ident(s[i - 2]),
    };
    let hashes = s[i + 1..].iter().take_while(|&&b| b == b'#').count();
    starts_token && s.get(i + 1 + hashes) == Some(&b'"')
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

// ---------------------------------------------------------------------------------------------
// Circles among the files of one module.

/// Modules whose circle of files is let pass for now: it is printed, not failed, and an entry
/// whose module has no circle fails (so the list cannot go stale). Empty: every circle fails.
const KNOWN: &[&str] = &[];

/// A source file as the checker reads it: its module path (`engine/src/present/run.rs` is
/// `["present", "run"]`, a `mod.rs` or `lib.rs` is its folder's module) and its code
/// ([`code`]).
struct Source {
    module: Vec<String>,
    code: String,
}

/// The non-test Rust files under `dir`, a crate's `src`.
fn sources(dir: &Path) -> Vec<Source> {
    let mut all = Vec::new();
    files(dir, &mut all);
    let mut out = Vec::new();
    for f in all {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        // A `tests.rs` file is a `#[cfg(test)] mod tests;` (test code).
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let rel = f.strip_prefix(dir).unwrap();
        let mut module: Vec<String> = rel
            .components()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_owned()
            })
            .collect();
        if module.len() == 1 && matches!(module[0].as_str(), "lib" | "main") {
            module.clear();
        } else if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        let code = code(&std::fs::read_to_string(&f).unwrap());
        out.push(Source { module, code });
    }
    out
}

/// A path the code names, from the file's module: the inline modules it sits in (`mod x {`),
/// its segments as written (`super::x::Y` is `["super", "x", "Y"]`; a `use` group gives one
/// path per leaf) and, in a `use` item, the name it binds there and whether other modules
/// see it (`pub use`, `pub(crate) use`: a re-export).
struct Named {
    scope: Vec<String>,
    segs: Vec<String>,
    binds: Option<String>,
    in_use: bool,
    public: bool,
}

/// Every path of `code` that starts with `crate`, `super` or `self`, and every path of a
/// `use` item.
fn named(code: &str) -> Vec<Named> {
    let s = code.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    // Inline modules open at this point, with the brace depth inside each.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'{' => {
                depth += 1;
                i += 1;
                continue;
            }
            b'}' => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
                continue;
            }
            b if !(b.is_ascii_alphabetic() || b == b'_') || i > 0 && ident(s[i - 1]) => {
                i += 1;
                continue;
            }
            _ => {}
        }
        let start = i;
        while i < s.len() && ident(s[i]) {
            i += 1;
        }
        let word = &code[start..i];
        let scope: Vec<String> = inline.iter().map(|(m, _)| m.clone()).collect();
        match word {
            "mod" => {
                let j = skip_ws(s, i);
                let mut k = j;
                while k < s.len() && ident(s[k]) {
                    k += 1;
                }
                let after = skip_ws(s, k);
                if k > j && s.get(after) == Some(&b'{') {
                    depth += 1;
                    inline.push((code[j..k].to_owned(), depth));
                    i = after + 1;
                }
            }
            "use" => {
                let before = code[..start].trim_end();
                let public = before.ends_with("pub")
                    || before.ends_with(')')
                        && before
                            .rfind("pub(")
                            .is_some_and(|p| !before[p..].contains([';', '{', '}', '\n']));
                for (segs, binds) in tree(code, &mut i) {
                    out.push(Named {
                        scope: scope.clone(),
                        segs,
                        binds,
                        in_use: true,
                        public,
                    });
                }
            }
            "crate" | "super" | "self" if s[skip_ws(s, i)..].starts_with(b"::") => {
                i = start;
                for (segs, _) in tree(code, &mut i) {
                    out.push(Named {
                        scope: scope.clone(),
                        segs,
                        binds: None,
                        in_use: false,
                        public: false,
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// The index of the first non-whitespace byte of `s` from `i`.
fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && s[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The paths of a use tree (or of a plain path) starting at `*i`, each with the name it binds
/// (`a::b as c`: `c`); `*i` moves past it.
fn tree(code: &str, i: &mut usize) -> Vec<(Vec<String>, Option<String>)> {
    let s = code.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    *i = skip_ws(s, *i);
    if s.get(*i) == Some(&b'{') {
        *i += 1;
        let mut out = Vec::new();
        loop {
            *i = skip_ws(s, *i);
            match s.get(*i) {
                None => break,
                Some(b'}') => {
                    *i += 1;
                    break;
                }
                Some(b',') => *i += 1,
                Some(_) => {
                    let before = *i;
                    out.extend(tree(code, i));
                    if *i == before {
                        *i += 1;
                    }
                }
            }
        }
        return out;
    }
    if s.get(*i) == Some(&b'*') {
        *i += 1;
        return vec![(vec!["*".to_owned()], None)];
    }
    if s[*i..].starts_with(b"::") {
        // A leading `::` names another crate.
        *i += 2;
        return Vec::new();
    }
    let start = *i;
    while *i < s.len() && ident(s[*i]) {
        *i += 1;
    }
    if *i == start {
        return vec![(Vec::new(), None)];
    }
    let name = code[start..*i].to_owned();
    let after = skip_ws(s, *i);
    if s[after..].starts_with(b"::") {
        *i = after + 2;
        return tree(code, i)
            .into_iter()
            .map(|(mut segs, binds)| {
                segs.insert(0, name.clone());
                (segs, binds)
            })
            .collect();
    }
    let mut binds = None;
    if s[after..].starts_with(b"as") && s.get(after + 2).is_some_and(|b| b.is_ascii_whitespace()) {
        let j = skip_ws(s, after + 2);
        let mut k = j;
        while k < s.len() && ident(s[k]) {
            k += 1;
        }
        binds = Some(code[j..k].to_owned());
        *i = k;
    }
    vec![(vec![name], binds)]
}

/// Module path → the sibling files each of its files imports, for every module with files
/// (the crate root `[]` included only when `root` says so: the engine's top-level modules are
/// the layer table's business).
type FileGraphs = BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>>;

/// The graphs of imports between the files of each module of `srcs`.
fn file_graphs(srcs: &[Source], root: bool) -> FileGraphs {
    // Every module: the files' and their inline modules', and the folders above them.
    let mut known: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut children: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    let all: Vec<(&Source, Vec<Named>)> = srcs.iter().map(|f| (f, named(&f.code))).collect();
    for (f, names) in &all {
        for k in 0..=f.module.len() {
            known.insert(f.module[..k].to_vec());
        }
        for n in names {
            let mut m = f.module.clone();
            m.extend(n.scope.iter().cloned());
            known.insert(m);
        }
        if let Some((last, parent)) = f.module.split_last() {
            children
                .entry(parent.to_vec())
                .or_default()
                .insert(last.clone());
        }
    }
    // What each module's `use` items bind: `(module, name)` → the absolute path, and whether
    // it is a re-export.
    let mut aliases: Aliases = BTreeMap::new();
    for (f, names) in &all {
        for n in names.iter().filter(|n| n.in_use) {
            let Some(abs) = absolute(&f.module, n, &known) else {
                continue;
            };
            let Some(bound) = n.binds.clone().or_else(|| abs.last().cloned()) else {
                continue;
            };
            if bound == "*" {
                continue;
            }
            let mut at = f.module.clone();
            at.extend(n.scope.iter().cloned());
            aliases.insert((at, bound), (abs, n.public));
        }
    }
    let mut graphs = FileGraphs::new();
    for (module, files) in &children {
        if module.is_empty() && !root {
            continue;
        }
        let g = graphs.entry(module.clone()).or_default();
        for f in files {
            g.entry(f.clone()).or_default();
        }
    }
    for (f, names) in &all {
        for n in names {
            let Some(abs) = absolute(&f.module, n, &known) else {
                continue;
            };
            let abs = resolve(abs, &f.module, &aliases, &known);
            let common = f
                .module
                .iter()
                .zip(&abs)
                .take_while(|(a, b)| a == b)
                .count();
            if common >= f.module.len() || common >= abs.len() {
                continue;
            }
            let module = &f.module[..common];
            let Some(g) = graphs.get_mut(module) else {
                continue;
            };
            if children[module].contains(&abs[common]) {
                g.get_mut(&f.module[common])
                    .unwrap()
                    .insert(abs[common].clone());
            }
        }
    }
    graphs
}

/// The absolute module path of `n` named in a file of `module`, if it is one of this crate's
/// (`self` at the end of a group, and `*`, name the path before them).
fn absolute(module: &[String], n: &Named, known: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let mut here = module.to_vec();
    here.extend(n.scope.iter().cloned());
    let first = n.segs.first()?;
    let (mut abs, rest) = match first.as_str() {
        "crate" => (Vec::new(), &n.segs[1..]),
        "self" => (here, &n.segs[1..]),
        "super" => {
            let ups = n.segs.iter().take_while(|s| *s == "super").count();
            if ups > here.len() {
                return None;
            }
            here.truncate(here.len() - ups);
            (here, &n.segs[ups..])
        }
        // A `use` of a child module of `here` (else another crate's path).
        name if n.in_use && {
            let mut child = here.clone();
            child.push(name.to_owned());
            known.contains(&child)
        } =>
        {
            (here, &n.segs[..])
        }
        _ => return None,
    };
    abs.extend(rest.iter().filter(|s| *s != "self" && *s != "*").cloned());
    Some(abs)
}

/// `(module, name)` → what a `use` item of `module` binds to `name`, and whether it is a
/// re-export (`pub use`).
type Aliases = BTreeMap<(Vec<String>, String), (Vec<String>, bool)>;

/// `abs`, named in a file of module `from`, with every name a `use` item binds on the way
/// replaced by what it binds (`present::PresenterError` is `present::file::PresenterError`
/// when `present` has `pub use file::PresenterError`). A private `use` binds only for its
/// own module and those inside it.
fn resolve(
    mut abs: Vec<String>,
    from: &[String],
    aliases: &Aliases,
    known: &BTreeSet<Vec<String>>,
) -> Vec<String> {
    for _ in 0..8 {
        let mut again = false;
        for k in 0..abs.len() {
            if known.contains(&abs[..=k]) {
                continue;
            }
            let seen = aliases
                .get(&(abs[..k].to_vec(), abs[k].clone()))
                .filter(|(_, public)| *public || from.starts_with(&abs[..k]));
            if let Some((to, _)) = seen {
                if *to != abs[..=k] {
                    let mut next = to.clone();
                    next.extend(abs[k + 1..].iter().cloned());
                    abs = next;
                    again = true;
                }
            }
            break;
        }
        if !again {
            break;
        }
    }
    abs
}

/// Every circle of files, one per set of files that all reach each other, as `(module,
/// "module: a -> b -> a")`, followed by the whole set when the circle shown does not pass
/// through all of it (`crate_name` prefixes the module paths).
fn circles(graphs: &FileGraphs, crate_name: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (module, g) in graphs {
        let name = std::iter::once(crate_name)
            .chain(module.iter().map(String::as_str))
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("::");
        for set in tangles(g) {
            let inside: BTreeMap<String, BTreeSet<String>> = set
                .iter()
                .map(|f| (f.clone(), g[f].intersection(&set).cloned().collect()))
                .collect();
            let c = cycle(&inside).expect("files that reach each other form a circle");
            let mut line = format!("{name}: {}", c.join(" -> "));
            if c.len() - 1 < set.len() {
                let all: Vec<&str> = set.iter().map(String::as_str).collect();
                line.push_str(&format!(" (files in one tangle: {})", all.join(", ")));
            }
            out.push((name.clone(), line));
        }
    }
    out
}

/// The sets of two or more nodes of `g` that all reach each other (its strongly connected
/// components; the graphs are a module's files, small enough for a search per node).
fn tangles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(n) = todo.pop() {
            for d in g.get(&n).into_iter().flatten() {
                if seen.insert(d.clone()) {
                    todo.push(d.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> = g.keys().map(|n| (n, reach(n))).collect();
    let mut out: Vec<BTreeSet<String>> = Vec::new();
    for (n, r) in &reached {
        if !r.contains(*n) || out.iter().any(|set| set.contains(*n)) {
            continue;
        }
        let set: BTreeSet<String> = r
            .iter()
            .filter(|m| reached.get(m).is_some_and(|back| back.contains(*n)))
            .cloned()
            .collect();
        out.push(set);
    }
    out
}

#[test]
fn no_circle_among_the_files_of_a_module() {
    let engine = file_graphs(&sources(&src()), false);
    let mcp_src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bindings/mcp/src");
    let mcp = file_graphs(&sources(&mcp_src), true);
    // Read what there is to read: the presenter's files, the server's files.
    let present = &engine[&vec!["present".to_owned()]];
    assert!(
        present.len() >= 8,
        "read too few files of present: {present:?}"
    );
    assert!(
        mcp[&Vec::new()].len() >= 8,
        "read too few files of mcp: {mcp:?}"
    );
    let mut found = circles(&engine, "");
    found.extend(circles(&mcp, "mcp"));
    let failing: Vec<&str> = found
        .iter()
        .filter(|(m, _)| !KNOWN.contains(&m.as_str()))
        .map(|(_, c)| c.as_str())
        .collect();
    for (m, c) in &found {
        if KNOWN.contains(&m.as_str()) {
            eprintln!("known circle, being opened elsewhere: {c}");
        }
    }
    let stale: Vec<&&str> = KNOWN
        .iter()
        .filter(|k| !found.iter().any(|(m, _)| m == *k))
        .collect();
    assert!(
        stale.is_empty(),
        "KNOWN lists {stale:?}, which no longer have a circle: remove them"
    );
    assert!(
        failing.is_empty(),
        "files of a module import each other in a circle (put what the files share in a file \
         they all import):\n{}",
        failing.join("\n")
    );
}

#[test]
fn the_checker_finds_a_circle_of_files() {
    let src = |module: &[&str], text: &str| Source {
        module: module.iter().map(|s| (*s).to_owned()).collect(),
        code: code(text),
    };
    let circle = |srcs: &[Source]| {
        circles(&file_graphs(srcs, false), "")
            .into_iter()
            .map(|(_, c)| c)
            .collect::<Vec<_>>()
    };
    let m = |text: &str| src(&["m"], text);
    let base = || {
        vec![
            m("mod a;\nmod b;\nmod c;\npub use c::Thing;\npub struct Root;\n"),
            src(&["m", "a"], "use super::b::f;\nuse super::Root;\n"),
            src(&["other"], "use crate::m::{a, b, c};\n"),
        ]
    };
    // No circle: a imports b; everyone imports the root.
    let mut srcs = base();
    srcs.push(src(&["m", "b"], "use super::Root;\n"));
    srcs.push(src(&["m", "c"], "pub struct Thing;\n"));
    assert_eq!(circle(&srcs), Vec::<String>::new());
    // Each way of naming a sibling closes the circle a -> b -> a.
    for b in [
        "use super::a::g;",
        "fn f() { super::a::g() }",
        "use crate::m::a;",
        "use crate::m::{c, a::{self, g}};",
        "use crate::{m::{a}};",
        "use super::super::m::a as other;",
    ] {
        let mut srcs = base();
        srcs.push(src(&["m", "b"], b));
        srcs.push(src(&["m", "c"], ""));
        assert_eq!(circle(&srcs), ["m: a -> b -> a"], "{b}");
    }
    // Through a re-export of the root: b -> c (Thing), c -> a -> b.
    let mut srcs = base();
    srcs.push(src(&["m", "b"], "use super::Thing;"));
    srcs.push(src(&["m", "c"], "fn f() { crate::m::a::f() }"));
    assert_eq!(circle(&srcs), ["m: a -> b -> c -> a"]);
    // A file's own folder of submodules is that file; `self::` in a root file names its file.
    let mut srcs = base();
    srcs.push(src(&["m", "b"], "mod deep;"));
    srcs.push(src(&["m", "b", "deep"], "use super::super::a;"));
    srcs.push(src(&["m", "c"], ""));
    assert_eq!(circle(&srcs), ["m: a -> b -> a"]);
    let mut srcs = base();
    srcs.push(src(&["m", "b"], "mod deep;\nuse self::deep::x;"));
    srcs.push(src(&["m", "b", "deep"], "pub fn x() {}"));
    srcs.push(src(&["m", "c"], "use super::b::deep;"));
    assert_eq!(circle(&srcs), Vec::<String>::new());
    // Not imports: test code, comments, strings, an inline module's own `super`, paths of
    // other crates.
    for b in [
        "#[cfg(test)]\nmod tests {\n    use super::super::a;\n}",
        "#[cfg(test)] use crate::m::a;",
        "// super::a::g()\n/* crate::m::a */",
        "fn f() -> &'static str { \"crate::m::a\" }",
        "fn f() -> char { '{' }\nmod inner {\n    use super::g;\n}\nfn g() {}",
        "use toolwire::m::a;\nfn f() { ::m::a::g() }",
    ] {
        let mut srcs = base();
        srcs.push(src(&["m", "b"], b));
        srcs.push(src(&["m", "c"], ""));
        assert_eq!(circle(&srcs), Vec::<String>::new(), "{b}");
    }
}
