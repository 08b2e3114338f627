//! Oracles for the JSON, TOON round-trip, wire, framing and presenter targets.
//!
//! * [`json_parse`]: positioned errors; a parsed document is well formed and survives
//!   `write_compact` → `parse` unchanged; its value equals serde_json's (numbers by value);
//!   accept/reject agrees with serde_json except for the
//!   documented differences (we reject numbers that overflow f64 and accept lone-surrogate
//!   escapes; depth limits are compared only below 100 levels).
//! * [`json_kernels`]: every block kernel of the parser (portable, SSE2, AVX2, NEON) gives
//!   the byte-by-byte masks, and the bytewise parser's result.
//! * [`json_select`]: `parse_selected` accepts exactly what `parse` accepts and equals the
//!   projection of the full parse (`toolwire_oracles::project`: requested keys in request
//!   order).
//! * [`toon_roundtrip`]: any parsed JSON value encodes (when `check` allows) identically in
//!   sequential and parallel mode, decodes back to the same value (up to the field order of
//!   tabular rows, which is the header's), and encodes again to the same text, for every
//!   delimiter.
//! * [`wire_tags`]: hostile strings in every builder field: the output holds exactly the
//!   builder's own tags (WIRE.md §2).
//! * [`frame`]: the framed line is one JSON-RPC line whose block texts equal the unframed build.
//! * [`json_windows`]: JSON text read window by window, twice and once (`Data::Json`, windows
//!   of 1 to 64 bytes) gives the same texts, format and frames as its whole parse, or the
//!   same error;
//!   so does `toon::encode_json` against `toon::encode` of the parse.
//! * [`present`]: arbitrary presenter files (or files made by [`generated_file`] from a
//!   program: nested embeds, redaction reaching into them) and data give a response or an
//!   error, never a panic; a response's blocks carry only the builder's own tags. Run under
//!   a memory and time limit (`.ci/fuzz.sh`), so a load or presentation that blows up
//!   fails too.

use toolwire::frame::{Id, Protocol};
use toolwire::json::{ParseOptions, Selector, parse, parse_selected, to_vec_compact};
use toolwire::toon::{DecodeOptions, Delimiter, EncodeOptions};
use toolwire::wire::{self, Format, Suggestion, ToolError, UiMeta, ui};
use toolwire::{Category, Doc, DocBuilder};
use toolwire_oracles::{model_eq, rows_in_first_order};

use crate::{check_doc, check_error};
use toolwire::test_hooks::*;

const SEL_VOCAB: [&str; 6] = ["id", "a", "b", "name", "", "x"];

/// Arbitrary bytes as JSON: see the module docs.
pub fn json_parse(data: &[u8]) {
    let opts = ParseOptions::new();
    let ours = parse(data, &opts);
    let theirs = serde_json::from_slice::<serde_json::Value>(data);
    match &ours {
        Err(e) => check_error(data, e),
        Ok(doc) => {
            check_doc(doc, 128);
            let text = to_vec_compact(doc.root());
            let again = parse(&text, &opts).expect("our own output parses");
            assert_eq!(
                to_vec_compact(again.root()),
                text,
                "write → parse → write is not stable"
            );
        }
    }
    // `\uD800`–`\uDFFF` all start `\ud` (conservative: `\ud7ff` counts too).
    let lone_surrogate_escape = data
        .windows(3)
        .any(|w| w[0] == b'\\' && w[1] == b'u' && matches!(w[2], b'd' | b'D'));
    let deep = data.iter().filter(|&&b| b == b'[' || b == b'{').count() >= 100;
    if let (Ok(doc), Ok(v)) = (&ours, &theirs) {
        let back: serde_json::Value = serde_json::from_slice(&to_vec_compact(doc.root()))
            .expect("our output reads back (no lone surrogate: serde_json accepted the input)");
        assert!(
            model_eq(&back, v),
            "values differ: ours {back}, serde_json {v}"
        );
    }
    match (&ours, &theirs) {
        // serde_json reads integers as u64/i64 or f64 and gives up past f64; we keep every
        // digit (WIRE.md §1.3).
        (Ok(_), Err(e)) => assert!(
            lone_surrogate_escape || deep || e.to_string().starts_with("number out of range"),
            "we accept what serde_json rejects ({e}): {:?}",
            String::from_utf8_lossy(data)
        ),
        (Err(e), Ok(_)) => assert!(
            e.classify() == Category::Number || deep,
            "we reject what serde_json accepts ({e}): {:?}",
            String::from_utf8_lossy(data)
        ),
        _ => {}
    }
}

/// The first byte picks up to three keys from a small vocabulary; the rest is JSON.
pub fn json_select(data: &[u8]) {
    let Some((&pick, json)) = data.split_first() else {
        return;
    };
    let keys: Vec<&str> = (0..3)
        .map(|i| SEL_VOCAB[usize::from(pick >> (2 * i)) % SEL_VOCAB.len()])
        .collect();
    let sel = Selector::new(&keys);
    let opts = ParseOptions::new();
    let full = parse(json, &opts);
    let selected = parse_selected(json, &sel, &opts);
    match (&full, &selected) {
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string(), "different errors");
            check_error(json, b);
        }
        (Ok(full), Ok(selected)) => {
            assert_eq!(full.has_reserved_tag(), selected.has_reserved_tag());
            assert_eq!(full.has_lone_surrogate(), selected.has_lone_surrogate());
            let want = toolwire_oracles::project(full.root(), &keys);
            assert_eq!(
                to_vec_compact(selected.root()),
                to_vec_compact(want.root()),
                "select != projection"
            );
            // The rows' same-keys and flat marks, which the TOON encoder trusts.
            let opts = toolwire::toon::EncodeOptions::new();
            assert_eq!(
                toolwire::toon::to_vec(selected.root(), &opts).ok(),
                toolwire::toon::to_vec(want.root(), &opts).ok(),
                "TOON of select != TOON of projection"
            );
        }
        _ => panic!(
            "parse and parse_selected disagree on {:?}",
            String::from_utf8_lossy(json)
        ),
    }
}

/// JSON in, TOON out and back: see the module docs.
pub fn toon_roundtrip(data: &[u8]) {
    let Ok(doc) = parse(data, &ParseOptions::new().max_depth(64)) else {
        return;
    };
    for delimiter in [Delimiter::Comma, Delimiter::Tab, Delimiter::Pipe] {
        let seq = EncodeOptions::new().delimiter(delimiter).parallel(false);
        let par = EncodeOptions::new()
            .delimiter(delimiter)
            .parallel(true)
            .parallel_threshold(2);
        let checked = toolwire::toon::check(doc.root(), &seq);
        let encoded = toolwire::toon::to_vec(doc.root(), &seq);
        assert_eq!(
            checked.is_ok(),
            encoded.is_ok(),
            "check and encode disagree"
        );
        let Ok(text) = encoded else {
            assert!(
                doc.has_lone_surrogate(),
                "only lone surrogates can fail here"
            );
            continue;
        };
        assert_eq!(
            toolwire::toon::to_vec(doc.root(), &par).unwrap(),
            text,
            "parallel != sequential"
        );
        let back = toolwire::toon::decode(&text, &DecodeOptions::new().max_depth(1000))
            .unwrap_or_else(|e| {
                panic!(
                    "our TOON does not decode ({e}):\n{}",
                    String::from_utf8_lossy(&text)
                )
            });
        assert_eq!(
            toolwire::toon::to_vec(back.root(), &seq).unwrap(),
            text,
            "encode(decode(text)) != text"
        );
        // Tabular rows come back in the header's field order (the first row's); rows in list
        // form keep their own: compare both sides in that order. (No lone surrogate reaches
        // here, so serde_json reads both texts.)
        let model = |d: &Doc<'_>| {
            let mut v: serde_json::Value =
                serde_json::from_slice(&to_vec_compact(d.root())).expect("our JSON");
            rows_in_first_order(&mut v);
            v
        };
        assert!(
            model(&back) == model(&doc),
            "round trip changed the value; TOON:\n{}",
            String::from_utf8_lossy(&text)
        );
    }
}

/// Up to 12 strings separated by 0xFF (lossy UTF-8).
fn strings(data: &[u8]) -> Vec<String> {
    let mut v: Vec<String> = data
        .split(|&b| b == 0xFF)
        .take(12)
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect();
    v.resize(12, String::new());
    v
}

/// The tags a block written by the builder starts and ends with, by its first line.
fn own_tags(block: &str) -> Vec<String> {
    for name in toolwire::test_hooks::RESERVED_TAGS {
        if block.starts_with(&format!("<{name}")) {
            return vec![format!("<{name}"), format!("</{name}")];
        }
    }
    Vec::new()
}

fn assert_tag_safe(texts: &[String]) {
    for (i, t) in texts.iter().enumerate() {
        assert_eq!(tags(t), own_tags(t), "block {i} holds forged tags:\n{t}");
    }
}

/// Hostile strings in every field: see the module docs.
pub fn wire_tags(data: &[u8]) {
    let s = strings(data);
    let mut b = DocBuilder::new(b"");
    let o = b.begin_object();
    b.string(s[0].as_bytes());
    b.string(s[1].as_bytes());
    b.string(b"k");
    let a = b.begin_array();
    b.string(s[2].as_bytes());
    b.end_array(a, 1);
    b.end_object(o, 2);
    let doc = b.finish();
    let Ok(table) = ui::table(&[s[3].as_str()], vec![vec![s[4].as_str()]]) else {
        return;
    };
    for format in [
        Format::Pretty,
        Format::Compact,
        Format::Toon(Delimiter::Pipe),
        Format::Auto,
    ] {
        let r = wire::response(doc.root())
            .format(format)
            .ui_block(ui::markdown(&s[5]).with_meta(UiMeta {
                title: Some(s[6].clone()),
                width: None,
                priority: Some(1),
            }))
            .ui_block(table.clone())
            .ui_block(ui::code_block(&s[7], &s[8]))
            .ui_block(ui::json(doc.root()))
            .ui_block(ui::summary(&s[9]))
            .llm_hint(s[10].clone())
            .system_rules([s[11].clone()])
            .system_hint([Suggestion {
                tool: s[0].clone(),
                reason: s[1].clone(),
            }])
            .build()
            .expect("builds");
        let texts = r.texts();
        assert_eq!(texts.len(), 9);
        assert_tag_safe(&texts);
    }
    let e = ToolError::new(s[0].clone())
        .message(s[1].clone())
        .recovery(s[2].clone())
        .actions([s[3].clone()])
        .detail(s[4].clone(), s[5].clone())
        .into_response();
    assert_tag_safe(&e.texts());
    assert_tag_safe(&wire::error(&s[6]).texts());
    assert_tag_safe(&wire::required(&s[7]).texts());
}

/// JSON data framed in a format picked by the first byte: see the module docs.
pub fn frame(data: &[u8]) {
    let Some((&pick, json)) = data.split_first() else {
        return;
    };
    let Ok(doc) = parse(json, &ParseOptions::new()) else {
        return;
    };
    let format = [
        Format::Pretty,
        Format::Compact,
        Format::Toon(Delimiter::Comma),
        Format::Toon(Delimiter::Tab),
        Format::Toon(Delimiter::Pipe),
        Format::Auto,
    ][usize::from(pick) % 6];
    let structured = pick & 0x80 != 0;
    let r = if structured {
        wire::success_structured(doc.root())
    } else {
        wire::response(doc.root())
            .format(format)
            .llm_hint("h")
            .build()
    };
    let Ok(r) = r else {
        return;
    };
    let protocol = if pick & 0x40 != 0 {
        Protocol::Since20260728
    } else {
        Protocol::Before20260728
    };
    let id = Id::number_or_string(&String::from_utf8_lossy(&json[..json.len().min(8)]));
    let mut line = Vec::new();
    toolwire::frame::write_frame(&id, &r, protocol, &mut line);
    assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1, "one line");
    let v: serde_json::Value = match serde_json::from_slice(&line) {
        Ok(v) => v,
        // A lone surrogate is written `\udxxx`, as JSON.stringify does: valid JSON syntax that
        // serde_json refuses to read. Our own parser must accept it; nothing else may fail.
        Err(_) if doc.has_lone_surrogate() => {
            parse(&line, &ParseOptions::new()).expect("the frame is JSON");
            return;
        }
        Err(e) => panic!(
            "the frame is not JSON ({e}): {}",
            String::from_utf8_lossy(&line)
        ),
    };
    let texts: Vec<&str> = v["result"]["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|b| b["text"].as_str().expect("text"))
        .collect();
    assert_eq!(texts, r.texts(), "framed texts differ from the build");
    assert!(
        toolwire::frame::framed_len_bound(&id, &r) >= line.len(),
        "size bound below the real size"
    );
}

/// A presenter file and data, separated by the first NUL: see the module docs. An input
/// starting with `0xFF` is a *program* for [`generated_file`] instead of a file, so that
/// nested embeds, redaction reaching into them and wide schemas are a few bytes away (a
/// byte-level mutator rarely keeps deep JSON nesting balanced).
pub fn present(data: &[u8]) {
    let mut parts = data.splitn(2, |&b| b == 0);
    let (Some(file), Some(json)) = (parts.next(), parts.next()) else {
        return;
    };
    let generated;
    let file = match file.split_first() {
        Some((0xFF, program)) => {
            generated = generated_file(program);
            generated.as_bytes()
        }
        _ => file,
    };
    let Ok(presenter) = toolwire::present::Presenter::from_json(file) else {
        return;
    };
    let Ok(doc) = parse(json, &ParseOptions::new()) else {
        return;
    };
    let select = ["id", "name", "x"];
    for sel in [None, Some(&select[..])] {
        match presenter.present(doc.root(), sel) {
            Ok(r) => {
                let texts = r.texts();
                assert!(!texts.is_empty());
                assert_tag_safe(&texts);
            }
            Err(e) => {
                let r = e.into_response("fuzz/present");
                assert_eq!(r.is_error(), Some(true));
                assert_tag_safe(&r.texts());
            }
        }
    }
}

/// A presenter file from a program: each byte is one instruction (low 3 bits) with an
/// argument (the other 5). Embeds nest up to 60 levels (the parser's depth limit is 128,
/// two per level); the result is always valid JSON, not always a valid presenter.
pub fn generated_file(program: &[u8]) -> String {
    const KEYS: [&str; 4] = ["c", "d", "x", "items"];
    const PATHS: [&str; 16] = [
        "c",
        "c.c",
        "c[*]",
        "c[*].c",
        "*",
        "*.c",
        "*.*",
        "x.y",
        "d.x",
        "items[*].x",
        "c.c.c",
        "c[*].c[*].c",
        "*.*.*.x",
        "[*].x",
        "c.x",
        "*.c.c",
    ];
    const TYPES: [&str; 4] = ["string", "object", "array", "integer"];
    #[derive(Default)]
    struct Level {
        key: String,
        props: Vec<String>,
        required: Vec<String>,
        paths: Vec<String>,
        rules: Vec<String>,
        ui: Vec<String>,
        embeds: Vec<String>,
        limit: Option<u8>,
        select: bool,
    }
    fn quoted(v: &[String]) -> String {
        v.iter()
            .map(|s| format!("\"{s}\""))
            .collect::<Vec<_>>()
            .join(",")
    }
    fn close(l: Level) -> String {
        let mut f = vec![r#""name":"G""#.to_owned()];
        if !l.props.is_empty() || !l.required.is_empty() {
            f.push(format!(
                r#""schema":{{"type":"object","properties":{{{}}},"required":[{}]}}"#,
                l.props.join(","),
                quoted(&l.required)
            ));
        }
        if !l.paths.is_empty() {
            f.push(format!(r#""redact":{{"paths":[{}]}}"#, quoted(&l.paths)));
        }
        if !l.rules.is_empty() {
            f.push(format!(r#""rules":[{}]"#, quoted(&l.rules)));
        }
        if !l.ui.is_empty() {
            f.push(format!(r#""ui":{{"collection":[{}]}}"#, l.ui.join(",")));
        }
        if !l.embeds.is_empty() {
            f.push(format!(r#""embed":{{{}}}"#, l.embeds.join(",")));
        }
        if let Some(n) = l.limit {
            f.push(format!(r#""limit":{n}"#));
        }
        if l.select {
            f.push(r#""select":true"#.into());
        }
        format!("{{{}}}", f.join(","))
    }
    let mut stack = vec![Level::default()];
    for &b in program {
        let arg = usize::from(b >> 3);
        let depth = stack.len();
        let top = stack.last_mut().expect("the root level");
        match b & 7 {
            0 if depth < 60 => stack.push(Level {
                key: KEYS[arg % 4].into(),
                ..Level::default()
            }),
            1 if depth > 1 => {
                let l = stack.pop().expect("a nested level");
                let key = l.key.clone();
                let text = close(l);
                stack
                    .last_mut()
                    .expect("the parent")
                    .embeds
                    .push(format!("\"{key}\":{text}"));
            }
            2 => top.paths.push(PATHS[arg % 16].into()),
            3 => {
                let name = KEYS[arg % 4];
                let t = TYPES[(arg / 4) % 4];
                top.props
                    .push(format!(r#""{name}":{{"type":"{t}","enum":["a",1]}}"#));
            }
            4 => top.rules.push(format!("rule {arg}")),
            5 => top.ui.push(format!(
                r#"{{"table":{{"columns":[{}]}}}}"#,
                quoted(
                    &KEYS[..arg % 5]
                        .iter()
                        .map(|k| (*k).to_owned())
                        .collect::<Vec<_>>()
                )
            )),
            6 => top.required.push(KEYS[arg % 4].into()),
            _ => {
                top.limit = Some(b >> 4);
                top.select = arg % 2 == 1;
            }
        }
    }
    while stack.len() > 1 {
        let l = stack.pop().expect("a nested level");
        let key = l.key.clone();
        let text = close(l);
        stack
            .last_mut()
            .expect("the parent")
            .embeds
            .push(format!("\"{key}\":{text}"));
    }
    close(stack.pop().expect("the root level"))
}

/// Everything observable about a built response: format, texts and both framings; or the
/// error's text.
fn observe(r: toolwire::Result<wire::ToolResponse<'_>>) -> String {
    match r {
        Err(e) => format!("error: {e}"),
        Ok(r) => {
            let mut framed = Vec::new();
            let id = Id::Number("1".into());
            toolwire::frame::write_frame(&id, &r, Protocol::Before20260728, &mut framed);
            toolwire::frame::write_frame(&id, &r, Protocol::Since20260728, &mut framed);
            format!(
                "{:?}\n{:?}\n{}",
                r.meta().format,
                r.texts(),
                String::from_utf8_lossy(&framed)
            )
        }
    }
}

/// The first byte picks the format and the window size, the rest is the JSON text.
pub fn json_windows(data: &[u8]) {
    let Some((&pick, json)) = data.split_first() else {
        return;
    };
    let format = [
        Format::Pretty,
        Format::Compact,
        Format::Toon(Delimiter::Comma),
        Format::Toon(Delimiter::Pipe),
    ][usize::from(pick & 3)];
    let window = usize::from(pick >> 2) + 1;
    let windowed = observe(
        wire::response(wire::Data::Json(json))
            .format(format)
            .window_bytes(window)
            .build(),
    );
    let whole = observe(match parse(json, &ParseOptions::new()) {
        Err(e) => Err(e),
        Ok(doc) => wire::response(wire::Data::Doc(doc)).format(format).build(),
    });
    assert_eq!(windowed, whole, "windows of {window} bytes, {format:?}");
    // Read once: the first reading's windows kept for the writing (an unbounded budget).
    let once = observe(
        wire::response(wire::Data::Json(json))
            .format(format)
            .window_bytes(window)
            .keep_tape(usize::MAX)
            .build(),
    );
    assert_eq!(
        once, whole,
        "read once, windows of {window} bytes, {format:?}"
    );
    // Read in part: a budget of a few windows' tape keeps some, the rest is parsed again.
    let keep = json.len() * usize::from(pick >> 5);
    let part = observe(
        wire::response(wire::Data::Json(json))
            .format(format)
            .window_bytes(window)
            .keep_tape(keep)
            .build(),
    );
    assert_eq!(
        part, whole,
        "kept {keep} bytes of tape, windows of {window} bytes, {format:?}"
    );
    // Plain TOON text (`toon::encode_json`): no fallback, the encoder's own errors.
    if let Format::Toon(d) = format {
        let opts = EncodeOptions::new().delimiter(d);
        let mut out = Vec::new();
        let windowed = match encode_json_windows(json, &opts, window, &mut out) {
            Ok(()) => Ok(out),
            Err(e) => {
                assert!(out.is_empty(), "nothing is written on error");
                Err(e.to_string())
            }
        };
        // An error as `toon::encode_json` of the whole text gives it: the encoder's error,
        // placed in the text (a lone surrogate's string position, which the document alone
        // does not know).
        let whole = parse(json, &ParseOptions::new())
            .and_then(|doc| toolwire::toon::to_vec(doc.root(), &opts))
            .map_err(|e| {
                let mut sink = Vec::new();
                let text_error = toolwire::toon::encode_json(json, &opts, &mut sink)
                    .expect_err("encode_json fails where parse + encode fails");
                assert_eq!(text_error.message(), e.message());
                text_error.to_string()
            });
        assert_eq!(
            windowed, whole,
            "toon::encode_json, windows of {window} bytes"
        );
        let mut out = Vec::new();
        let once = match encode_json_windows_kept(json, &opts, window, usize::MAX, &mut out) {
            Ok(()) => Ok(out),
            Err(e) => {
                assert!(out.is_empty(), "nothing is written on error");
                Err(e.to_string())
            }
        };
        assert_eq!(
            once, whole,
            "toon::encode_json read once, windows of {window} bytes"
        );
    }
}

/// Every reserved tag sequence in `text`, as `<name` or `</name` in lowercase.
fn tags(text: &str) -> Vec<String> {
    toolwire_oracles::reserved_tags(text)
        .into_iter()
        .map(|t| t.to_ascii_lowercase())
        .collect()
}

/// Arbitrary bytes through every block kernel this CPU runs: each classifies every block
/// exactly as the byte-by-byte definitions do, and `parse` /
/// `parse_selected` give the same document (and flags) or the same error as the bytewise
/// parser the kernels replaced.
pub fn json_kernels(data: &[u8]) {
    let kernels = Kernel::available();
    for &k in &kernels {
        let bad = kernel_mismatches(data, k).expect("available");
        assert!(bad.is_empty(), "{k:?}: {:?}", bad.first());
    }
    let opts = ParseOptions::new();
    let sel = Selector::new(SEL_VOCAB);
    let outcome = |select: bool| {
        let r = if select {
            parse_selected(data, &sel, &opts)
        } else {
            parse(data, &opts)
        };
        r.map(|d| {
            (
                format!("{:?}", d.root()),
                d.has_reserved_tag(),
                d.has_lone_surrogate(),
            )
        })
        .map_err(|e| (e.classify(), e.offset(), e.message().to_string()))
    };
    for select in [false, true] {
        let want = with_kernel(None, || outcome(select)).expect("bytewise path");
        for &k in &kernels {
            let got = with_kernel(Some(k), || outcome(select)).expect("available");
            assert_eq!(
                got, want,
                "{k:?} (select {select}) against the bytewise parser"
            );
        }
    }
}
