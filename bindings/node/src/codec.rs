//! The TOON codec's entry points: JSON text to TOON (`encodeJson`, its async twin) and TOON
//! to JSON text (`decodeToJson`), and how a long TOON text is handed over to JavaScript.

use napi::bindgen_prelude::{Either3, FromNapiValue, Object, ToNapiValue};
use napi::{Env, JsString, Result};
use napi_derive::napi;
use toolwire::json::to_vec_compact;
use toolwire::toon::{self, DecodeOptions, Delimiter, EncodeOptions};

use crate::rows::{CellsStream, TableCells, rows_doc};
use crate::text::{JsText, JsUnits, external, not_utf8};
use crate::utf16::utf16_more;
use crate::{OwnedText, Text, bytes_of, engine_error, mark, spawn_promise, usage, utf8};

fn encode_options(delimiter: &str, indent: u32) -> Result<EncodeOptions> {
    let d = match delimiter {
        "," => Delimiter::Comma,
        "\t" => Delimiter::Tab,
        "|" => Delimiter::Pipe,
        _ => return Err(usage("invalid delimiter")),
    };
    Ok(EncodeOptions::new().delimiter(d).indent(indent as usize))
}

/// The engine's `encode_json` with the bindings' extra room for the reading of a large input
/// (`toon::JsonInput::Binding`): the contract here is a peak under twice the input, so a
/// Buffer of up to about 20 MB of rows is read once.
fn encode_json_into<W: toolwire::Sink + ?Sized>(
    json: &[u8],
    opts: &EncodeOptions,
    out: &mut W,
) -> toolwire::Result<()> {
    let opts = opts.clone().json_input(toon::JsonInput::Binding);
    toon::encode_json(json, &opts, out)
}

fn encode_json_bytes(json: &[u8], opts: &EncodeOptions) -> Result<String> {
    let mut out = toolwire::sink::output_with_capacity(json.len() / 2 + 16);
    encode_json_into(json, opts, &mut out).map_err(|e| engine_error(&e))?;
    utf8(out)
}

/// Output bytes per JS string part of [`encode_json`]: under V8's largest regular object
/// (128 KiB), so each part is made in the young generation's pages, which V8 reuses, rather
/// than as a large object on fresh pages of its own. Measured on 100k flat invoices (6.5 MB of
/// TOON), 300 calls: 2,050 → 415 page faults a call and about 10% less CPU than 1 MiB parts.
const OUT_CHUNK: usize = 64 << 10;

/// TOON texts are gathered in segments of up to this size, each handed over as one string: an
/// external string where Node has them and the budget allows (neither copied nor faulted by
/// V8, nor copied again by its young-generation collections, as parts of 64 KiB were: 100k
/// nested rows, 25 MB of TOON, 5% of the call in the scavenger's copies). Where a segment
/// cannot be external, at most this much exists twice (Rust and V8) before it becomes parts.
const WHOLE_TOON: usize = 8 << 20;

/// TOON of JSON text (`toon::encode_json`): no JavaScript value is built. The text is
/// gathered a segment of up to `WHOLE_TOON` at a time: as bytes while it is ASCII
/// ([`JsText`]), and from its first other character as UTF-16 ([`JsUnits`]), each chunk
/// converted as the encoder hands it over (on this thread while the pool still parses: 100k
/// flat rows with non-ASCII names, a conversion of the whole at the end cost ~5.5 ms, chunk
/// by chunk ~2.7 more). A text of one segment comes back as one string; a longer one as
/// its segments, each an external string, joined by the JS layer into one rope string.
/// When a full segment cannot be external (no external strings, or the budget spent), it
/// and the rest of the text come back as parts of 64 KiB (`OUT_CHUNK`), each made a JS
/// string as soon as the encoder fills it, so the whole text never exists twice: once in
/// Rust and once in V8. ASCII parts become one-byte strings by a plain copy.
#[napi(catch_unwind, ts_return_type = "string | Array<string>")]
pub fn encode_json<'e>(
    env: &'e Env,
    json: Text,
    delimiter: String,
    indent: u32,
) -> Result<Either3<JsText, JsUnits, Vec<JsString<'e>>>> {
    let opts = encode_options(&delimiter, indent)?;
    let input = bytes_of(&json);
    toon_text(env, input.len() / 2 + 16, JsonToon(input, &opts))
}

/// TOON of a table of rows read as cells (`lib/rows.js`; `encode(rows)`): the engine's
/// document of them encoded, built by `stream` while they were read when there is one
/// (`table` then holds the last cells), else from `table`; no JSON text is written or
/// parsed. The text comes back as [`encode_json`]'s does.
#[napi(catch_unwind, ts_return_type = "string | Array<string>")]
pub fn encode_cells<'e>(
    env: &'e Env,
    table: TableCells,
    delimiter: String,
    indent: u32,
    stream: Option<&mut CellsStream>,
) -> Result<Either3<JsText, JsUnits, Vec<JsString<'e>>>> {
    let opts = encode_options(&delimiter, indent)?;
    // About the TOON's size: the strings' bytes and a few bytes a value.
    let room = table.text.len() + table.kinds.len() * 6 + 16;
    // The cells are `lib/rows.js`'s own arrays, which no JavaScript runs beside this call to
    // write: the engine's pool, encoding parts of the document in parallel, reads them only
    // while the table holds them.
    let doc = match stream {
        Some(stream) => stream.finish(&table)?,
        None => rows_doc(&table)?,
    };
    toon_text(env, room, DocToon(&doc, &opts))
}

/// What writes a TOON text into a sink, for [`toon_text`] (generic, so the encoder's many
/// small writes are not calls through a vtable).
trait WriteToon {
    fn write_toon<W: toolwire::Sink + ?Sized>(self, out: &mut W) -> toolwire::Result<()>;
}

/// JSON text, read and encoded.
struct JsonToon<'a>(&'a [u8], &'a EncodeOptions);

impl WriteToon for JsonToon<'_> {
    fn write_toon<W: toolwire::Sink + ?Sized>(self, out: &mut W) -> toolwire::Result<()> {
        encode_json_into(self.0, self.1, out)
    }
}

/// A document, encoded.
struct DocToon<'a, 'd>(&'a toolwire::Doc<'d>, &'a EncodeOptions);

impl WriteToon for DocToon<'_, '_> {
    fn write_toon<W: toolwire::Sink + ?Sized>(self, out: &mut W) -> toolwire::Result<()> {
        toon::encode(self.0.root(), self.1, out)
    }
}

/// The TOON text `write` writes, gathered and handed over as [`encode_json`] says (`expected`:
/// about the bytes it will take).
fn toon_text<'e>(
    env: &'e Env,
    expected: usize,
    write: impl WriteToon,
) -> Result<Either3<JsText, JsUnits, Vec<JsString<'e>>>> {
    let room = expected.min(WHOLE_TOON);
    let mut whole = Some(Gathered::Ascii(external::buffer_for(room)));
    let mut gathered = 0;
    let mut parts = Vec::new();
    let mut carry = Vec::new();
    let mut units = Vec::new();
    let mut failed = None;
    let sink = {
        let mut fail = |e| {
            failed.get_or_insert(e);
            false
        };
        let mut sink = toolwire::sink::ChunkedSink::new(OUT_CHUNK, |chunk| {
            if let Some(w) = &mut whole {
                if gathered > 0 && gathered + chunk.len() > WHOLE_TOON && w.fits_external() {
                    // A full segment: one external string, and a new segment begins (a chunk
                    // longer than a segment, one long value's, starts no empty one).
                    let sealed = whole.take().map(|w| w.seal(env, room));
                    match sealed {
                        Some(Ok((s, next))) => {
                            parts.push(s);
                            whole = Some(next);
                            gathered = 0;
                        }
                        Some(Err(e)) => return fail(e),
                        None => {}
                    }
                }
            }
            if let Some(w) = &mut whole {
                if gathered + chunk.len() <= WHOLE_TOON {
                    gathered += chunk.len();
                    return match w.push(&chunk, room) {
                        Ok(()) => true,
                        Err(e) => fail(e),
                    };
                }
                // Too long to gather: what was gathered becomes parts, then the rest does.
                let done = match whole.take() {
                    Some(Gathered::Ascii(bytes)) => bytes
                        .chunks(OUT_CHUNK)
                        .try_for_each(|b| push_part(env, &mut carry, &mut units, b, &mut parts)),
                    Some(Gathered::Wide(wide, rest)) => {
                        carry = rest;
                        wide.chunks(UNITS_PART).try_for_each(|u| {
                            parts.push(env.create_string_utf16(u)?);
                            Ok(())
                        })
                    }
                    None => Ok(()),
                };
                if let Err(e) = done {
                    return fail(e);
                }
            }
            match push_part(env, &mut carry, &mut units, &chunk, &mut parts) {
                Ok(()) => true,
                Err(e) => fail(e),
            }
        });
        let res = write.write_toon(&mut sink);
        sink.finish();
        res
    };
    sink.map_err(|e| engine_error(&e))?;
    if let Some(e) = failed {
        return Err(e);
    }
    match whole {
        Some(Gathered::Ascii(bytes)) if parts.is_empty() => return Ok(Either3::A(JsText(bytes))),
        Some(Gathered::Wide(wide, rest)) if parts.is_empty() && rest.is_empty() => {
            return Ok(Either3::B(JsUnits(wide)));
        }
        Some(last) => {
            let (s, next) = last.seal(env, 0)?;
            if !matches!(next, Gathered::Ascii(_)) {
                // A character cut at the very end.
                return Err(mark("encode", "output is not UTF-8", None));
            }
            parts.push(s);
            return Ok(Either3::C(parts));
        }
        None => {}
    }
    if !carry.is_empty() {
        return Err(mark("encode", "output is not UTF-8", None));
    }
    flush_units(env, &mut units, &mut parts)?;
    Ok(Either3::C(parts))
}

/// A segment of a text gathered as an encoder hands it over: its bytes while they are ASCII,
/// then its UTF-16 units and the bytes of a character the last chunk cut.
enum Gathered {
    Ascii(Vec<u8>),
    Wide(Vec<u16>, Vec<u8>),
}

impl Gathered {
    /// True when this segment, as it is held, fits the external strings' budget now.
    fn fits_external(&self) -> bool {
        match self {
            Gathered::Ascii(bytes) => external::fits::<u8>(bytes.capacity()),
            Gathered::Wide(units, _) => external::fits::<u16>(units.capacity()),
        }
    }

    /// This segment as one JS string (external while the budget allows, else copied), and
    /// the next segment, empty but for the bytes of a character this one's last chunk cut
    /// (`room`: the bytes the next is expected to take).
    fn seal<'e>(self, env: &'e Env, room: usize) -> Result<(JsString<'e>, Gathered)> {
        let raw = env.raw();
        let (value, rest) = match self {
            Gathered::Ascii(bytes) => {
                // SAFETY: `raw` is the env of the running call; the bytes are ASCII (pushed
                // as such), so Latin-1.
                let made = match unsafe { external::make(raw, bytes) }? {
                    Ok(s) => s,
                    // SAFETY: as above.
                    Err(bytes) => unsafe { JsText::to_napi_value(raw, JsText(bytes)) }?,
                };
                (made, Vec::new())
            }
            Gathered::Wide(units, rest) => {
                // SAFETY: as above.
                (
                    unsafe { JsUnits::to_napi_value(raw, JsUnits(units)) }?,
                    rest,
                )
            }
        };
        // SAFETY: `value` is a string made just now in this call's env.
        let s = unsafe { JsString::from_napi_value(raw, value) }?;
        let next = if rest.is_empty() {
            Gathered::Ascii(external::buffer_for(room))
        } else {
            Gathered::Wide(external::buffer_for(room), rest)
        };
        Ok((s, next))
    }

    /// Adds `chunk`; `room`: the bytes the whole is expected to take.
    fn push(&mut self, chunk: &[u8], room: usize) -> Result<()> {
        match self {
            Gathered::Ascii(bytes) if chunk.is_ascii() => bytes.extend_from_slice(chunk),
            Gathered::Ascii(bytes) => {
                let mut wide = external::buffer_for(room.max(bytes.len() + chunk.len()));
                wide.extend(bytes.iter().map(|&b| u16::from(b)));
                let mut rest = Vec::new();
                utf16_more(&mut rest, &mut wide, chunk).map_err(not_utf8)?;
                external::keep(std::mem::take(bytes));
                *self = Gathered::Wide(wide, rest);
            }
            Gathered::Wide(wide, rest) => utf16_more(rest, wide, chunk).map_err(not_utf8)?,
        }
        Ok(())
    }
}

/// Makes the complete UTF-8 characters of `carry` + `chunk` a JS string in `parts`, keeping
/// an incomplete character at the end for the next chunk (`units`: scratch for UTF-16).
fn push_part<'e>(
    env: &'e Env,
    carry: &mut Vec<u8>,
    units: &mut Vec<u16>,
    chunk: &[u8],
    parts: &mut Vec<JsString<'e>>,
) -> Result<()> {
    // The common case, checked in one pass: ASCII is whole UTF-8 characters, and a one-byte
    // string by a plain copy.
    if carry.is_empty() && units.is_empty() && chunk.is_ascii() {
        if !chunk.is_empty() {
            parts.push(env.create_string_latin1(chunk)?);
        }
        return Ok(());
    }
    // Decoded here in one pass and handed over as UTF-16 (a copy): napi's UTF-8 string
    // decodes twice (its length, then the text) after a validation of our own, which was
    // 20% of encodeJson on 100k rows with non-ASCII names (DECISIONS.md, "Node binding").
    utf16_more(carry, units, chunk).map_err(not_utf8)?;
    if units.len() >= UNITS_PART {
        flush_units(env, units, parts)?;
    }
    Ok(())
}

/// UTF-16 code units per JS string part: V8 large objects, which its young-generation
/// collections never copy (64 KiB parts of two-byte text were copied by the scavenger).
const UNITS_PART: usize = 512 << 10;

/// Makes the UTF-16 text in `units` a JS string in `parts`.
fn flush_units<'e>(
    env: &'e Env,
    units: &mut Vec<u16>,
    parts: &mut Vec<JsString<'e>>,
) -> Result<()> {
    if !units.is_empty() {
        parts.push(env.create_string_utf16(&*units)?);
        units.clear();
    }
    Ok(())
}

/// [`encode_json`] on the addon's pool: a promise of the TOON text. The JSON text is an
/// [`OwnedText`], so nothing the caller does to its buffer meanwhile reaches the worker.
#[napi(catch_unwind, ts_return_type = "Promise<string>")]
pub fn encode_json_async<'e>(
    env: &'e Env,
    json: &OwnedText,
    delimiter: String,
    indent: u32,
) -> Result<Object<'e>> {
    let opts = encode_options(&delimiter, indent)?;
    let bytes = json.bytes.clone();
    spawn_promise(env, move || encode_json_bytes(&bytes, &opts))
}

/// Decodes TOON text and returns the value as compact JSON text (`JSON.stringify` form;
/// integers keep every digit, `-0` is `0`), for `JSON.parse` on the JS side.
#[napi(catch_unwind)]
pub fn decode_to_json(text: String, indent: u32, strict: bool) -> Result<String> {
    let opts = DecodeOptions::new().indent(indent as usize).strict(strict);
    let doc = toon::decode(text.as_bytes(), &opts).map_err(|e| engine_error(&e))?;
    utf8(to_vec_compact(doc.root()))
}
