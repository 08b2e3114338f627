//! The `serve_budget` oracle: `toolwire serve`'s token budget and cursors (SERVE.md §8) on
//! random collections, through `toolwire_mcp::FuzzList` (a server of one collection without
//! a presenter, its calls run through the real dispatcher).
//!
//! The first four bytes pick `--max-tokens`, `--max-message-bytes`, the `format` and the
//! `limit`; the rest are the rows, one per run of bytes between `0xFF` bytes: a string of
//! the run (lossy UTF-8, so every script and U+FFFD), its length as a number, and for odd
//! first bytes a nested object. Properties, on a walk that follows the next call each page
//! names (at most 400 calls):
//!
//! * every reply is at most the cap and its content at most the budget, counted block by
//!   block with tiktoken's `o200k_base`, unchunked (as an agent's client counts);
//! * a page that is not `TOO_LARGE` names a next call exactly when rows remain;
//! * the pages together hold every row exactly once, in order, unless one row alone was
//!   over the budget or the cap (`TOO_LARGE`).

use serde_json::{Value, json};

/// `--max-tokens`; 500 is the smallest the server takes.
const BUDGETS: [usize; 6] = [0, 500, 700, 1_000, 4_000, 25_000];
const CAPS: [usize; 3] = [0, 4096, 16_384];
const FORMATS: [&str; 6] = toolwire::wire::Format::NAMES;

/// See the module docs.
pub fn serve_budget(data: &[u8]) {
    let [b, c, f, l, rest @ ..] = data else {
        return;
    };
    let budget = BUDGETS[usize::from(*b) % BUDGETS.len()];
    let cap = CAPS[usize::from(*c) % CAPS.len()];
    let format = FORMATS[usize::from(*f) % FORMATS.len()];
    let limit = usize::from(*l % 64) + 1;
    let rows: Vec<Value> = rest
        .split(|&x| x == 0xFF)
        .take(200)
        .enumerate()
        .map(|(i, run)| {
            let s = String::from_utf8_lossy(run).into_owned();
            let mut row = json!({"id": i, "s": s, "n": run.len() as f64 / 3.0});
            if run.first().is_some_and(|x| x % 2 == 1) {
                row["o"] =
                    json!({"k": run.len(), "t": [true, null, s.chars().rev().collect::<String>()]});
            }
            row
        })
        .collect();
    let Ok(bytes) = serde_json::to_vec(&rows) else {
        return;
    };
    let Some(server) = toolwire_mcp::FuzzList::new(bytes, budget, cap) else {
        panic!("a JSON array of objects is a collection");
    };
    let bpe = tiktoken_rs::o200k_base_singleton();
    let mut args = json!({"action": "list", "limit": limit, "format": format});
    let mut seen: Vec<u64> = Vec::new();
    for _ in 0..400 {
        let a = serde_json::to_vec(&args).unwrap_or_default();
        let line = server.call(&a);
        assert!(
            cap == 0 || line.len() <= cap,
            "{} bytes > cap {cap}",
            line.len()
        );
        let v: Value = serde_json::from_slice(&line).unwrap_or_else(|e| panic!("{e}"));
        let result = &v["result"];
        let texts: Vec<&str> = result["content"]
            .as_array()
            .unwrap_or_else(|| panic!("a result: {v}"))
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect();
        let tokens: usize = texts.iter().map(|t| bpe.encode_ordinary(t).len()).sum();
        assert!(
            budget == 0 || tokens <= budget,
            "{tokens} tokens > {budget}: {texts:?}"
        );
        if result["isError"] == true {
            assert!(
                texts[0].starts_with("<tool_error code=\"TOO_LARGE\""),
                "only TOO_LARGE: {texts:?}"
            );
            return;
        }
        let data: Value = match serde_json::from_str(texts[0]) {
            Ok(d) => d,
            // A TOON page: the ids are read back with the engine's decoder.
            Err(_) => toon_rows(texts[0]),
        };
        let ids = data.as_array().cloned().unwrap_or_default();
        seen.extend(ids.iter().filter_map(|r| r["id"].as_u64()));
        let next = texts.iter().find_map(|t| {
            let at = t.find("Next page: call rows with ")? + 26;
            serde_json::from_str::<Value>(t[at..].lines().next()?).ok()
        });
        match next {
            Some(n) => {
                assert!(n["cursor"].is_string(), "a cursor: {n}");
                args = n;
            }
            None => break,
        }
    }
    let want: Vec<u64> = (0..rows.len() as u64).collect();
    assert_eq!(seen, want, "every row once, in order");
}

/// The rows of a TOON data block (the engine's decoder; the block is its own output).
fn toon_rows(text: &str) -> Value {
    let Ok(doc) = toolwire::toon::decode(text.as_bytes(), &Default::default()) else {
        panic!("a TOON page decodes: {text}");
    };
    serde_json::from_slice(&toolwire::json::to_vec_compact(doc.root())).unwrap_or_default()
}
