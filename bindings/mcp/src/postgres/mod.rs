//! PostgreSQL tables (`NAME=postgres://USER@HOST:PORT/DB#TABLE`, also `postgresql://`,
//! SERVE.md §7), through two clients of one library: a page read whole over HTTP through
//! tokio-postgres on the server's runtime ([`Backend::page_async`]: the call waits for the
//! database as a task, with no thread of its own), everything else (streamed pages, stdio,
//! `get`) through `postgres`, its blocking client, and `source::Pool`. Both take their turns
//! at one [`Gate`].
//!
//! Every new connection is set read-only (`default_transaction_read_only`) with the
//! statement timeout for the session, so a page or `get` is one statement in one round trip
//! (its parameters typed as text, prepared once a connection); a count, with its
//! own shorter limit, runs in a transaction of its own with `SET LOCAL statement_timeout`.
//! Statements are only the SELECTs written here. Rows leave PostgreSQL as JSON text
//! (`row_to_json`), one text a row, handed to the caller; a page of 1000 rows or more is read
//! from a portal 1000 rows at a time, the next batch fetched while the caller takes one. Types: integers exactly (bigint's
//! digits), `numeric` as the nearest f64 (cast to `float8`, whose text is its shortest
//! round-trip digits), booleans, text, timestamps and other types as the strings `to_json`
//! gives, json/jsonb as values, `bytea` as its `\x…` hex string.
//!
//! The password comes from the URL or `PGPASSWORD` and is never printed: messages name the
//! table as `postgres://USER@HOST:PORT/DB#TABLE`. A call that finds its connection's server
//! gone closes the idle connections and runs again on a new one, so the server recovers by
//! itself when the database is back. Each connection keeps the statements it prepared (at most
//! [`STATEMENTS_KEPT`]): PostgreSQL parses and plans a page's statement once a connection.
//!
//! `live.rs` holds the connections of the server's runtime, `member.rs` reads a page's keys
//! from its rows' JSON.

use std::collections::HashMap;
use std::str::FromStr;
use std::time::Duration;

use postgres::types::{ToSql, Type};
use postgres::{Client, NoTls, Row, Statement};

use crate::scalar::{Scalar, is_integer_lexeme};
use crate::source::{
    Backend, Column, Count, CountCache, Gate, Kind, Page, PageQuery, Pending, Pool, SourceError,
    quote_ident, split_table, without_password,
};

mod live;
mod member;

use live::{Idle, Live, Running, lock};
use member::member;

/// How a column compares and is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cat {
    /// smallint, integer, bigint.
    Int,
    /// real, double precision.
    Float,
    /// numeric: written and compared as the nearest f64.
    Numeric,
    Bool,
    /// text, varchar, char, name, citext.
    Text,
    /// json, jsonb.
    Json,
    /// Anything else: compared by its JSON (`to_jsonb`).
    Other,
}

/// A served PostgreSQL table.
pub(crate) struct PgTable {
    describe: String,
    from: String,
    columns: Vec<Column>,
    cats: Vec<Cat>,
    /// The declared type of each column (`format_type`), for casts of keys.
    types: Vec<String>,
    key: String,
    key_at: usize,
    /// The key's name as a JSON string (how a row's JSON names it).
    key_json: String,
    /// How to connect (the password in it), and what a new session runs first.
    config: postgres::Config,
    session: String,
    pool: Pool<Conn>,
    /// The same, for the connections of the server's runtime ([`Backend::page_async`]): at
    /// most one a turn at the gate is taken (a task takes its turn first), idle ones here.
    live_config: tokio_postgres::Config,
    live: Idle,
    /// Idle connections of `live` kept at most: one a turn at the gate.
    live_keep: usize,
    /// Statements at once: fewer than the connections (a streamed page holds its connection
    /// while its client reads, but its turn only while a batch is fetched).
    gate: Gate,
    statement_timeout: Duration,
    /// Counts made lately: PostgreSQL has no cheap sign of an unchanged table, so a count is
    /// reused for a while as "about" (`CountCache`).
    counts: CountCache,
}

impl Drop for PgTable {
    fn drop(&mut self) {
        // A connection runs a small runtime of its own, which must not be dropped on an async
        // thread (the server may drop the table on one): the idle ones close on a thread.
        let idle = self.pool.drain();
        if !idle.is_empty() {
            let _ = std::thread::spawn(move || drop(idle)).join();
        }
    }
}

/// Statements a connection keeps prepared. A table's statements differ by their `where`
/// columns and `_select`, so a client could make many: past this many, a connection forgets
/// them all and prepares again.
const STATEMENTS_KEPT: usize = 64;

/// A pooled connection and the statements it prepared, by SQL text.
struct Conn {
    client: Client,
    prepared: HashMap<String, Statement>,
}

impl Conn {
    /// `sql` prepared on this connection, its `params` parameters typed as text.
    fn statement(&mut self, sql: &str, params: usize) -> Result<Statement, postgres::Error> {
        if let Some(s) = self.prepared.get(sql) {
            return Ok(s.clone());
        }
        if self.prepared.len() >= STATEMENTS_KEPT {
            self.prepared.clear();
        }
        let s = self.client.prepare_typed(sql, &vec![Type::TEXT; params])?;
        self.prepared.insert(sql.to_owned(), s.clone());
        Ok(s)
    }
}

/// What a table needs at start-up.
pub(crate) struct Options<'a> {
    /// `postgres://…` without `#TABLE`.
    pub(crate) url: &'a str,
    pub(crate) table: &'a str,
    pub(crate) key: Option<&'a str>,
    pub(crate) pool: usize,
    /// Statements at once at most.
    pub(crate) statements: usize,
    pub(crate) statement_timeout: Duration,
}

/// Rows a page reads from its portal at a time.
const PORTAL_ROWS: i32 = crate::source::BATCH_ROWS as i32;

fn classify(e: &postgres::Error) -> SourceError {
    if let Some(db) = e.as_db_error() {
        if db.code() == &postgres::error::SqlState::QUERY_CANCELED {
            return SourceError::Timeout;
        }
        // The server's own message (it never holds the password).
        return SourceError::Unavailable(format!("{}: {}", db.code().code(), db.message()));
    }
    // The client's own words (`error connecting to server`) with their causes (`Connection
    // refused`): I/O and protocol errors, which hold no password.
    let mut m = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        m.push_str(": ");
        m.push_str(&c.to_string());
        cause = c.source();
    }
    SourceError::Unavailable(m)
}

/// `params` as the text values of a statement's parameters.
fn refs(params: &[String]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

/// A data exception (class 22: a value that does not convert): the call matches nothing.
fn is_data_exception(e: &postgres::Error) -> bool {
    e.as_db_error()
        .is_some_and(|d| d.code().code().starts_with("22"))
}

impl PgTable {
    /// Connects and reads the table's columns and key. Errors are one line for the operator
    /// (exit 3), without the password.
    pub(crate) fn open(o: Options<'_>) -> Result<PgTable, String> {
        let describe = format!("{}#{}", without_password(o.url), o.table);
        let mut config = tokio_postgres::Config::from_str(o.url)
            .map_err(|_| format!("{describe}: not a PostgreSQL URL"))?;
        if config.get_password().is_none() {
            if let Ok(p) = std::env::var("PGPASSWORD") {
                config.password(p);
            }
        }
        config.connect_timeout(Duration::from_secs(5));
        config.application_name("toolwire serve");
        let live_config = config.clone();
        let config = postgres::Config::from(config);
        // Read-only and time-limited for the whole session, set once a connection: every
        // statement, in a transaction or not, is read-only and stops at the limit. (A `SET`,
        // not startup `options`, which a connection pooler may refuse.)
        let session = format!(
            "SET default_transaction_read_only = on; SET statement_timeout = {}",
            o.statement_timeout.as_millis().max(1)
        );
        let mut first =
            connect(&config, &session).map_err(|e| format!("{describe}: {}", e.message()))?;
        let (schema, table) = split_table(o.table);
        let from = match schema {
            Some(s) => format!("{}.{}", quote_ident(s), quote_ident(table)),
            None => quote_ident(table),
        };
        let client = &mut first.client;
        let (cols, pk) = (|| {
            let rel = client
                .query_opt("SELECT to_regclass($1)::oid", &[&from])
                .map_err(|e| classify(&e).message())?
                .and_then(|r| r.get::<_, Option<u32>>(0))
                .ok_or_else(|| format!("no table or view {}", o.table))?;
            let cols = client
                .query(
                    "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), t.typname::text
                     FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
                     WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped
                     ORDER BY a.attnum",
                    &[&rel],
                )
                .map_err(|e| classify(&e).message())?;
            let pk = client
                .query(
                    "SELECT a.attname::text FROM pg_index i
                     JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
                     WHERE i.indrelid = $1 AND i.indisprimary",
                    &[&rel],
                )
                .map_err(|e| classify(&e).message())?;
            let cols: Vec<(String, String, String)> = cols
                .iter()
                .map(|r| (r.get(0), r.get(1), r.get(2)))
                .collect();
            let pk: Vec<String> = pk.iter().map(|r| r.get(0)).collect();
            Ok::<_, String>((cols, pk))
        })()
        .map_err(|e| format!("{describe}: {e}"))?;
        let mut columns = Vec::new();
        let mut cats = Vec::new();
        let mut types = Vec::new();
        for (name, declared, typname) in cols {
            cats.push(match typname.as_str() {
                "int2" | "int4" | "int8" => Cat::Int,
                "float4" | "float8" => Cat::Float,
                "numeric" => Cat::Numeric,
                "bool" => Cat::Bool,
                "text" | "varchar" | "bpchar" | "name" | "citext" => Cat::Text,
                "json" | "jsonb" => Cat::Json,
                _ => Cat::Other,
            });
            types.push(declared);
            columns.push(Column {
                name,
                kind: Kind::Plain,
            });
        }
        let key = match o.key {
            Some(k) if columns.iter().any(|c| c.name == k) => k.to_owned(),
            Some(k) => {
                return Err(format!(
                    "{describe}: the presenter's key '{k}' is not a column of {}",
                    o.table
                ));
            }
            None if pk.len() == 1 => pk[0].clone(),
            None => {
                return Err(format!(
                    "{describe}: table {} has no single-column primary key; give its presenter a \"key\" naming a unique column",
                    o.table
                ));
            }
        };
        let key_at = columns.iter().position(|c| c.name == key).unwrap_or(0);
        let t = PgTable {
            describe,
            from,
            columns,
            cats,
            types,
            key_json: serde_json::Value::from(key.as_str()).to_string(),
            key,
            key_at,
            config,
            session,
            pool: Pool::new(o.pool),
            live_config,
            live: Idle::default(),
            live_keep: o.statements.max(1),
            gate: Gate::new(o.statements),
            statement_timeout: o.statement_timeout,
            counts: CountCache::default(),
        };
        t.pool.put(first, true);
        Ok(t)
    }

    /// Runs `f` on a pooled connection. A connection whose statement failed is put back with
    /// no statement kept (a table changed under a prepared one fails it once), or closed when
    /// the failure closed it. An idle connection learns that its server went away only when
    /// used: when that is what failed `f`, the idle ones are closed too, and when `f` handed
    /// nothing out yet (`fresh`), it runs once more on a new connection, so a database that
    /// restarted fails no call.
    fn with_conn<T>(
        &self,
        fresh: &dyn Fn() -> bool,
        mut f: impl FnMut(&mut Conn) -> Result<T, postgres::Error>,
    ) -> Result<T, QueryError> {
        let mut again = true;
        loop {
            let mut c = self
                .pool
                .take(
                    |c| !c.client.is_closed(),
                    || connect(&self.config, &self.session),
                )
                .map_err(QueryError::Source)?;
            match f(&mut c) {
                Ok(v) => {
                    self.pool.put(c, false);
                    return Ok(v);
                }
                Err(e) if c.client.is_closed() || ends_session(&e) => {
                    // The idle connections most likely lost their server too (a restart):
                    // closed with this one, not found one by one by the next calls.
                    drop(c);
                    self.pool.discard();
                    drop(self.pool.drain());
                    if !std::mem::take(&mut again) || !fresh() {
                        return Err(QueryError::from(e));
                    }
                }
                Err(e) => {
                    c.prepared.clear();
                    self.pool.put(c, false);
                    return Err(QueryError::from(e));
                }
            }
        }
    }

    /// Runs `sql` with text `params` as one statement in one round trip, under the session's
    /// read-only default and statement timeout: the rows' first column as text.
    fn query(&self, sql: &str, params: &[String]) -> Result<Vec<String>, QueryError> {
        let _turn = self.gate.enter();
        self.with_conn(&|| true, |c| {
            let st = c.statement(sql, params.len())?;
            let rows = c.client.query(&st, &refs(params))?;
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })
    }

    /// Runs `sql` with text `params` in a read-only transaction under `timeout` (a count's
    /// limit, shorter than the session's): the rows' first column as text.
    fn query_within(
        &self,
        sql: &str,
        params: &[String],
        timeout: Duration,
    ) -> Result<Vec<String>, QueryError> {
        let _turn = self.gate.enter();
        self.with_conn(&|| true, |c| {
            let st = c.statement(sql, params.len())?;
            let mut tx = c.client.build_transaction().read_only(true).start()?;
            tx.batch_execute(&format!(
                "SET LOCAL statement_timeout = {}",
                timeout.as_millis().max(1)
            ))?;
            let rows = tx.query(&st, &refs(params))?;
            tx.commit()?;
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })
    }

    /// Runs `sql` with text `params` on a connection of the server's runtime, after waiting
    /// for a turn at the gate: as [`query`](Self::query) does, or as
    /// [`query_within`](Self::query_within) does with `within`. Failures are handled as
    /// [`with_conn`](Self::with_conn) handles them (a restarted database fails no call).
    async fn query_live(
        &self,
        sql: &str,
        params: &[String],
        within: Option<Duration>,
    ) -> Result<Vec<Row>, QueryError> {
        let _turn = self.gate.turn().await;
        let mut again = true;
        loop {
            let idle = {
                let mut idle = lock(&self.live);
                std::iter::from_fn(|| idle.pop()).find(|c| !c.client.is_closed())
            };
            let c = match idle {
                Some(c) => c,
                None => Live::connect(&self.live_config, &self.session)
                    .await
                    .map_err(QueryError::Source)?,
            };
            let (mut c, ran) = Running::start(c, sql, params, within, &self.live, self.live_keep)
                .answer()
                .await;
            let put = |c: Live| lock(&self.live).push(c);
            match ran {
                Ok(rows) => {
                    put(c);
                    return Ok(rows);
                }
                Err(e) if c.client.is_closed() || ends_session(&e) => {
                    // The idle ones most likely lost their server too.
                    lock(&self.live).clear();
                    if !std::mem::take(&mut again) {
                        return Err(QueryError::from(e));
                    }
                }
                Err(e) => {
                    c.prepared.clear();
                    put(c);
                    return Err(QueryError::from(e));
                }
            }
        }
    }

    /// What counting `sql` with `params` found (`ran`: the count's text read as a number),
    /// kept a while (`CountCache`): past its limit `TimedOut`, a value the column cannot
    /// hold 0.
    fn counted(
        &self,
        sql: &str,
        params: &[String],
        ran: Result<Option<u64>, QueryError>,
    ) -> Result<Count, SourceError> {
        let made = match ran {
            Ok(n) => n,
            Err(QueryError::Source(SourceError::Timeout)) => None,
            Err(QueryError::Data) => Some(0),
            Err(QueryError::Source(e)) => return Err(e),
        };
        self.counts.put(sql, params, made);
        Ok(made.map_or(Count::TimedOut, Count::Exact))
    }

    /// The statement of a page of `q` and its text parameters: the rows as JSON text, at
    /// most `q.limit + 1` of them. The limit is written into the statement (a number the
    /// server formats, never a client's text): PostgreSQL plans a statement with a known
    /// limit once a connection, where a limit it cannot see made it plan every call again
    /// (pgbench, the bench's page: 17.2–17.5k against 13.4–14.5k tps). An offset, rare
    /// (keyset cursors start after a key), stays a parameter, so each one is not a statement
    /// of its own.
    fn page_sql(&self, q: &PageQuery<'_>) -> (String, Vec<String>) {
        let mut params = Vec::new();
        let cond = self.conditions(q.filter, q.after, &mut params);
        let limit = q.limit.saturating_add(1).min(i64::MAX as usize);
        let offset = match q.offset.min(i64::MAX as usize) {
            0 => String::new(),
            n => {
                params.push(n.to_string());
                format!(" OFFSET (${}::text)::int8", params.len())
            }
        };
        let key = quote_ident(&self.key);
        let sql = format!(
            "SELECT row_to_json(r)::text FROM (SELECT {} FROM {}{cond} ORDER BY {} LIMIT {limit}{offset}) r",
            self.select_list(q.columns),
            self.from,
            match self.cats[self.key_at] {
                Cat::Numeric => format!("{key}::float8"),
                _ => key.clone(),
            },
        );
        (sql, params)
    }

    /// The key's JSON text in `row` (a row of [`page_sql`](Self::page_sql)).
    fn key_of<'a>(&self, row: &'a str) -> std::borrow::Cow<'a, str> {
        match member(row, &self.key_json) {
            Some(k) => k.into(),
            // Not reached for what PostgreSQL writes; read whole rather than guess.
            None => serde_json::from_str::<serde_json::Value>(row)
                .ok()
                .and_then(|r| r.get(&self.key).map(|k| k.to_string()))
                .unwrap_or_else(|| "null".into())
                .into(),
        }
    }

    /// The statement that counts the rows of `filter` after `after`, and its parameters.
    fn count_sql(
        &self,
        filter: &[(String, Scalar)],
        after: Option<&Scalar>,
    ) -> (String, Vec<String>) {
        let mut params = Vec::new();
        let cond = self.conditions(filter, after, &mut params);
        (
            format!("SELECT count(*)::text FROM {}{cond}", self.from),
            params,
        )
    }

    /// Runs `sql` as [`query`](Self::query) does, but reads its rows through a portal (a
    /// server-side cursor) [`PORTAL_ROWS`] at a time, handing each row's text to `each`
    /// and dropping the batch before the next: a page is never held whole. A thread of the
    /// call fetches the next batch while `each` takes this one (the database writes its JSON
    /// while the engine encodes), holding a turn at the gate only while it fetches. `each`
    /// may block (a streamed page waits for its client) and returns whether it wants more
    /// rows. The session's statement timeout applies to each fetch.
    fn query_each(
        &self,
        sql: &str,
        params: &[String],
        each: &mut dyn FnMut(&str) -> bool,
    ) -> Result<(), QueryError> {
        let handed = std::cell::Cell::new(false);
        self.with_conn(&|| !handed.get(), |c| {
            let st = c.statement(sql, params.len())?;
            let client = &mut c.client;
            let gate = &self.gate;
            std::thread::scope(|scope| {
                // One batch waits while `each` takes another: three at most are alive.
                let (batches, next) = std::sync::mpsc::sync_channel::<Vec<Row>>(1);
                let reader = scope.spawn(move || {
                    // A portal lives in a transaction (read-only and time-limited by the
                    // session).
                    let mut tx = client.build_transaction().read_only(true).start()?;
                    let portal = {
                        let _turn = gate.enter();
                        tx.bind(&st, &refs(params))?
                    };
                    loop {
                        let rows = {
                            let _turn = gate.enter();
                            tx.query_portal(&portal, PORTAL_ROWS)?
                        };
                        let last = rows.len() < PORTAL_ROWS as usize;
                        // A send that fails: `each` wanted no more.
                        if batches.send(rows).is_err() || last {
                            break;
                        }
                    }
                    tx.commit()
                });
                'read: for rows in &next {
                    for r in &rows {
                        handed.set(true);
                        if !each(r.get(0)) {
                            break 'read;
                        }
                    }
                }
                drop(next);
                reader
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
        })
    }

    fn cond_equals(&self, at: usize, v: &Scalar, params: &mut Vec<String>) -> String {
        let q = quote_ident(&self.columns[at].name);
        let bind = |s: String, params: &mut Vec<String>| {
            params.push(s);
            format!("${}::text", params.len())
        };
        match (v, self.cats[at]) {
            (Scalar::Null, _) => format!("{q} IS NULL"),
            (_, Cat::Json) => format!(
                "{q}::jsonb = ({})::jsonb",
                bind(v.to_json().to_string(), params)
            ),
            (Scalar::Number(n), Cat::Int) if is_integer_lexeme(n) => match n.parse::<i64>() {
                Ok(_) => format!("{q} = ({})::int8", bind(n.clone(), params)),
                Err(_) => "FALSE".into(),
            },
            (Scalar::Number(n), Cat::Int | Cat::Float | Cat::Numeric) => match n.parse::<f64>() {
                Ok(f) if f.is_finite() => {
                    format!("{q}::float8 = ({})::float8", bind(n.clone(), params))
                }
                _ => "FALSE".into(),
            },
            (Scalar::Bool(b), Cat::Bool) => {
                format!("{q} = ({})::bool", bind(b.to_string(), params))
            }
            (Scalar::String(s), Cat::Text) => format!("{q} = {}", bind(s.clone(), params)),
            (_, Cat::Other) => format!(
                "to_jsonb({q}) = ({})::jsonb",
                bind(v.to_json().to_string(), params)
            ),
            _ => "FALSE".into(),
        }
    }

    /// `key > after`, the bound cast to the key's type.
    fn cond_after(&self, after: &Scalar, params: &mut Vec<String>) -> String {
        let q = quote_ident(&self.key);
        let text = match after {
            Scalar::String(s) => s.clone(),
            Scalar::Number(n) => n.clone(),
            Scalar::Bool(b) => b.to_string(),
            Scalar::Null => return "FALSE".into(),
        };
        params.push(text);
        let cast = match self.cats[self.key_at] {
            Cat::Int => "int8".to_owned(),
            Cat::Float | Cat::Numeric => "float8".to_owned(),
            _ => self.types[self.key_at].clone(),
        };
        let col = match self.cats[self.key_at] {
            Cat::Numeric => format!("{q}::float8"),
            _ => q,
        };
        format!("{col} > (${}::text)::{cast}", params.len())
    }

    fn conditions(
        &self,
        filter: &[(String, Scalar)],
        after: Option<&Scalar>,
        params: &mut Vec<String>,
    ) -> String {
        let mut w = Vec::new();
        for (name, v) in filter {
            match self.columns.iter().position(|c| c.name == *name) {
                Some(at) => w.push(self.cond_equals(at, v, params)),
                None => w.push("FALSE".into()),
            }
        }
        if let Some(a) = after {
            w.push(self.cond_after(a, params));
        }
        if w.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", w.join(" AND "))
        }
    }

    /// The select list: every wanted column (the key always), numeric as float8.
    fn select_list(&self, columns: Option<&[String]>) -> String {
        let mut out = Vec::new();
        for (i, c) in self.columns.iter().enumerate() {
            if columns.is_none_or(|cs| cs.contains(&c.name)) || c.name == self.key {
                let q = quote_ident(&c.name);
                out.push(match self.cats[i] {
                    Cat::Numeric => format!("{q}::float8 AS {q}"),
                    _ => q,
                });
            }
        }
        out.join(", ")
    }
}

enum QueryError {
    Source(SourceError),
    /// A value that does not convert (class 22).
    Data,
}

impl From<postgres::Error> for QueryError {
    fn from(e: postgres::Error) -> QueryError {
        if is_data_exception(&e) {
            QueryError::Data
        } else {
            QueryError::Source(classify(&e))
        }
    }
}

/// Whether `e` ended its connection: the connection closed, or the server said so (a FATAL
/// error: terminated, shut down), which a client learns only by using the connection.
fn ends_session(e: &postgres::Error) -> bool {
    e.is_closed()
        || e.as_db_error().is_some_and(|d| {
            matches!(
                d.parsed_severity(),
                Some(postgres::error::Severity::Fatal | postgres::error::Severity::Panic)
            )
        })
}

/// A new connection, its session set read-only and time-limited.
fn connect(config: &postgres::Config, session: &str) -> Result<Conn, SourceError> {
    let mut client = config.connect(NoTls).map_err(|e| classify(&e))?;
    client.batch_execute(session).map_err(|e| classify(&e))?;
    Ok(Conn {
        client,
        prepared: HashMap::new(),
    })
}

impl Backend for PgTable {
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
        let (sql, params) = self.page_sql(q);
        let mut each = |row: &str| each(row.as_bytes(), &self.key_of(row));
        // A page of up to a portal's rows is one statement in one round trip; a longer one is
        // read from a portal, a batch at a time.
        let read = if q.limit < PORTAL_ROWS as usize {
            self.query(&sql, &params).map(|rows| {
                for row in &rows {
                    if !each(row) {
                        break;
                    }
                }
            })
        } else {
            self.query_each(&sql, &params, &mut each)
        };
        match read {
            // A `where` value the column's type cannot hold: no row matches.
            Ok(()) | Err(QueryError::Data) => Ok(()),
            Err(QueryError::Source(e)) => Err(e),
        }
    }

    fn get(&self, id: &Scalar) -> Result<Option<Vec<u8>>, SourceError> {
        // As `scalar::key_equals`: a string id with an integer key's digits, a number id
        // with a text key's text.
        let id = match (id, self.cats[self.key_at]) {
            (Scalar::String(s), Cat::Int) if is_integer_lexeme(s) => Scalar::Number(s.clone()),
            (Scalar::Number(n), Cat::Text) => Scalar::String(n.clone()),
            (Scalar::Null | Scalar::Bool(_), _) => return Ok(None),
            (other, _) => other.clone(),
        };
        let mut params = Vec::new();
        let cond = self.cond_equals(self.key_at, &id, &mut params);
        let sql = format!(
            "SELECT row_to_json(r)::text FROM (SELECT {} FROM {} WHERE {cond} LIMIT 1) r",
            self.select_list(None),
            self.from
        );
        match self.query(&sql, &params) {
            Ok(rows) => Ok(rows.into_iter().next().map(String::into_bytes)),
            Err(QueryError::Data) => Ok(None),
            Err(QueryError::Source(e)) => Err(e),
        }
    }

    fn count(
        &self,
        filter: &[(String, Scalar)],
        after: Option<&Scalar>,
        within: Duration,
    ) -> Result<Count, SourceError> {
        let (sql, params) = self.count_sql(filter, after);
        if let Some(c) = self.counts.get(&sql, &params) {
            return Ok(c);
        }
        let ran = self.query_within(&sql, &params, within.min(self.statement_timeout));
        self.counted(
            &sql,
            &params,
            ran.map(|rows| rows.first().and_then(|n| n.parse().ok())),
        )
    }

    fn page_async<'a>(&'a self, q: &'a PageQuery<'a>) -> Option<Pending<'a, Page>> {
        Some(Box::pin(async move {
            let (sql, params) = self.page_sql(q);
            match self.query_live(&sql, &params, None).await {
                Ok(rows) => Page::gather(q.limit, |each| {
                    for r in &rows {
                        let row = r.get::<_, &str>(0);
                        if !each(row.as_bytes(), &self.key_of(row)) {
                            break;
                        }
                    }
                    Ok(())
                }),
                // As `rows`: a `where` value the column's type cannot hold matches nothing.
                Err(QueryError::Data) => Page::gather(q.limit, |_| Ok(())),
                Err(QueryError::Source(e)) => Err(e),
            }
        }))
    }

    fn count_async<'a>(
        &'a self,
        filter: &'a [(String, Scalar)],
        after: Option<&'a Scalar>,
        within: Duration,
    ) -> Option<Pending<'a, Count>> {
        Some(Box::pin(async move {
            let (sql, params) = self.count_sql(filter, after);
            if let Some(c) = self.counts.get(&sql, &params) {
                return Ok(c);
            }
            let within = within.min(self.statement_timeout);
            let ran = self.query_live(&sql, &params, Some(within)).await;
            self.counted(
                &sql,
                &params,
                ran.map(|rows| rows.first().and_then(|r| r.get::<_, &str>(0).parse().ok())),
            )
        }))
    }
}
