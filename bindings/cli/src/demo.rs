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
use toolwire::present::{FileError, Presenter, Schema, UiEntry};
use toolwire::wire::{Format, UiMeta};

use crate::input::{Failure, write_stdout};
use crate::tokens::{Vocabulary, count};

/// How many lines of each block the demo prints before cutting it.
const BLOCK_LINES: usize = 8;

/// The built-in Invoice presenter with `limit` (the demo's default response uses 50; the
/// table uses none so every format is measured on all rows) and data `format`.
pub fn invoice_presenter(limit: Option<usize>, format: Format) -> Result<Presenter, FileError> {
    let client = Presenter::builder("Client")
        .schema(
            Schema::object()
                .property("name", Schema::string())
                .property("email", Schema::string())
                .required(["name"]),
        )
        .redact(["email"], None)
        .rules(["Display the client's company name prominently."])
        .build()?;
    let mut b = Presenter::builder("Invoice")
        .schema(
            Schema::object()
                .property("id", Schema::string())
                .property("client", Schema::object())
                .property("amount_cents", Schema::integer())
                .property(
                    "currency",
                    Schema::string().enum_values(["EUR", "USD", "GBP", "JPY"]),
                )
                .property(
                    "status",
                    Schema::string().enum_values(["paid", "pending", "overdue"]),
                )
                .property("issued_at", Schema::string())
                .required(["id", "amount_cents", "currency", "status"]),
        )
        .rules(["CRITICAL: amount_cents is in CENTS. Divide by 100 before display."])
        .collection_ui_entry(UiEntry::Table {
            columns: ["id", "client.name", "amount_cents", "currency", "status"]
                .map(String::from)
                .to_vec(),
            meta: UiMeta {
                title: Some("Invoices".into()),
                ..UiMeta::default()
            },
        })
        .collection_ui_entry(UiEntry::Summary {
            template: "{count} invoices, {shown} shown".into(),
            meta: UiMeta::default(),
        })
        .collection_suggestion("billing.get", "View one invoice in full")
        .collection_suggestion("billing.list", "Narrow the list with filters or _select")
        .embed("client", client)
        .select(true)
        .format(format);
    if let Some(n) = limit {
        b = b.limit(n);
    }
    b.build()
}

/// The demo's clients: company name and billing address.
const CLIENTS: [(&str, &str); 12] = [
    ("Acme Corp", "billing@acme.example"),
    ("Globex", "ap@globex.example"),
    ("Initech, Ltd", "invoices@initech.example"),
    ("Umbrella \"Health\"", "finance@umbrella.example"),
    ("Stark Industries", "ap@stark.example"),
    ("Wayne Enterprises", "billing@wayne.example"),
    ("Hooli", "pay@hooli.example"),
    ("Soylent | Foods", "ap@soylent.example"),
    ("Tyrell Corporation", "billing@tyrell.example"),
    ("Cyberdyne Systems", "ap@cyberdyne.example"),
    ("Müller & Söhne GmbH", "rechnung@mueller.example"),
    ("株式会社サンプル", "keiri@sample.example"),
];

/// xorshift64*: deterministic and dependency free (the same rows on every run).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// `rows` invoices as compact JSON: `id`, `client` {`name`, `email`}, `amount_cents`,
/// `currency`, `status`, `issued_at`.
pub fn invoices(rows: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(rows * 170 + 2);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    out.push(b'[');
    for i in 0..rows {
        if i > 0 {
            out.push(b',');
        }
        let (name, email) = CLIENTS[rng.below(CLIENTS.len() as u64) as usize];
        out.extend_from_slice(
            format!("{{\"id\":\"INV-{:07}\",\"client\":{{\"name\":", i + 1).as_bytes(),
        );
        toolwire::escape::write_json_string(&mut out, name.as_bytes());
        let day = rng.below(365);
        out.extend_from_slice(
            format!(
                ",\"email\":\"{email}\"}},\"amount_cents\":{},\"currency\":\"{}\",\"status\":\"{}\",\"issued_at\":\"2026-{:02}-{:02}T{:02}:{:02}:00Z\"}}",
                100 + rng.below(5_000_000),
                ["EUR", "USD", "GBP", "JPY"][rng.below(4) as usize],
                ["paid", "paid", "pending", "overdue"][rng.below(4) as usize],
                1 + day / 31 % 12,
                1 + day % 28,
                rng.below(24),
                rng.below(60),
            )
            .as_bytes(),
        );
    }
    out.push(b']');
    out
}

/// One row of the demo's table.
struct Measurement {
    name: &'static str,
    bytes: usize,
    tokens: usize,
    time: Duration,
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
