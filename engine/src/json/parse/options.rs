//! [`ParseOptions`]: the parser's limits.

/// The largest input a [`Doc`](crate::Doc) can address (its spans are 32-bit).
pub(super) const MAX_INPUT: usize = u32::MAX as usize;

/// Limits for [`parse`](crate::json::parse()) and
/// [`parse_selected`](crate::json::parse_selected).
///
/// Every limit, when exceeded, is a positioned error: [`Category::Depth`] for the depth,
/// [`Category::Limit`] for the others.
///
/// ```
/// use toolwire::json::{ParseOptions, parse};
/// let opts = ParseOptions::new().max_depth(2);
/// assert!(parse(b"[[1]]", &opts).is_ok());
/// let err = parse(b"[[[1]]]", &opts).unwrap_err();
/// assert_eq!(err.classify(), toolwire::Category::Depth);
/// assert_eq!(err.column(), 3);
/// ```
///
/// [`Category::Depth`]: crate::Category::Depth
/// [`Category::Limit`]: crate::Category::Limit
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    pub(crate) max_depth: usize,
    pub(crate) max_input_bytes: usize,
    pub(crate) max_string_bytes: usize,
    pub(crate) max_keys_per_object: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions::new()
    }
}

impl ParseOptions {
    /// Default [`max_depth`](ParseOptions::max_depth): 128 nested arrays/objects.
    pub const DEFAULT_MAX_DEPTH: usize = 128;
    /// Default [`max_input_bytes`](ParseOptions::max_input_bytes): 1 GiB.
    pub const DEFAULT_MAX_INPUT_BYTES: usize = 1 << 30;
    /// Default [`max_string_bytes`](ParseOptions::max_string_bytes): 256 MiB.
    pub const DEFAULT_MAX_STRING_BYTES: usize = 256 << 20;
    /// Default [`max_keys_per_object`](ParseOptions::max_keys_per_object): 1 000 000.
    pub const DEFAULT_MAX_KEYS_PER_OBJECT: usize = 1_000_000;

    /// The defaults: depth 128, input 1 GiB, string 256 MiB, 1 000 000 keys per object.
    pub const fn new() -> Self {
        ParseOptions {
            max_depth: Self::DEFAULT_MAX_DEPTH,
            max_input_bytes: Self::DEFAULT_MAX_INPUT_BYTES,
            max_string_bytes: Self::DEFAULT_MAX_STRING_BYTES,
            max_keys_per_object: Self::DEFAULT_MAX_KEYS_PER_OBJECT,
        }
    }

    /// Most arrays/objects open at once. `0` accepts only a scalar document; `1` accepts
    /// `[1, 2]` but not `[[1]]`. The error points at the bracket that goes too deep.
    pub const fn max_depth(mut self, n: usize) -> Self {
        self.max_depth = n;
        self
    }

    /// Largest input in bytes. Values above 4 GiB − 1 (the most a
    /// [`Doc`](crate::Doc) can address) are lowered to it. The error points at the first
    /// byte past the limit.
    pub const fn max_input_bytes(mut self, n: usize) -> Self {
        self.max_input_bytes = if n > MAX_INPUT { MAX_INPUT } else { n };
        self
    }

    /// Longest string or key, in bytes as written in the input (between the quotes,
    /// escapes counted as written). The error points at the first byte past the limit.
    pub const fn max_string_bytes(mut self, n: usize) -> Self {
        self.max_string_bytes = n;
        self
    }

    /// Most members in one object, counted as written (duplicate keys included). The error
    /// points at the first key past the limit.
    pub const fn max_keys_per_object(mut self, n: usize) -> Self {
        self.max_keys_per_object = n;
        self
    }
}
