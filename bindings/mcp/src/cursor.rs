//! `list` cursors (SERVE.md §8): the opaque argument that names the next page.
//!
//! A cursor holds everything the next page needs, so any replica answers it and HTTP stays
//! stateless: where the page starts, and a fingerprint of the tool, the `where` filter and
//! the `_select` it was issued for, so that a cursor used with another filter is refused
//! instead of paging through a different list. Its bytes are
//!
//! ```text
//! version (1) | fingerprint (8) | kind (1) | position | tag (12)
//! ```
//!
//! written in base64url without padding. The position is an offset among the matching rows
//! (kind 0: a collection loaded from a file never changes while it is served, so an offset
//! names the same row on every replica that loaded the same file) or the last key shown
//! (kind 1, keyset paging: for sources ordered by their key, where rows inserted or deleted
//! between calls must not shift the pages). Kind 2 is kind 1 with the rows the first page
//! counted after that key (8 bytes before the key; all ones: the count ran out of time), so a
//! listing is counted once, not once a page. The tag is HMAC-SHA-256 of the rest under a key
//! derived from `--cursor-key-env`'s secret when given (replicas that share it accept each
//! other's cursors, and nobody without it can make one), else from the collection's name and
//! size: then it detects a cursor that was altered or cut, not one forged on purpose (which
//! could only name a page that `offset` reaches anyway).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{KeyInit, Mac};
use sha2::{Digest, Sha256};

const VERSION: u8 = 1;
const TAG_BYTES: usize = 12;
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

/// Kind 2's count when the count timed out.
const TIMED_OUT: u64 = u64::MAX;

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

    fn tag(&self, payload: &[u8]) -> [u8; TAG_BYTES] {
        let Ok(mut mac) = hmac::Hmac::<Sha256>::new_from_slice(&self.0) else {
            unreachable!("HMAC takes a key of any length")
        };
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
    b.push(VERSION);
    b.extend_from_slice(&fp);
    match position {
        Position::Offset(n) => {
            b.push(0);
            b.extend_from_slice(&n.to_le_bytes());
        }
        Position::After(k, Counted::Unknown) => {
            b.push(1);
            b.extend_from_slice(k.as_bytes());
        }
        Position::After(k, counted) => {
            b.push(2);
            let n = match counted {
                Counted::About(n) => (*n).min(TIMED_OUT - 1),
                _ => TIMED_OUT,
            };
            b.extend_from_slice(&n.to_le_bytes());
            b.extend_from_slice(k.as_bytes());
        }
    }
    let tag = key.tag(&b);
    b.extend_from_slice(&tag);
    URL_SAFE_NO_PAD.encode(b)
}

/// Why a cursor is refused: the detail of its `<validation_error>` field.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Not a cursor this server writes (not base64url, too short or long, unknown version).
    Malformed,
    /// Its tag does not match: altered, cut, or issued for another collection.
    Tampered,
    /// Issued for this collection but another `where` or `_select`.
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
                "This cursor was issued for another where or _select. Repeat the where and _select of the call that returned it, or call list without cursor to start again."
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
    let head = 1 + FINGERPRINT_BYTES + 1;
    if b.len() < head + TAG_BYTES || b[0] != VERSION {
        return Err(Refused::Malformed);
    }
    let (payload, tag) = b.split_at(b.len() - TAG_BYTES);
    // Constant time is not needed for a tag anyone may recompute without a secret, but
    // costs nothing here.
    let want = key.tag(payload);
    if want.iter().zip(tag).fold(0u8, |acc, (x, y)| acc | (x ^ y)) != 0 {
        return Err(Refused::Tampered);
    }
    if payload[1..1 + FINGERPRINT_BYTES] != fp {
        return Err(Refused::Foreign);
    }
    let rest = &payload[head..];
    match payload[head - 1] {
        0 => {
            let n: [u8; 8] = rest.try_into().map_err(|_| Refused::Malformed)?;
            Ok(Position::Offset(u64::from_le_bytes(n)))
        }
        1 => String::from_utf8(rest.to_vec())
            .map(|k| Position::After(k, Counted::Unknown))
            .map_err(|_| Refused::Malformed),
        2 if rest.len() >= 8 => {
            let (n, key) = rest.split_at(8);
            let n = u64::from_le_bytes(n.try_into().map_err(|_| Refused::Malformed)?);
            let counted = match n {
                TIMED_OUT => Counted::TimedOut,
                n => Counted::About(n),
            };
            String::from_utf8(key.to_vec())
                .map(|k| Position::After(k, counted))
                .map_err(|_| Refused::Malformed)
        }
        _ => Err(Refused::Malformed),
    }
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
            Position::After(r#""k-17""#.into(), Counted::Unknown),
            Position::After(r#""k-17""#.into(), Counted::About(0)),
            Position::After("17".into(), Counted::About(99_950)),
            Position::After("17".into(), Counted::TimedOut),
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
        for bad in ["", "!!!", "AAAA", &"A".repeat(5000)] {
            assert_eq!(decode(&key, fp, bad), Err(Refused::Malformed), "{bad}");
        }
    }
}
