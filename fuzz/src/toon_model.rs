//! Structure-aware TOON: a small value model, generated from fuzzer bytes, and a writer
//! that renders it as valid TOON in a form the fuzzer picks (inline, tabular, keyed tabular
//! or list arrays; comma, tab or pipe delimiters; indent 1, 2 or 4; quoted or bare strings;
//! comments and CRLF). The decoder must give back exactly the model.
//!
//! The writer here is deliberately naive and independent of the engine's encoder: it quotes
//! everything that is not a plain identifier, so the text it writes is valid by
//! construction.

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use toolwire::doc::Number;
use toolwire::{Value, ValueRef};

/// A JSON-like value without floats (their text form is the encoder's business).
#[derive(Clone, Debug)]
pub enum Model {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Model>),
    /// An object with unique keys, in order.
    Obj(Vec<(String, Model)>),
}

const KEYS: [&str; 14] = [
    "a", "b", "id", "name", "x_y", "a.b", "my key", "", "1", "-k", "k:v", "q\"t", "é", "[x]",
];
const STRS: [&str; 16] = [
    "",
    "a",
    "Ada",
    "true",
    "null",
    "42",
    "-1.5",
    "a,b",
    "x|y",
    "t\tab",
    "line\nnext",
    " pad ",
    "- item",
    "back\\slash",
    "<tool_error>",
    "ünï 🚀",
];

/// Options the generated text was written with.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// Spaces per level.
    pub indent: usize,
    /// Line ending: `\r\n` when true.
    pub crlf: bool,
}

impl Model {
    /// A model from fuzzer bytes, nesting at most `depth` containers.
    pub fn generate(u: &mut Unstructured<'_>, depth: usize) -> Result<Model> {
        let kind = if depth == 0 {
            u.int_in_range(0..=3)?
        } else {
            u.int_in_range(0..=5)?
        };
        Ok(match kind {
            0 => Model::Null,
            1 => Model::Bool(u.arbitrary()?),
            2 => Model::Int(u.arbitrary()?),
            3 => Model::Str(string(u)?),
            4 => {
                let n = u.int_in_range(0..=4)?;
                // Often a uniform array of flat objects, so tabular forms get exercised.
                if n > 0 && u.ratio(1, 2)? {
                    let fields = unique_keys(u, 1)?;
                    let rows = (0..n)
                        .map(|_| {
                            fields
                                .iter()
                                .map(|k| Ok((k.clone(), Model::generate(u, 0)?)))
                                .collect::<Result<Vec<_>>>()
                                .map(Model::Obj)
                        })
                        .collect::<Result<Vec<_>>>()?;
                    Model::Arr(rows)
                } else {
                    Model::Arr(
                        (0..n)
                            .map(|_| Model::generate(u, depth - 1))
                            .collect::<Result<_>>()?,
                    )
                }
            }
            _ => {
                let keys = unique_keys(u, 0)?;
                Model::Obj(
                    keys.into_iter()
                        .map(|k| Ok((k, Model::generate(u, depth - 1)?)))
                        .collect::<Result<_>>()?,
                )
            }
        })
    }

    fn is_primitive(&self) -> bool {
        !matches!(self, Model::Arr(_) | Model::Obj(_))
    }
}

fn string(u: &mut Unstructured<'_>) -> Result<String> {
    if u.ratio(3, 4)? {
        return Ok((*u.choose(&STRS)?).to_string());
    }
    // Any printable text plus the characters that need escapes.
    let n = u.int_in_range(0..=8)?;
    (0..n)
        .map(|_| {
            Ok(match u.int_in_range(0..=3)? {
                0 => *u.choose(&['"', '\\', '\n', '\r', '\t', ',', '|', ':', '#', '-', ' '])?,
                1 => char::from_u32(u.int_in_range(0x20..=0x7e)?).unwrap_or('x'),
                2 => char::from_u32(u.int_in_range(0xa0..=0x2fff)?).unwrap_or('y'),
                _ => *u.choose(&['a', 'z', '0', '9', '_', '.'])?,
            })
        })
        .collect()
}

fn unique_keys(u: &mut Unstructured<'_>, min: usize) -> Result<Vec<String>> {
    let n = u.int_in_range(min..=4)?;
    let mut keys: Vec<String> = Vec::with_capacity(n);
    for _ in 0..n {
        let k = if u.ratio(7, 8)? {
            (*u.choose(&KEYS)?).to_string()
        } else {
            string(u)?
        };
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    if keys.len() < min {
        keys.push("z".to_string());
    }
    Ok(keys)
}

/// Renders `m` as a TOON document; the choices of form come from `u`.
pub fn render(m: &Model, u: &mut Unstructured<'_>, lay: Layout) -> Result<Vec<u8>> {
    let mut w = Writer {
        out: Vec::new(),
        lay,
        u,
    };
    if w.u.ratio(1, 8)? {
        w.line(0, b"# generated");
    }
    match m {
        Model::Obj(fields) => w.fields(0, fields)?,
        Model::Arr(items) => w.array(0, None, items)?,
        _ => {
            let mut s = Vec::new();
            w.scalar(&mut s, m)?;
            w.line(0, &s);
        }
    }
    // The last line has no line ending in half the documents.
    if w.u.arbitrary()? {
        let nl = if lay.crlf { 2 } else { 1 };
        if w.out.len() >= nl {
            w.out.truncate(w.out.len() - nl);
        }
    }
    Ok(w.out)
}

struct Writer<'a, 'b> {
    out: Vec<u8>,
    lay: Layout,
    u: &'a mut Unstructured<'b>,
}

fn is_identifier(s: &str, extra: &[u8]) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b[1..]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || extra.contains(c))
}

fn quoted(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for &c in s.as_bytes() {
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ => out.push(c),
        }
    }
    out.push(b'"');
}

impl Writer<'_, '_> {
    fn line(&mut self, depth: usize, text: &[u8]) {
        self.out
            .resize(self.out.len() + depth * self.lay.indent, b' ');
        self.out.extend_from_slice(text);
        self.out
            .extend_from_slice(if self.lay.crlf { b"\r\n" } else { b"\n" });
    }

    fn key(&mut self, out: &mut Vec<u8>, k: &str) -> Result<()> {
        if is_identifier(k, b".") && !self.u.ratio(1, 8)? {
            out.extend_from_slice(k.as_bytes());
        } else {
            quoted(out, k);
        }
        Ok(())
    }

    fn scalar(&mut self, out: &mut Vec<u8>, m: &Model) -> Result<()> {
        match m {
            Model::Null => out.extend_from_slice(b"null"),
            Model::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            Model::Int(i) => out.extend_from_slice(i.to_string().as_bytes()),
            Model::Str(s) => {
                let bare = is_identifier(s, b"")
                    && !matches!(s.as_str(), "true" | "false" | "null")
                    && self.u.arbitrary()?;
                if bare {
                    out.extend_from_slice(s.as_bytes());
                } else {
                    quoted(out, s);
                }
            }
            Model::Arr(_) | Model::Obj(_) => unreachable!("scalar() takes primitives"),
        }
        Ok(())
    }

    fn fields(&mut self, depth: usize, fields: &[(String, Model)]) -> Result<()> {
        for (k, v) in fields {
            self.field(depth, k, v)?;
        }
        Ok(())
    }

    /// `key: value`, `key:` + nested fields, or an array header under `key`.
    fn field(&mut self, depth: usize, k: &str, v: &Model) -> Result<()> {
        match v {
            Model::Arr(items) => self.array(depth, Some(k), items),
            Model::Obj(inner) => {
                if let Some(rows) = self.keyed_rows(inner)? {
                    return self.keyed_tabular(depth, Some(k), inner, &rows);
                }
                let mut s = Vec::new();
                self.key(&mut s, k)?;
                s.push(b':');
                self.line(depth, &s);
                self.fields(depth + 1, inner)
            }
            _ => {
                let mut s = Vec::new();
                self.key(&mut s, k)?;
                s.extend_from_slice(b": ");
                self.scalar(&mut s, v)?;
                self.line(depth, &s);
                Ok(())
            }
        }
    }

    fn delimiter(&mut self) -> Result<u8> {
        Ok(*self.u.choose(b",\t|")?)
    }

    /// `key[N<d>` (the header start).
    fn header(
        &mut self,
        s: &mut Vec<u8>,
        key: Option<&str>,
        n: usize,
        d: u8,
        keyed: bool,
    ) -> Result<()> {
        if let Some(k) = key {
            self.key(s, k)?;
        }
        s.push(b'[');
        s.extend_from_slice(n.to_string().as_bytes());
        // `[N:|]`: the keyed marker comes before the delimiter.
        if keyed {
            s.push(b':');
        }
        if d != b',' {
            s.push(d);
        }
        s.push(b']');
        Ok(())
    }

    fn field_list(&mut self, s: &mut Vec<u8>, names: &[String], d: u8) -> Result<()> {
        s.push(b'{');
        for (i, f) in names.iter().enumerate() {
            if i > 0 {
                s.push(d);
            }
            self.key(s, f)?;
        }
        s.push(b'}');
        Ok(())
    }

    /// The common field names when every member is an object of the same primitive fields.
    fn uniform_fields<'m>(&mut self, rows: impl Iterator<Item = &'m Model>) -> Option<Vec<String>> {
        let mut names: Option<Vec<String>> = None;
        for r in rows {
            let Model::Obj(f) = r else { return None };
            if f.is_empty() || !f.iter().all(|(_, v)| v.is_primitive()) {
                return None;
            }
            let these: Vec<String> = f.iter().map(|(k, _)| k.clone()).collect();
            match &names {
                Some(n) if *n != these => return None,
                Some(_) => {}
                None => names = Some(these),
            }
        }
        names
    }

    fn keyed_rows(&mut self, inner: &[(String, Model)]) -> Result<Option<Vec<String>>> {
        if inner.is_empty() {
            return Ok(None);
        }
        let names = self.uniform_fields(inner.iter().map(|(_, v)| v));
        Ok(match names {
            Some(n) if self.u.ratio(2, 3)? => Some(n),
            _ => None,
        })
    }

    fn keyed_tabular(
        &mut self,
        depth: usize,
        key: Option<&str>,
        entries: &[(String, Model)],
        names: &[String],
    ) -> Result<()> {
        let d = self.delimiter()?;
        let mut s = Vec::new();
        self.header(&mut s, key, entries.len(), d, true)?;
        self.field_list(&mut s, names, d)?;
        s.push(b':');
        self.line(depth, &s);
        for (k, row) in entries {
            let Model::Obj(cells) = row else {
                unreachable!("checked by uniform_fields")
            };
            let mut s = Vec::new();
            self.key(&mut s, k)?;
            s.extend_from_slice(b": ");
            self.cells(&mut s, cells.iter().map(|(_, v)| v), d)?;
            self.line(depth + 1, &s);
        }
        Ok(())
    }

    fn cells<'m>(
        &mut self,
        s: &mut Vec<u8>,
        vals: impl Iterator<Item = &'m Model>,
        d: u8,
    ) -> Result<()> {
        for (i, v) in vals.enumerate() {
            if i > 0 {
                s.push(d);
            }
            self.scalar(s, v)?;
        }
        Ok(())
    }

    /// An array under `key` (or at the root, or after `- `) at `depth`.
    fn array(&mut self, depth: usize, key: Option<&str>, items: &[Model]) -> Result<()> {
        let mut s = Vec::new();
        self.array_head(&mut s, depth, depth + 1, key, items)
    }

    /// Writes an array whose header line starts with `prefix` (indentation aside) at
    /// `depth`, with its rows or items at `inner`.
    fn array_head(
        &mut self,
        prefix: &mut Vec<u8>,
        depth: usize,
        inner: usize,
        key: Option<&str>,
        items: &[Model],
    ) -> Result<()> {
        let d = self.delimiter()?;
        let s = prefix;
        if items.iter().all(Model::is_primitive) && self.u.ratio(4, 5)? {
            self.header(s, key, items.len(), d, false)?;
            s.push(b':');
            if !items.is_empty() {
                s.push(b' ');
                self.cells(s, items.iter(), d)?;
            }
            self.line(depth, s);
            return Ok(());
        }
        // A keyless tabular header is valid at the root only, never after `- `.
        let tabular_ok = key.is_some() || s.is_empty();
        if tabular_ok
            && let Some(names) = self.uniform_fields(items.iter())
            && self.u.ratio(3, 4)?
        {
            self.header(s, key, items.len(), d, false)?;
            self.field_list(s, &names, d)?;
            s.push(b':');
            self.line(depth, s);
            for row in items {
                let Model::Obj(cells) = row else {
                    unreachable!("checked by uniform_fields")
                };
                let mut r = Vec::new();
                self.cells(&mut r, cells.iter().map(|(_, v)| v), d)?;
                self.line(inner, &r);
            }
            return Ok(());
        }
        self.header(s, key, items.len(), d, false)?;
        s.push(b':');
        self.line(depth, s);
        for item in items {
            self.list_item(inner, item)?;
        }
        Ok(())
    }

    fn list_item(&mut self, depth: usize, item: &Model) -> Result<()> {
        match item {
            Model::Arr(inner) => {
                let mut s = b"- ".to_vec();
                self.array_head(&mut s, depth, depth + 1, None, inner)
            }
            Model::Obj(fields) if fields.is_empty() => {
                self.line(depth, b"-");
                Ok(())
            }
            Model::Obj(fields) => {
                // The first field shares the hyphen line; the other fields sit one level
                // deeper, and the content of a nested first value two levels deeper.
                let (k, v) = &fields[0];
                let mut s = b"- ".to_vec();
                match v {
                    Model::Arr(inner) => {
                        self.array_head(&mut s, depth, depth + 2, Some(k), inner)?;
                    }
                    Model::Obj(inner) => {
                        self.key(&mut s, k)?;
                        s.push(b':');
                        self.line(depth, &s);
                        self.fields(depth + 2, inner)?;
                    }
                    _ => {
                        self.key(&mut s, k)?;
                        s.extend_from_slice(b": ");
                        self.scalar(&mut s, v)?;
                        self.line(depth, &s);
                    }
                }
                self.fields(depth + 1, &fields[1..])
            }
            _ => {
                let mut s = b"- ".to_vec();
                self.scalar(&mut s, item)?;
                self.line(depth, &s);
                Ok(())
            }
        }
    }
}

/// True when the decoded value is exactly the model (integers compared as their decimal
/// text, which is how the decoder keeps them).
pub fn matches(v: Value<'_>, m: &Model) -> bool {
    match (v.get(), m) {
        (ValueRef::Null, Model::Null) => true,
        (ValueRef::Bool(a), Model::Bool(b)) => a == *b,
        (ValueRef::Number(Number::Int(l)), Model::Int(i)) => l == i.to_string().as_bytes(),
        (ValueRef::String(s), Model::Str(t)) => s.as_bytes() == t.as_bytes(),
        (ValueRef::Array(a), Model::Arr(items)) => {
            a.len() == items.len() && a.iter().zip(items).all(|(x, y)| matches(x, y))
        }
        (ValueRef::Object(o), Model::Obj(fields)) => {
            o.len() == fields.len()
                && o.iter()
                    .zip(fields)
                    .all(|((k, x), (kk, y))| k.as_bytes() == kk.as_bytes() && matches(x, y))
        }
        _ => false,
    }
}
