//! `list` cursors (SERVE.md §8): the opaque argument that names the next page.
//!
//! A cursor holds everything the next page needs, so any replica answers it and HTTP stays
//! stateless: where the page starts, and a fingerprint of the tool, the `where` filter and
//! the `_select` it was issued for, so that a cursor used with another filter is refused
//! instead of paging through a different list. Its bytes are
//!
//! ```text
//! version × 16 + kind (1) | hint (1) | position | tag (8)
//! ```
//!
//! written in base64url without padding. The position is an offset among the matching rows
//! (kind 0, a varint: a collection loaded from a file never changes while it is served, so an
//! offset names the same row on every replica that loaded the same file) or the last key
//! shown (kind 1, keyset paging: for sources ordered by their key, where rows inserted or
//! deleted between calls must not shift the pages), as JSON text. Kind 2 is kind 1 after the
//! rows the first page counted after that key (a varint of the count + 1; 0: the count ran out
//! of time), so a listing is counted once, not once a page. Kinds 3 and 4 are kinds 1 and 2
//! with a string key written without its quotes (a key whose JSON text has no escape).
//!
//! The tag is HMAC-SHA-256, cut to 64 bits, of the fingerprint (8 bytes, not written) and the
//! bytes before the tag, under a key derived from `--cursor-key-env`'s secret when given
//! (replicas that share it accept each other's cursors, and nobody without it can make one),
//! else from the collection's name and size: then it detects a cursor that was altered, cut or
//! used with another `where` or `_select`, not one forged on purpose (which could only name a
//! page that `offset` reaches anyway). 64 bits: a forger without the secret has one chance in
//! 2^64 per call, each one a request the server answers with a validation error (at 100,000
//! calls a second, about three million years on average before one succeeds), and what a
//! forged cursor could do is name a position or a count, never show a row a plain `list`
//! would not.
//! The hint is the fingerprint's first byte, so that a refused cursor says whether it was
//! (almost surely) issued for another `where`, `_select` or tool, or altered.
//!
//! Version 2 (each byte of a cursor is about 0.7 tokens of every page that names one: varints,
//! the fingerprint inside the tag, a 64-bit tag) took 43 bytes to 24 on the bench's page;
//! version 1 cursors are refused as malformed.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{KeyInit, Mac};
use sha2::{Digest, Sha256};

const VERSION: u8 = 2;
const TAG_BYTES: usize = 8;
const FINGERPRINT_BYTES: usize = 8;
/// The longest cursor read (a keyset position holds a key; keys are short).
pub(crate) const MAX_CURSOR_CHARS: usize = 4096;

/// Where the next page starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Position {
    /// This many matching rows come before it.
    Offset(u64),
    /// After the row whose key has this JSON text (keyset paging), and what the listing's
    /// first count left for the rows after it.
    After(String, Counted),
}

/// The matching rows after a keyset position, as the listing's first page counted them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Counted {
    /// Not counted (a cursor that carries no count): the next page counts.
    Unknown,
    /// This many when the first page was served (rows may have changed since).
    About(u64),
    /// The first count ran past its time limit: the next pages do not try again.
    TimedOut,
}

/// The key that signs a collection's cursors.
#[derive(Clone)]
pub(crate) struct CursorKey([u8; 32]);

impl CursorKey {
    /// The key of collection `name`: from `secret` when the operator gave one, else from the
    /// collection's name and `identity` (what makes it this collection: its size).
    pub(crate) fn new(secret: Option<&[u8]>, name: &str, identity: &str) -> CursorKey {
        let mut h = Sha256::new();
        h.update(b"toolwire cursor key v1\0");
        h.update(name.as_bytes());
        h.update(b"\0");
        match secret {
            Some(s) => {
                h.update(b"secret\0");
                h.update(s);
            }
            None => h.update(identity.as_bytes()),
        }
        CursorKey(h.finalize().into())
    }

    fn tag(&self, fp: [u8; FINGERPRINT_BYTES], payload: &[u8]) -> [u8; TAG_BYTES] {
        let Ok(mut mac) = hmac::Hmac::<Sha256>::new_from_slice(&self.0) else {
            unreachable!("HMAC takes a key of any length")
        };
        mac.update(&fp);
        mac.update(payload);
        let full = mac.finalize().into_bytes();
        let mut tag = [0u8; TAG_BYTES];
        tag.copy_from_slice(&full[..TAG_BYTES]);
        tag
    }
}

/// The fingerprint of what a page list is: the tool, its `where` (keys sorted, values as
/// JSON) and its `_select` (duplicates collapsed), each as canonical JSON text.
pub(crate) fn fingerprint(tool: &str, filter: &str, select: &str) -> [u8; FINGERPRINT_BYTES] {
    let mut h = Sha256::new();
    for part in [tool, filter, select] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    let full: [u8; 32] = h.finalize().into();
    let mut fp = [0u8; FINGERPRINT_BYTES];
    fp.copy_from_slice(&full[..FINGERPRINT_BYTES]);
    fp
}

/// The cursor text of `position` in the list `fp`.
pub(crate) fn encode(key: &CursorKey, fp: [u8; FINGERPRINT_BYTES], position: &Position) -> String {
    let mut b = Vec::with_capacity(32);
    b.push(0);
    b.push(fp[0]);
    let kind = match position {
        Position::Offset(n) => {
            varint(&mut b, *n);
            0
        }
        Position::After(k, counted) => {
            let counted = match counted {
                Counted::Unknown => None,
                Counted::About(n) => Some(n.saturating_add(1)),
                Counted::TimedOut => Some(0),
            };
            if let Some(n) = counted {
                varint(&mut b, n);
            }
            // A string key without an escape goes without its quotes.
            let bare = k
                .strip_prefix('"')
                .and_then(|k| k.strip_suffix('"'))
                .filter(|k| !k.contains(['\\', '"']));
            b.extend_from_slice(bare.unwrap_or(k).as_bytes());
            match (counted.is_some(), bare.is_some()) {
                (false, false) => 1,
                (true, false) => 2,
                (false, true) => 3,
                (true, true) => 4,
            }
        }
    };
    b[0] = VERSION << 4 | kind;
    let tag = key.tag(fp, &b);
    b.extend_from_slice(&tag);
    URL_SAFE_NO_PAD.encode(b)
}

/// Appends `n` as a LEB128 varint (7 bits a byte, low bits first).
fn varint(b: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        b.push(n as u8 | 0x80);
        n >>= 7;
    }
    b.push(n as u8);
}

/// The varint at the start of `b` and the bytes after it; `None` if it is cut or over 64 bits.
fn read_varint(b: &[u8]) -> Option<(u64, &[u8])> {
    let mut n = 0u64;
    for (i, &x) in b.iter().enumerate().take(10) {
        let bits = u64::from(x & 0x7f);
        if i == 9 && bits > 1 {
            return None;
        }
        n |= bits << (7 * i);
        if x & 0x80 == 0 {
            return Some((n, &b[i + 1..]));
        }
    }
    None
}

/// Why a cursor is refused: the detail of its `<validation_error>` field.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Not a cursor this server writes (not base64url, too short or long, unknown version).
    Malformed,
    /// Its tag does not match, its hint does: altered, cut, or issued for another collection
    /// with another key (or, one time in 256, for another list).
    Tampered,
    /// Its tag and hint do not match: issued for another `where`, `_select` or tool.
    Foreign,
}

impl Refused {
    /// The validation detail, with the recovery.
    pub(crate) fn detail(&self) -> &'static str {
        match self {
            Refused::Malformed => {
                "Not a cursor of this server. Pass the cursor exactly as the previous page named it, or call list without cursor to start again."
            }
            Refused::Tampered => {
                "This cursor was altered or was not issued for this collection. Pass it exactly as the previous page named it, or call list without cursor to start again."
            }
            Refused::Foreign => {
                "This cursor was issued for another where, _select or tool. Repeat the where and _select of the call that returned it, or call list without cursor to start again."
            }
        }
    }
}

/// The position `text` names in the list `fp`, or why it is refused.
pub(crate) fn decode(
    key: &CursorKey,
    fp: [u8; FINGERPRINT_BYTES],
    text: &str,
) -> Result<Position, Refused> {
    if text.len() > MAX_CURSOR_CHARS {
        return Err(Refused::Malformed);
    }
    let b = URL_SAFE_NO_PAD
        .decode(text.as_bytes())
        .map_err(|_| Refused::Malformed)?;
    if b.len() < 2 + TAG_BYTES || b[0] >> 4 != VERSION {
        return Err(Refused::Malformed);
    }
    let (payload, tag) = b.split_at(b.len() - TAG_BYTES);
    // Constant time is not needed for a tag anyone may recompute without a secret, but
    // costs nothing here.
    let want = key.tag(fp, payload);
    if want.iter().zip(tag).fold(0u8, |acc, (x, y)| acc | (x ^ y)) != 0 {
        // Issued for another list, or altered: the hint tells which, but for one foreign
        // cursor in 256 (then said to be altered; either way the recovery is the same).
        return Err(if payload[1] != fp[0] {
            Refused::Foreign
        } else {
            Refused::Tampered
        });
    }
    let rest = &payload[2..];
    let kind = payload[0] & 0x0f;
    let (counted, key) = match kind {
        0 => {
            return match read_varint(rest) {
                Some((n, [])) => Ok(Position::Offset(n)),
                _ => Err(Refused::Malformed),
            };
        }
        1 | 3 => (Counted::Unknown, rest),
        2 | 4 => {
            let (n, key) = read_varint(rest).ok_or(Refused::Malformed)?;
            let counted = match n {
                0 => Counted::TimedOut,
                n => Counted::About(n - 1),
            };
            (counted, key)
        }
        _ => return Err(Refused::Malformed),
    };
    let key = std::str::from_utf8(key).map_err(|_| Refused::Malformed)?;
    let key = if kind >= 3 {
        format!("\"{key}\"")
    } else {
        key.to_owned()
    };
    Ok(Position::After(key, counted))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_round_trips_and_anything_else_is_refused() {
        let key = CursorKey::new(None, "rows", "100 rows");
        let fp = fingerprint("rows", r#"{"a":1}"#, "");
        for pos in [
            Position::Offset(0),
            Position::Offset(u64::MAX),
            Position::Offset(127),
            Position::Offset(128),
            Position::After(r#""k-17""#.into(), Counted::Unknown),
            Position::After(r#""k-17""#.into(), Counted::About(0)),
            Position::After(r#""k-17""#.into(), Counted::About(u64::MAX - 1)),
            Position::After(r#""k\"17""#.into(), Counted::About(3)),
            Position::After(r#""k\"17""#.into(), Counted::Unknown),
            Position::After(r#""""#.into(), Counted::Unknown),
            Position::After("17".into(), Counted::About(99_950)),
            Position::After("17".into(), Counted::TimedOut),
            Position::After("17".into(), Counted::Unknown),
        ] {
            let c = encode(&key, fp, &pos);
            assert!(
                c.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            );
            assert_eq!(decode(&key, fp, &c), Ok(pos.clone()));
            // Another filter, another collection, another secret.
            let other = fingerprint("rows", r#"{"a":2}"#, "");
            assert_eq!(decode(&key, other, &c), Err(Refused::Foreign));
            let elsewhere = CursorKey::new(None, "rows", "101 rows");
            assert_eq!(decode(&elsewhere, fp, &c), Err(Refused::Tampered));
            let secret = CursorKey::new(Some(b"s3cret"), "rows", "100 rows");
            assert_eq!(decode(&secret, fp, &c), Err(Refused::Tampered));
            // Every single-character change and every cut is refused.
            let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
            for i in 0..c.len() {
                let mut t = c.clone().into_bytes();
                t[i] = alphabet[(alphabet.iter().position(|&a| a == t[i]).unwrap_or(0) + 7) % 64];
                let t = String::from_utf8(t).unwrap_or_default();
                assert!(decode(&key, fp, &t).is_err(), "{t}");
                assert!(decode(&key, fp, &c[..i]).is_err());
            }
        }
        for bad in ["", "!!!", "AAAA", "8AAAAAAAAAAAAA", &"A".repeat(5000)] {
            assert_eq!(decode(&key, fp, bad), Err(Refused::Malformed), "{bad}");
        }
    }

    #[test]
    fn a_keyset_cursor_of_the_bench_page_is_24_bytes() {
        // The bench's `_select` page: a string key of 11 characters after 250,064 counted
        // rows: header and hint 2, count 3, key 11, tag 8.
        let key = CursorKey::new(None, "invoices", "table");
        let fp = fingerprint("invoices", r#"{"status":"overdue"}"#, "");
        let c = encode(
            &key,
            fp,
            &Position::After(r#""INV-0000193""#.into(), Counted::About(250_064)),
        );
        assert_eq!(c.len(), 32, "{c}");
        // The offset of a file collection: 2 + 2 + 8.
        assert_eq!(encode(&key, fp, &Position::Offset(300)).len(), 16);
    }

    #[test]
    fn a_varint_over_64_bits_or_cut_is_refused() {
        let mut b = Vec::new();
        varint(&mut b, u64::MAX);
        assert_eq!(b.len(), 10);
        assert_eq!(read_varint(&b), Some((u64::MAX, &[][..])));
        assert_eq!(read_varint(&b[..9]), None);
        let mut over = b.clone();
        over[9] = 2;
        assert_eq!(read_varint(&over), None);
        assert_eq!(read_varint(&[0x80; 11]), None);
        // A cursor whose signed bytes hold such a varint (forged with the key) is malformed.
        let key = CursorKey::new(None, "rows", "100 rows");
        let fp = fingerprint("rows", "", "");
        for (kind, body) in [
            (0u8, &[0xffu8; 3][..]),
            (2, &[0x80; 11][..]),
            (0, &[1, 2][..]),
        ] {
            let mut p = vec![VERSION << 4 | kind, fp[0]];
            p.extend_from_slice(body);
            let tag = key.tag(fp, &p);
            p.extend_from_slice(&tag);
            assert_eq!(
                decode(&key, fp, &URL_SAFE_NO_PAD.encode(&p)),
                Err(Refused::Malformed)
            );
        }
        // A version 1 cursor (the README's example before version 2).
        assert_eq!(
            decode(&key, fp, "AUw84h8aXzhLAAkAAAAAAAAAy8dzTAVd20xvzmBC"),
            Err(Refused::Malformed)
        );
    }
}
