//! UTF-8 to UTF-16, for the JS strings made of engine output: pure Rust, no napi (so its
//! unit tests link without Node).

/// Bytes that are not UTF-8.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct NotUtf8;

/// Decodes the UTF-8 text at the start of `bytes` into UTF-16 `out`, up to an incomplete
/// character at the end: the bytes read, or `None` when `bytes` hold an invalid sequence.
///
/// The complete characters are converted by simdutf (validated as they are converted),
/// which writes straight into `out`'s spare room: no unit is zero-filled first.
pub(crate) fn utf16_of(bytes: &[u8], out: &mut Vec<u16>) -> Option<usize> {
    let whole = complete_prefix(bytes);
    let (text, tail) = bytes.split_at(whole);
    // An incomplete character: its bytes so far must start one (std's "unexpected end"),
    // not only be continuations: `F4 90` can end no character.
    if !tail.is_empty() && !matches!(std::str::from_utf8(tail), Err(e) if e.error_len().is_none()) {
        return None;
    }
    if text.is_empty() {
        return Some(0);
    }
    // UTF-8 never takes fewer bytes than UTF-16 takes units.
    out.reserve(text.len());
    // SAFETY: `text` is valid for reads of its length; `out` has room for `text.len()` more
    // units past its length (reserved above), which bounds what the conversion writes; the
    // two do not overlap (one is a shared borrow, the other a unique one).
    let units = unsafe {
        simdutf::convert_utf8_to_utf16(text.as_ptr(), text.len(), out.as_mut_ptr().add(out.len()))
    };
    if units == 0 {
        // Not UTF-8 (a non-empty text converts to one unit at least).
        return None;
    }
    // SAFETY: the conversion wrote `units` units (at most `text.len()`, within the room)
    // past the old length.
    unsafe { out.set_len(out.len() + units) };
    Some(whole)
}

/// The length of `bytes` less a character its end cuts short: the start of the last
/// character when its lead byte asks for more bytes than follow it. A tail of
/// continuation bytes with no lead within three bytes is left in, for the conversion to
/// refuse.
fn complete_prefix(bytes: &[u8]) -> usize {
    let n = bytes.len();
    for back in 1..=n.min(3) {
        let b = bytes[n - back];
        if b & 0xC0 == 0x80 {
            continue;
        }
        let needs = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xFF => 4,
            _ => 1,
        };
        return if back < needs { n - back } else { n };
    }
    n
}

/// Decodes the complete UTF-8 characters of `carry` + `chunk` onto `units`, keeping an
/// incomplete character at the end in `carry` for the next chunk.
pub(crate) fn utf16_more(
    carry: &mut Vec<u8>,
    units: &mut Vec<u16>,
    chunk: &[u8],
) -> Result<(), NotUtf8> {
    let joined;
    let bytes: &[u8] = if carry.is_empty() {
        chunk
    } else {
        carry.extend_from_slice(chunk);
        joined = std::mem::take(carry);
        &joined
    };
    let read = utf16_of(bytes, units).ok_or(NotUtf8)?;
    carry.extend_from_slice(&bytes[read..]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{utf16_more, utf16_of};
    use proptest::prelude::*;

    proptest! {
        /// The conversion is std's `encode_utf16` for any text.
        #[test]
        fn utf16_of_text_is_std_s(s in "\\PC*") {
            let mut out = Vec::new();
            prop_assert_eq!(utf16_of(s.as_bytes(), &mut out), Some(s.len()));
            prop_assert_eq!(out, s.encode_utf16().collect::<Vec<_>>());
        }

        /// Any bytes: `None` exactly where std finds an invalid sequence; else the bytes read
        /// are std's valid prefix, the rest the start of a character, and that prefix converted.
        #[test]
        fn utf16_of_bytes_stops_where_std_does(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let mut out = Vec::new();
            let read = utf16_of(&bytes, &mut out);
            match std::str::from_utf8(&bytes) {
                Ok(s) => {
                    prop_assert_eq!(read, Some(bytes.len()));
                    prop_assert_eq!(out, s.encode_utf16().collect::<Vec<_>>());
                }
                Err(e) if e.error_len().is_none() => {
                    prop_assert_eq!(read, Some(e.valid_up_to()));
                    let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap();
                    prop_assert_eq!(out, valid.encode_utf16().collect::<Vec<_>>());
                }
                Err(_) => prop_assert_eq!(read, None),
            }
        }

        /// Long runs of ASCII broken by other characters at any offset (the 32- and 8-byte
        /// steps, then a character at each place in a step), and invalid bytes inside them.
        #[test]
        fn ascii_runs_broken_anywhere(runs in proptest::collection::vec(("[ -~]{0,70}", "(é|東|😀|BAD)?"), 0..6)) {
            let mut bytes = Vec::new();
            for (ascii, other) in &runs {
                bytes.extend_from_slice(ascii.as_bytes());
                bytes.extend_from_slice(if other == "BAD" { &[0xFF][..] } else { other.as_bytes() });
            }
            let mut out = Vec::new();
            match std::str::from_utf8(&bytes) {
                Ok(s) => {
                    prop_assert_eq!(utf16_of(&bytes, &mut out), Some(bytes.len()));
                    prop_assert_eq!(out, s.encode_utf16().collect::<Vec<_>>());
                }
                Err(_) => prop_assert_eq!(utf16_of(&bytes, &mut out), None),
            }
        }

        /// A text handed over in chunks cut anywhere, inside characters too, converts to the
        /// whole text's units, each cut character carried to the next chunk.
        #[test]
        fn chunks_cut_inside_characters_carry_them(s in "\\PC{0,40}", cuts in proptest::collection::vec(any::<usize>(), 0..6)) {
            let bytes = s.as_bytes();
            let mut at: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
            at.push(0);
            at.push(bytes.len());
            at.sort_unstable();
            let (mut carry, mut units) = (Vec::new(), Vec::new());
            for w in at.windows(2) {
                prop_assert!(utf16_more(&mut carry, &mut units, &bytes[w[0]..w[1]]).is_ok());
                prop_assert!(carry.len() < 4);
            }
            prop_assert!(carry.is_empty());
            prop_assert_eq!(units, s.encode_utf16().collect::<Vec<_>>());
        }
    }

    #[test]
    fn surrogates_overlongs_and_past_the_last_code_point_are_refused() {
        for bad in [
            &b"\xED\xA0\x80"[..],
            b"a\xED\xBF\xBF",
            b"\xC0\x80",
            b"\xC1\xBF",
            b"\xE0\x80\x80",
            b"\xF0\x80\x80\x80",
            b"\xF4\x90\x80\x80",
            b"\xF5\x80\x80\x80",
            b"\x80",
            b"\xE6\x97x",
            // Cut short, yet no character starts so.
            b"\xF4\x90",
            b"\xE0\x80",
            b"\xED\xA0",
            b"\xF0\x8F\xBF",
        ] {
            assert!(std::str::from_utf8(bad).is_err());
            assert_eq!(utf16_of(bad, &mut Vec::new()), None, "{bad:?}");
        }
    }

    #[test]
    fn a_text_cut_at_its_end_keeps_the_character_and_refuses_a_bad_one() {
        let (mut carry, mut units) = (Vec::new(), Vec::new());
        let cake = "🍰".as_bytes();
        utf16_more(&mut carry, &mut units, &[b"ab", &cake[..3]].concat()).unwrap();
        assert_eq!(
            (carry.as_slice(), units.as_slice()),
            (&cake[..3], &[0x61u16, 0x62][..])
        );
        utf16_more(&mut carry, &mut units, &cake[3..]).unwrap();
        assert!(carry.is_empty());
        assert_eq!(units, "ab🍰".encode_utf16().collect::<Vec<_>>());
        // A lead byte carried, then no continuation: an error, never a character made up.
        let (mut carry, mut units) = (vec![0xE6], Vec::new());
        assert!(utf16_more(&mut carry, &mut units, b"x").is_err());
    }
}
