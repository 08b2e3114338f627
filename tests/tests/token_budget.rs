//! The token-budget guarantee (docs/RELIABILITY.md) and `Format::Auto` against tiktoken's own
//! `o200k_base` counts (the oracle, unchunked `encode_ordinary`):
//!
//! * the data block never exceeds `token_budget` in any format, for corpora of CJK, emoji,
//!   accents, numbers, punctuation, nested rows, primitive arrays, wide rows and redacted rows,
//!   budgets from 50 to 20,000;
//! * when rows were dropped and every row is small against the budget (at most 5% of it), the
//!   block keeps at least 85% of the budget;
//! * `Auto` (wire builder and Presenter, with and without a budget) is never more than 1% over
//!   the cheapest of its candidates on 96 generated documents, and never writes an empty block.

use toolwire::json::{ParseOptions, parse};
use toolwire::present::{Presenter, Schema};
use toolwire::toon::Delimiter;
use toolwire::wire::{self, Format};

fn o200k(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
    fn text(&mut self, alphabet: &[&str], min: u64, max: u64, sep: &str) -> String {
        let n = min + self.below(max - min + 1);
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push_str(sep);
            }
            s.push_str(self.pick(alphabet));
        }
        s
    }
}

const CJK: &[&str] = &[
    "漢",
    "字",
    "東京",
    "北京",
    "日本語",
    "中文",
    "한국어",
    "서울",
    "の",
    "は",
    "データ",
    "請求書",
];
const EMOJI: &[&str] = &["😀", "🚀", "👍🏽", "🇫🇷", "❤️", "🎉", "ok", "👨‍👩‍👧", "🔥", "✨"];
const ACCENTS: &[&str] = &[
    "café",
    "naïve",
    "über",
    "señor",
    "façade",
    "Ångström",
    "crème",
    "déjà",
    "Zürich",
    "São",
];
const WORDS: &[&str] = &[
    "invoice", "paid", "open", "overdue", "client", "amount", "the", "of", "Acme", "Ltd",
];
const PUNCT: &[&str] = &[
    "a,b", "x|y", "t\tz", "\"q\"", "[1]", "{k}", "a: b", "-", "#", "?!", "50%", "a/b", "\\",
    " lead", "trail ",
];

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// One corpus: (name, JSON text of a root array).
fn corpora() -> Vec<(&'static str, String)> {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::new();
    let rows = |r: &mut Rng, n: usize, f: &mut dyn FnMut(&mut Rng, usize) -> String| {
        let items: Vec<String> = (0..n).map(|i| f(r, i)).collect();
        format!("[{}]", items.join(","))
    };
    out.push((
        "cjk",
        rows(&mut r, 700, &mut |r, i| {
            format!(
                r#"{{"id":{i},"name":{},"city":{},"note":{}}}"#,
                json_str(&r.text(CJK, 1, 4, "")),
                json_str(r.pick(CJK)),
                json_str(&r.text(CJK, 4, 16, ""))
            )
        }),
    ));
    out.push((
        "emoji",
        rows(&mut r, 700, &mut |r, i| {
            format!(
                r#"{{"id":"E-{i}","tag":{},"msg":{}}}"#,
                json_str(&r.text(EMOJI, 1, 3, "")),
                json_str(&r.text(EMOJI, 2, 10, " "))
            )
        }),
    ));
    out.push((
        "accents",
        rows(&mut r, 700, &mut |r, i| {
            format!(
                r#"{{"id":{i},"who":{},"text":{},"ok":{}}}"#,
                json_str(r.pick(ACCENTS)),
                json_str(&r.text(ACCENTS, 3, 9, " ")),
                r.below(2) == 0
            )
        }),
    ));
    out.push((
        "numbers",
        rows(&mut r, 900, &mut |r, _| {
            format!(
                r#"{{"a":{},"b":{}.{},"c":-{},"d":{}e{},"e":{}}}"#,
                r.next() % 1_000_000_007,
                r.below(10_000),
                r.below(1000),
                r.below(99_999),
                r.below(9) + 1,
                r.below(30),
                r.next()
            )
        }),
    ));
    out.push((
        "punctuation",
        rows(&mut r, 700, &mut |r, i| {
            format!(
                r#"{{"id":{i},"p":{},"q":{},"r":"{}"}}"#,
                json_str(&r.text(PUNCT, 1, 4, "")),
                json_str(&r.text(PUNCT, 2, 6, " ")),
                r.pick(&["", "null", "true", "1.5", "-", "x"])
            )
        }),
    ));
    out.push((
        "nested",
        rows(&mut r, 400, &mut |r, i| {
            let lines: Vec<String> = (0..1 + r.below(4))
                .map(|j| {
                    format!(
                        r#"{{"sku":"S-{j}{}","qty":{},"tags":[{}]}}"#,
                        r.below(100),
                        r.below(20),
                        json_str(r.pick(WORDS))
                    )
                })
                .collect();
            format!(
                r#"{{"id":{i},"customer":{{"name":{},"email":"c{i}@example.com"}},"lines":[{}]}}"#,
                json_str(&r.text(WORDS, 1, 3, " ")),
                lines.join(",")
            )
        }),
    ));
    out.push((
        "primitive-numbers",
        rows(&mut r, 9000, &mut |r, _| r.below(1_000_000).to_string()),
    ));
    out.push((
        "primitive-strings",
        rows(&mut r, 5000, &mut |r, _| {
            json_str(&r.text(&[WORDS, ACCENTS, CJK].concat(), 1, 2, " "))
        }),
    ));
    out.push((
        "wide",
        rows(&mut r, 160, &mut |r, i| {
            let cells: Vec<String> = (0..40)
                .map(|k| match k % 4 {
                    0 => format!(r#""f{k}":{}"#, r.below(100_000)),
                    1 => format!(r#""f{k}":{}"#, json_str(r.pick(WORDS))),
                    2 => format!(r#""f{k}":{}"#, r.below(2) == 0),
                    _ => format!(r#""f{k}":"{i}-{k}""#),
                })
                .collect();
            format!("{{{}}}", cells.join(","))
        }),
    ));
    out.push((
        "mixed-shapes",
        rows(&mut r, 600, &mut |r, i| match r.below(3) {
            0 => format!(r#"{{"id":{i},"a":{}}}"#, json_str(r.pick(WORDS))),
            1 => format!(r#"{{"id":{i},"b":[1,2,{}]}}"#, r.below(9)),
            _ => format!(r#"{{"id":{i},"c":{},"d":null}}"#, json_str(r.pick(CJK))),
        }),
    ));
    out
}

const FORMATS: [Format; 5] = Format::FIXED;

const BUDGETS: [usize; 8] = [50, 137, 400, 1000, 2500, 6000, 12_000, 20_000];

/// The largest o200k cost of one row in compact JSON.
fn largest_row(v: toolwire::Value<'_>) -> usize {
    v.as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let mut b = Vec::new();
            toolwire::json::write_compact(row, &mut b);
            o200k(std::str::from_utf8(&b).unwrap())
        })
        .max()
        .unwrap_or(0)
}

fn check_budget(
    name: &str,
    p: &Presenter,
    d: toolwire::Value<'_>,
    f: Format,
    n: usize,
    big: usize,
) {
    let r = p.present(d, None).unwrap();
    let text = r.block_text(0);
    let tokens = o200k(&text);
    let kept = r.data().unwrap().as_array().unwrap().len();
    let total = d.as_array().unwrap().len();
    assert!(
        tokens <= n,
        "{name} {f:?} budget {n}: {tokens} tokens ({kept} of {total} rows)"
    );
    // Rows dropped, each small against the budget: the block is nearly full.
    if kept < total && big * 20 <= n {
        assert!(
            tokens * 100 >= n * 85,
            "{name} {f:?} budget {n}: only {tokens} tokens ({kept} of {total} rows)"
        );
    }
}

#[test]
fn the_data_block_never_exceeds_the_budget_and_keeps_most_of_it() {
    for (name, json) in corpora() {
        let doc = parse(json.as_bytes(), &ParseOptions::new()).unwrap();
        let big = largest_row(doc.root());
        for f in FORMATS.into_iter().chain([Format::Auto]) {
            for n in BUDGETS {
                let p = Presenter::builder("T")
                    .format(f)
                    .token_budget(n)
                    .build()
                    .unwrap();
                check_budget(name, &p, doc.root(), f, n, big);
            }
        }
    }
}

#[test]
fn the_budget_holds_under_a_schema_with_redaction_select_and_limit() {
    let (_, json) = corpora().swap_remove(2);
    let doc = parse(json.as_bytes(), &ParseOptions::new()).unwrap();
    let big = largest_row(doc.root());
    for f in FORMATS {
        for n in [60, 900, 5000] {
            let p = Presenter::builder("T")
                .schema(
                    Schema::object()
                        .property("id", Schema::integer())
                        .property("who", Schema::string())
                        .property("text", Schema::string()),
                )
                .redact(["text"], None)
                .select(true)
                .format(f)
                .limit(500)
                .token_budget(n)
                .build()
                .unwrap();
            check_budget("redacted", &p, doc.root(), f, n, big);
            let r = p.present(doc.root(), Some(&["who", "id"])).unwrap();
            let tokens = o200k(&r.block_text(0));
            assert!(tokens <= n, "selected {f:?} {n}: {tokens}");
            assert!(r.data().unwrap().as_array().unwrap().len() <= 500);
        }
    }
}

#[test]
fn a_budget_below_the_empty_collection_keeps_no_row() {
    let doc = parse(br#"[{"id":1},{"id":2}]"#, &ParseOptions::new()).unwrap();
    let p = Presenter::builder("T").token_budget(0).build().unwrap();
    let r = p.present(doc.root(), None).unwrap();
    assert_eq!(r.data().unwrap().as_array().unwrap().len(), 0);
}

/// Documents for `Auto`: every corpus's shape at small sizes, plus odd roots.
fn auto_documents() -> Vec<String> {
    let mut docs = Vec::new();
    let mut r = Rng(42);
    for (_, json) in corpora() {
        let doc = parse(json.as_bytes(), &ParseOptions::new()).unwrap();
        let rows: Vec<String> = doc
            .root()
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                let mut b = Vec::new();
                toolwire::json::write_compact(v, &mut b);
                String::from_utf8(b).unwrap()
            })
            .collect();
        for _ in 0..8 {
            let n = 1 + r.below(60) as usize;
            let at = r.below((rows.len() - n) as u64) as usize;
            docs.push(format!("[{}]", rows[at..at + n].join(",")));
        }
        docs.push(format!(
            r#"{{"items":[{}],"count":3}}"#,
            rows[..3].join(",")
        ));
    }
    for extra in [
        "{}",
        "[]",
        "[{}]",
        r#"{"a":{}}"#,
        "0",
        r#""text""#,
        "[[1,2],[3]]",
        r#"{"k":"v"}"#,
    ] {
        docs.push(extra.to_owned());
    }
    docs
}

fn cheapest(d: toolwire::Value<'_>) -> (usize, Format) {
    [
        Format::Toon(Delimiter::Comma),
        Format::Toon(Delimiter::Pipe),
        Format::Compact,
        Format::Pretty,
    ]
    .into_iter()
    .map(|f| {
        let r = wire::response(d).format(f).build().unwrap();
        (o200k(&r.block_text(0)), r.meta().format)
    })
    .filter(|(t, _)| *t > 0)
    .min_by_key(|(t, _)| *t)
    .unwrap()
}

#[test]
fn auto_is_within_one_percent_of_the_cheapest_and_never_empty() {
    let docs = auto_documents();
    assert!(docs.len() >= 80, "{}", docs.len());
    for json in &docs {
        let doc = parse(json.as_bytes(), &ParseOptions::new()).unwrap();
        let (best, best_format) = cheapest(doc.root());
        let r = wire::response(doc.root())
            .format(Format::Auto)
            .build()
            .unwrap();
        let text = r.block_text(0);
        assert!(!text.is_empty(), "{json}");
        let t = o200k(&text);
        assert!(
            t * 100 <= best * 101,
            "{json:.80}: auto {:?} {t} vs {best_format:?} {best}",
            r.meta().format
        );
        // The Presenter gives the same choice and block (no budget, no schema).
        let p = Presenter::builder("T")
            .format(Format::Auto)
            .build()
            .unwrap();
        let pr = p.present(doc.root(), None).unwrap();
        assert_eq!(pr.meta().format, r.meta().format, "{json:.80}");
        assert_eq!(pr.block_text(0), text, "{json:.80}");
    }
}

#[test]
fn auto_with_a_budget_fits_it_in_the_format_it_chose() {
    for (name, json) in corpora() {
        let doc = parse(json.as_bytes(), &ParseOptions::new()).unwrap();
        for n in [300, 4000] {
            let p = Presenter::builder("T")
                .format(Format::Auto)
                .token_budget(n)
                .build()
                .unwrap();
            let r = p.present(doc.root(), None).unwrap();
            let chosen = r.meta().format;
            assert_ne!(chosen, Format::Auto);
            let kept = r.data().unwrap().as_array().unwrap().len();
            // The same rows presented in the chosen format directly: identical block.
            let q = Presenter::builder("T")
                .format(chosen)
                .limit(kept)
                .build()
                .unwrap();
            assert_eq!(
                q.present(doc.root(), None).unwrap().block_text(0),
                r.block_text(0),
                "{name} {n}"
            );
            assert!(o200k(&r.block_text(0)) <= n, "{name} {n}");
        }
    }
}

#[test]
fn auto_never_writes_an_empty_block() {
    let doc = parse(b"{}", &ParseOptions::new()).unwrap();
    let r = wire::response(doc.root())
        .format(Format::Auto)
        .build()
        .unwrap();
    assert_eq!(r.block_text(0), "{}");
    let p = Presenter::builder("T")
        .format(Format::Auto)
        .build()
        .unwrap();
    assert_eq!(p.present(doc.root(), None).unwrap().block_text(0), "{}");
}

#[test]
fn the_budget_holds_when_toon_falls_back_to_compact_json() {
    let rows: Vec<String> = (0..400)
        .map(|i| format!(r#"{{"id":{i},"note":"see <tool_error> {i}","x":"漢字"}}"#))
        .collect();
    let json = format!("[{}]", rows.join(","));
    let doc = parse(json.as_bytes(), &ParseOptions::new()).unwrap();
    for f in [Format::Toon(Delimiter::Pipe), Format::Auto] {
        for n in [100, 3000] {
            let p = Presenter::builder("T")
                .format(f)
                .token_budget(n)
                .build()
                .unwrap();
            let r = p.present(doc.root(), None).unwrap();
            assert_eq!(r.meta().format, Format::Compact, "{f:?}");
            let t = o200k(&r.block_text(0));
            assert!(t <= n && t * 100 >= n * 85, "{f:?} {n}: {t}");
        }
    }
}
