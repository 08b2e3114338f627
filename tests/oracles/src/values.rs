//! The generator of arbitrary JSON values for the property tests (proptest), with the options
//! the tests need: every test that wants "any JSON value" draws from [`Values`], so what "any"
//! covers is decided here, once.
//!
//! A value is generated as a [`Json`], which holds what JSON text can say and
//! `serde_json::Value` cannot: number lexemes as written (`1E+05`, 41-digit integers, `-0`),
//! keys repeated in one object, and (when enabled) lone surrogates in strings. It converts to
//! a `serde_json::Value` ([`Json::to_value`]; repeated keys merged as `JSON.parse` merges
//! them), to a document ([`Json::to_doc`]) and to JSON text in any [`Spelling`] (whitespace
//! between tokens, any character escaped, either case of hex digits).
//!
//! What a default [`Values`] generates:
//!
//! * numbers: 64-bit integers, integers of 20 to 41 digits, finite doubles spelled two ways,
//!   decimal lexemes with fractions and exponents (`0.000`, `1E+05`), and the doubles that
//!   JavaScript and serde_json write differently (`1e21`, `5e-324`, `-0`,
//!   `0.30000000000000004`);
//! * strings: arbitrary Unicode, printable text, controls, quotes and backslashes, reserved
//!   tags in several cases, the words and characters TOON must quote (`true`, `05`, `- item`,
//!   `a,b|c\td`), non-ASCII and astral characters, U+2028, U+FFFF;
//! * keys: mostly a small vocabulary (so that keys repeat within an object and `_select`
//!   names hit), TOON identifiers, and any string;
//! * nesting up to [`Values::depth`] containers deep, and uniform arrays of objects (TOON
//!   tables) whose rows sometimes list their keys in another order.
//!
//! ```
//! use proptest::strategy::{Strategy, ValueTree};
//! use proptest::test_runner::TestRunner;
//! use toolwire_oracles::values::{Spelling, Values};
//!
//! let mut runner = TestRunner::deterministic();
//! let json = Values::new().json().new_tree(&mut runner).unwrap().current();
//! let text = json.text(Spelling::COMPACT);
//! let doc = toolwire::json::parse(text.as_bytes(), &Default::default()).unwrap();
//! assert!(toolwire_oracles::model_eq(&json.to_value(), &serde_json::from_str(&text).unwrap()));
//! let compact = toolwire::json::to_vec_compact;
//! assert_eq!(compact(doc.root()), compact(json.to_doc().root()));
//! ```

use std::fmt;

use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::string::string_regex;
use toolwire::{Doc, DocBuilder};

/// A generated JSON value (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as its JSON lexeme.
    Number(String),
    /// A string.
    String(Text),
    /// An array.
    Array(Vec<Json>),
    /// An object's members in order; a key may occur more than once.
    Object(Vec<(Text, Json)>),
}

/// A string of Unicode scalar values and (only from [`Values::lone_surrogates`]) lone UTF-16
/// surrogates, never a high surrogate directly before a low one (that pair would be a
/// character).
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Text(Vec<Unit>);

/// One unit of a [`Text`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A Unicode scalar value.
    Char(char),
    /// A lone surrogate, `0xD800..=0xDFFF`.
    Lone(u16),
}

impl Text {
    /// The units, in order.
    pub fn units(&self) -> &[Unit] {
        &self.0
    }

    /// The text as a `String`; `None` when it holds a lone surrogate.
    pub fn to_str(&self) -> Option<String> {
        self.0
            .iter()
            .map(|u| match u {
                Unit::Char(c) => Some(*c),
                Unit::Lone(_) => None,
            })
            .collect()
    }

    /// The text as the WTF-8 bytes toolwire stores (a lone surrogate as its 3 bytes).
    pub fn to_wtf8(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.0.len());
        for u in &self.0 {
            match u {
                Unit::Char(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                Unit::Lone(s) => {
                    out.extend_from_slice(&toolwire::test_hooks::surrogate_to_wtf8(*s))
                }
            }
        }
        out
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text(s.chars().map(Unit::Char).collect())
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::from(s.as_str())
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"")?;
        for u in &self.0 {
            match u {
                Unit::Char(c) => write!(f, "{}", c.escape_debug())?,
                Unit::Lone(s) => write!(f, "\\u{{{s:x}}}")?,
            }
        }
        f.write_str("\"")
    }
}

impl Json {
    /// The value as serde_json (with `arbitrary_precision`) reads its text: integers keep
    /// every digit, a repeated key keeps its first place and its last value (as
    /// `JSON.parse`).
    ///
    /// # Panics
    ///
    /// When a string or key holds a lone surrogate.
    pub fn to_value(&self) -> serde_json::Value {
        use serde_json::Value as V;
        match self {
            Json::Null => V::Null,
            Json::Bool(b) => V::Bool(*b),
            Json::Number(n) => serde_json::from_str(n).expect("a JSON number lexeme"),
            Json::String(s) => V::String(s.to_str().expect("a string without lone surrogates")),
            Json::Array(a) => V::Array(a.iter().map(Json::to_value).collect()),
            Json::Object(o) => {
                let mut m = serde_json::Map::new();
                for (k, v) in o {
                    m.insert(
                        k.to_str().expect("a key without lone surrogates"),
                        v.to_value(),
                    );
                }
                V::Object(m)
            }
        }
    }

    /// The value as a document built with [`DocBuilder`] (repeated keys merged as the
    /// parser merges them): integer lexemes kept, other numbers as f64.
    ///
    /// # Panics
    ///
    /// When a number overflows f64 ([`Values::overflow`]).
    pub fn to_doc(&self) -> Doc<'static> {
        let mut b = DocBuilder::new(b"");
        self.build(&mut b);
        b.finish()
    }

    fn build(&self, b: &mut DocBuilder<'static>) {
        match self {
            Json::Null => b.null(),
            Json::Bool(x) => b.bool(*x),
            Json::Number(n) if toolwire::json::is_int_lexeme(n.as_bytes()) => {
                b.int_lexeme(n.as_bytes());
            }
            Json::Number(n) => {
                let x: f64 = n.parse().expect("a JSON number lexeme");
                assert!(x.is_finite(), "{n} overflows f64");
                b.float(x);
            }
            Json::String(s) => b.string(&s.to_wtf8()),
            Json::Array(a) => {
                let m = b.begin_array();
                a.iter().for_each(|x| x.build(b));
                b.end_array(m, a.len());
            }
            Json::Object(o) => {
                let m = b.begin_object();
                for (k, v) in o {
                    b.string(&k.to_wtf8());
                    v.build(b);
                }
                b.end_object(m, o.len());
            }
        }
    }

    /// True when a string or key anywhere (a replaced duplicate's included) holds a
    /// reserved tag sequence (WIRE.md §2).
    pub fn has_reserved_tag(&self) -> bool {
        let tag = |t: &Text| toolwire::test_hooks::contains_reserved_tag(&t.to_wtf8());
        match self {
            Json::String(s) => tag(s),
            Json::Array(a) => a.iter().any(Json::has_reserved_tag),
            Json::Object(o) => o.iter().any(|(k, v)| tag(k) || v.has_reserved_tag()),
            _ => false,
        }
    }

    /// The value as JSON text spelled as `spelling` says, with its whitespace before and
    /// after the value too.
    pub fn text(&self, spelling: Spelling) -> String {
        let mut out = String::from(spelling.space);
        let mut strings = 0;
        self.write(&spelling, &mut strings, &mut out);
        out.push_str(spelling.space);
        out
    }

    fn write(&self, sp: &Spelling, strings: &mut u64, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => out.push_str(n),
            Json::String(s) => sp.string(s, strings, out),
            Json::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(sp.space);
                    x.write(sp, strings, out);
                }
                out.push_str(sp.space);
                out.push(']');
            }
            Json::Object(o) => {
                out.push('{');
                for (i, (k, x)) in o.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(sp.space);
                    sp.string(k, strings, out);
                    out.push(':');
                    out.push_str(sp.space);
                    x.write(sp, strings, out);
                }
                out.push_str(sp.space);
                out.push('}');
            }
        }
    }
}

/// How [`Json::text`] spells a value: the whitespace around every token, and which
/// characters of the strings are escaped beyond what JSON requires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spelling {
    /// Written before every element, member, closing bracket and value, and after `:`.
    pub space: &'static str,
    /// The seed of the escapes: `0` writes every character as itself where JSON allows (and
    /// `\"`, `\\`, `\n`, … where it must escape); otherwise each string gets its own 64-bit
    /// mask from it, and the characters it marks are written as `\u` escapes (astral ones
    /// as surrogate pairs), the required escapes and lone surrogates in either form or case.
    pub escapes: u64,
}

impl Spelling {
    /// No whitespace, no escape JSON does not require.
    pub const COMPACT: Spelling = Spelling {
        space: "",
        escapes: 0,
    };

    /// Any spelling: no whitespace, a space, a newline and indent, or tab CR LF; any seed of
    /// escapes.
    pub fn any() -> impl Strategy<Value = Spelling> {
        (
            prop::sample::select(&["", " ", "\n  ", "\t\r\n"][..]),
            any::<u64>(),
        )
            .prop_map(|(space, escapes)| Spelling { space, escapes })
    }

    /// The escape mask of the next string.
    fn mask(&self, strings: &mut u64) -> u64 {
        *strings += 1;
        if self.escapes == 0 {
            return 0;
        }
        // splitmix64 of the seed and the string's number.
        let mut z = self
            .escapes
            .wrapping_add(strings.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn string(&self, t: &Text, strings: &mut u64, out: &mut String) {
        let mask = self.mask(strings);
        let hex = |out: &mut String, unit: u32, upper: bool| {
            if upper {
                out.push_str(&format!("\\u{unit:04X}"));
            } else {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        };
        out.push('"');
        for (i, u) in t.0.iter().enumerate() {
            let escape = mask >> (i % 64) & 1 == 1;
            let upper = mask >> ((i + 32) % 64) & 1 == 1;
            match *u {
                Unit::Lone(s) => hex(out, u32::from(s), upper),
                Unit::Char(c) if escape => {
                    for unit in c.encode_utf16(&mut [0; 2]) {
                        hex(out, u32::from(*unit), upper);
                    }
                }
                Unit::Char(c) => match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '/' if upper => out.push_str("\\/"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    '\u{8}' => out.push_str("\\b"),
                    '\u{c}' => out.push_str("\\f"),
                    c if (c as u32) < 0x20 => hex(out, c as u32, upper),
                    c => out.push(c),
                },
            }
        }
        out.push('"');
    }
}

/// Keys most values use: short names, names the tests select, and keys that need quoting or
/// escaping somewhere.
const NAMES: &[&str] = &[
    "a",
    "b",
    "c",
    "d",
    "e",
    "id",
    "name",
    "total",
    "k",
    "x1",
    "_",
    "1a",
    "",
    "é",
    "x\u{1F600}",
    "k\"q",
    "<tool_error>",
    "a-b",
    "x:y",
    "0",
];

/// Strings that hit an escaping, quoting or tag rule of some writer.
const LITERALS: &[&str] = &[
    "",
    "plain",
    "true",
    "false",
    "null",
    "-1",
    "12",
    "1e5",
    "05",
    "-",
    "#",
    " pad ",
    "a,b|c\td",
    "line\nbreak\r\"q\"\\",
    "- item",
    "[3]: x",
    "{a}",
    "q\"b\\s/",
    "\u{0}\u{1}\u{8}\u{9}\u{a}\u{b}\u{c}\u{d}\u{1f}\u{7f}",
    "\u{2028}\u{2029}",
    "é€😀",
    "<tool_error>",
    "</TOOL_ERROR>",
    "</Domain_Rules>",
    "<ui_passthrough type=\"x\">",
    "<llm_directives",
    "<b>",
    "<tool_errors>",
    "<validation_error_",
    "a<ACTION_SUGGESTIONS>\n",
    "\u{FFFF}\u{E000}\u{D7FF}",
];

/// Doubles whose shortest forms differ between writers (JavaScript, serde_json, Rust).
const FLOATS: &[f64] = &[
    1e21,
    1e-7,
    5e-324,
    -0.0,
    0.1,
    0.2,
    0.30000000000000004,
    1e20,
    1e-6,
    123.456,
    -2.5,
    1.7976931348623157e308,
    2.2250738585072014e-308,
    0.5,
    3.0,
    9007199254740993.0,
];

/// Number lexemes of special interest, as written.
const NUMBER_LEXEMES: &[&str] = &["-0", "1e21", "1.5e-7", "0.1", "-0.0", "1E+05", "0.000"];

/// The options of the generator (see the module docs); `Values::new()` is the default.
#[derive(Clone, Debug)]
pub struct Values {
    depth: u32,
    size: u32,
    width: usize,
    keys: Option<&'static [&'static str]>,
    floats: bool,
    javascript: bool,
    overflow: bool,
    lone_surrogates: bool,
}

impl Default for Values {
    fn default() -> Values {
        Values {
            depth: 5,
            size: 64,
            width: 5,
            keys: None,
            floats: true,
            javascript: false,
            overflow: false,
            lone_surrogates: false,
        }
    }
}

/// `regex` as a strategy compiled once.
fn regex(re: &str) -> BoxedStrategy<String> {
    string_regex(re).expect("a valid regex").boxed()
}

/// True for the keys JavaScript treats as array indexes and moves before the others.
fn array_index(k: &Text) -> bool {
    let Some(s) = k.to_str() else { return false };
    s == "0"
        || (!s.starts_with('0')
            && !s.is_empty()
            && s.bytes().all(|b| b.is_ascii_digit())
            && s.parse::<u32>().is_ok_and(|n| n < u32::MAX))
}

impl Values {
    /// The default options.
    pub fn new() -> Values {
        Values::default()
    }

    /// Containers nest at most `n` deep, a table's rows one deeper (default 5).
    pub fn depth(mut self, n: u32) -> Values {
        self.depth = n;
        self
    }

    /// About `n` values in all (default 64; proptest's desired size of a recursive value).
    pub fn size(mut self, n: u32) -> Values {
        self.size = n;
        self
    }

    /// At most `n` elements or members in a container, and rows in a table (default 5).
    pub fn width(mut self, n: usize) -> Values {
        self.width = n;
        self
    }

    /// Keys only from `names` (a presenter's fields, the names a `_select` asks for).
    pub fn keys(mut self, names: &'static [&'static str]) -> Values {
        self.keys = Some(names);
        self
    }

    /// With `false`, integers only, each spelled as serde_json writes it (no `-0`, no
    /// fraction or exponent; default `true`).
    pub fn floats(mut self, on: bool) -> Values {
        self.floats = on;
        self
    }

    /// With `true`, only what JavaScript reads exactly and keeps in place: integers within
    /// ±2^53 and no array-index keys (`0`, `17`), which `JSON.parse` moves before the
    /// others (default `false`).
    pub fn javascript(mut self, on: bool) -> Values {
        self.javascript = on;
        self
    }

    /// With `true`, also (rarely) non-integers beyond f64's range (`1e400`), which toolwire
    /// rejects and serde_json keeps (default `false`).
    pub fn overflow(mut self, on: bool) -> Values {
        self.overflow = on;
        self
    }

    /// With `true`, strings and keys also hold lone surrogates; such values have no
    /// `serde_json::Value` (default `false`).
    pub fn lone_surrogates(mut self, on: bool) -> Values {
        self.lone_surrogates = on;
        self
    }

    /// A number lexeme.
    pub fn number(&self) -> BoxedStrategy<String> {
        let mut kinds: Vec<(u32, BoxedStrategy<String>)> = Vec::new();
        if self.javascript {
            const EXACT: i64 = 1 << 53;
            kinds.push((3, (-EXACT..=EXACT).prop_map(|x| x.to_string()).boxed()));
            kinds.push((2, regex("0|-?[1-9][0-9]{0,14}")));
        } else {
            kinds.push((2, any::<i64>().prop_map(|x| x.to_string()).boxed()));
            kinds.push((1, any::<u64>().prop_map(|x| x.to_string()).boxed()));
            kinds.push((2, regex("0|-?[1-9][0-9]{0,18}")));
            kinds.push((2, regex("-?[1-9][0-9]{19,40}")));
        }
        if self.floats {
            let spelled = |x: f64, e: bool| {
                if e {
                    format!("{x:e}")
                } else {
                    format!("{x:?}")
                }
            };
            kinds.push((
                2,
                (
                    any::<f64>().prop_filter("finite", |x| x.is_finite()),
                    any::<bool>(),
                )
                    .prop_map(move |(x, e)| spelled(x, e))
                    .boxed(),
            ));
            kinds.push((
                2,
                (-1e6f64..1e6, any::<bool>())
                    .prop_map(move |(x, e)| spelled(x, e))
                    .boxed(),
            ));
            kinds.push((
                1,
                regex("-?(0|[1-9][0-9]{0,20})\\.[0-9]{1,20}([eE][+-]?[0-9]{1,2})?"),
            ));
            kinds.push((1, regex("-?(0|[1-9][0-9]{0,20})[eE][+-]?[0-9]{1,2}")));
            let special: Vec<String> = FLOATS
                .iter()
                .map(|x| format!("{x:e}"))
                .chain(NUMBER_LEXEMES.iter().map(|s| (*s).to_owned()))
                .collect();
            kinds.push((2, prop::sample::select(special).boxed()));
        }
        if self.overflow {
            // Rare: one number in about 60, about half of which overflows (the others are
            // large but finite, or underflow to 0).
            for kind in &mut kinds {
                kind.0 *= 4;
            }
            kinds.push((1, regex("-?[1-9](\\.[0-9]{1,3})?[eE][+-]?[0-9]{3}")));
        }
        Union::new_weighted(kinds).boxed()
    }

    /// A string.
    pub fn string(&self) -> BoxedStrategy<Text> {
        let piece = {
            let mut pieces: Vec<(u32, BoxedStrategy<Vec<Unit>>)> = vec![
                (
                    3,
                    prop::sample::select(LITERALS)
                        .prop_map(|s| s.chars().map(Unit::Char).collect())
                        .boxed(),
                ),
                (
                    1,
                    (0u8..0x80)
                        .prop_map(|b| vec![Unit::Char(char::from(b))])
                        .boxed(),
                ),
            ];
            if self.lone_surrogates {
                // A high surrogate is followed by a character, so that no pair forms.
                pieces.push((
                    1,
                    (0xD800u16..=0xDFFF)
                        .prop_map(|s| {
                            let mut v = vec![Unit::Lone(s)];
                            if s < 0xDC00 {
                                v.push(Unit::Char('x'));
                            }
                            v
                        })
                        .boxed(),
                ));
            }
            Union::new_weighted(pieces)
        };
        let from = |s: BoxedStrategy<String>| s.prop_map(Text::from).boxed();
        Union::new_weighted(vec![
            (3, from(any::<String>().boxed())),
            (2, from(regex("\\PC{0,8}"))),
            (2, from(regex("[a-z ]{0,8}"))),
            (1, from(regex("[ -~]{0,10}"))),
            (
                2,
                from(regex(
                    "(<tool_error>|</Domain_Rules>|<b>|[a-z<\"\\\\/ \u{0}-\u{1f}\u{7f}é😀\u{2028}])*",
                )),
            ),
            (1, from(regex("[\\x00-\\x1f\"\\\\<>|,:]{0,6}"))),
            (2, from(prop::sample::select(LITERALS).prop_map(str::to_owned).boxed())),
            (1, from(prop::sample::select(NAMES).prop_map(str::to_owned).boxed())),
            (
                2,
                prop::collection::vec(piece, 1..4)
                    .prop_map(|p| Text(p.concat()))
                    .boxed(),
            ),
        ])
        .boxed()
    }

    /// An object key.
    pub fn key(&self) -> BoxedStrategy<Text> {
        if let Some(names) = self.keys {
            return prop::sample::select(names).prop_map(Text::from).boxed();
        }
        let key = Union::new_weighted(vec![
            (5, prop::sample::select(NAMES).prop_map(Text::from).boxed()),
            (
                2,
                regex("[a-z_][a-z0-9_.]{0,6}").prop_map(Text::from).boxed(),
            ),
            (2, self.string()),
        ]);
        if self.javascript {
            key.prop_filter("not an array index", |k| !array_index(k))
                .boxed()
        } else {
            key.boxed()
        }
    }

    /// A value that is not a container.
    pub fn leaf(&self) -> BoxedStrategy<Json> {
        prop_oneof![
            1 => Just(Json::Null),
            1 => any::<bool>().prop_map(Json::Bool),
            2 => self.number().prop_map(Json::Number),
            3 => self.string().prop_map(Json::String),
        ]
        .boxed()
    }

    /// Any value: a leaf or containers of values, nested at most [`Values::depth`] deep.
    pub fn json(&self) -> BoxedStrategy<Json> {
        let (key, leaf, width) = (self.key(), self.leaf(), self.width);
        self.leaf()
            .prop_recursive(self.depth, self.size, width as u32, move |inner| {
                // A table: rows of one key set (a repeated key merges in every row alike);
                // `rotate` lists some rows' keys in another order.
                let table = (
                    prop::collection::vec(key.clone(), 1..=width.clamp(1, 3)),
                    prop::collection::vec(
                        (prop::collection::vec(leaf.clone(), 3), 0..3usize),
                        0..=width,
                    ),
                )
                    .prop_map(|(keys, rows)| {
                        Json::Array(
                            rows.into_iter()
                                .map(|(cells, rotate)| {
                                    let mut kv: Vec<(Text, Json)> =
                                        keys.iter().cloned().zip(cells).collect();
                                    let n = kv.len();
                                    kv.rotate_left(rotate % n);
                                    Json::Object(kv)
                                })
                                .collect(),
                        )
                    });
                prop_oneof![
                    2 => prop::collection::vec(inner.clone(), 0..=width).prop_map(Json::Array),
                    2 => prop::collection::vec((key.clone(), inner), 0..=width)
                        .prop_map(Json::Object),
                    1 => table,
                ]
            })
            .boxed()
    }

    /// A root that `_select` applies to: an object, an array of (mostly) objects, or any
    /// value.
    pub fn rows(&self) -> BoxedStrategy<Json> {
        let object = prop::collection::vec((self.key(), self.json()), 0..=self.width)
            .prop_map(Json::Object)
            .boxed();
        prop_oneof![
            object.clone(),
            prop::collection::vec(prop_oneof![4 => object, 1 => self.json()], 0..=self.width)
                .prop_map(Json::Array),
            self.json(),
        ]
        .boxed()
    }

    /// [`Values::json`] as `serde_json::Value`s ([`Json::to_value`]).
    ///
    /// # Panics
    ///
    /// With [`Values::lone_surrogates`], which serde_json cannot hold.
    pub fn value(&self) -> BoxedStrategy<serde_json::Value> {
        assert!(
            !self.lone_surrogates,
            "serde_json values cannot hold lone surrogates"
        );
        self.json().prop_map(|j| j.to_value()).boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::test_runner::TestRunner;

    fn sample<T: fmt::Debug>(s: &BoxedStrategy<T>, n: usize) -> Vec<T> {
        let mut runner = TestRunner::deterministic();
        (0..n)
            .map(|_| s.new_tree(&mut runner).unwrap().current())
            .collect()
    }

    #[test]
    fn every_spelling_parses_back_to_the_value() {
        let values = sample(&Values::new().json(), 300);
        let spellings = sample(&Spelling::any().boxed(), 300);
        for (j, sp) in values.iter().zip(spellings) {
            let text = j.text(sp);
            let back: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert!(crate::model_eq(&back, &j.to_value()), "{text}");
        }
    }

    #[test]
    fn integers_keep_their_digits_and_options_hold() {
        // serde_json reads other numbers by value (it writes `1E+05` back as `1e+05`).
        for n in ["0.000", "-0", "123456789012345678901234567890123456789"] {
            assert_eq!(Json::Number(n.into()).to_value().to_string(), n);
        }
        for n in sample(&Values::new().floats(false).number(), 500) {
            assert!(
                toolwire::json::is_int_lexeme(n.as_bytes()) && n != "-0",
                "{n}"
            );
        }
        for n in sample(&Values::new().javascript(true).number(), 500) {
            let x: f64 = n.parse().unwrap();
            assert!(
                !toolwire::json::is_int_lexeme(n.as_bytes()) || x.abs() <= 9007199254740992.0,
                "{n}"
            );
        }
        for k in sample(&Values::new().javascript(true).key(), 500) {
            assert!(!array_index(&k), "{k:?}");
        }
        assert!(array_index(&Text::from("17")) && !array_index(&Text::from("017")));
    }

    #[test]
    fn lone_surrogates_never_pair() {
        let texts = sample(&Values::new().lone_surrogates(true).string(), 2000);
        assert!(texts.iter().any(|t| t.to_str().is_none()));
        for t in texts {
            for w in t.units().windows(2) {
                assert!(
                    !matches!(w, [Unit::Lone(h), Unit::Lone(l)] if *h < 0xDC00 && *l >= 0xDC00),
                    "{t:?}"
                );
            }
        }
    }
}
