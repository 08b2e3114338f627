//! TOON encoder (stub: being written).

use crate::doc::Value;
use crate::error::{Category, Error, Result};
use crate::sink::Sink;

/// Options of the TOON encoder.
#[derive(Clone, Debug, Default)]
pub struct EncodeOptions {}

/// Checks that `value` can be encoded with `opts`.
///
/// # Errors
///
/// Always, until the encoder exists.
pub fn check(_value: Value<'_>, _opts: &EncodeOptions) -> Result<()> {
    Err(Error::new(Category::Encode, "toon encoder not implemented"))
}

/// Encodes `value` as TOON into `out`.
///
/// # Errors
///
/// Always, until the encoder exists.
pub fn encode<W: Sink + ?Sized>(
    value: Value<'_>,
    opts: &EncodeOptions,
    _out: &mut W,
) -> Result<()> {
    check(value, opts)
}

/// Encodes `value` as TOON into a new vector.
///
/// # Errors
///
/// See [`encode`].
pub fn to_vec(value: Value<'_>, opts: &EncodeOptions) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    encode(value, opts, &mut v)?;
    Ok(v)
}

/// Encodes `value` as TOON into a new string.
///
/// # Errors
///
/// See [`encode`].
pub fn to_string(value: Value<'_>, opts: &EncodeOptions) -> Result<String> {
    to_vec(value, opts).map(|v| String::from_utf8(v).unwrap_or_default())
}
