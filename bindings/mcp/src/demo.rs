//! The built-in `invoices` collection: the rows `toolwire demo` generates and its Invoice
//! presenter. `toolwire serve` serves them by default; the CLI's demo calls the same two
//! functions, so the demo and the server always show the same data.

use toolwire::present::{Presenter, PresenterError, Schema, UiEntry};
use toolwire::wire::{Format, UiMeta};

/// The built-in Invoice presenter with `limit` (the demo's default response uses 50; the
/// table uses none so every format is measured on all rows) and data `format`.
pub fn invoice_presenter(
    limit: Option<usize>,
    format: Format,
) -> Result<Presenter, PresenterError> {
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
        toolwire::json::write_json_string(&mut out, name.as_bytes());
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

/// Writes `rows` invoices (the rows of [`invoices`]) into the SQLite file `path` as the table
/// `invoices` (key `id`; `client` a JSON column), replacing a table of that name; creates the
/// file when missing. The index on `(status, id)` walks a status's rows in key order, so a
/// filtered page (`ORDER BY id LIMIT n+1`) stops at its last row instead of sorting them all. `toolwire serve --collection
/// invoices=sqlite://PATH#invoices` then serves it. SQLite reads the JSON itself
/// (`json_each`), one statement for all rows.
///
/// # Errors
///
/// The file cannot be opened or written: SQLite's message.
pub fn write_sqlite(path: &str, rows: usize) -> Result<(), String> {
    let json = String::from_utf8(invoices(rows)).map_err(|e| e.to_string())?;
    let mut db = rusqlite::Connection::open(path).map_err(|e| format!("{path}: {e}"))?;
    let tx = db.transaction().map_err(|e| format!("{path}: {e}"))?;
    tx.execute_batch(
        "DROP TABLE IF EXISTS invoices;
         CREATE TABLE invoices (
             id TEXT PRIMARY KEY,
             client JSON,
             amount_cents INTEGER NOT NULL,
             currency TEXT NOT NULL,
             status TEXT NOT NULL,
             issued_at TEXT
         );
         CREATE INDEX invoices_status ON invoices (status, id);",
    )
    .map_err(|e| format!("{path}: {e}"))?;
    tx.execute(
        "INSERT INTO invoices
         SELECT value ->> 'id', json(value -> 'client'), value ->> 'amount_cents',
                value ->> 'currency', value ->> 'status', value ->> 'issued_at'
         FROM json_each(?1) ORDER BY key",
        [&json],
    )
    .map_err(|e| format!("{path}: {e}"))?;
    tx.commit().map_err(|e| format!("{path}: {e}"))
}
