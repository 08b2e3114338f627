//! UTF-8 to UTF-16, for the JS strings made of engine output: pure Rust, no napi (so its
//! unit tests link without Node).

/// Bytes that are not UTF-8.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct NotUtf8;

/// Decodes the UTF-8 text at the start of `bytes` into UTF-16 `out`, up to an incomplete
/// character at the end: the bytes read, or `None` when `bytes` hold an invalid sequence.
pub(crate) fn utf16_of(bytes: &[u8], out: &mut Vec<u16>) -> Option<usize> {
    out.reserve(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        // Long runs of ASCII (keys, numbers, indentation) 32 bytes at a time: the TOON of
        // 100k nested invoices with non-ASCII names (28 MB) in 64 KiB chunks, 12.5 -> 7.1 ms
        // alone; `encodeJson` of them, one addon with and without it call by call, min 71.0
        // -> 69.2 and 68.3 -> 66.2 ms.
        while let Some(run) = bytes.get(i..i + 32) {
            let run: &[u8; 32] = run.try_into().ok()?;
            let word = |k: usize| u64::from_le_bytes(run[k..k + 8].try_into().unwrap_or([0; 8]));
            if (word(0) | word(8) | word(16) | word(24)) & 0x8080_8080_8080_8080 != 0 {
                break;
            }
            out.extend_from_slice(&run.map(u16::from));
            i += 32;
        }
        if i >= bytes.len() {
            break;
        }
        // Runs of ASCII 8 bytes at a time.
        if let Some(word) = bytes.get(i..i + 8) {
            let word: [u8; 8] = word.try_into().ok()?;
            if u64::from_le_bytes(word) & 0x8080_8080_8080_8080 == 0 {
                out.extend_from_slice(&word.map(u16::from));
                i += 8;
                continue;
            }
        }
        let lead = bytes[i];
        let (len, least) = match lead {
            0..=0x7F => {
                out.push(u16::from(lead));
                i += 1;
                continue;
            }
            0xC2..=0xDF => (2, 0x80),
            0xE0..=0xEF => (3, 0x800),
            0xF0..=0xF4 => (4, 0x1_0000),
            _ => return None,
        };
        let Some(rest) = bytes.get(i + 1..i + len) else {
            // An incomplete character: its bytes so far must start one (std's "unexpected
            // end"), not only be continuations: `F4 90` can end no character.
            return match std::str::from_utf8(&bytes[i..]) {
                Err(e) if e.error_len().is_none() => Some(i),
                _ => None,
            };
        };
        let mut c = u32::from(lead) & (0x7F >> len);
        for &b in rest {
            if b & 0xC0 != 0x80 {
                return None;
            }
            c = (c << 6) | u32::from(b & 0x3F);
        }
        if c < least || (0xD800..0xE000).contains(&c) || c > 0x10_FFFF {
            return None;
        }
        if c >= 0x1_0000 {
            let c = c - 0x1_0000;
            out.push(0xD800 | (c >> 10) as u16);
            out.push(0xDC00 | (c & 0x3FF) as u16);
        } else {
            out.push(c as u16);
        }
        i += len;
    }
    Some(i)
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
