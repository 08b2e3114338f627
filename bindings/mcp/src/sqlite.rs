//! SQLite tables (`NAME=sqlite://PATH#TABLE`, SERVE.md §7), embedded through rusqlite's
//! bundled SQLite.
//!
//! Every connection is opened read-only (`SQLITE_OPEN_READ_ONLY`, then `PRAGMA query_only`),
//! runs only the SELECTs written here, and every statement runs under a time limit (a
//! progress handler interrupts it). Rows leave SQLite as JSON text (`json_object`), one row a
//! step, appended into the page's JSON array. A REAL is written by `toolwire_real`, an SQL
//! function registered on every connection that writes the shortest digits that read back as
//! the same double (WIRE.md §1.3): SQLite's own JSON rendering keeps 15 digits (`0.1+0.2`
//! would come back as `0.3`) and its `printf('%.17g')` is not exact either (`1e300` comes
//! back one ulp off). BLOBs are written as hex strings (JSON cannot hold bytes).
//!
//! Connections are pooled, at most one per concurrent call (`--max-concurrent`); calls run on
//! the server's blocking threads, never on the async runtime. A pooled connection is used
//! only while PATH still names the file it opened (device and inode): a replaced file is
//! opened again, a removed or broken one gives `UNAVAILABLE` until it is back.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OpenFlags};

use crate::scalar::{Scalar, is_integer_lexeme};
use crate::source::{
    Backend, COUNT_TTL, Column, Count, Kind, PageQuery, Pool, STREAM_BATCH, SourceError,
    quote_ident, split_table,
};

/// A served SQLite table.
pub(crate) struct SqliteTable {
    path: String,
    describe: String,
    /// `"schema"."table"` or `"table"`, quoted.
    from: String,
    columns: Vec<Column>,
    key: String,
    /// The JSON expression of every column (`json_object`'s arguments), by column.
    exprs: Vec<String>,
    pool: Pool<Conn>,
    statement_timeout: Duration,
}

/// A connection, the file it opened, the deadline its progress handler enforces, and the
/// counts it made.
struct Conn {
    db: Connection,
    /// The file's identity when the connection opened it (`None`: not known).
    file: Option<FileId>,
    deadline: Arc<Mutex<Option<Instant>>>,
    counts: Counts,
}

/// Counts this connection made, each with the `PRAGMA data_version` it was made at: the
/// version changes when any other connection commits to the file (ours only read), so a
/// count made at the current version is exact, and repeating it costs one pragma instead of
/// a scan of the matching rows. A count that ran past its limit is kept too (`None`) for
/// [`COUNT_TTL`]: it would again meanwhile, but a busy moment must not keep a file's count
/// away for as long as the file is unchanged.
struct Counts {
    kept: Vec<(String, i64, Option<i64>, Instant)>,
    /// How long a timed-out count is kept.
    retry: Duration,
}

impl Default for Counts {
    fn default() -> Counts {
        Counts {
            kept: Vec::new(),
            retry: COUNT_TTL,
        }
    }
}

/// Counts a connection keeps (the oldest goes first).
const COUNTS_KEPT: usize = 32;

/// The longest statement-and-parameters key kept: a count of a long `where` value (a request
/// may hold megabytes) is made each time rather than held.
const COUNT_KEY_MAX: usize = 1024;

impl Counts {
    /// `count` of the statement `key` at the file's current version: kept, or run and kept;
    /// `None` when it was interrupted at its time limit.
    fn get_or(
        &mut self,
        db: &Connection,
        key: String,
        count: impl FnOnce() -> rusqlite::Result<i64>,
    ) -> rusqlite::Result<Option<i64>> {
        let version: i64 = db.query_row("PRAGMA data_version", [], |r| r.get(0))?;
        let retry = self.retry;
        if let Some(&(_, _, n, _)) = self.kept.iter().find(|(k, v, n, at)| {
            *v == version && *k == key && (n.is_some() || at.elapsed() < retry)
        }) {
            return Ok(n);
        }
        let n = match count() {
            Ok(n) => Some(n),
            Err(rusqlite::Error::SqliteFailure(f, _))
                if f.code == rusqlite::ErrorCode::OperationInterrupted =>
            {
                None
            }
            Err(e) => return Err(e),
        };
        if key.len() > COUNT_KEY_MAX {
            return Ok(n);
        }
        self.kept.retain(|(k, _, _, _)| *k != key);
        if self.kept.len() == COUNTS_KEPT {
            self.kept.remove(0);
        }
        self.kept.push((key, version, n, Instant::now()));
        Ok(n)
    }
}

/// What a table needs at start-up.
pub(crate) struct Options<'a> {
    pub(crate) path: &'a str,
    pub(crate) table: &'a str,
    /// The presenter's `"key"`, when it names one.
    pub(crate) key: Option<&'a str>,
    /// Connections at most (the concurrent-call bound).
    pub(crate) pool: usize,
    pub(crate) statement_timeout: Duration,
}

fn unavailable(e: rusqlite::Error) -> SourceError {
    if let rusqlite::Error::SqliteFailure(f, _) = &e {
        if f.code == rusqlite::ErrorCode::OperationInterrupted {
            return SourceError::Timeout;
        }
    }
    SourceError::Unavailable(e.to_string())
}

impl SqliteTable {
    /// Opens `o.path` and reads the table's columns and key. Errors are one line for the
    /// operator (exit 3).
    pub(crate) fn open(o: Options<'_>) -> Result<SqliteTable, String> {
        let describe = format!("sqlite://{}#{}", o.path, o.table);
        let (schema, table) = split_table(o.table);
        let from = match schema {
            Some(s) => format!("{}.{}", quote_ident(s), quote_ident(table)),
            None => quote_ident(table),
        };
        let pool = Pool::new(o.pool);
        let first = open_conn(o.path).map_err(|e| format!("{describe}: {}", e.message()))?;
        let mut columns = Vec::new();
        let mut pk = Vec::new();
        {
            let mut stmt = first
                .db
                .prepare("SELECT name, type, pk FROM pragma_table_info(?1, ?2) ORDER BY cid")
                .map_err(|e| format!("{describe}: {e}"))?;
            let mut rows = stmt
                .query(rusqlite::params![table, schema.unwrap_or("main")])
                .map_err(|e| format!("{describe}: {e}"))?;
            while let Some(r) = rows.next().map_err(|e| format!("{describe}: {e}"))? {
                let name: String = r.get(0).map_err(|e| format!("{describe}: {e}"))?;
                let declared: String = r.get(1).unwrap_or_default();
                let in_pk: i64 = r.get(2).unwrap_or(0);
                let upper = declared.to_ascii_uppercase();
                let kind = if upper.contains("BOOL") {
                    Kind::Bool
                } else if upper.contains("JSON") {
                    Kind::Json
                } else {
                    Kind::Plain
                };
                if in_pk > 0 {
                    pk.push(name.clone());
                }
                columns.push(Column { name, kind });
            }
        }
        if columns.is_empty() {
            return Err(format!(
                "{describe}: no table or view {} in {}",
                o.table, o.path
            ));
        }
        let key = match o.key {
            Some(k) if columns.iter().any(|c| c.name == k) => k.to_owned(),
            Some(k) => {
                return Err(format!(
                    "{describe}: the presenter's key '{k}' is not a column of {}",
                    o.table
                ));
            }
            None if pk.len() == 1 => pk.remove(0),
            None => {
                return Err(format!(
                    "{describe}: table {} has no single-column primary key; give its presenter a \"key\" naming a unique column",
                    o.table
                ));
            }
        };
        let exprs = columns.iter().map(json_expr).collect();
        let t = SqliteTable {
            path: o.path.to_owned(),
            describe,
            from,
            columns,
            key,
            exprs,
            pool,
            statement_timeout: o.statement_timeout,
        };
        t.pool.put(first, true);
        Ok(t)
    }

    /// A pooled connection to the file PATH names now: a connection holds the file it
    /// opened, so once PATH names another file (or none), the connection is dropped and PATH
    /// opened again: a replaced file is served and a removed one is UNAVAILABLE until it is
    /// back.
    fn take(&self) -> Result<Conn, SourceError> {
        self.pool.take(
            |c| {
                let now = file_id(&self.path);
                now.is_some() && now == c.file
            },
            || open_conn(&self.path),
        )
    }

    /// Runs `f` on a pooled connection with the deadline `within` from now. A connection
    /// whose statement failed for another reason than its time limit is closed, not pooled.
    fn with_conn<T>(
        &self,
        within: Duration,
        f: impl FnOnce(&mut Conn) -> Result<T, rusqlite::Error>,
    ) -> Result<T, SourceError> {
        let mut c = self.take()?;
        if let Ok(mut d) = c.deadline.lock() {
            *d = Some(Instant::now() + within);
        }
        let r = f(&mut c);
        if let Ok(mut d) = c.deadline.lock() {
            *d = None;
        }
        match r {
            Ok(v) => {
                self.pool.put(c, false);
                Ok(v)
            }
            Err(e) => {
                let e = unavailable(e);
                if matches!(e, SourceError::Timeout) {
                    self.pool.put(c, false);
                } else {
                    drop(c);
                    self.pool.discard();
                }
                Err(e)
            }
        }
    }

    fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// `WHERE` conditions of `filter` and `after`, with their parameters.
    fn conditions(
        &self,
        filter: &[(String, Scalar)],
        after: Option<&Scalar>,
        params: &mut Vec<Sql>,
    ) -> String {
        let mut w = Vec::new();
        for (name, v) in filter {
            // `args` checked the names against the columns; an unknown one matches nothing.
            let Some(c) = self.column(name) else {
                w.push("0".to_owned());
                continue;
            };
            w.push(equals(c, v, params));
        }
        if let Some(a) = after {
            params.push(bind(a));
            w.push(format!("{} > ?{}", quote_ident(&self.key), params.len()));
        }
        if w.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", w.join(" AND "))
        }
    }

    fn object_expr(&self, columns: Option<&[String]>) -> String {
        let mut args = Vec::new();
        for (c, e) in self.columns.iter().zip(&self.exprs) {
            let wanted = columns.is_none_or(|cs| cs.contains(&c.name));
            if wanted || c.name == self.key {
                args.push(format!("{}, {e}", sql_string(&c.name)));
            }
        }
        format!("json_object({})", args.join(", "))
    }
}

impl Backend for SqliteTable {
    fn columns(&self) -> &[Column] {
        &self.columns
    }

    fn key(&self) -> &str {
        &self.key
    }

    fn describe(&self) -> &str {
        &self.describe
    }

    fn rows(
        &self,
        q: &PageQuery<'_>,
        each: &mut dyn FnMut(&[u8], &str) -> bool,
    ) -> Result<(), SourceError> {
        let mut params = Vec::new();
        let cond = self.conditions(q.filter, q.after, &mut params);
        let key = quote_ident(&self.key);
        let key_expr = &self.exprs[self
            .columns
            .iter()
            .position(|c| c.name == self.key)
            .unwrap_or(0)];
        let limit = i64::try_from(q.limit.saturating_add(1)).unwrap_or(i64::MAX);
        params.push(Sql::Integer(limit));
        params.push(Sql::Integer(i64::try_from(q.offset).unwrap_or(i64::MAX)));
        let sql = format!(
            "SELECT {}, json_array({key_expr}) FROM {}{cond} ORDER BY {key} LIMIT ?{} OFFSET ?{}",
            self.object_expr(q.columns),
            self.from,
            params.len() - 1,
            params.len()
        );
        let timeout = self.statement_timeout;
        self.with_conn(timeout, |c| {
            let mut stmt = c.db.prepare_cached(&sql)?;
            let mut rows = stmt.query(rusqlite::params_from_iter(params.iter()))?;
            let mut read = 0usize;
            while let Some(r) = rows.next()? {
                // `[key]`: the key's JSON text between the brackets.
                let k = r.get_ref(1)?.as_str().unwrap_or("[null]");
                if !each(
                    r.get_ref(0)?.as_bytes().unwrap_or(b"null"),
                    &k[1..k.len() - 1],
                ) {
                    break;
                }
                read += 1;
                // The time limit is the database's: a batch's, not the reader's of a long
                // page (a streamed page waits for its client after a batch).
                if read % STREAM_BATCH == 0 {
                    if let Ok(mut d) = c.deadline.lock() {
                        *d = Some(Instant::now() + timeout);
                    }
                }
            }
            Ok(())
        })
    }

    fn get(&self, id: &Scalar) -> Result<Option<Vec<u8>>, SourceError> {
        let key = quote_ident(&self.key);
        // As `scalar::key_equals`: equal by the `where` rules, or a string id equal to an
        // integer key's digits, or an integer id equal to a text key. Each branch is an
        // equality on the key, so SQLite looks it up in the key's index (a `CAST` of the
        // key would scan the table).
        let (params, cond) = match id {
            Scalar::String(s) => {
                let text = format!("({key} = ?1 COLLATE BINARY AND typeof({key}) = 'text')");
                match s.parse::<i64>() {
                    Ok(n) if is_integer_lexeme(s) => (
                        vec![Sql::Text(s.clone()), Sql::Integer(n)],
                        format!("{text} OR ({key} = ?2 AND typeof({key}) = 'integer')"),
                    ),
                    _ => (vec![Sql::Text(s.clone())], text),
                }
            }
            Scalar::Number(n) => (
                vec![bind(id), Sql::Text(n.clone())],
                format!(
                    "({key} = ?1 AND typeof({key}) IN ('integer', 'real')) OR ({key} = ?2 COLLATE BINARY AND typeof({key}) = 'text')"
                ),
            ),
            Scalar::Null | Scalar::Bool(_) => return Ok(None),
        };
        let sql = format!(
            "SELECT {} FROM {} WHERE {cond} LIMIT 1",
            self.object_expr(None),
            self.from
        );
        self.with_conn(self.statement_timeout, |c| {
            let mut stmt = c.db.prepare_cached(&sql)?;
            let mut rows = stmt.query(rusqlite::params_from_iter(params.iter()))?;
            match rows.next()? {
                Some(r) => Ok(r.get_ref(0)?.as_bytes().ok().map(<[u8]>::to_vec)),
                None => Ok(None),
            }
        })
    }

    fn count(
        &self,
        filter: &[(String, Scalar)],
        after: Option<&Scalar>,
        within: Duration,
    ) -> Result<Count, SourceError> {
        let mut params = Vec::new();
        let cond = self.conditions(filter, after, &mut params);
        let sql = format!("SELECT count(*) FROM {}{cond}", self.from);
        let key = format!("{sql}\0{params:?}");
        match self.with_conn(within.min(self.statement_timeout), |c| {
            let Conn { db, counts, .. } = c;
            counts.get_or(db, key, || {
                let mut stmt = db.prepare_cached(&sql)?;
                stmt.query_row(rusqlite::params_from_iter(params.iter()), |r| {
                    r.get::<_, i64>(0)
                })
            })
        }) {
            Ok(Some(n)) => Ok(Count::Exact(u64::try_from(n).unwrap_or(0))),
            Ok(None) | Err(SourceError::Timeout) => Ok(Count::TimedOut),
            Err(e) => Err(e),
        }
    }
}

/// What makes a file the same file: its device and inode.
type FileId = (u64, u64);

#[cfg(unix)]
fn file_id(path: &str) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Without inodes, the file is taken to be the same while it exists.
#[cfg(not(unix))]
fn file_id(path: &str) -> Option<FileId> {
    std::fs::metadata(path).ok().map(|_| (0, 0))
}

/// Each connection's page cache, in KiB (`cache_size`, negative): 512 KiB, not SQLite's
/// 2 MiB. The file's pages stay in the system's cache, which the connections share; their
/// own caches were a third of the server's memory under 16 clients (1M rows: peak RSS 100
/// → 76 MiB, the same requests a second).
const CACHE_KIB: i64 = -512;

fn open_conn(path: &str) -> Result<Conn, SourceError> {
    let file = file_id(path);
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let db = Connection::open_with_flags(path, flags).map_err(unavailable)?;
    db.pragma_update(None, "query_only", true)
        .map_err(unavailable)?;
    db.pragma_update(None, "cache_size", CACHE_KIB)
        .map_err(unavailable)?;
    add_functions(&db).map_err(unavailable)?;
    let deadline: Arc<Mutex<Option<Instant>>> = Arc::new(Mutex::new(None));
    let d = Arc::clone(&deadline);
    // Every 1000 virtual machine steps: past the deadline, the statement is interrupted.
    db.progress_handler(
        1000,
        Some(move || {
            d.lock()
                .ok()
                .and_then(|d| *d)
                .is_some_and(|d| Instant::now() > d)
        }),
    );
    Ok(Conn {
        db,
        file,
        deadline,
        counts: Counts::default(),
    })
}

/// `toolwire_real(x)`: the JSON text of the REAL `x`, its shortest round-trip digits as
/// WIRE.md §1.3 prints numbers (`null` for an infinity).
fn add_functions(db: &Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    db.create_scalar_function(
        "toolwire_real",
        1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let x: f64 = ctx.get(0)?;
            if !x.is_finite() {
                return Ok("null".to_owned());
            }
            if x == 0.0 {
                // Both zeros: WIRE.md §1.3 prints `-0` as `0`.
                return Ok("0".to_owned());
            }
            Ok(ryu_js::Buffer::new().format_finite(x).to_owned())
        },
    )
}

/// `s` as an SQL string literal (for column names as `json_object` keys; they come from
/// the database's own catalogue).
fn sql_string(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The JSON value of column `c` inside `json_object`.
fn json_expr(c: &Column) -> String {
    let q = quote_ident(&c.name);
    // A double as its shortest round-trip digits; infinities as null.
    let real = format!("json(toolwire_real({q}))");
    match c.kind {
        Kind::Plain => format!(
            "CASE typeof({q}) WHEN 'real' THEN {real} WHEN 'blob' THEN hex({q}) ELSE {q} END"
        ),
        Kind::Bool => format!(
            "CASE typeof({q}) WHEN 'integer' THEN json(CASE WHEN {q} THEN 'true' ELSE 'false' END) WHEN 'real' THEN json(CASE WHEN {q} THEN 'true' ELSE 'false' END) WHEN 'blob' THEN hex({q}) ELSE {q} END"
        ),
        Kind::Json => format!(
            "CASE typeof({q}) WHEN 'text' THEN (CASE WHEN json_valid({q}) THEN json({q}) ELSE {q} END) WHEN 'real' THEN {real} WHEN 'blob' THEN hex({q}) ELSE {q} END"
        ),
    }
}

/// A client scalar as an SQLite value: integers that fit as INTEGER, other numbers as REAL,
/// booleans as 0/1.
fn bind(v: &Scalar) -> Sql {
    match v {
        Scalar::Null => Sql::Null,
        Scalar::Bool(b) => Sql::Integer(i64::from(*b)),
        Scalar::Number(n) => match n.parse::<i64>() {
            Ok(i) if is_integer_lexeme(n) || n == "-0" => Sql::Integer(i),
            _ => Sql::Real(n.parse::<f64>().unwrap_or(f64::NAN)),
        },
        Scalar::String(s) => Sql::Text(s.clone()),
    }
}

/// The condition "column `c` equals `v`" by the server's rules (`scalar::field_equals`):
/// strings exactly (binary collation, text only), numbers by value (numbers only), booleans
/// only in BOOLEAN columns, null as null. SQLite's type affinity would otherwise make the
/// string `'5'` equal the integer 5.
fn equals(c: &Column, v: &Scalar, params: &mut Vec<Sql>) -> String {
    let q = quote_ident(&c.name);
    if let Scalar::Null = v {
        return format!("{q} IS NULL");
    }
    if c.kind == Kind::Json {
        // The value as JSON text against the column's JSON (minified by `json`).
        params.push(Sql::Text(v.to_json().to_string()));
        return format!(
            "(typeof({q}) = 'text' AND json_valid({q}) AND json({q}) = json(?{}))",
            params.len()
        );
    }
    match (v, c.kind) {
        (Scalar::Bool(b), Kind::Bool) => {
            params.push(Sql::Integer(i64::from(*b)));
            format!(
                "(typeof({q}) IN ('integer', 'real') AND ({q} != 0) = ?{})",
                params.len()
            )
        }
        (Scalar::Bool(_), _) | (Scalar::Number(_), Kind::Bool) => "0".to_owned(),
        (Scalar::Number(_), _) => {
            let b = bind(v);
            if matches!(b, Sql::Real(f) if !f.is_finite()) {
                return "0".to_owned();
            }
            params.push(b);
            format!(
                "(typeof({q}) IN ('integer', 'real') AND {q} = ?{})",
                params.len()
            )
        }
        (Scalar::String(s), _) => {
            params.push(Sql::Text(s.clone()));
            format!(
                "(typeof({q}) = 'text' AND {q} = ?{} COLLATE BINARY)",
                params.len()
            )
        }
        (Scalar::Null, _) => unreachable!("null handled above"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A count is kept while the file's version holds, at most `COUNTS_KEPT` of them, and
    /// never one whose key is long (a client's `where` value could be megabytes).
    #[test]
    fn counts_are_kept_bounded() {
        let db = Connection::open_in_memory().unwrap();
        let mut counts = Counts::default();
        assert_eq!(counts.get_or(&db, "a".into(), || Ok(5)).unwrap(), Some(5));
        assert_eq!(counts.get_or(&db, "a".into(), || Ok(6)).unwrap(), Some(5));
        let long = "x".repeat(COUNT_KEY_MAX + 1);
        assert_eq!(counts.get_or(&db, long.clone(), || Ok(1)).unwrap(), Some(1));
        assert_eq!(counts.get_or(&db, long, || Ok(2)).unwrap(), Some(2));
        // A count interrupted at its limit is kept as such; another error is not kept.
        let interrupted = || {
            Err(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_INTERRUPT),
                None,
            ))
        };
        assert_eq!(
            counts.get_or(&db, "slow".into(), interrupted).unwrap(),
            None
        );
        assert_eq!(counts.get_or(&db, "slow".into(), || Ok(7)).unwrap(), None);
        // ... for a while: then it is tried again.
        let mut soon = Counts {
            kept: Vec::new(),
            retry: Duration::from_millis(200),
        };
        assert_eq!(soon.get_or(&db, "slow".into(), interrupted).unwrap(), None);
        assert_eq!(soon.get_or(&db, "slow".into(), || Ok(7)).unwrap(), None);
        std::thread::sleep(Duration::from_millis(250));
        assert_eq!(soon.get_or(&db, "slow".into(), || Ok(7)).unwrap(), Some(7));
        assert!(
            counts
                .get_or(&db, "bad".into(), || Err(rusqlite::Error::InvalidQuery))
                .is_err()
        );
        assert_eq!(counts.get_or(&db, "bad".into(), || Ok(3)).unwrap(), Some(3));
        for i in 0..100 {
            counts.get_or(&db, format!("k{i}"), || Ok(i)).unwrap();
        }
        assert_eq!(counts.kept.len(), COUNTS_KEPT);
        assert!(counts.kept.iter().all(|(k, ..)| k.len() <= COUNT_KEY_MAX));
    }

    /// Every double leaves SQLite as text that reads back as the same double (SQLite's own
    /// JSON and printf renderings do not: `0.1+0.2`, `1e300`).
    #[test]
    fn reals_round_trip() {
        let db = Connection::open_in_memory().unwrap();
        add_functions(&db).unwrap();
        let c = Column {
            name: "x".into(),
            kind: Kind::Plain,
        };
        let sql = format!(
            "SELECT json_object('x', {}) FROM (SELECT ?1 AS x)",
            json_expr(&c)
        );
        let mut stmt = db.prepare(&sql).unwrap();
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut values = vec![
            0.1 + 0.2,
            1e300,
            5e-324,
            -5e-324,
            2.225_073_858_507_201_4e-308,
            f64::MAX,
            f64::MIN_POSITIVE,
            0.1,
            1.0 / 3.0,
            123_456_789.123_456_79,
            -0.0,
            5.0,
            9_007_199_254_740_993.0,
        ];
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let f = f64::from_bits(seed);
            if f.is_finite() {
                values.push(f);
            }
        }
        for v in values {
            let text: String = stmt.query_row([v], |r| r.get(0)).unwrap();
            let inner = &text[5..text.len() - 1];
            let back: f64 = inner.parse().unwrap_or_else(|_| panic!("{v:e}: {text}"));
            // By value: `-0` prints `0` (WIRE.md §1.3); every other double bit for bit.
            assert!(back == v, "{v:e} rendered {text}");
        }
    }
}
