//! TOON decoder (stub: being written).

use crate::doc::Doc;
use crate::error::{Category, Error, Result};

/// Options of the TOON decoder.
#[derive(Clone, Debug, Default)]
pub struct DecodeOptions {}

/// Decodes TOON text into a [`Doc`].
///
/// # Errors
///
/// Always, until the decoder exists.
pub fn decode<'s>(_text: &'s [u8], _opts: &DecodeOptions) -> Result<Doc<'s>> {
    Err(Error::new(Category::Syntax, "toon decoder not implemented"))
}
