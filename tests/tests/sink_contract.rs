//! The `Sink` contract (issue #11 item 3): `Sink` is an `unsafe trait`, so a safe
//! implementation cannot be handed to the engine (the `compile_fail` doctest on the trait
//! shows it); and an implementation that breaks the contract anyway (a `spare` shorter than
//! asked) makes the engine panic at a bounds check instead of writing past the slice.

use std::mem::MaybeUninit;
use std::panic::{AssertUnwindSafe, catch_unwind};

use toolwire::Sink;
use toolwire::json::{ParseOptions, parse};

/// A deliberately broken sink: `spare` hands out at most 4 bytes of a buffer that ends in
/// guard bytes, whatever was asked.
struct Short {
    buf: Box<[MaybeUninit<u8>; 12]>,
    len: usize,
}

impl Short {
    fn new() -> Short {
        Short {
            buf: Box::new([MaybeUninit::new(0xAA); 12]),
            len: 0,
        }
    }

    /// The guard bytes after the 4 spare bytes, untouched.
    fn guards_intact(&self) -> bool {
        // SAFETY: every byte of `buf` was initialised in `new`.
        self.buf[4..]
            .iter()
            .all(|b| unsafe { b.assume_init() } == 0xAA)
    }
}

// SAFETY: this implementation breaks the contract on purpose (`spare` returns 4 bytes
// whatever `n` is) to show the engine's own bounds checks catch it; it is never used outside
// this test, and `advance` never commits past the 4 bytes.
unsafe impl Sink for Short {
    fn write(&mut self, bytes: &[u8]) {
        self.len += bytes.len();
    }
    fn spare(&mut self, _n: usize) -> &mut [MaybeUninit<u8>] {
        &mut self.buf[..4]
    }
    unsafe fn advance(&mut self, n: usize) {
        assert!(n <= 4, "committed {n} bytes of a 4-byte spare");
        self.len += n;
    }
    fn written(&self) -> usize {
        self.len
    }
}

fn panics(f: impl FnOnce(&mut Short)) -> bool {
    let mut s = Short::new();
    let panicked = catch_unwind(AssertUnwindSafe(|| f(&mut s))).is_err();
    assert!(s.guards_intact(), "the engine wrote past the spare slice");
    panicked
}

#[test]
fn a_short_spare_is_a_panic_never_a_write_past_it() {
    // A clean JSON string goes out through one `spare_escaped` and raw copies.
    assert!(panics(|s| toolwire::json::write_json_string(
        s,
        b"longer than four bytes"
    )));
    // `write_via_spare` copies through `spare` too.
    assert!(panics(|s| s.write_via_spare(b"0123456789")));
    // Within what was asked, the same sink works.
    assert!(!panics(|s| s.write_via_spare(b"abc")));
    // Whole documents through every writer: the first short spare panics.
    let doc = parse(
        br#"[{"id":"INV-000001","name":"clean text with no escapes"}]"#,
        &ParseOptions::default(),
    )
    .unwrap();
    assert!(panics(|s| toolwire::json::write_compact(doc.root(), s)));
    assert!(panics(|s| toolwire::json::write_pretty(doc.root(), s)));
}
