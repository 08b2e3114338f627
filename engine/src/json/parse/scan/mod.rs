//! The block kernels: the parser's SIMD classifiers.
//!
//! A kernel classifies 64 input bytes at a time into bit masks: [`Raw`] (quotes,
//! backslashes, the structural characters `{}[]:,`, whitespace, and the bytes a string must
//! look at twice: backslash, control, ≥ 0x80 and `<`) and, for strings alone, [`Str`].
//!
//! Kernels, as memchr keeps its architecture code apart: [`fallback`] (portable 8-byte
//! words; also the reference the others are tested against), `x86` (SSE2, baseline on
//! x86-64, and AVX2, detected once at run time with `is_x86_feature_detected!` and cached),
//! `aarch64` (NEON, baseline there). `unsafe` is confined to the vector kernels.
//!
//! The parser (see its module documentation and docs/DECISIONS.md for the measurement) uses
//! the masks of the block under its position: whitespace runs end where [`Raw::ws`] says,
//! and plain strings where [`Str`] does, with no per-byte work. The string masks also mark
//! the bytes that force quotes in TOON, so a plain string without them is bare
//! (`Node::StrBare`), one with `{}[]:` among them (the bytes under the mask's bits are
//! looked at) is quoted (`Node::StrQuoted`), and the TOON encoder scans the bytes of
//! neither. The parser calls the AVX2 string kernel directly ([`StrKernel`]). Which kernel
//! the parsers of a thread use is [`kernel`]: the detected one, or the one a test forced
//! with [`with_kernel`].

use std::sync::atomic::{AtomicU8, Ordering};

#[cfg(target_arch = "aarch64")]
mod aarch64;
mod fallback;
#[cfg(target_arch = "x86_64")]
mod x86;

/// Bytes classified per step.
pub(crate) const BLOCK: usize = 64;

/// The raw classes of one 64-byte block: bit `i` stands for byte `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Raw {
    /// `"`.
    pub(crate) quote: u64,
    /// `\`.
    pub(crate) backslash: u64,
    /// `{`, `}`, `[`, `]`, `:`, `,`.
    pub(crate) op: u64,
    /// Space, tab, line feed, carriage return.
    pub(crate) ws: u64,
    /// What a plain string cannot hold unchecked: `\`, bytes below 0x20 or ≥ 0x80, `<`.
    pub(crate) special: u64,
}

impl Raw {
    /// ORs in the movemasks of one group of lanes (quote, backslash, op, ws, special, in that
    /// order) for the bytes from `shift` on: how the x86 kernels assemble a 64-byte block
    /// (NEON assembles its masks its own way).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn put(&mut self, m: [u32; 5], shift: usize) {
        self.quote |= (m[0] as u64) << shift;
        self.backslash |= (m[1] as u64) << shift;
        self.op |= (m[2] as u64) << shift;
        self.ws |= (m[3] as u64) << shift;
        self.special |= (m[4] as u64) << shift;
    }
}

/// The masks a string needs, for the parser's string lexer: [`Raw::quote`] and
/// [`Raw::special`] (computed alone, as they are needed for every string), and the bytes
/// that make a plain string need quotes in TOON.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Str {
    /// `"`.
    pub(crate) quote: u64,
    /// `\`, bytes below 0x20 or ≥ 0x80, `<`.
    pub(crate) special: u64,
    /// `{`, `}`, `[`, `]`, `:`, `,`, `|` and `\`: with the quote and the special bytes,
    /// every byte that forces an unquoted TOON value into quotes under any delimiter (the
    /// tab is a control byte). A plain string without them is bare ([`is_toon_byte`]).
    pub(crate) toon: u64,
}

/// The bytes of [`Str::toon`], by definition (the kernels' oracle): the tape's, as a bare
/// string is defined by them.
pub(crate) use crate::doc::is_toon_byte;

/// A block kernel: which instructions classify the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Portable 8-byte words.
    Fallback,
    /// SSE2, 16 bytes per instruction (x86-64).
    Sse2,
    /// AVX2, 32 bytes per instruction (x86-64).
    Avx2,
    /// NEON, 16 bytes per instruction (aarch64).
    Neon,
}

/// The detected kernel, cached: 0 = not detected yet, else `1 + index in ALL`.
static DETECTED: AtomicU8 = AtomicU8::new(0);

const ALL: [Kernel; 4] = [Kernel::Fallback, Kernel::Sse2, Kernel::Avx2, Kernel::Neon];

impl Kernel {
    /// Every kernel this CPU can run, the portable one first.
    pub fn available() -> Vec<Kernel> {
        ALL.into_iter().filter(|k| k.is_available()).collect()
    }

    /// True when this CPU can run the kernel.
    pub fn is_available(self) -> bool {
        match self {
            Kernel::Fallback => true,
            Kernel::Sse2 => cfg!(target_arch = "x86_64"),
            Kernel::Avx2 => avx2_available(),
            Kernel::Neon => cfg!(target_arch = "aarch64"),
        }
    }

    /// The fastest kernel this CPU runs (detected once).
    #[inline]
    pub fn detected() -> Kernel {
        match DETECTED.load(Ordering::Relaxed) {
            0 => {
                let k = *Kernel::available().last().unwrap_or(&Kernel::Fallback);
                let i = ALL.iter().position(|&a| a == k).unwrap_or(0);
                DETECTED.store(1 + i as u8, Ordering::Relaxed);
                k
            }
            n => ALL[(n - 1) as usize % ALL.len()],
        }
    }

    /// The block classifier of this kernel (the portable one when the CPU lacks it).
    #[inline]
    pub(crate) fn classifier(self) -> fn(&[u8; BLOCK]) -> Raw {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => x86::classify_sse2,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 if avx2_available() => classify_avx2,
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => aarch64::classify_neon,
            _ => fallback::classify,
        }
    }
}

impl Kernel {
    /// The string classifier of this kernel (the portable one when the CPU lacks it).
    #[inline]
    pub(crate) fn str_classifier(self) -> StrKernel {
        StrKernel(match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => |b, out| *out = x86::classify_str_sse2(b),
            // The AVX2 kernel itself, not a safe wrapper around it: the parser calls it once
            // for every block a string starts in, and the wrapper's call cost a row of
            // collection about 13 instructions.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 if avx2_available() => x86::classify_str_avx2_into,
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => |b, out| *out = aarch64::classify_str_neon(b),
            _ => |b, out| *out = fallback::classify_str(b),
        })
    }
}

thread_local! {
    /// The kernel a test or bench forced on this thread (`Some(None)`: the bytewise path).
    static FORCED: std::cell::Cell<Option<Option<Kernel>>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with every parser on this thread using `kernel` (`None`: the bytewise path
/// without block masks); `None` when this CPU cannot run `kernel`.
pub(crate) fn with_kernel<T>(kernel: Option<Kernel>, f: impl FnOnce() -> T) -> Option<T> {
    if kernel.is_some_and(|k| !k.is_available()) {
        return None;
    }
    struct Restore(Option<Option<Kernel>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            FORCED.set(self.0);
        }
    }
    let _restore = Restore(FORCED.replace(Some(kernel)));
    Some(f())
}

/// The kernel parsers use on this thread (`None`: the bytewise path).
pub(crate) fn kernel() -> Option<Kernel> {
    FORCED.get().unwrap_or_else(|| Some(Kernel::detected()))
}

/// A string classifier this CPU runs: only [`Kernel::str_classifier`] makes one, and it
/// hands out a kernel that needs CPU features (AVX2) only after detecting them.
/// The masks are written in place: returned, they went through a copy on the stack.
#[derive(Clone, Copy)]
pub(crate) struct StrKernel(unsafe fn(&[u8; BLOCK], &mut Str));

impl StrKernel {
    /// The string masks of `block`, written into `out`.
    #[inline(always)]
    pub(crate) fn classify_into(self, block: &[u8; BLOCK], out: &mut Str) {
        // SAFETY: the function is a safe one or a vector kernel whose CPU features
        // `Kernel::str_classifier` detected before making this `StrKernel`.
        unsafe { (self.0)(block, out) }
    }

    /// The string masks of `block`.
    #[inline(always)]
    pub(crate) fn classify(self, block: &[u8; BLOCK]) -> Str {
        let mut out = Str::default();
        self.classify_into(block, &mut out);
        out
    }

    /// [`classify_at`] with this kernel, into `out`.
    #[inline(always)]
    pub(crate) fn classify_at_into(self, src: &[u8], at: usize, out: &mut Str) {
        match src.get(at..at + BLOCK).and_then(|b| b.try_into().ok()) {
            Some(b) => self.classify_into(b, out),
            None => *out = classify_at(|b| self.classify(b), src, at),
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn avx2_available() -> bool {
    // The standard library caches the CPUID answer.
    is_x86_feature_detected!("avx2")
}

#[cfg(not(target_arch = "x86_64"))]
fn avx2_available() -> bool {
    false
}

#[cfg(target_arch = "x86_64")]
fn classify_avx2(block: &[u8; BLOCK]) -> Raw {
    // SAFETY: only handed out by `Kernel::classifier` after `avx2_available()`.
    unsafe { x86::classify_avx2(block) }
}

/// The masks of the block at `at` (`src[at..at + 64]`, padded with spaces past the end).
#[inline]
pub(crate) fn classify_at<T>(classify: impl Fn(&[u8; BLOCK]) -> T, src: &[u8], at: usize) -> T {
    match src.get(at..at + BLOCK) {
        Some(b) => {
            let b: &[u8; BLOCK] = b.try_into().unwrap_or(&[b' '; BLOCK]);
            classify(b)
        }
        None => {
            let mut pad = [b' '; BLOCK];
            let rest = &src[at.min(src.len())..];
            pad[..rest.len()].copy_from_slice(rest);
            classify(&pad)
        }
    }
}

/// The block masks of `src`, one block at a time, by the slowest possible method: the
/// definitions, byte by byte. The oracle of the kernels' tests.
pub(crate) fn reference_blocks(src: &[u8]) -> Vec<(Raw, Str)> {
    let mut out = Vec::new();
    for chunk in src.chunks(BLOCK) {
        let mut raw = Raw::default();
        let mut toon = 0;
        for i in 0..BLOCK {
            let b = chunk.get(i).copied().unwrap_or(b' ');
            let bit = 1u64 << i;
            if b == b'"' {
                raw.quote |= bit;
            }
            if b == b'\\' {
                raw.backslash |= bit;
            }
            if matches!(b, b'{' | b'}' | b'[' | b']' | b':' | b',') {
                raw.op |= bit;
            }
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                raw.ws |= bit;
            }
            if b == b'\\' || !(0x20..0x80).contains(&b) || b == b'<' {
                raw.special |= bit;
            }
            if is_toon_byte(b) {
                toon |= bit;
            }
        }
        let s = Str {
            quote: raw.quote,
            special: raw.special,
            toon,
        };
        out.push((raw, s));
    }
    out
}

/// [`reference_blocks`] beside the masks of `kernel`'s block classifier and string
/// classifier, block by block, for the tests: `(reference, kernel)` per block.
pub(crate) fn compare_blocks(src: &[u8], kernel: Kernel) -> Vec<((Raw, Str), (Raw, Str))> {
    let classify = kernel.classifier();
    let k = kernel.str_classifier();
    reference_blocks(src)
        .into_iter()
        .enumerate()
        .map(|(n, r)| {
            let raw = classify_at(classify, src, n * BLOCK);
            let s = classify_at(|b| k.classify(b), src, n * BLOCK);
            (r, (raw, s))
        })
        .collect()
}
