//! The `serve_request` oracle: arbitrary bytes as JSON-RPC lines into `toolwire serve`'s
//! dispatcher (`toolwire_mcp::fuzz_dispatch`, the stdio transport's path without the pipes).
//!
//! The first byte picks the server: `--max-message-bytes` 4096, 8192 or 0 (no cap), and
//! `--structured` on or off; the rest is the stdin stream. Properties:
//!
//! * never a panic (in the dispatcher, the argument checks, the presenter, the framer);
//! * every reply is exactly one line: one LF, at its end, and its text parses (serde_json)
//!   as one JSON-RPC 2.0 object: a response (`id` plus exactly one of `result`/`error`) or a
//!   notification (`method`, no `id`);
//! * no reply is longer than the cap (its LF included);
//! * every `tools/call` result's text blocks carry only their writer's tags (WIRE.md §2):
//!   none in a success's data block, one opening tag at the start and its closing tag at
//!   the end of every other block, whatever the client sent.

use serde_json::Value;

/// Cap and `--structured` by the first input byte.
const SERVERS: [(usize, bool); 6] = [
    (4096, false),
    (8192, false),
    (0, false),
    (4096, true),
    (8192, true),
    (0, true),
];

/// See the module docs.
pub fn serve_request(data: &[u8]) {
    let Some((&pick, lines)) = data.split_first() else {
        return;
    };
    let (cap, structured) = SERVERS[usize::from(pick) % SERVERS.len()];
    for reply in toolwire_mcp::fuzz_dispatch(lines, cap, structured) {
        check_reply(&reply, cap);
    }
}

fn check_reply(reply: &[u8], cap: usize) {
    let shown = || String::from_utf8_lossy(&reply[..reply.len().min(400)]).into_owned();
    assert!(
        cap == 0 || reply.len() <= cap,
        "{} bytes > cap {cap}: {}",
        reply.len(),
        shown()
    );
    assert_eq!(
        reply.last(),
        Some(&b'\n'),
        "a reply ends with LF: {}",
        shown()
    );
    let body = &reply[..reply.len() - 1];
    assert!(!body.contains(&b'\n'), "one line per reply: {}", shown());
    let v: Value = serde_json::from_slice(body)
        .or_else(|e| without_undecodable_id(body).ok_or(e))
        .unwrap_or_else(|e| panic!("a reply is JSON ({e}): {}", shown()));
    let obj = v
        .as_object()
        .unwrap_or_else(|| panic!("an object: {}", shown()));
    assert_eq!(obj.get("jsonrpc"), Some(&Value::from("2.0")), "{}", shown());
    if obj.contains_key("method") {
        assert!(
            !obj.contains_key("id"),
            "a notification has no id: {}",
            shown()
        );
        return;
    }
    let id = obj
        .get("id")
        .unwrap_or_else(|| panic!("a response has an id: {}", shown()));
    assert!(
        id.is_null() || id.is_string() || id.is_number(),
        "{}",
        shown()
    );
    assert!(
        obj.contains_key("result") != obj.contains_key("error"),
        "exactly one of result and error: {}",
        shown()
    );
    if let Some(err) = obj.get("error") {
        assert!(err["code"].is_i64(), "{}", shown());
        assert!(err["message"].is_string(), "{}", shown());
    }
    let Some(content) = obj.get("result").and_then(|r| r.get("content")) else {
        return;
    };
    let is_error = obj["result"].get("isError") == Some(&Value::Bool(true));
    let blocks = content.as_array().unwrap_or_else(|| panic!("{}", shown()));
    // A result cut by a cancellation ends with a CANCELLED block; the block before it may be
    // cut too: its tags are then a prefix of its writer's.
    let cut = blocks
        .last()
        .and_then(|b| b["text"].as_str())
        .is_some_and(|t| t.starts_with("<tool_error code=\"CANCELLED\">"));
    for (i, b) in blocks.iter().enumerate() {
        let text = b["text"]
            .as_str()
            .unwrap_or_else(|| panic!("text blocks only: {}", shown()));
        let tags: Vec<String> = toolwire_oracles::reserved_tags(text)
            .into_iter()
            .map(|t| t.to_ascii_lowercase())
            .collect();
        if cut && i + 2 == blocks.len() {
            // The cut block: no tag, its opening tag at its start, or both of its tags.
            if let Some(open) = tags.first() {
                assert!(
                    text.to_ascii_lowercase().starts_with(open.as_str()) && !open.starts_with("</"),
                    "cut block {i} holds tags {tags:?}: {text}"
                );
            }
            if tags.len() == 2 {
                assert_eq!(
                    tags[1],
                    format!("</{}", &tags[0][1..]),
                    "cut block {i}: {text}"
                );
            }
            assert!(tags.len() <= 2, "cut block {i} holds tags {tags:?}: {text}");
            continue;
        }
        if i == 0 && (!is_error || cut) && tags.is_empty() {
            continue;
        }
        if i == 0 && !is_error {
            assert!(tags.is_empty(), "data block holds tags {tags:?}: {text}");
            continue;
        }
        assert_eq!(tags.len(), 2, "block {i} holds tags {tags:?}: {text}");
        assert!(
            text.to_ascii_lowercase().starts_with(&tags[0]),
            "block {i} starts with its tag: {text}"
        );
        assert_eq!(tags[1], format!("</{}", &tags[0][1..]), "block {i}: {text}");
    }
}

/// A reply whose id is echoed as the client wrote it with a lone surrogate escape (which
/// serde_json refuses to decode): the reply with that id as `null`, when that is the only
/// undecodable part.
fn without_undecodable_id(body: &[u8]) -> Option<Value> {
    let rest = body.strip_prefix(br#"{"jsonrpc":"2.0","id":"#)?;
    let mut it =
        serde_json::Deserializer::from_slice(rest).into_iter::<Box<serde_json::value::RawValue>>();
    let id = it.next()?.ok()?;
    let end = it.byte_offset();
    let id = id.get();
    if !id.starts_with('"') || !id.contains("\\u") {
        return None;
    }
    let mut fixed = br#"{"jsonrpc":"2.0","id":null"#.to_vec();
    fixed.extend_from_slice(&rest[end..]);
    serde_json::from_slice(&fixed).ok()
}
