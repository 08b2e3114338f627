//! Reserved block tags (WIRE.md §2): what untrusted text must never be able to forge.
//!
//! A *reserved tag sequence* is `<` or `</`, then a reserved name in any ASCII case, then a
//! byte that is not `[A-Za-z0-9_-]` or the end of the text.

/// The reserved tag names, lowercase.
pub const RESERVED_TAGS: [&str; 6] = [
    "ui_passthrough",
    "llm_directives",
    "domain_rules",
    "action_suggestions",
    "tool_error",
    "validation_error",
];

#[inline]
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// True when the `<` at `text[lt]` starts a reserved tag sequence.
///
/// # Panics
///
/// Debug builds assert that `text[lt]` is `<`.
#[inline]
pub fn starts_reserved_tag(text: &[u8], lt: usize) -> bool {
    debug_assert_eq!(text.get(lt), Some(&b'<'));
    let mut rest = &text[lt + 1..];
    if let [b'/', tail @ ..] = rest {
        rest = tail;
    }
    // Cheap reject: every reserved name starts with one of these letters.
    match rest.first() {
        Some(b'u' | b'U' | b'l' | b'L' | b'd' | b'D' | b'a' | b'A' | b't' | b'T' | b'v' | b'V') => {
        }
        _ => return false,
    }
    RESERVED_TAGS.iter().any(|name| {
        rest.len() >= name.len()
            && rest[..name.len()].eq_ignore_ascii_case(name.as_bytes())
            && rest.get(name.len()).is_none_or(|&b| !is_name_byte(b))
    })
}

/// Offset of the first `<` in `text` that starts a reserved tag sequence, if any.
#[inline]
pub fn find_reserved_tag(text: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'<', text).find(|&i| starts_reserved_tag(text, i))
}

/// True when `text` holds a reserved tag sequence anywhere.
#[inline]
pub fn contains_reserved_tag(text: &[u8]) -> bool {
    find_reserved_tag(text).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reserved_name_in_any_case_and_form() {
        for name in RESERVED_TAGS {
            let upper = name.to_ascii_uppercase();
            for n in [name.to_string(), upper] {
                for text in [
                    format!("<{n}>"),
                    format!("</{n}>"),
                    format!("x<{n}"),
                    format!("<{n} a=1>"),
                    format!("<{n}\n"),
                    format!("a</{n}"),
                ] {
                    assert!(contains_reserved_tag(text.as_bytes()), "{text}");
                }
                for text in [
                    format!("<{n}x>"),
                    format!("<{n}_"),
                    format!("<{n}-a"),
                    format!("<{n}9"),
                    format!("< {n}>"),
                    format!("<//{n}>"),
                    format!("&lt;{n}>"),
                ] {
                    assert!(!contains_reserved_tag(text.as_bytes()), "{text}");
                }
            }
        }
    }

    #[test]
    fn finds_first_offset() {
        assert_eq!(find_reserved_tag(b"a < b <tool_error>"), Some(6));
        assert_eq!(find_reserved_tag(b"<"), None);
        assert_eq!(find_reserved_tag(b"</"), None);
        assert_eq!(find_reserved_tag(b""), None);
        assert_eq!(find_reserved_tag(b"<Domain_Rules"), Some(0));
    }
}
