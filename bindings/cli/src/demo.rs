//! `toolwire demo`: the main job on embedded default data.
//!
//! Generates N deterministic invoices in memory (each with an embedded `client` object),
//! presents them through the built-in Invoice presenter ([`invoice_presenter`]: schema,
//! rules, `limit` 50, a table and a summary, suggestions, `_select`, and an embedded Client
//! presenter that redacts `client.email`), prints the first blocks of that response, then
//! presents ALL N rows (the same presenter without its limit) in every format and prints the
//! data block's bytes, tokens (o200k_base), time and throughput, marking the cheapest format.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use toolwire::json::ParseOptions;
use toolwire::wire::Format;
use toolwire_mcp::demo::{invoice_presenter, invoices};

use crate::input::{Failure, write_stdout};
use crate::tokens::{Vocabulary, count};

/// How many lines of each block the demo prints before cutting it.
const BLOCK_LINES: usize = 8;

/// One row of the demo's table.
struct Measurement {
    name: &'static str,
    bytes: usize,
    tokens: usize,
    time: Duration,
}

/// `toolwire demo --sqlite FILE`: the invoices into an SQLite file, and the command that
/// serves them (exit 3 when the file cannot be written).
pub fn write_sqlite(file: &str, rows: usize) -> Result<(), Failure> {
    toolwire_mcp::demo::write_sqlite(file, rows).map_err(Failure::data)?;
    write_stdout(
        format!(
            "wrote {rows} invoices to {file} (table invoices, key id)\nserve them: toolwire serve --collection invoices=sqlite://{file}#invoices\n"
        )
        .as_bytes(),
    )
}

/// `toolwire demo`; with `dump`, prints only the data block of all rows in that format (the
/// exact text the table measures, for tests and for looking at).
pub fn run(rows: usize, force_progress: bool, dump: Option<Format>) -> Result<(), Failure> {
    let show_progress = dump.is_none()
        && (force_progress || (std::io::stdout().is_terminal() && std::io::stderr().is_terminal()));
    let bar = if show_progress {
        let bar = ProgressBar::new(3 + 2 * Format::FIXED.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} {msg}")
                .map_err(|e| Failure::internal(e.to_string()))?,
        );
        bar.enable_steady_tick(Duration::from_millis(100));
        bar
    } else {
        ProgressBar::hidden()
    };

    bar.set_message(format!("generating {rows} invoices"));
    let json = invoices(rows);
    bar.inc(1);
    bar.set_message("parsing");
    let doc = toolwire::json::parse(&json, &ParseOptions::default())
        .map_err(|e| Failure::internal(format!("demo: {e}")))?;
    bar.inc(1);

    if let Some(format) = dump {
        let (text, _) = encode_timed(doc.root(), format, 1)?;
        return write_stdout(text.as_bytes());
    }

    // The default response: through the Invoice presenter with its limit, as the agent sees it.
    bar.set_message("presenting");
    let presenter = invoice_presenter(Some(50), Format::Toon(toolwire::toon::Delimiter::Pipe))
        .map_err(|e| Failure::internal(format!("demo presenter: {e}")))?;
    let response = presenter
        .present(doc.root(), None)
        .map_err(|e| Failure::internal(format!("demo: {e}")))?;
    let texts = response.texts();
    bar.inc(1);

    let mut table = Vec::new();
    for format in Format::FIXED {
        let name = format.name();
        bar.set_message(format!("presenting all rows as {name}"));
        let (text, time) = encode_timed(doc.root(), format, 5)?;
        bar.inc(1);
        bar.set_message(format!("counting {name} tokens"));
        let tokens = count(Vocabulary::O200k, &text);
        bar.inc(1);
        table.push(Measurement {
            name,
            bytes: text.len(),
            tokens,
            time,
        });
    }
    bar.finish_and_clear();

    let mut out = format!(
        "toolwire demo: {rows} invoice rows ({} bytes of JSON input)\n\n\
         First blocks of the response (Invoice presenter, limit 50, TOON), {BLOCK_LINES} lines each:\n\n",
        json.len()
    );
    for text in &texts {
        let lines: Vec<&str> = text.lines().collect();
        for line in lines.iter().take(BLOCK_LINES) {
            out.push_str(line);
            out.push('\n');
        }
        if lines.len() > BLOCK_LINES {
            out.push_str(&format!("… ({} more lines)\n", lines.len() - BLOCK_LINES));
        }
        out.push_str("-----\n");
    }
    out.push_str(&format!(
        "\nThe data block of all {rows} rows (same presenter, no limit) in every format:\n\n"
    ));
    out.push_str(&render_table(&table, json.len()));
    write_stdout(out.as_bytes())
}

/// Presents all rows through the Invoice presenter without limit in `format` and writes
/// the data block; the time (presenting + writing) is the best of up to `runs` runs, stopping
/// after about a second.
fn encode_timed(
    root: toolwire::Value<'_>,
    format: Format,
    runs: usize,
) -> Result<(String, Duration), Failure> {
    let presenter = invoice_presenter(None, format)
        .map_err(|e| Failure::internal(format!("demo presenter: {e}")))?;
    let mut best = Duration::MAX;
    let mut text = Vec::new();
    let started = Instant::now();
    for _ in 0..runs.max(1) {
        text.clear();
        let t = Instant::now();
        let response = presenter
            .present(root, None)
            .map_err(|e| Failure::internal(format!("demo: {e}")))?;
        response.write_block(0, &mut text);
        best = best.min(t.elapsed());
        drop(response);
        if started.elapsed() > Duration::from_secs(1) {
            break;
        }
    }
    let text =
        String::from_utf8(text).map_err(|_| Failure::internal("encoder produced invalid UTF-8"))?;
    Ok((text, best))
}

/// The table: format, bytes, tokens (o200k_base), time in ms, MB/s (of JSON input), the first
/// format with the fewest tokens marked `  <- cheapest`.
fn render_table(rows: &[Measurement], input_bytes: usize) -> String {
    let cheapest = rows
        .iter()
        .enumerate()
        .min_by_key(|(_, m)| m.tokens)
        .map_or(0, |(i, _)| i);
    let mut s = format!(
        "{:<12} {:>14} {:>14} {:>12} {:>10}\n",
        "format", "bytes", "tokens(o200k)", "encode ms", "MB/s"
    );
    for (i, m) in rows.iter().enumerate() {
        let secs = m.time.as_secs_f64().max(1e-9);
        s.push_str(&format!(
            "{:<12} {:>14} {:>14} {:>12.2} {:>10.0}{}\n",
            m.name,
            m.bytes,
            m.tokens,
            secs * 1e3,
            input_bytes as f64 / secs / 1e6,
            if i == cheapest { "  <- cheapest" } else { "" }
        ));
    }
    s
}
