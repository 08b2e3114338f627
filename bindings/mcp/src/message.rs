//! A JSON-RPC message read member by member, so one unreadable member never costs the client
//! its reply.
//!
//! serde_json refuses a whole document for a string with a lone surrogate escape
//! (`"\ud800"`, which `JSON.stringify` writes) or for nesting deeper than 128 levels. Read
//! into one `Value`, such a message would be a parse error on `id: null`, and the client would
//! wait for an answer to its id until its own timeout. Here the message's syntax is checked
//! once, without either limit (serde_json's `RawValue` skips a value without decoding it),
//! and each member is decoded on its own: the `id` is read whatever the other members hold,
//! and a member that cannot be decoded is named with the reason, so a `tools/call` argument
//! becomes a `<validation_error>` field and anything else a JSON-RPC error on the id.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// How deep a decoded value may nest (serde_json's own limit, kept: requests are small).
const MAX_DEPTH: usize = 128;

/// The members of a JSON object, in order, each as its raw JSON text; a later duplicate key
/// replaces an earlier one, as `serde_json::Value` does.
pub(crate) struct Members<'a> {
    pub(crate) items: Vec<(String, &'a RawValue)>,
}

impl<'a> Members<'a> {
    /// The raw value of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.items.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }
}

/// Why a JSON text is not an object's members.
pub(crate) enum NotMembers {
    /// Valid JSON, but not an object (`true` for an array).
    NotObject { array: bool },
    /// Not valid JSON: the reason, and the raw `id` when it was read before the error (the
    /// client is still answered on it).
    Syntax {
        reason: String,
        id: Option<Box<RawValue>>,
    },
}

/// One JSON value at the start of `text` (after whitespace): its raw text and the offset
/// just past it.
fn value_at(text: &str) -> Result<(&RawValue, usize), String> {
    let mut it = serde_json::Deserializer::from_str(text).into_iter::<&RawValue>();
    match it.next() {
        Some(Ok(v)) => Ok((v, it.byte_offset())),
        Some(Err(e)) => Err(e.to_string()),
        None => Err("unexpected end of the message".into()),
    }
}

fn skip_ws(text: &str, mut at: usize) -> usize {
    let b = text.as_bytes();
    while at < b.len() && matches!(b[at], b' ' | b'\t' | b'\n' | b'\r') {
        at += 1;
    }
    at
}

/// Reads the members of the object that is the whole of `text` (surrounding whitespace
/// allowed). Member values are checked for syntax only; a key that does not decode (a lone
/// surrogate escape) is kept as its raw JSON text, quotes included, which no known member
/// name is.
pub(crate) fn members(text: &str) -> Result<Members<'_>, NotMembers> {
    let syntax = |reason: String, items: &[(String, &RawValue)]| NotMembers::Syntax {
        reason,
        id: items
            .iter()
            .find(|(k, _)| k == "id")
            .map(|(_, v)| (*v).to_owned()),
    };
    let b = text.as_bytes();
    let mut at = skip_ws(text, 0);
    match b.get(at) {
        Some(b'{') => at += 1,
        Some(_) => {
            return match value_at(text) {
                Ok((v, end)) if skip_ws(text, end) == b.len() => Err(NotMembers::NotObject {
                    array: v.get().starts_with('['),
                }),
                Ok(_) => Err(syntax("trailing characters after the message".into(), &[])),
                Err(e) => Err(syntax(e, &[])),
            };
        }
        None => return Err(syntax("an empty message".into(), &[])),
    }
    let mut items: Vec<(String, &RawValue)> = Vec::new();
    at = skip_ws(text, at);
    if b.get(at) == Some(&b'}') {
        at += 1;
    } else {
        loop {
            if b.get(at) != Some(&b'"') {
                return Err(syntax(
                    format!("expected a member name at byte {at}"),
                    &items,
                ));
            }
            let (key, end) = match value_at(&text[at..]) {
                Ok(x) => x,
                Err(e) => return Err(syntax(e, &items)),
            };
            let key =
                serde_json::from_str::<String>(key.get()).unwrap_or_else(|_| key.get().to_owned());
            at = skip_ws(text, at + end);
            if b.get(at) != Some(&b':') {
                return Err(syntax(format!("expected ':' at byte {at}"), &items));
            }
            at = skip_ws(text, at + 1);
            let (value, end) = match value_at(&text[at..]) {
                Ok(x) => x,
                Err(e) => return Err(syntax(e, &items)),
            };
            at = skip_ws(text, at + end);
            items.retain(|(k, _)| *k != key);
            items.push((key, value));
            match b.get(at) {
                Some(b',') => at = skip_ws(text, at + 1),
                Some(b'}') => {
                    at += 1;
                    break;
                }
                _ => return Err(syntax(format!("expected ',' or '}}' at byte {at}"), &items)),
            }
        }
    }
    if skip_ws(text, at) != b.len() {
        return Err(syntax(
            "trailing characters after the message".into(),
            &items,
        ));
    }
    Ok(Members { items })
}

/// Decodes `raw` into a value, or says why it cannot be: a lone surrogate escape, or nesting
/// deeper than [`MAX_DEPTH`].
pub(crate) fn decode(raw: &RawValue) -> Result<Value, String> {
    serde_json::from_str(raw.get()).map_err(|_| unreadable(raw.get()))
}

/// The members of an object, decoded one by one ([`decode_members`]).
pub(crate) struct Decoded<'a> {
    /// The members that decode.
    pub(crate) good: Map<String, Value>,
    /// `(path, reason)` of each member that does not.
    pub(crate) bad: Vec<(String, String)>,
    /// The member left undecoded, as it was written.
    pub(crate) skipped: Option<&'a RawValue>,
}

/// Decodes every member of the object `raw` but `skip` (`path` names it in problems), which
/// is handed back raw: the members that decode, and `(path, reason)` for each that does not,
/// named one object level deeper where the culprit is inside an object (`where.name`).
pub(crate) fn decode_members<'a>(raw: &'a RawValue, path: &str, skip: Option<&str>) -> Decoded<'a> {
    let mut d = Decoded {
        good: Map::new(),
        bad: Vec::new(),
        skipped: None,
    };
    let Ok(m) = members(raw.get()) else {
        d.bad.push((path.to_owned(), unreadable(raw.get())));
        return d;
    };
    let (good, bad) = (&mut d.good, &mut d.bad);
    for (k, v) in m.items {
        if skip == Some(k.as_str()) {
            d.skipped = Some(v);
            continue;
        }
        let name = if path.is_empty() {
            k.clone()
        } else {
            format!("{path}.{k}")
        };
        if k.starts_with('"') {
            bad.push((
                path_or(path),
                format!("a member name with {}", unreadable(&k)),
            ));
            continue;
        }
        match decode(v) {
            Ok(value) => {
                good.insert(k, value);
            }
            Err(reason) => {
                if v.get().starts_with('{') && !path.contains('.') {
                    let inner = decode_members(v, &name, None).bad;
                    if !inner.is_empty() {
                        bad.extend(inner);
                        continue;
                    }
                }
                bad.push((name, reason));
            }
        }
    }
    d
}

fn path_or(path: &str) -> String {
    if path.is_empty() {
        "arguments".into()
    } else {
        path.to_owned()
    }
}

/// Why the syntactically valid JSON text `raw` does not decode: the first lone surrogate
/// escape, or nesting past [`MAX_DEPTH`], with the byte offset where it is.
pub(crate) fn unreadable(raw: &str) -> String {
    let b = raw.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return format!(
                        "nested deeper than {MAX_DEPTH} levels (at byte {i} of the value)"
                    );
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        if b.get(i + 1) == Some(&b'u') {
                            let unit = hex4(b, i + 2);
                            if let Some(u @ 0xD800..=0xDFFF) = unit {
                                let low = (b.get(i + 6) == Some(&b'\\')
                                    && b.get(i + 7) == Some(&b'u'))
                                .then(|| hex4(b, i + 8))
                                .flatten();
                                if u < 0xDC00 && matches!(low, Some(0xDC00..=0xDFFF)) {
                                    i += 12;
                                    continue;
                                }
                                return format!(
                                    "a lone surrogate escape \\u{u:04x} (at byte {i} of the value): strings must be valid Unicode"
                                );
                            }
                            i += 6;
                            continue;
                        }
                        i += 2;
                        continue;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    "a value that cannot be decoded".into()
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let s = std::str::from_utf8(b.get(at..at + 4)?).ok()?;
    u32::from_str_radix(s, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Vec<String> {
        match members(text) {
            Ok(m) => m.items.into_iter().map(|(k, _)| k).collect(),
            Err(_) => panic!("members of {text}"),
        }
    }

    #[test]
    fn members_are_read_in_order_with_later_duplicates_winning() {
        assert_eq!(keys(r#" {"a":1, "b" : [1,{}] ,"a":"x"} "#), ["b", "a"]);
        assert_eq!(keys("{}"), Vec::<String>::new());
        let m = members(r#"{"id":12,"p":{"q":"\ud800"}}"#)
            .ok()
            .unwrap_or_else(|| unreachable!());
        assert_eq!(m.get("id").map(RawValue::get), Some("12"));
        assert_eq!(m.get("p").map(RawValue::get), Some(r#"{"q":"\ud800"}"#));
    }

    #[test]
    fn the_members_before_a_syntax_error_are_kept() {
        match members(r#"{"jsonrpc":"2.0","id":"x7","method":"ping","params":{"#) {
            Err(NotMembers::Syntax { id, .. }) => {
                assert_eq!(id.as_deref().map(RawValue::get), Some(r#""x7""#));
            }
            _ => panic!("a syntax error"),
        }
        for (text, array) in [("[1]", true), ("3", false), ("\"s\"", false)] {
            assert!(matches!(members(text), Err(NotMembers::NotObject { array: a }) if a == array));
        }
        for bad in [
            "",
            "{",
            r#"{"a"}"#,
            r#"{"a":1,}"#,
            r#"{"a":1} x"#,
            "[1",
            "{1:2}",
        ] {
            assert!(
                matches!(members(bad), Err(NotMembers::Syntax { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn undecodable_members_are_named_with_the_reason() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let text = format!(
            r#"{{"action":"list","where":{{"name":"R\ud800D","ok":1}},"limit":{deep},"s":"\ud83d\ude00"}}"#
        );
        let raw: Box<RawValue> = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        let Decoded { good, bad, .. } = decode_members(&raw, "", None);
        assert_eq!(good.keys().collect::<Vec<_>>(), ["action", "s"]);
        assert_eq!(good["s"], "\u{1F600}");
        assert_eq!(bad.len(), 2);
        assert_eq!(bad[0].0, "where.name");
        assert!(
            bad[0].1.contains("lone surrogate escape \\ud800"),
            "{}",
            bad[0].1
        );
        assert_eq!(bad[1].0, "limit");
        assert!(bad[1].1.contains("nested deeper than 128"), "{}", bad[1].1);
        // A low surrogate alone, and a high one at the end of the string.
        assert!(unreadable(r#"["\udc00"]"#).contains("\\udc00"));
        assert!(unreadable(r#"["a\ud83d"]"#).contains("\\ud83d"));
    }
}
