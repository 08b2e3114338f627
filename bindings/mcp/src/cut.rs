//! A result line cut by a cancellation, closed so that it stays one valid JSON-RPC message
//! (WIRE.md §11: never a truncated JSON document on the wire).
//!
//! A `tools/call` result streams: its first bytes are on stdout long before its last are
//! encoded, and they cannot be taken back. When the client cancels the call mid-message,
//! [`Closer`] (fed every chunk that went out) knows where in the JSON text the cut fell and
//! writes the shortest valid ending: an open escape or UTF-8 sequence completed, the open
//! string, number or literal ended, every open container closed. A cut inside the result's
//! `content` array also gets a last block, `<tool_error code="CANCELLED">`, and
//! `"isError":true`, so a client that reads the line anyway never takes the cut data for a
//! whole answer.

/// An open container.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Open {
    Object,
    Array,
}

/// Where the text stands between tokens.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Expect {
    /// A value: at the start, after `:`, or after `,` in an array.
    Value,
    /// A value or `]`, just after `[`.
    FirstItem,
    /// A member name or `}`, just after `{`.
    FirstKey,
    /// A member name, after `,` in an object.
    Key,
    /// `:` after a member name.
    Colon,
    /// `,` or the container's end, after a value.
    After,
}

/// An open string.
#[derive(Clone, Copy, Debug, Default)]
struct Str {
    /// A member name (it needs `:null` after it when cut).
    key: bool,
    /// After a backslash (`1`), or in `\u` with `n - 2` hex digits read (`2..=5`).
    escape: u8,
    /// The hex digits of an open `\u` escape so far.
    unit: u16,
    /// The last thing in the string is a `\u` escape of a high surrogate, whose low half
    /// must follow.
    high: bool,
    /// Continuation bytes a UTF-8 sequence still needs, and its lead byte.
    utf8_need: u8,
    utf8_lead: u8,
    /// The first continuation byte of the sequence is still to come.
    utf8_first: bool,
}

/// Tracks a JSON text as it is written, to close it anywhere (see the module docs).
#[derive(Debug)]
pub(crate) struct Closer {
    stack: Vec<Open>,
    expect: Expect,
    string: Option<Str>,
    /// In a number: its last byte; in a literal: the letters still missing.
    number_last: Option<u8>,
    literal_rest: &'static [u8],
}

impl Default for Closer {
    fn default() -> Self {
        Closer {
            stack: Vec::new(),
            expect: Expect::Value,
            string: None,
            number_last: None,
            literal_rest: b"",
        }
    }
}

impl Closer {
    /// Follows `bytes`, the next part of the text.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            if let Some(s) = &mut self.string {
                i = string_part(s, bytes, i);
                if i < bytes.len() && s.escape == 0 && s.utf8_need == 0 && bytes[i] == b'"' {
                    let key = s.key;
                    self.string = None;
                    self.expect = if key { Expect::Colon } else { Expect::After };
                    i += 1;
                }
                continue;
            }
            let b = bytes[i];
            i += 1;
            if !self.literal_rest.is_empty() {
                self.literal_rest = &self.literal_rest[1..];
                continue;
            }
            if self.number_last.is_some() {
                if matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
                    self.number_last = Some(b);
                    continue;
                }
                self.number_last = None;
            }
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => {}
                b'{' => {
                    self.stack.push(Open::Object);
                    self.expect = Expect::FirstKey;
                }
                b'[' => {
                    self.stack.push(Open::Array);
                    self.expect = Expect::FirstItem;
                }
                b'}' | b']' => {
                    self.stack.pop();
                    self.expect = Expect::After;
                }
                b':' => self.expect = Expect::Value,
                b',' => {
                    self.expect = match self.stack.last() {
                        Some(Open::Object) => Expect::Key,
                        _ => Expect::Value,
                    }
                }
                b'"' => {
                    let key = matches!(self.expect, Expect::FirstKey | Expect::Key);
                    self.string = Some(Str {
                        key,
                        ..Str::default()
                    });
                }
                b't' => self.literal(b"rue"),
                b'f' => self.literal(b"alse"),
                b'n' => self.literal(b"ull"),
                _ => {
                    self.number_last = Some(b);
                    self.expect = Expect::After;
                }
            }
        }
    }

    fn literal(&mut self, rest: &'static [u8]) {
        self.literal_rest = rest;
        self.expect = Expect::After;
    }

    /// Whether the text is a whole JSON value (nothing to close).
    pub(crate) fn is_whole(&self) -> bool {
        self.stack.is_empty()
            && self.string.is_none()
            && self.literal_rest.is_empty()
            && self.expect == Expect::After
            && self.number_last.is_none_or(|b| b.is_ascii_digit())
    }

    /// The bytes that end the text as valid JSON. `cancelled_block` is the JSON string (quotes
    /// included) of the text block added, with `"isError":true`, when the cut fell inside a
    /// JSON-RPC result's `content` array. Without it the ending is never longer than the rest
    /// of the valid text it replaces: a value it must supply is `0`, a member `"":0`, and
    /// every completion (an escape, a UTF-8 sequence, a literal) is as long as the original.
    pub(crate) fn ending(&self, cancelled_block: Option<&str>) -> Vec<u8> {
        let mut out = Vec::new();
        let mut expect = self.expect;
        if let Some(s) = &self.string {
            let zeros = |out: &mut Vec<u8>, n: usize| out.extend(std::iter::repeat_n(b'0', n));
            match (s.escape, s.high) {
                (0, false) => {}
                (0, true) => out.extend_from_slice(b"\\udc00"),
                // A lone backslash: an escaped backslash, or the low half's escape.
                (1, false) => out.push(b'\\'),
                (1, true) => out.extend_from_slice(b"udc00"),
                (n, high) => {
                    let have = usize::from(n - 2);
                    let lead = u32::from(s.unit) << (4 * (4 - have));
                    match (high, have) {
                        // The low half of a pair: make it one.
                        (true, 0) => out.extend_from_slice(b"dc00"),
                        (true, 1) if s.unit == 0xD => out.extend_from_slice(b"c00"),
                        // A high surrogate: complete it and give it its low half.
                        (false, 2..) if (0xD800..0xDC00).contains(&lead) => {
                            zeros(&mut out, 4 - have);
                            out.extend_from_slice(b"\\udc00");
                        }
                        _ => zeros(&mut out, 4 - have),
                    }
                }
            }
            if s.utf8_need > 0 {
                let mut first = s.utf8_first;
                for _ in 0..s.utf8_need {
                    out.push(if first {
                        match s.utf8_lead {
                            0xE0 => 0xA0,
                            0xF0 => 0x90,
                            _ => 0x80,
                        }
                    } else {
                        0x80
                    });
                    first = false;
                }
            }
            out.push(b'"');
            expect = if s.key { Expect::Colon } else { Expect::After };
        }
        out.extend_from_slice(self.literal_rest);
        if self.number_last.is_some_and(|b| !b.is_ascii_digit()) {
            out.push(b'0');
        }
        for (depth, open) in self.stack.iter().enumerate().rev() {
            // `{"jsonrpc":…,"result":{"content":[…`: the content array is the third open
            // container, under two objects.
            let content = cancelled_block.is_some()
                && depth == 2
                && *open == Open::Array
                && self.stack[..2] == [Open::Object, Open::Object];
            match expect {
                Expect::After if content => out.push(b','),
                Expect::Value if content => {}
                Expect::Colon => out.extend_from_slice(b":0"),
                Expect::Value => out.push(b'0'),
                Expect::Key => out.extend_from_slice(b"\"\":0"),
                Expect::FirstKey | Expect::FirstItem | Expect::After => {}
            }
            if let Some(block) = cancelled_block.filter(|_| content) {
                out.extend_from_slice(b"{\"type\":\"text\",\"text\":");
                out.extend_from_slice(block.as_bytes());
                out.push(b'}');
            }
            out.push(match open {
                Open::Object => b'}',
                Open::Array => b']',
            });
            if content {
                out.extend_from_slice(b",\"isError\":true");
            }
            expect = Expect::After;
        }
        out
    }
}

/// Follows the inside of a string from `bytes[i]` up to its closing quote (returned: its
/// position, or `bytes.len()` when the string goes on).
fn string_part(s: &mut Str, bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        if s.utf8_need > 0 {
            s.utf8_need -= 1;
            s.utf8_first = false;
            i += 1;
            continue;
        }
        match s.escape {
            0 => {}
            1 => {
                s.escape = if bytes[i] == b'u' { 2 } else { 0 };
                s.high &= s.escape == 2;
                s.unit = 0;
                i += 1;
                continue;
            }
            n => {
                let digit = (bytes[i] as char).to_digit(16).unwrap_or(0) as u16;
                s.unit = (s.unit << 4) | digit;
                s.escape = if n == 5 { 0 } else { n + 1 };
                if n == 5 {
                    s.high = (0xD800..0xDC00).contains(&s.unit);
                }
                i += 1;
                continue;
            }
        }
        // Plain bytes up to the next quote, backslash or non-ASCII byte.
        let rest = &bytes[i..];
        let stop = rest
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b >= 0x80)
            .map_or(bytes.len(), |p| i + p);
        s.high &= stop == i;
        i = stop;
        if i == bytes.len() || bytes[i] == b'"' {
            return i;
        }
        let b = bytes[i];
        i += 1;
        if b == b'\\' {
            s.escape = 1;
        } else {
            s.high = false;
            s.utf8_lead = b;
            s.utf8_first = true;
            s.utf8_need = match b {
                0xF0..=0xF7 => 3,
                0xE0..=0xEF => 2,
                _ => 1,
            };
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: &str = r#""<tool_error code=\"CANCELLED\">x</tool_error>""#;

    /// Every prefix of `text`, fed in two parts split everywhere, closes into valid JSON, the
    /// shortest ending no longer than the rest; a cut inside `content` (between its `[` and
    /// its `]`) is marked an error when marking is asked for.
    fn every_cut_closes(text: &str, content: Option<(usize, usize)>) {
        let b = text.as_bytes();
        for cut in 0..=b.len() {
            for split in [0, cut / 2, cut] {
                let mut c = Closer::default();
                c.feed(&b[..split]);
                c.feed(&b[split..cut]);
                if cut == b.len() {
                    assert!(c.is_whole(), "{text}");
                }
                if cut == 0 {
                    continue;
                }
                // The shortest ending: valid, and never longer than what it replaces.
                let short = c.ending(None);
                assert!(short.len() <= b.len() - cut, "cut at {cut}: {short:?}");
                let mut plain = b[..cut].to_vec();
                plain.extend(&short);
                assert!(
                    serde_json::from_slice::<serde_json::Value>(&plain).is_ok(),
                    "cut at {cut}: {}",
                    String::from_utf8_lossy(&plain)
                );
                let mut whole = b[..cut].to_vec();
                whole.extend(c.ending(Some(BLOCK)));
                let parsed: Result<serde_json::Value, _> = serde_json::from_slice(&whole);
                let shown = String::from_utf8_lossy(&whole);
                let Ok(v) = parsed else {
                    panic!("cut at {cut}: {shown} ({:?})", parsed.err());
                };
                if let Some((open, close)) = content {
                    let inside = cut > open && cut <= close;
                    assert_eq!(
                        v["result"]["isError"] == true,
                        inside,
                        "cut at {cut}: {shown}"
                    );
                    if inside {
                        let last = v["result"]["content"].as_array().and_then(|a| a.last());
                        assert_eq!(
                            last.map(|b| &b["text"]),
                            Some(&serde_json::json!(
                                BLOCK.trim_matches('"').replace("\\\"", "\"")
                            )),
                            "{shown}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_result_cut_anywhere_closes_into_one_valid_message() {
        let result = r#"{"jsonrpc":"2.0","id":"a\"b","result":{"content":[{"type":"text","text":"x\\y\n\"é😀中\u0001\ud83d\ude00"},{"type":"text","text":"<b>"}],"isError":false,"structuredContent":{"items":[{"a":-1.5e+3,"b":[true,false,null,{}],"c":"d"}]}}}"#;
        let open = result.find("[{").unwrap_or(0);
        let close = result.find("}],").unwrap_or(0) + 1;
        every_cut_closes(result, Some((open, close)));
        every_cut_closes(r#"[1,{"a":[],"b":{}}, "x",-0.25E-7 ,null]"#, None);
    }

    #[test]
    fn a_cut_inside_the_content_says_it_was_cancelled() {
        let text =
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"row 1\nrow"#;
        let mut c = Closer::default();
        c.feed(text.as_bytes());
        let mut whole = text.as_bytes().to_vec();
        whole.extend(c.ending(Some(BLOCK)));
        let v: serde_json::Value = serde_json::from_slice(&whole).unwrap_or_default();
        assert_eq!(v["result"]["isError"], true);
        let content = v["result"]["content"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(content.len(), 2);
        assert_eq!(content[0]["text"], "row 1\nrow");
        assert!(
            content[1]["text"]
                .as_str()
                .unwrap_or("")
                .contains("CANCELLED")
        );
        // A cut in `structuredContent`, after `content` closed, only closes.
        let text =
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":{"items":[{"a"#;
        let mut c = Closer::default();
        c.feed(text.as_bytes());
        assert_eq!(c.ending(Some(BLOCK)), b"\":0}]}}}");
    }
}
