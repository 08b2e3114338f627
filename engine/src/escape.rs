//! JSON string escaping exactly as `JSON.stringify` does it (WIRE.md §1.3), plus the one
//! deviation of WIRE.md §2: a `<` that starts a reserved tag sequence is written `\u003c`.
//!
//! Input strings are WTF-8: valid UTF-8 except that a lone surrogate (which JSON can carry as
//! `\ud800`) is stored as its 3-byte generalized UTF-8 form `ED A0..BF xx`. Such a sequence is
//! written back as `\udxxx` (lowercase hex), as `JSON.stringify` does.

use std::mem::MaybeUninit;

use crate::sink::Sink;

/// What to do with a byte: 0 = copy; otherwise the escape class.
const NO: u8 = 0;
const QU: u8 = b'"';
const BS: u8 = b'\\';
const B: u8 = b'b';
const F: u8 = b'f';
const N: u8 = b'n';
const R: u8 = b'r';
const T: u8 = b't';
const U: u8 = b'u'; // \u00xx
const LT: u8 = b'<'; // maybe a reserved tag
const ED: u8 = 0xED; // maybe a lone surrogate

/// One entry per byte value; see the class constants above.
static ESCAPE: [u8; 256] = {
    let mut t = [NO; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = U;
        i += 1;
    }
    t[0x08] = B;
    t[0x09] = T;
    t[0x0A] = N;
    t[0x0C] = F;
    t[0x0D] = R;
    t[b'"' as usize] = QU;
    t[b'\\' as usize] = BS;
    t[b'<' as usize] = LT;
    t[0xED] = ED;
    t
};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// The 6-byte escape `\u00xx` (lowercase hex) of a control byte, as JSON.stringify and TOON
/// write it.
#[inline]
pub(crate) fn u00(b: u8) -> [u8; 6] {
    [
        b'\\',
        b'u',
        b'0',
        b'0',
        HEX[(b >> 4) as usize],
        HEX[(b & 0xF) as usize],
    ]
}

/// Writes `s` (WTF-8) as a JSON string literal, quotes included.
///
/// A string with nothing to escape (the common case) costs one scan and one copy into
/// reserved spare capacity.
#[inline]
pub fn write_json_string<W: Sink + ?Sized>(out: &mut W, s: &[u8]) {
    let first = skip_clean(s, 0);
    if first == s.len() {
        return write_clean_json_string(out, s);
    }
    out.write_byte(b'"');
    write_body_from(out, s, first);
    out.write_byte(b'"');
}

/// [`write_json_string`] of a string the caller knows needs no escaping: no C0 control,
/// `"`, `\`, `<` or byte `0xED` (the parser's plain strings, ASCII from space to DEL without
/// `"`, `\` or `<`, are such). Checked in debug builds.
#[inline]
pub(crate) fn write_plain_json_string<W: Sink + ?Sized>(out: &mut W, s: &[u8]) {
    debug_assert_eq!(
        skip_clean(s, 0),
        s.len(),
        "a plain string needs no escaping"
    );
    write_clean_json_string(out, s);
}

/// Writes `s`, which needs no escaping, between quotes.
#[inline]
fn write_clean_json_string<W: Sink + ?Sized>(out: &mut W, s: &[u8]) {
    // One reserve and three copies. Into a framing sink the quotes go out pre-escaped
    // (`\"`) and the clean body as it is, straight into the frame's buffer.
    let quote: &[u8] = if out.escapes() { b"\\\"" } else { b"\"" };
    let q = quote.len();
    let n = s.len() + 2 * q;
    // Cut to `n`: a sink that returned less makes this panic, never write past it.
    let spare = &mut out.spare_escaped(n)[..n];
    // SAFETY: `spare` has exactly `n` bytes: `0..q`, `q..q + s.len()` and
    // `n - q..n` are in bounds and disjoint; `MaybeUninit<u8>` has the layout of `u8`,
    // and the sources (a static and initialised input) cannot overlap spare capacity.
    unsafe {
        let dst = spare.as_mut_ptr().cast::<u8>();
        std::ptr::copy_nonoverlapping(quote.as_ptr(), dst, q);
        std::ptr::copy_nonoverlapping(s.as_ptr(), dst.add(q), s.len());
        std::ptr::copy_nonoverlapping(quote.as_ptr(), dst.add(n - q), q);
    }
    // SAFETY: all `n` bytes were initialised just above; nothing touched the sink since
    // `spare_escaped`.
    unsafe { out.advance_escaped(n) };
}

/// Index of the first byte at or after `i` whose class is not `NO` (or `s.len()`).
///
/// Eight bytes at a time (SWAR): a lane is flagged when it is a C0 control, `"`, `\`, `<`
/// or `0xED`. Lanes above the first flagged one may be flagged spuriously by borrows, so
/// only the lowest flag is used, and it is exact. Measured with callgrind on an invoice-like
/// corpus (10k rows, mostly short strings): 18% fewer instructions in string escaping than
/// the byte-table loop alone; the gain grows with string length.
#[inline]
fn skip_clean(s: &[u8], i: usize) -> usize {
    skip_unflagged::<true>(s, i)
}

/// [`skip_clean`] with the lanes flagged for the tag rule (`<`, `0xED`) only when `TAGS`:
/// framing's plain escaping stops at the bytes JSON escapes alone (two compares fewer per
/// word on a large text block).
#[inline(always)]
fn skip_unflagged<const TAGS: bool>(s: &[u8], mut i: usize) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    #[inline(always)]
    fn zero_lanes(v: u64) -> u64 {
        v.wrapping_sub(LO) & !v
    }
    // Sixteen bytes at a time with SSE2 (every x86_64 CPU has it): lanes are flagged by
    // exact compares, so the lowest flag is the answer. The words and the table take the rest.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    while let Some(block) = s.get(i..).and_then(<[u8]>::first_chunk) {
        // SAFETY: this code is built only where SSE2 is enabled for the whole build (the
        // cfg above; every x86_64 target has it), so the CPU running it has SSE2.
        let flags = unsafe { sse2_flags::<TAGS>(block) };
        if flags != 0 {
            return i + flags.trailing_zeros() as usize;
        }
        i += 16;
    }
    while let Some(chunk) = s.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let mut flags = (w.wrapping_sub(LO * 0x20) & !w)
            | zero_lanes(w ^ (LO * u64::from(b'"')))
            | zero_lanes(w ^ (LO * u64::from(b'\\')));
        if TAGS {
            flags |= zero_lanes(w ^ (LO * u64::from(b'<'))) | zero_lanes(w ^ (LO * 0xED));
        }
        let flags = flags & HI;
        if flags != 0 {
            return i + (flags.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    // The tail (under 8 bytes) through the table: measured cheaper than a padded copy or an
    // overlapping load, both of which cost more than they save on short keys.
    while let Some(&b) = s.get(i) {
        let class = ESCAPE[b as usize];
        if class != NO && (TAGS || (class != LT && class != ED)) {
            break;
        }
        i += 1;
    }
    i
}

/// One bit per byte of `block` that is a C0 control, `"` or `\\`, or (`TAGS`) `<` or
/// `0xED`: [`skip_unflagged`]'s block of 16.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
fn sse2_flags<const TAGS: bool>(block: &[u8; 16]) -> u32 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // SAFETY: `block` is 16 initialised bytes, exactly what the load reads; the load has no
    // alignment requirement.
    let v = unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) };
    // A control byte is one whose unsigned max with 0x1F is 0x1F.
    let control_max = _mm_set1_epi8(0x1F);
    let mut m = _mm_or_si128(
        _mm_cmpeq_epi8(_mm_max_epu8(v, control_max), control_max),
        _mm_or_si128(
            _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8)),
            _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8)),
        ),
    );
    if TAGS {
        m = _mm_or_si128(
            m,
            _mm_or_si128(
                _mm_cmpeq_epi8(v, _mm_set1_epi8(b'<' as i8)),
                _mm_cmpeq_epi8(v, _mm_set1_epi8(0xEDu8 as i8)),
            ),
        );
    }
    _mm_movemask_epi8(m) as u32
}

/// Writes the escaped body of `s`, whose bytes before `i` need no escaping.
fn write_body_from<W: Sink + ?Sized>(out: &mut W, s: &[u8], mut i: usize) {
    let mut start = 0;
    while i < s.len() {
        let class = ESCAPE[s[i] as usize];
        if class == NO {
            i = skip_clean(s, i + 1);
            continue;
        }
        let replacement: &[u8];
        let mut buf = [0u8; 6];
        let consumed;
        match class {
            LT => {
                if !crate::tag::starts_reserved_tag(s, i) {
                    i += 1;
                    continue;
                }
                replacement = b"\\u003c";
                consumed = 1;
            }
            ED => {
                // A lone surrogate is ED A0..BF xx; ED 80..9F xx is ordinary UTF-8 (U+D000..U+D7FF).
                match s.get(i + 1..i + 3) {
                    Some(&[b1, b2]) if (0xA0..=0xBF).contains(&b1) => {
                        let cp = 0xD000 | (u32::from(b1 & 0x3F) << 6) | u32::from(b2 & 0x3F);
                        buf = [
                            b'\\',
                            b'u',
                            HEX[(cp >> 12) as usize & 0xF],
                            HEX[(cp >> 8) as usize & 0xF],
                            HEX[(cp >> 4) as usize & 0xF],
                            HEX[cp as usize & 0xF],
                        ];
                        replacement = &buf;
                        consumed = 3;
                    }
                    _ => {
                        i += 1;
                        continue;
                    }
                }
            }
            U => {
                buf = u00(s[i]);
                replacement = &buf;
                consumed = 1;
            }
            c => {
                buf[0] = b'\\';
                buf[1] = c;
                replacement = &buf[..2];
                consumed = 1;
            }
        }
        if start < i {
            out.write_clean(&s[start..i]);
        }
        out.write(replacement);
        i += consumed;
        start = i;
    }
    if start < s.len() {
        out.write_clean(&s[start..]);
    }
}

/// Writes the escaped body of valid UTF-8 text for use inside a JSON string, without the
/// reserved-tag rule (used by framing, where block texts are already tag-safe and may legitimately
/// hold the builder's own tags).
pub fn write_json_string_body_plain<W: Sink + ?Sized>(out: &mut W, s: &[u8]) {
    let mut start = 0;
    let mut i = 0;
    loop {
        // Clean runs 8 bytes at a time, up to the next byte JSON escapes.
        i = skip_unflagged::<false>(s, i);
        let Some(&b) = s.get(i) else { break };
        let class = ESCAPE[b as usize];
        debug_assert!(class != NO && class != LT && class != ED);
        if start < i {
            out.write(&s[start..i]);
        }
        if class == U {
            out.write(&u00(s[i]));
        } else {
            out.write(&[b'\\', class]);
        }
        i += 1;
        start = i;
    }
    if start < s.len() {
        out.write(&s[start..]);
    }
}

/// Texts from this many bytes are escaped in parallel parts by [`write_body_plain_parallel`]
/// (a prebuilt UI table of 100k rows is about 6 MB: 2.5 ms of escaping on one thread).
const PARALLEL_ESCAPE_MIN: usize = 1 << 20;

/// Bytes of text per part of a parallel escaping.
const ESCAPE_PART: usize = 256 << 10;

/// [`write_json_string_body_plain`], on the pool's threads for a large text when called from
/// outside the pool: parts of [`ESCAPE_PART`] bytes escaped each into its own buffer and
/// handed to `out` in order ([`crate::sink::write_ordered`]). Escaping is per byte (a UTF-8
/// sequence needs none), so the text is cut anywhere.
fn write_body_plain_parallel<W: Sink + ?Sized>(out: &mut W, s: &[u8]) {
    if s.len() < PARALLEL_ESCAPE_MIN
        || rayon::current_thread_index().is_some()
        || rayon::current_num_threads() < 2
    {
        return write_json_string_body_plain(out, s);
    }
    crate::sink::write_ordered(
        out,
        s.len().div_ceil(ESCAPE_PART),
        |i, buf| {
            let part = &s[i * ESCAPE_PART..((i + 1) * ESCAPE_PART).min(s.len())];
            buf.reserve(part.len() + part.len() / 8);
            write_json_string_body_plain(buf, part);
        },
        |out, buf| out.write_owned(buf),
    );
}

/// Encodes a lone surrogate code point (`0xD800..=0xDFFF`) as the 3 WTF-8 bytes the crate
/// stores for it.
#[inline]
pub fn surrogate_to_wtf8(cp: u16) -> [u8; 3] {
    debug_assert!((0xD800..=0xDFFF).contains(&cp));
    [
        0xED,
        0x80 | ((cp >> 6) & 0x3F) as u8,
        0x80 | (cp & 0x3F) as u8,
    ]
}

/// True when WTF-8 bytes `s` hold a lone surrogate.
#[inline]
pub fn has_lone_surrogate(s: &[u8]) -> bool {
    memchr::memchr_iter(0xED, s).any(|i| s.get(i + 1).is_some_and(|b| (0xA0..=0xBF).contains(b)))
}

/// A sink adapter that writes everything it receives as the body of a JSON string (quotes
/// not included) into the inner sink.
///
/// Escaping is fused into the encoders: they hand clean runs (text with no `"`, `\\` or
/// control byte) to [`Sink::write_clean`], which copies them straight through, and only the
/// structural bytes (quotes, line feeds, tabs, escape sequences) go through [`Sink::write`],
/// which escapes them here, inline for short pieces.
pub struct EscapingSink<'a, S: Sink + ?Sized> {
    inner: &'a mut S,
    scratch: Vec<u8>,
    written: usize,
}

impl<'a, S: Sink + ?Sized> EscapingSink<'a, S> {
    /// Wraps `inner`.
    pub fn new(inner: &'a mut S) -> Self {
        EscapingSink {
            inner,
            scratch: Vec::new(),
            written: 0,
        }
    }
}

/// The JSON escape of one byte of valid UTF-8 text, or `None` when it is copied as is.
#[inline(always)]
fn escape_byte(b: u8) -> Option<&'static [u8]> {
    const CONTROL: [&[u8]; 32] = [
        b"\\u0000", b"\\u0001", b"\\u0002", b"\\u0003", b"\\u0004", b"\\u0005", b"\\u0006",
        b"\\u0007", b"\\b", b"\\t", b"\\n", b"\\u000b", b"\\f", b"\\r", b"\\u000e", b"\\u000f",
        b"\\u0010", b"\\u0011", b"\\u0012", b"\\u0013", b"\\u0014", b"\\u0015", b"\\u0016",
        b"\\u0017", b"\\u0018", b"\\u0019", b"\\u001a", b"\\u001b", b"\\u001c", b"\\u001d",
        b"\\u001e", b"\\u001f",
    ];
    match b {
        0..=0x1F => Some(CONTROL[b as usize]),
        b'"' => Some(b"\\\""),
        b'\\' => Some(b"\\\\"),
        _ => None,
    }
}

// SAFETY: `spare` returns the scratch vector's spare capacity after reserving `n` bytes and
// `advance` escapes exactly the `n` initialised bytes out of it; the `_escaped` pair forwards
// to the inner sink, which keeps the contract.
unsafe impl<S: Sink + ?Sized> Sink for EscapingSink<'_, S> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.written += bytes.len();
        if bytes.len() > 16 {
            write_body_plain_parallel(self.inner, bytes);
            return;
        }
        // Short structural pieces (`\n  `, a delimiter, a quote): escape inline.
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            if let Some(e) = escape_byte(b) {
                if start < i {
                    self.inner.write(&bytes[start..i]);
                }
                self.inner.write(e);
                start = i + 1;
            }
        }
        if start < bytes.len() {
            self.inner.write(&bytes[start..]);
        }
    }

    #[inline]
    fn write_byte(&mut self, byte: u8) {
        self.written += 1;
        match escape_byte(byte) {
            Some(e) => self.inner.write(e),
            None => self.inner.write_byte(byte),
        }
    }

    fn spare(&mut self, n: usize) -> &mut [MaybeUninit<u8>] {
        self.scratch.clear();
        self.scratch.reserve(n);
        self.scratch.spare_capacity_mut()
    }

    unsafe fn advance(&mut self, n: usize) {
        debug_assert!(n <= self.scratch.capacity());
        // SAFETY: the caller initialised the first `n` bytes of the slice `spare` returned,
        // which is the scratch vector's spare capacity starting at length 0.
        unsafe { self.scratch.set_len(n) };
        self.written += n;
        write_json_string_body_plain(self.inner, &self.scratch);
    }

    #[inline]
    fn written(&self) -> usize {
        self.written
    }

    #[inline]
    fn cancelled(&self) -> bool {
        self.inner.cancelled()
    }

    #[inline(always)]
    fn write_clean(&mut self, bytes: &[u8]) {
        debug_assert!(
            !bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\'),
            "write_clean got bytes that need escaping: {:?}",
            String::from_utf8_lossy(bytes)
        );
        self.written += bytes.len();
        self.inner.write(bytes);
    }

    #[inline]
    fn escapes(&self) -> bool {
        true
    }

    #[inline]
    fn write_escaped(&mut self, bytes: &[u8]) {
        self.written += bytes.len();
        self.inner.write(bytes);
    }

    #[inline]
    fn write_escaped_owned(&mut self, part: &mut Vec<u8>) {
        self.written += part.len();
        self.inner.write_owned(part);
    }

    #[inline]
    fn spare_escaped(&mut self, n: usize) -> &mut [MaybeUninit<u8>] {
        self.inner.spare(n)
    }

    #[inline]
    fn contiguous(&self) -> bool {
        self.inner.contiguous()
    }

    #[inline]
    unsafe fn advance_escaped(&mut self, n: usize) {
        self.written += n;
        // SAFETY: the caller initialised the first `n` bytes of the slice `spare_escaped`
        // returned, which is the inner sink's `spare`.
        unsafe { self.inner.advance(n) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(s: &[u8]) -> String {
        let mut v = Vec::new();
        write_json_string(&mut v, s);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn matches_json_stringify() {
        assert_eq!(esc(b""), r#""""#);
        assert_eq!(esc(b"plain"), r#""plain""#);
        assert_eq!(esc(b"q\"b\\s/"), r#""q\"b\\s/""#);
        assert_eq!(esc(b"\x08\x0c\n\r\t"), r#""\b\f\n\r\t""#);
        assert_eq!(esc(b"\x00\x01\x1f\x7f"), "\"\\u0000\\u0001\\u001f\x7f\"");
        assert_eq!(esc("é€😀\u{2028}".as_bytes()), "\"é€😀\u{2028}\"");
        // U+D7FF is ED 9F BF: ordinary UTF-8, copied.
        assert_eq!(esc("\u{D7FF}".as_bytes()), "\"\u{D7FF}\"");
    }

    #[test]
    fn lone_surrogates_round_trip_as_escapes() {
        let mut s = b"a".to_vec();
        s.extend_from_slice(&surrogate_to_wtf8(0xD800));
        s.extend_from_slice(&surrogate_to_wtf8(0xDFFF));
        s.push(b'z');
        assert!(has_lone_surrogate(&s));
        assert!(!has_lone_surrogate("\u{D7FF}é".as_bytes()));
        assert_eq!(esc(&s), r#""a\ud800\udfffz""#);
    }

    #[test]
    fn a_large_text_escaped_in_parallel_parts_equals_the_serial_escaping() {
        // Escapes and multi-byte characters on every side of every part boundary.
        let len = 4 * ESCAPE_PART + 1000;
        let mut text: Vec<u8> = b"| INV-0000001 | Hooli | 1318812 | USD |\n"
            .iter()
            .copied()
            .cycle()
            .take(len)
            .collect();
        let odd: [&[u8]; 5] = [
            b"\"",
            b"\\",
            b"\x01",
            "\u{e9}".as_bytes(),
            "\u{1f4ca}".as_bytes(),
        ];
        for k in 1..=4 {
            for (d, piece) in odd.iter().enumerate() {
                let at = k * ESCAPE_PART - 3 + d;
                text[at..at + piece.len()].copy_from_slice(piece);
            }
        }
        let text = String::from_utf8_lossy(&text).into_owned().into_bytes();
        assert!(text.len() >= PARALLEL_ESCAPE_MIN);
        let mut serial = Vec::new();
        write_json_string_body_plain(&mut serial, &text);
        let mut parallel = Vec::new();
        EscapingSink::new(&mut parallel).write(&text);
        assert_eq!(parallel.len(), serial.len());
        assert!(parallel == serial, "the parallel escaping differs");
        let back: String = serde_json::from_slice(&[b"\"", &parallel[..], b"\""].concat()).unwrap();
        assert_eq!(back.as_bytes(), &text[..]);
    }

    #[test]
    fn skip_clean_agrees_with_the_table_at_every_position() {
        let naive = |s: &[u8], i: usize| {
            (i..s.len())
                .find(|&j| ESCAPE[s[j] as usize] != NO)
                .unwrap_or(s.len())
        };
        // Framing's plain escaping stops only where JSON escapes.
        let naive_plain = |s: &[u8], i: usize| {
            (i..s.len())
                .find(|&j| s[j] < 0x20 || s[j] == b'"' || s[j] == b'\\')
                .unwrap_or(s.len())
        };
        let mut specials: Vec<u8> = (0..0x20).collect();
        specials.extend([b'"', b'\\', b'<', 0xED]);
        // Bytes next to the special ones in value, which must not be flagged.
        let clean = [
            0x20, 0x21, 0x23, 0x3B, 0x3D, 0x5B, 0x5D, 0x7F, 0x80, 0xA0, 0xEC, 0xEE, 0xFF,
        ];
        // Lengths across two 16-byte blocks, a word and the byte tail.
        for len in 0..44 {
            for &fill in &clean {
                let base = vec![fill; len];
                assert_eq!(skip_clean(&base, 0), len);
                assert_eq!(skip_unflagged::<false>(&base, 0), len);
                for pos in 0..len {
                    for &sp in &specials {
                        let mut s = base.clone();
                        s[pos] = sp;
                        // A second special later must not hide or move the first.
                        if pos + 3 < len {
                            s[pos + 3] = b'"';
                        }
                        for from in 0..=pos {
                            assert_eq!(skip_clean(&s, from), naive(&s, from), "{s:?} from {from}");
                            assert_eq!(
                                skip_unflagged::<false>(&s, from),
                                naive_plain(&s, from),
                                "plain: {s:?} from {from}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn escapes_at_every_alignment() {
        for pad in 0..17 {
            let p = format!("{}é", "x".repeat(pad));
            let raw = format!("{p}a\"b\u{1}<tool_error>{p}");
            let want = format!("\"{p}a\\\"b\\u0001\\u003ctool_error>{p}\"");
            assert_eq!(esc(raw.as_bytes()), want);
            assert_eq!(esc(p.as_bytes()), format!("\"{p}\""));
        }
    }

    #[test]
    fn reserved_tags_are_neutralised() {
        assert_eq!(esc(b"<tool_error>"), r#""\u003ctool_error>""#);
        assert_eq!(esc(b"a</Domain_Rules>"), r#""a\u003c/Domain_Rules>""#);
        assert_eq!(esc(b"<b> <tool_errors>"), r#""<b> <tool_errors>""#);
    }
}
