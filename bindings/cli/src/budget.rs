//! `toolwire budget`: what one response costs in every format (bytes, tokens, encode time).
//!
//! The measured text is every block of the response, each tokenized on its own (the agent
//! receives them as separate content items); the time is the best of up to 5 runs of
//! presenting (or building) the response and writing all its blocks, stopping after about a
//! second. The input is parsed once, outside the timing. The table format is documented in
//! the command's help (`toolwire budget --help`).

use std::time::{Duration, Instant};

use toolwire::call::Framing;
use toolwire::present::Overrides;
use toolwire::wire::Format;

use crate::args::ShapeArgs;
use crate::input::{Failure, Input, write_stdout};
use crate::present::{error_line, tool_call};
use crate::tokens::{Vocabulary, count_blocks};

/// One line of the table.
struct Line {
    name: &'static str,
    bytes: usize,
    o200k: usize,
    cl100k: usize,
    time: Duration,
}

pub fn run(path: &str, shape: &ShapeArgs) -> Result<(), Failure> {
    let (call, _) = tool_call(shape, Overrides::default())?;
    let input = Input::read(path)?;
    let prepared = call.parse(input.bytes()).map_err(|e| input.malformed(&e))?;
    let mut lines = Vec::with_capacity(Format::FIXED.len());
    for format in Format::FIXED {
        let call = call.clone().format(format);
        let mut best = Duration::MAX;
        let mut blocks: Vec<Vec<u8>> = Vec::new();
        let started = Instant::now();
        for _ in 0..5 {
            let t = Instant::now();
            let reply = call.respond(&prepared).map_err(|e| input.malformed(&e))?;
            if let Some(line) = error_line(&reply, input.name()) {
                // The error response is what the agent would get, whatever the format.
                let mut out = Vec::new();
                reply.write(&Framing::result(), &mut out);
                write_stdout(&out)?;
                return Err(Failure::error_response_line(line));
            }
            let response = reply.response();
            blocks.clear();
            for i in 0..response.block_count() {
                let mut b = Vec::new();
                response.write_block(i, &mut b);
                blocks.push(b);
            }
            best = best.min(t.elapsed());
            if started.elapsed() > Duration::from_secs(1) {
                break;
            }
        }
        let mut line = Line {
            name: format.name(),
            bytes: 0,
            o200k: 0,
            cl100k: 0,
            time: best,
        };
        let texts = blocks
            .iter()
            .map(|b| std::str::from_utf8(b))
            .collect::<Result<Vec<&str>, _>>()
            .map_err(|_| Failure::internal("a block is not UTF-8"))?;
        line.bytes = texts.iter().map(|t| t.len()).sum();
        line.o200k = count_blocks(Vocabulary::O200k, texts.iter().copied());
        line.cl100k = count_blocks(Vocabulary::Cl100k, texts.iter().copied());
        lines.push(line);
    }
    write_stdout(render(&lines).as_bytes())
}

/// The table: a header, then one line per format; the first with the fewest o200k tokens
/// ends with `  <- cheapest`.
fn render(lines: &[Line]) -> String {
    let cheapest = lines
        .iter()
        .enumerate()
        .min_by_key(|(_, l)| l.o200k)
        .map_or(0, |(i, _)| i);
    let mut s = format!(
        "{:<12} {:>12} {:>12} {:>12} {:>12}\n",
        "format", "bytes", "o200k", "cl100k", "encode_ms"
    );
    for (i, l) in lines.iter().enumerate() {
        s.push_str(&format!(
            "{:<12} {:>12} {:>12} {:>12} {:>12.3}{}\n",
            l.name,
            l.bytes,
            l.o200k,
            l.cl100k,
            l.time.as_secs_f64() * 1e3,
            if i == cheapest { "  <- cheapest" } else { "" }
        ));
    }
    s
}
