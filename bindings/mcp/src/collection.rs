//! Collections and presenter files, loaded and validated at start-up (SERVE.md §1).
//!
//! A collection's rows live for the whole process: the file's bytes are leaked once and
//! parsed into one `Doc<'static>` that every call borrows. A collection's presenter is built
//! once (the demo's Invoice presenter, a presenter file, or an anonymous one without a
//! schema); a call's `limit` and `format` are overrides at the engine's front door.

use toolwire::Doc;
use toolwire::json::ParseOptions;
use toolwire::json::write_json_string;
use toolwire::present::{Presenter, PresenterError};
use toolwire::toon::Delimiter;
use toolwire::wire::Format;

use crate::{Failure, ServeArgs};

/// The `format` argument's values, in the order the input schema lists them: the engine's
/// names (`wire::Format`, the one place they are spelled).
pub(crate) const FORMATS: [&str; 6] = Format::NAMES;

/// The formats a call can name, `auto` aside, in the order that breaks a tie: a collection
/// without a presenter is served in the cheapest of them (docs/DECISIONS.md).
const EVERY_FORMAT: [Format; 5] = [
    Format::Toon(Delimiter::Comma),
    Format::Toon(Delimiter::Pipe),
    Format::Toon(Delimiter::Tab),
    Format::Compact,
    Format::Pretty,
];

/// Rows a `list` call returns when neither the call nor the presenter sets a limit.
pub(crate) const DEFAULT_LIST_LIMIT: usize = 100;

/// One served collection: its tool name, rows and presenter.
pub(crate) struct Collection {
    pub(crate) name: String,
    pub(crate) doc: &'static Doc<'static>,
    /// The rows, for access by position (16 bytes a row).
    pub(crate) rows: Vec<toolwire::Value<'static>>,
    /// The `where` / `get` indexes, built on first use.
    pub(crate) indexes: crate::filter::Indexes,
    /// The field `get` looks up.
    pub(crate) key: String,
    /// The schema's root keys (the valid `where` fields), `None` without a schema.
    pub(crate) root_keys: Option<Vec<String>>,
    /// The presenter's `limit` (`None`: none).
    pub(crate) limit: Option<usize>,
    /// The presenter's own format name (`auto` included).
    pub(crate) format: &'static str,
    /// The presenter, built once; each call's `limit` and `format` are the front door's
    /// overrides.
    pub(crate) presenter: Presenter,
    /// The key that signs this collection's `list` cursors.
    pub(crate) cursor_key: crate::cursor::CursorKey,
    /// The database table that answers the calls (SERVE.md §7); `None`: the rows above.
    pub(crate) table: Option<Box<dyn crate::source::Backend>>,
    /// A table's `_select` goes into its select list (no presenter file reads other columns).
    pub(crate) pushdown: bool,
}

impl Collection {
    /// Rows in the collection.
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    fn new(
        name: String,
        doc: Doc<'static>,
        key: String,
        presenter: Presenter,
        secret: Option<&[u8]>,
    ) -> Collection {
        // The collection lives as long as the server: its document is leaked with its
        // bytes, so rows can be held by position.
        let doc: &'static Doc<'static> = Box::leak(Box::new(doc));
        // Its TOON shape once, now: a whole-collection `list` writes its header at once.
        toolwire::toon::prepare(doc);
        let rows = doc
            .root()
            .as_array()
            .map(|a| a.iter().collect())
            .unwrap_or_default();
        let identity = format!("{} rows", doc.root().as_array().map_or(0, |a| a.len()));
        Collection {
            cursor_key: crate::cursor::CursorKey::new(secret, &name, &identity),
            rows,
            indexes: Default::default(),
            root_keys: root_keys(&presenter),
            limit: presenter.limit(),
            format: presenter.format().name(),
            name,
            doc,
            key,
            presenter,
            table: None,
            pushdown: false,
        }
    }
}

/// Everything the server serves, and how.
pub(crate) struct Server {
    pub(crate) collections: Vec<Collection>,
    /// `--max-message-bytes` (`None`: no cap).
    pub(crate) cap: Option<usize>,
    /// `--max-tokens` (`None`: no budget).
    pub(crate) max_tokens: Option<usize>,
    pub(crate) structured: bool,
    /// How long a table may take to count a `list`'s matching rows.
    pub(crate) count_timeout: std::time::Duration,
}

impl Server {
    /// Loads and validates every collection and presenter file of `args`.
    pub(crate) fn load(args: &ServeArgs) -> Result<Server, Failure> {
        if args.max_message_bytes != 0 && args.max_message_bytes < MIN_CAP {
            return Err(Failure::usage(format!(
                "--max-message-bytes must be 0 (no cap) or at least {MIN_CAP}"
            )));
        }
        let cap = (args.max_message_bytes != 0).then_some(args.max_message_bytes);
        if args.max_tokens != 0 && args.max_tokens < MIN_TOKENS {
            return Err(Failure::usage(format!(
                "--max-tokens must be 0 (no budget) or at least {MIN_TOKENS}"
            )));
        }
        let max_tokens = (args.max_tokens != 0).then_some(args.max_tokens);
        if max_tokens.is_some() {
            // The vocabulary (about 100 ms) loads beside start-up, not on the first call.
            std::thread::spawn(|| toolwire::tokens::preload(toolwire::tokens::Vocabulary::O200k));
        }
        let secret = match &args.cursor_key_env {
            None => None,
            Some(var) => match std::env::var(var) {
                Ok(t) if !t.is_empty() => Some(t.into_bytes()),
                _ => {
                    return Err(Failure::usage(format!(
                        "--cursor-key-env {var}: the variable is not set or empty"
                    )));
                }
            },
        };
        let secret = secret.as_deref();
        let mut pairs = Vec::new();
        for spec in &args.collections {
            let (name, file) = name_file("--collection", spec)?;
            if pairs.iter().any(|(n, _): &(String, String)| *n == name) {
                return Err(Failure::usage(format!("--collection {name} given twice")));
            }
            pairs.push((name, file));
        }
        let mut presenter_files: Vec<(String, String)> = Vec::new();
        for spec in &args.presenters {
            let (name, file) = name_file("--presenter", spec)?;
            if !pairs.iter().any(|(n, _)| *n == name) {
                return Err(Failure::usage(format!(
                    "--presenter {name}: no --collection {name}"
                )));
            }
            if presenter_files.iter().any(|(n, _)| *n == name) {
                return Err(Failure::usage(format!("--presenter {name} given twice")));
            }
            presenter_files.push((name, file));
        }
        let mut collections = Vec::new();
        if pairs.is_empty() {
            collections.push(demo_collection(args.rows, secret)?);
        }
        for (name, file) in pairs {
            let presenter = presenter_files
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, f)| f.as_str());
            let source = crate::source::parse_spec(&file).map_err(Failure::usage)?;
            collections.push(match source {
                Some(spec) => table_collection(name, spec, presenter, args, secret)?,
                None => load_collection(name, &file, presenter, secret)?,
            });
        }
        Ok(Server {
            collections,
            cap,
            max_tokens,
            structured: args.structured,
            count_timeout: std::time::Duration::from_millis(args.count_timeout_ms),
        })
    }
}

/// The smallest `--max-message-bytes`: every error response and `tools/list` of a few tools
/// fit in it, so "no message exceeds the cap" can always hold.
pub(crate) const MIN_CAP: usize = 4096;

/// The smallest `--max-tokens`: the `TOO_LARGE` error that stands for a response over the
/// budget fits in it (about 90 tokens), and so do validation errors of a few problems.
pub(crate) const MIN_TOKENS: usize = 500;

/// `NAME=FILE`, NAME checked against `^[A-Za-z0-9_-]{1,64}$` (exit 2 otherwise).
fn name_file(flag: &str, spec: &str) -> Result<(String, String), Failure> {
    let Some((name, file)) = spec.split_once('=') else {
        return Err(Failure::usage(format!("{flag} {spec}: expected NAME=FILE")));
    };
    let valid = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !valid {
        return Err(Failure::usage(format!(
            "{flag} {spec}: NAME must match ^[A-Za-z0-9_-]{{1,64}}$"
        )));
    }
    if file.is_empty() {
        return Err(Failure::usage(format!("{flag} {spec}: FILE is empty")));
    }
    Ok((name.to_owned(), file.to_owned()))
}

fn leak(bytes: Vec<u8>) -> &'static [u8] {
    Box::leak(bytes.into_boxed_slice())
}

fn demo_collection(rows: usize, secret: Option<&[u8]>) -> Result<Collection, Failure> {
    let src = leak(crate::demo::invoices(rows));
    let doc = toolwire::json::parse(src, &ParseOptions::new())
        .map_err(|e| Failure::data(format!("invoices: {e}")))?;
    let presenter = crate::demo::invoice_presenter(Some(50), Format::Toon(Delimiter::Pipe))
        .map_err(|e| Failure::presenter(format!("invoices: {e}")))?;
    Ok(Collection::new(
        "invoices".into(),
        doc,
        "id".into(),
        presenter,
        secret,
    ))
}

fn root_keys(p: &Presenter) -> Option<Vec<String>> {
    p.schema()
        .filter(|s| s.root_keys().next().is_some())
        .map(|s| s.root_keys().map(str::to_owned).collect())
}

fn positioned(file: &str, e: &toolwire::Error) -> String {
    match e.position() {
        Some(p) => format!("{file}:{}:{}: {}", p.line, p.column, e.message()),
        None => format!("{file}: {}", e.message()),
    }
}

/// Rows of a table read at start-up to choose the format of a table without a presenter.
const FORMAT_SAMPLE_ROWS: usize = 100;

/// A collection served from a database table: its backend, and its presenter (the file's, or
/// one whose schema is the table's columns, with `_select`).
fn table_collection(
    name: String,
    spec: crate::source::Spec<'_>,
    presenter_file: Option<&str>,
    args: &ServeArgs,
    secret: Option<&[u8]>,
) -> Result<Collection, Failure> {
    let read = presenter_file.map(read_presenter).transpose()?;
    let explicit_key = read.as_ref().and_then(|(k, _)| k.clone());
    let table: Box<dyn crate::source::Backend> = match spec {
        crate::source::Spec::Sqlite { path, table } => Box::new(
            crate::sqlite::SqliteTable::open(crate::sqlite::Options {
                path,
                table,
                key: explicit_key.as_deref(),
                pool: args.max_concurrent,
                statement_timeout: std::time::Duration::from_millis(args.statement_timeout_ms),
            })
            .map_err(Failure::data)?,
        ),
        crate::source::Spec::Postgres { url, table } => Box::new(
            crate::postgres::PgTable::open(crate::postgres::Options {
                url,
                table,
                key: explicit_key.as_deref(),
                pool: args.max_concurrent,
                statements: match args.db_statements {
                    0 => std::thread::available_parallelism()
                        .map_or(6, |n| 3 * n.get())
                        .min(args.max_concurrent.max(1)),
                    n => n,
                },
                statement_timeout: std::time::Duration::from_millis(args.statement_timeout_ms),
            })
            .map_err(Failure::data)?,
        ),
    };
    let key = table.key().to_owned();
    let describe = table.describe().to_owned();
    let (presenter, pushdown) = match read {
        Some((_, p)) => (p, false),
        None => {
            let sample = table
                .page(&crate::source::PageQuery {
                    filter: &[],
                    columns: None,
                    after: None,
                    offset: 0,
                    limit: FORMAT_SAMPLE_ROWS,
                })
                .map_err(|e| Failure::data(format!("{describe}: {}", e.message())))?;
            let doc = toolwire::json::parse(&sample.json, &ParseOptions::new())
                .map_err(|e| Failure::data(format!("{describe}: {e}")))?;
            let mut schema = toolwire::present::Schema::object();
            for c in table.columns() {
                schema = schema.property(c.name.clone(), toolwire::present::Schema::any());
            }
            let p = Presenter::builder(name.clone())
                .schema(schema)
                .select(true)
                .format(toolwire::wire::cheapest_format(doc.root(), &EVERY_FORMAT))
                .build()
                .map_err(|e| Failure::presenter(format!("{name}: {e}")))?;
            (p, true)
        }
    };
    let empty: Doc<'static> = toolwire::json::parse(b"[]", &ParseOptions::new())
        .map_err(|e| Failure::data(format!("{name}: {e}")))?;
    let mut c = Collection::new(name, empty, key, presenter, secret);
    // A table's cursors are signed for the table (its rows change while it is served).
    c.cursor_key = crate::cursor::CursorKey::new(secret, &c.name, &describe);
    c.root_keys = Some(table.columns().iter().map(|c| c.name.clone()).collect());
    c.table = Some(table);
    c.pushdown = pushdown;
    Ok(c)
}

fn load_collection(
    name: String,
    file: &str,
    presenter_file: Option<&str>,
    secret: Option<&[u8]>,
) -> Result<Collection, Failure> {
    // The presenter first: a bad presenter file is reported even when the data is bad too.
    let read = presenter_file
        .map(read_presenter)
        .transpose()?
        .map(|(k, p)| (k.unwrap_or_else(|| "id".to_owned()), p));
    let bytes = std::fs::read(file).map_err(|e| Failure::data(format!("{file}: {e}")))?;
    collection_from_bytes(name, file, bytes, read, secret)
}

/// A collection of the JSON array or JSON Lines in `bytes` (`file` names them in errors),
/// with the presenter read from its file, if any.
pub(crate) fn collection_from_bytes(
    name: String,
    file: &str,
    bytes: Vec<u8>,
    read: Option<(String, Presenter)>,
    secret: Option<&[u8]>,
) -> Result<Collection, Failure> {
    let lines = file.ends_with(".jsonl")
        || file.ends_with(".ndjson")
        || bytes
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|&b| b == b'{');
    let src = if lines {
        json_lines_to_array(file, &bytes)?
    } else {
        bytes
    };
    let src = leak(src);
    let doc = toolwire::json::parse(src, &ParseOptions::new())
        .map_err(|e| Failure::data(positioned(file, &e)))?;
    let Some(rows) = doc.root().as_array() else {
        return Err(Failure::data(format!(
            "{file}:1:1: expected a JSON array of objects or JSON Lines"
        )));
    };
    if let Some((i, _)) = rows
        .iter()
        .enumerate()
        .find(|(_, r)| r.as_object().is_none())
    {
        return Err(Failure::data(format!(
            "{file}: row {}: expected an object",
            i + 1
        )));
    }
    let (key, presenter) = match read {
        Some(kp) => kp,
        None => {
            // No presenter: the format that costs these rows the fewest tokens, chosen once
            // so every page of the collection looks alike (docs/DECISIONS.md).
            let p = Presenter::builder(name.clone())
                .format(toolwire::wire::cheapest_format(doc.root(), &EVERY_FORMAT))
                .build()
                .map_err(|e| Failure::presenter(format!("{name}: {e}")))?;
            ("id".to_owned(), p)
        }
    };
    Ok(Collection::new(name, doc, key, presenter, secret))
}

/// JSON Lines (one object per line; blank lines skipped) as the bytes of one JSON array.
/// Each line is checked on its own so errors name the file's line.
fn json_lines_to_array(file: &str, bytes: &[u8]) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::with_capacity(bytes.len() + 2);
    out.push(b'[');
    let mut first = true;
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let doc = toolwire::json::parse(line, &ParseOptions::new()).map_err(|e| {
            let col = e.position().map_or(1, |p| p.column);
            Failure::data(format!("{file}:{}:{col}: {}", n + 1, e.message()))
        })?;
        if doc.root().as_object().is_none() {
            let col = line
                .iter()
                .position(|b| !b.is_ascii_whitespace())
                .unwrap_or(0)
                + 1;
            return Err(Failure::data(format!(
                "{file}:{}:{col}: expected an object",
                n + 1
            )));
        }
        if !first {
            out.push(b',');
        }
        first = false;
        out.extend_from_slice(line);
    }
    out.push(b']');
    Ok(out)
}

/// Reads a presenter file: JSON syntax (positioned), the optional `"key"` (a string), then
/// the engine's check of everything else. Exit 4 on any problem.
fn read_presenter(path: &str) -> Result<(Option<String>, Presenter), Failure> {
    let bytes = std::fs::read(path).map_err(|e| Failure::presenter(format!("{path}: {e}")))?;
    let doc = toolwire::json::parse(&bytes, &ParseOptions::new())
        .map_err(|e| Failure::presenter(positioned(path, &e)))?;
    let fail = |e: PresenterError| Failure::presenter(format!("{path}: {e}"));
    let Some(root) = doc.root().as_object() else {
        return Err(match Presenter::from_json(&bytes) {
            Err(e) => fail(e),
            Ok(_) => Failure::presenter(format!("{path}: expected an object")),
        });
    };
    let Some(k) = root.get(b"key") else {
        return Ok((None, Presenter::from_json(&bytes).map_err(fail)?));
    };
    let key = match k.as_str().and_then(|s| s.to_str()) {
        Some(s) if !s.is_empty() => s.to_owned(),
        _ => {
            return Err(Failure::presenter(format!(
                "{path}: key: expected a non-empty string"
            )));
        }
    };
    // The file without `key` (the server's own member), as the engine checks it.
    let mut file = Vec::with_capacity(bytes.len());
    file.push(b'{');
    for (k, v) in root.iter().filter(|(k, _)| k.as_bytes() != b"key") {
        if file.len() > 1 {
            file.push(b',');
        }
        write_json_string(&mut file, k.as_bytes());
        file.push(b':');
        file.extend_from_slice(&toolwire::json::to_vec_compact(v));
    }
    file.push(b'}');
    Ok((Some(key), Presenter::from_json(&file).map_err(fail)?))
}
