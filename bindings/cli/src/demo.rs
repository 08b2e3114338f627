//! `toolwire demo`: the main job on embedded default data.
//!
//! Generates the deterministic invoice collection in memory, prints the first blocks of a
//! response over it, then encodes ALL rows in every format and prints bytes, tokens
//! (o200k_base), encode time and throughput, marking the cheapest format.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use toolwire::json::ParseOptions;
use toolwire::toon::Delimiter;
use toolwire::wire::{self, Format, Suggestion, ui};
use toolwire_benches::{Shape, invoices_json};

use crate::input::Failure;
use crate::tokens::{Vocabulary, count};

/// The formats the demo compares, with their CLI names.
const FORMATS: [(&str, Format); 5] = [
    ("pretty", Format::Pretty),
    ("compact", Format::Compact),
    ("toon", Format::Toon(Delimiter::Pipe)),
    ("toon-comma", Format::Toon(Delimiter::Comma)),
    ("toon-tab", Format::Toon(Delimiter::Tab)),
];

/// One row of the demo's table.
pub struct Measurement {
    pub name: &'static str,
    pub bytes: usize,
    pub tokens: usize,
    pub time: Duration,
}

pub fn run(rows: usize, force_progress: bool) -> Result<(), Failure> {
    let show_progress =
        force_progress || (std::io::stdout().is_terminal() && std::io::stderr().is_terminal());
    let bar = if show_progress {
        let bar = ProgressBar::new(2 + 2 * FORMATS.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} {msg}")
                .expect("template"),
        );
        bar
    } else {
        ProgressBar::hidden()
    };

    bar.set_message(format!("generating {rows} invoices"));
    let json = invoices_json(rows, Shape::Flat);
    bar.inc(1);
    bar.set_message("parsing");
    let doc = toolwire::json::parse(&json, &ParseOptions::default()).map_err(|e| internal(&e))?;
    bar.inc(1);

    // The first blocks of the default response: a few rows as an agent would see them.
    let sample_json = invoices_json(rows.min(3), Shape::Flat);
    let sample =
        toolwire::json::parse(&sample_json, &ParseOptions::default()).map_err(|e| internal(&e))?;
    let response = wire::response(sample.root())
        .format(Format::Toon(Delimiter::Pipe))
        .ui_block(ui::summary(&format!(
            "{rows} invoices, {} shown",
            rows.min(3)
        )))
        .system_rules(["CRITICAL: amount_cents is in CENTS. Divide by 100 before display."])
        .system_hint([Suggestion {
            tool: "billing.get".into(),
            reason: "View one invoice in full".into(),
        }])
        .build()
        .map_err(|e| internal(&e))?;

    let mut table = Vec::new();
    for (name, format) in FORMATS {
        bar.set_message(format!("encoding {name}"));
        let (text, time) = encode_timed(doc.root(), format)?;
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

    let mut out = String::new();
    out.push_str(&format!(
        "toolwire demo: {rows} invoice rows ({} bytes of JSON input)\n\nFirst blocks of the response (TOON, 3 rows):\n\n",
        json.len()
    ));
    for text in response.texts() {
        out.push_str(&text);
        out.push_str("\n-----\n");
    }
    out.push('\n');
    out.push_str(&render_table(&table, json.len()));
    print!("{out}");
    Ok(())
}

/// Encodes the whole collection in `format`; the time is the best of up to 5 runs within about
/// a second, so small inputs are not dominated by noise.
fn encode_timed(root: toolwire::Value<'_>, format: Format) -> Result<(String, Duration), Failure> {
    let response = wire::response(root)
        .format(format)
        .build()
        .map_err(|e| internal(&e))?;
    let mut best = Duration::MAX;
    let mut text = Vec::new();
    let started = Instant::now();
    for _ in 0..5 {
        text.clear();
        let t = Instant::now();
        response.write_block(0, &mut text);
        best = best.min(t.elapsed());
        if started.elapsed() > Duration::from_secs(1) {
            break;
        }
    }
    let text =
        String::from_utf8(text).map_err(|_| Failure::internal("encoder produced invalid UTF-8"))?;
    Ok((text, best))
}

/// The table: format, bytes, tokens, encode time, MB/s (of JSON input), cheapest marked.
pub fn render_table(rows: &[Measurement], input_bytes: usize) -> String {
    let cheapest = rows.iter().map(|m| m.tokens).min().unwrap_or(0);
    let mut s = format!(
        "{:<12} {:>14} {:>14} {:>12} {:>10}\n",
        "format", "bytes", "tokens(o200k)", "encode ms", "MB/s"
    );
    for m in rows {
        let secs = m.time.as_secs_f64().max(1e-9);
        s.push_str(&format!(
            "{:<12} {:>14} {:>14} {:>12.2} {:>10.0}{}\n",
            m.name,
            m.bytes,
            m.tokens,
            secs * 1e3,
            input_bytes as f64 / secs / 1e6,
            if m.tokens == cheapest {
                "  <- cheapest"
            } else {
                ""
            }
        ));
    }
    s
}

fn internal(e: &toolwire::Error) -> Failure {
    Failure::internal(format!("demo: {e}"))
}
