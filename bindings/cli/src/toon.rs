//! `toolwire toon encode` and `toolwire toon decode`: the pure TOON converters.

use toolwire::toon::{self, Delimiter};

use crate::input::{Failure, Input, write_stdout};

/// JSON → TOON, validated before the first byte (a large root array window by window), then
/// streamed to stdout.
pub fn encode(path: &str, delimiter: Delimiter, indent: usize) -> Result<(), Failure> {
    let input = Input::read(path)?;
    // A mapped file is not on the heap: its share of the memory contract is free for the
    // parsed windows (read once up to that size).
    let held = if input.mapped() {
        toon::JsonInput::OffHeap
    } else {
        toon::JsonInput::Heap
    };
    let opts = toon::EncodeOptions::new()
        .delimiter(delimiter)
        .indent(indent)
        .json_input(held);
    toolwire::call::write_chunked(crate::input::stdout_writer(), |sink| {
        toon::encode_json(input.bytes(), &opts, sink)
    })
    .map_err(|e| Failure::output(&e))?
    .map_err(|e| input.malformed(&e))?;
    input.check_unchanged()
}

/// TOON → compact JSON.
pub fn decode(path: &str, lenient: bool, indent: usize) -> Result<(), Failure> {
    let input = Input::read(path)?;
    let opts = toon::DecodeOptions::new().strict(!lenient).indent(indent);
    let doc = toon::decode(input.bytes(), &opts).map_err(|e| input.malformed(&e))?;
    let mut out = Vec::new();
    toolwire::json::write_compact(doc.root(), &mut out);
    write_stdout(&out)
}
