//! Hooks for the project's own tests, benches and fuzz targets, which compare the engine's
//! fast paths with its general ones: not part of the API (hidden from the docs, no stability
//! promise). Everything that exists only to be tested is here, and only here.
//!
//! The method hooks are traits, so `use toolwire::test_hooks::*;` brings them in scope.

pub use crate::escape::{EscapingSink, surrogate_to_wtf8};
pub use crate::json::scan::Kernel;
pub use crate::num::write_f64;
use crate::sink::Sink;
pub use crate::tag::{RESERVED_TAGS, contains_reserved_tag, starts_reserved_tag};
use crate::toon::EncodeOptions;
use crate::wire::{ResponseBuilder, ToolResponse};

/// Runs `f` with the presenters' row view disabled on this thread: every presentation goes
/// through the general writer and a derived document (the row view must be byte-identical).
pub fn with_general_path<T>(f: impl FnOnce() -> T) -> T {
    crate::present::with_general_path(f)
}

/// The longest text one tokenizer call sees when `tokens::count` (or, with `bound`,
/// `tokens::count_bound`) counts `text`, and the bytes all its calls see together, found
/// without tokenizing: bounds the work of counting pathological text in tests.
#[cfg(feature = "tokenizer")]
pub fn tokenizer_calls(text: &str, bound: bool) -> (usize, usize) {
    crate::tokens::tokenizer_calls(text, bound)
}

/// `toon::encode_json` reading any input longer than `window` bytes in windows of `window`
/// bytes.
///
/// # Errors
///
/// See [`crate::toon::encode_json`].
pub fn encode_json_windows<W: Sink + ?Sized>(
    json: &[u8],
    opts: &EncodeOptions,
    window: usize,
    out: &mut W,
) -> crate::Result<()> {
    crate::toon::encode_json_windows(json, opts, window, 0, out)
}

/// [`encode_json_windows`] keeping up to `keep` bytes of window tapes, so that the input is
/// read once when they fit.
///
/// # Errors
///
/// See [`crate::toon::encode_json`].
pub fn encode_json_windows_kept<W: Sink + ?Sized>(
    json: &[u8],
    opts: &EncodeOptions,
    window: usize,
    keep: usize,
    out: &mut W,
) -> crate::Result<()> {
    crate::toon::encode_json_windows(json, opts, window, keep, out)
}

/// Hooks on [`ResponseBuilder`].
pub trait BuilderHooks {
    /// Reads `Data::Json` longer than `n` bytes in windows of `n` bytes (defaults: windows of
    /// 1 MiB above 8 MiB), so small inputs are cut into many windows.
    fn window_bytes(self, n: usize) -> Self;
    /// Keeps up to `n` bytes of window tapes to read `Data::Json` once (after
    /// `window_bytes`, which keeps none).
    fn keep_tape(self, n: usize) -> Self;
}

impl BuilderHooks for ResponseBuilder<'_> {
    fn window_bytes(self, n: usize) -> Self {
        self.set_window_bytes(n)
    }
    fn keep_tape(self, n: usize) -> Self {
        self.set_keep_tape(n)
    }
}

/// Hooks on [`ToolResponse`].
pub trait ResponseHooks {
    /// True when the data block is a presenter's row view (rows encoded straight from the
    /// input tape) rather than a document.
    fn data_is_view(&self) -> bool;
    /// True when the data block is JSON text read window by window (`Data::Json`).
    fn data_is_windowed(&self) -> bool;
    /// True when the data block is JSON text read window by window, once (the first reading
    /// kept every window for the writing).
    fn data_is_read_once(&self) -> bool;
    /// The input range of the rows of each window the first reading kept for the writing, in
    /// array order (the rows between and after them are parsed again).
    fn data_kept_ranges(&self) -> Vec<(usize, usize)>;
    /// The room `block_bytes` makes for the data block: the bytes it most likely takes.
    fn data_likely_len(&self) -> usize;
}

impl ResponseHooks for ToolResponse<'_> {
    fn data_is_view(&self) -> bool {
        self.is_view()
    }
    fn data_is_windowed(&self) -> bool {
        self.is_windowed()
    }
    fn data_is_read_once(&self) -> bool {
        self.is_read_once()
    }
    fn data_kept_ranges(&self) -> Vec<(usize, usize)> {
        self.kept_ranges()
    }
    fn data_likely_len(&self) -> usize {
        self.likely_len(0)
    }
}

/// Runs `f` with every JSON parser on this thread using the block kernel `kernel`, or with
/// `None` the bytewise path the parser had before the kernels (the differential tests'
/// oracle). `None` when this CPU cannot run `kernel`.
pub fn with_kernel<T>(kernel: Option<Kernel>, f: impl FnOnce() -> T) -> Option<T> {
    crate::json::with_kernel(kernel, f)
}

/// Every block of `src` where `kernel`'s masks (the block classifier's and the string
/// classifier's) differ from the byte-by-byte definitions, as `(block index, description)`;
/// empty when they all agree. `None` when this CPU cannot run `kernel`.
pub fn kernel_mismatches(src: &[u8], kernel: Kernel) -> Option<Vec<(usize, String)>> {
    kernel.is_available().then(|| {
        crate::json::scan::compare_blocks(src, kernel)
            .into_iter()
            .enumerate()
            .filter(|(_, (want, got))| want != got)
            .map(|(n, (want, got))| (n, format!("want {want:x?}, got {got:x?}")))
            .collect()
    })
}

/// Where the tape of `doc` is in memory: two documents with the same address share one
/// allocation, reused ([`crate::doc`]'s spare tape).
pub fn tape_address(doc: &crate::Doc<'_>) -> usize {
    doc.nodes().as_ptr() as usize
}

/// The bytes of all the spare tapes a process keeps now ([`crate::doc`]'s spares).
pub fn spare_tape_bytes() -> usize {
    crate::doc::spare_tape_bytes()
}

/// Gives every spare tape back to the allocator: a measurement of a call's peak heap then
/// counts the tapes the call takes, as in a fresh process.
pub fn drop_spare_tapes() {
    crate::doc::drop_spare_tapes();
}
