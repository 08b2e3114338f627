//! TOON 4.4: encoder and decoder.
