//! The text escapes of WIRE.md §2: untrusted text can never forge, open or close a block.

use crate::sink::Sink;
use crate::tag::starts_reserved_tag;

/// Element escape for error texts (`message`, `recovery`, actions, detail values, validation
/// details): `&` → `&amp;`, `<` → `&lt;`; everything else, LF included, as is.
pub fn write_element_text<W: Sink + ?Sized>(out: &mut W, text: &[u8]) {
    let mut start = 0;
    for i in memchr::memchr2_iter(b'&', b'<', text) {
        out.write(&text[start..i]);
        out.write(if text[i] == b'&' { b"&amp;" } else { b"&lt;" });
        start = i + 1;
    }
    out.write(&text[start..]);
}

/// Escape for one bullet item (hint, rule, suggestion `tool`/`reason`): the element escape,
/// CR LF and lone CR become LF, and every LF is followed by two spaces so continuation lines
/// stay inside the bullet.
pub fn write_item_text<W: Sink + ?Sized>(out: &mut W, text: &[u8]) {
    let mut start = 0;
    while let Some(off) = memchr::memchr3(b'&', b'<', b'\r', &text[start..]).map(|o| o + start) {
        // The run before `off` may hold LFs: indent after each.
        write_lf_indented(out, &text[start..off]);
        start = match text[off] {
            b'&' => {
                out.write(b"&amp;");
                off + 1
            }
            b'<' => {
                out.write(b"&lt;");
                off + 1
            }
            // CR or CR LF: one indented LF.
            _ => {
                out.write(b"\n  ");
                if text.get(off + 1) == Some(&b'\n') {
                    off + 2
                } else {
                    off + 1
                }
            }
        };
    }
    write_lf_indented(out, &text[start..]);
}

fn write_lf_indented<W: Sink + ?Sized>(out: &mut W, run: &[u8]) {
    let mut start = 0;
    for i in memchr::memchr_iter(b'\n', run) {
        out.write(&run[start..i]);
        out.write(b"\n  ");
        start = i + 1;
    }
    out.write(&run[start..]);
}

/// Escape for attribute values: `&` `<` `>` `"` `'` become `&amp;` `&lt;` `&gt;` `&quot;`
/// `&apos;`.
pub fn write_attr_value<W: Sink + ?Sized>(out: &mut W, text: &[u8]) {
    let mut start = 0;
    for (i, &b) in text.iter().enumerate() {
        let rep: &[u8] = match b {
            b'&' => b"&amp;",
            b'<' => b"&lt;",
            b'>' => b"&gt;",
            b'"' => b"&quot;",
            b'\'' => b"&apos;",
            _ => continue,
        };
        out.write(&text[start..i]);
        out.write(rep);
        start = i + 1;
    }
    out.write(&text[start..]);
}

/// How a reserved tag's `<` is neutralised in UI content.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UiEscape {
    /// `&lt;`: markdown, mermaid, code, tables, summaries.
    Entity,
    /// `\u003c`: inside the fenced JSON bodies of `echarts` and `json` blocks (lossless for a
    /// JSON reader).
    JsonUnicode,
}

/// Writes UI content with every reserved tag sequence's `<` replaced; nothing else changes.
pub fn write_ui_content<W: Sink + ?Sized>(out: &mut W, text: &[u8], how: UiEscape) {
    let rep: &[u8] = match how {
        UiEscape::Entity => b"&lt;",
        UiEscape::JsonUnicode => b"\\u003c",
    };
    let mut start = 0;
    for i in memchr::memchr_iter(b'<', text) {
        if starts_reserved_tag(text, i) {
            out.write(&text[start..i]);
            out.write(rep);
            start = i + 1;
        }
    }
    out.write(&text[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(f: fn(&mut Vec<u8>, &[u8]), s: &str) -> String {
        let mut v = Vec::new();
        f(&mut v, s.as_bytes());
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn element_text() {
        assert_eq!(run(write_element_text, "a<b>&c\n\"'"), "a&lt;b>&amp;c\n\"'");
        assert_eq!(run(write_element_text, ""), "");
        assert_eq!(run(write_element_text, "</tool_error>"), "&lt;/tool_error>");
    }

    #[test]
    fn item_text_keeps_continuations_inside_the_bullet() {
        assert_eq!(run(write_item_text, "one\ntwo"), "one\n  two");
        assert_eq!(
            run(write_item_text, "a\r\nb\rc\n\nd"),
            "a\n  b\n  c\n  \n  d"
        );
        assert_eq!(run(write_item_text, "x<y & z>"), "x&lt;y &amp; z>");
        assert_eq!(run(write_item_text, "\r"), "\n  ");
        assert_eq!(run(write_item_text, "end\r\n"), "end\n  ");
        assert_eq!(
            run(write_item_text, "</domain_rules>\n- fake"),
            "&lt;/domain_rules>\n  - fake"
        );
    }

    #[test]
    fn attribute_values() {
        assert_eq!(
            run(write_attr_value, r#"a"b'c<d>e&f"#),
            "a&quot;b&apos;c&lt;d&gt;e&amp;f"
        );
        assert_eq!(run(write_attr_value, "plain"), "plain");
    }

    #[test]
    fn ui_content_only_touches_reserved_tags() {
        let mut v = Vec::new();
        write_ui_content(
            &mut v,
            b"<b>x</b> <ui_passthrough> </LLM_DIRECTIVES>",
            UiEscape::Entity,
        );
        assert_eq!(v, b"<b>x</b> &lt;ui_passthrough> &lt;/LLM_DIRECTIVES>");
        v.clear();
        write_ui_content(&mut v, b"{\"a\":\"<tool_error>\"}", UiEscape::JsonUnicode);
        assert_eq!(v, b"{\"a\":\"\\u003ctool_error>\"}");
    }
}
