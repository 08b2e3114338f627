//! Database sources (SERVE.md §7): what a table collection asks of its database.
//!
//! A collection is served from a file (loaded whole at start-up: `collection`) or from a
//! database table through a [`Backend`]. The tool is the same either way; what differs is who
//! answers `where`, paging and `get`. A backend knows its table's columns (the tool's schema,
//! the valid `where` and `_select` names) and its key, and answers with JSON text made by the
//! database itself: a page is the bytes of one JSON array of row objects, which the server
//! hands to the engine's JSON-bytes path. No row is ever a Rust struct or a `serde_json`
//! value.
//!
//! Client strings never become SQL text: `where` values and keys are bound parameters, and
//! `where`/`_select` names reach a backend only after `args` checked them against the column
//! list (a backend quotes them all the same).

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use crate::scalar::Scalar;

/// Rows a database reads at a time for a long page (a PostgreSQL portal's fetch; the rows
/// between two renewals of SQLite's time limit). A page of at least this many rows is read
/// in batches, and streams when the server's limits allow (`respond`).
pub(crate) const BATCH_ROWS: usize = 1000;

/// Rows a streamed page hands to the engine, and to its client, at a time. A backend whose
/// time limit runs on the clock (SQLite) renews it after every this many rows: right after a
/// batch went out, which is where a slow client holds the reader.
pub(crate) const STREAM_BATCH: usize = 256;

/// How a column's values are written as JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Numbers, text and nulls as the database holds them.
    Plain,
    /// A column declared BOOLEAN: `0`/`1` as `false`/`true`.
    Bool,
    /// A column declared JSON (text holding JSON): the value itself.
    Json,
}

/// One column of the table.
#[derive(Clone, Debug)]
pub(crate) struct Column {
    pub(crate) name: String,
    pub(crate) kind: Kind,
}

/// A `list` page to read: the rows matching `filter` after the key `after`, ordered by the
/// key, `offset` of them skipped, at most `limit`.
pub(crate) struct PageQuery<'a> {
    pub(crate) filter: &'a [(String, Scalar)],
    /// The columns of each row (`None`: all), the key among them whatever `_select` says.
    pub(crate) columns: Option<&'a [String]>,
    pub(crate) after: Option<&'a Scalar>,
    pub(crate) offset: usize,
    pub(crate) limit: usize,
}

/// A page read from the database.
pub(crate) struct Page {
    /// One JSON array of row objects.
    pub(crate) json: Vec<u8>,
    /// The key of each row of the page, as JSON text (for the cursor after any of them).
    pub(crate) keys: Keys,
    /// Whether rows follow the page.
    pub(crate) more: bool,
}

/// A database read running as a task on the server's runtime.
pub(crate) type Pending<'a, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, SourceError>> + Send + 'a>>;

impl Page {
    /// The page of at most `limit` rows that `read` hands to its callback (row JSON, key
    /// JSON; the callback returns whether it wants more): one row past `limit` says that
    /// rows follow.
    pub(crate) fn gather(
        limit: usize,
        read: impl FnOnce(&mut dyn FnMut(&[u8], &str) -> bool) -> Result<(), SourceError>,
    ) -> Result<Page, SourceError> {
        let mut json = Vec::with_capacity(4096);
        json.push(b'[');
        let mut keys = Keys::default();
        let mut more = false;
        read(&mut |row, key| {
            if keys.len() == limit {
                more = true;
                return false;
            }
            if !keys.is_empty() {
                json.push(b',');
            }
            json.extend_from_slice(row);
            keys.push(key);
            true
        })?;
        json.push(b']');
        Ok(Page { json, keys, more })
    }
}

/// The keys of a page's rows as JSON texts, in one buffer (4 bytes a row beside the text: a
/// `String` a row cost a 24-byte header and an allocation each).
#[derive(Default)]
pub(crate) struct Keys {
    text: String,
    /// Where each key ends in `text`.
    ends: Vec<u32>,
}

impl Keys {
    pub(crate) fn push(&mut self, key: &str) {
        self.text.push_str(key);
        // A page's keys stay far below 4 GiB (a cursor holds at most a few KiB of key).
        self.ends
            .push(u32::try_from(self.text.len()).unwrap_or(u32::MAX));
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The key of row `i`.
    pub(crate) fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = i.checked_sub(1).map_or(0, |p| self.ends[p] as usize);
        self.text.get(start..end)
    }
}

/// Why a database could not answer.
#[derive(Debug)]
pub(crate) enum SourceError {
    /// The database is unreachable or failed; the call gets `UNAVAILABLE` (the message names
    /// no password).
    Unavailable(String),
    /// The statement ran past its time limit.
    Timeout,
}

impl SourceError {
    /// The error in words, for the operator's log and the `UNAVAILABLE` response.
    pub(crate) fn message(&self) -> String {
        match self {
            SourceError::Unavailable(m) => m.clone(),
            SourceError::Timeout => "the statement ran past its time limit".into(),
        }
    }
}

/// A table served by a database.
pub(crate) trait Backend: Send + Sync {
    /// The columns, in table order.
    fn columns(&self) -> &[Column];
    /// The key column.
    fn key(&self) -> &str;
    /// What the table is, for messages (never with a password).
    fn describe(&self) -> &str;
    /// Reads the rows of `q` in key order as the database hands them out, each as its JSON
    /// object text and its key's JSON text into `each` (which returns whether it wants
    /// more): at most `q.limit + 1` rows, the last one saying that rows follow the page. A
    /// long page is read a batch at a time and never held whole; the statement's time limit
    /// applies to each batch, not to the time `each` takes (a client reading a streamed page
    /// slowly). A `where` value the column's type cannot hold matches no row.
    fn rows(
        &self,
        q: &PageQuery<'_>,
        each: &mut dyn FnMut(&[u8], &str) -> bool,
    ) -> Result<(), SourceError>;
    /// The rows of `q` as one JSON array.
    fn page(&self, q: &PageQuery<'_>) -> Result<Page, SourceError> {
        Page::gather(q.limit, |each| self.rows(q, each))
    }
    /// [`page`](Backend::page) as a task on the server's runtime, for a database whose client
    /// is asynchronous (PostgreSQL): the call then waits for the database without a thread
    /// of its own. `None`: read it on a blocking thread.
    fn page_async<'a>(&'a self, _q: &'a PageQuery<'a>) -> Option<Pending<'a, Page>> {
        None
    }
    /// [`count`](Backend::count) as [`page_async`](Backend::page_async) reads a page (`Some`
    /// wherever `page_async` is).
    fn count_async<'a>(
        &'a self,
        _filter: &'a [(String, Scalar)],
        _after: Option<&'a Scalar>,
        _within: Duration,
    ) -> Option<Pending<'a, Count>> {
        None
    }
    /// The row whose key equals `id` (as `get` matches keys: `scalar::key_equals`), as one
    /// JSON object.
    fn get(&self, id: &Scalar) -> Result<Option<Vec<u8>>, SourceError>;
    /// How many rows match `filter` after `after`, as the database counts them within
    /// `within`, or as it counted them lately.
    fn count(
        &self,
        filter: &[(String, Scalar)],
        after: Option<&Scalar>,
        within: Duration,
    ) -> Result<Count, SourceError>;
}

/// What a count found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Count {
    /// This many rows match now.
    Exact(u64),
    /// About this many: counted a moment ago, and rows may have changed since.
    About(u64),
    /// Counting would take longer than its limit (it did, or did lately).
    TimedOut,
}

/// A database's connections: the idle ones, and how many are open (idle or taken), at most
/// `max` (the concurrent-call bound, so that a call rarely waits). A call takes an idle one,
/// or opens one, or waits for one to be put back; a connection that failed is discarded
/// instead, and a new one opened by the next call, so a table recovers by itself when its
/// database is back.
pub(crate) struct Pool<C> {
    state: Mutex<PoolState<C>>,
    freed: Condvar,
    max: usize,
}

/// The idle connections, how many are open, and how many calls wait for one (a notify is a
/// system call even when nobody waits: made only when someone does).
struct PoolState<C> {
    idle: Vec<C>,
    open: usize,
    waiting: usize,
}

/// How long a call waits for a connection when all `max` are taken.
const POOL_WAIT: Duration = Duration::from_secs(30);

impl<C> Pool<C> {
    pub(crate) fn new(max: usize) -> Pool<C> {
        Pool {
            state: Mutex::new(PoolState {
                idle: Vec::new(),
                open: 0,
                waiting: 0,
            }),
            freed: Condvar::new(),
            max: max.max(1),
        }
    }

    /// A connection: an idle one that is still `usable` (the others are closed), else one
    /// `open` makes while fewer than `max` are open, else the next one put back.
    pub(crate) fn take(
        &self,
        usable: impl Fn(&C) -> bool,
        open: impl FnOnce() -> Result<C, SourceError>,
    ) -> Result<C, SourceError> {
        let poisoned = || SourceError::Unavailable("connection pool poisoned".into());
        let mut g = self.state.lock().map_err(|_| poisoned())?;
        loop {
            if let Some(c) = g.idle.pop() {
                if usable(&c) {
                    return Ok(c);
                }
                g.open -= 1;
                drop(c);
                continue;
            }
            if g.open < self.max {
                g.open += 1;
                drop(g);
                return open().inspect_err(|_| self.discard());
            }
            g.waiting += 1;
            let (next, waited) = self
                .freed
                .wait_timeout(g, POOL_WAIT)
                .map_err(|_| poisoned())?;
            g = next;
            g.waiting -= 1;
            if waited.timed_out() && g.idle.is_empty() {
                return Err(SourceError::Unavailable(format!(
                    "no connection of {} freed in {} s",
                    self.max,
                    POOL_WAIT.as_secs()
                )));
            }
        }
    }

    /// Puts back a connection taken (or opened at start-up: it counts from now on).
    pub(crate) fn put(&self, c: C, opened: bool) {
        if let Ok(mut g) = self.state.lock() {
            if opened {
                g.open += 1;
            }
            g.idle.push(c);
            if g.waiting > 0 {
                self.freed.notify_one();
            }
        }
    }

    /// Forgets a connection taken and not put back (closed after a failure).
    pub(crate) fn discard(&self) {
        if let Ok(mut g) = self.state.lock() {
            g.open -= 1;
            if g.waiting > 0 {
                self.freed.notify_one();
            }
        }
    }

    /// The idle connections, taken out of the pool (to be closed).
    pub(crate) fn drain(&self) -> Vec<C> {
        match self.state.lock() {
            Ok(mut g) => {
                let idle = std::mem::take(&mut g.idle);
                g.open -= idle.len();
                idle
            }
            Err(_) => Vec::new(),
        }
    }
}

/// At most `max` statements at once on a database: under many concurrent calls a database
/// on a few cores answers each statement sooner when the others wait their turn than when
/// all of them share its cores (docs/DECISIONS.md, "Database sources"). A call holds its
/// turn only while a statement runs, never while its client reads. One fair semaphore for
/// both clients: a blocking thread waits for its turn ([`Gate::enter`]), a task on the
/// runtime awaits it ([`Gate::turn`]).
pub(crate) struct Gate(tokio::sync::Semaphore);

/// A turn at a [`Gate`], given back when dropped.
pub(crate) struct Turn<'a>(#[allow(dead_code)] tokio::sync::SemaphorePermit<'a>);

impl Gate {
    pub(crate) fn new(max: usize) -> Gate {
        Gate(tokio::sync::Semaphore::new(max.max(1)))
    }

    /// Waits for a turn, blocking the thread (never call it on the runtime's threads).
    pub(crate) fn enter(&self) -> Turn<'_> {
        futures_executor::block_on(self.turn())
    }

    /// Waits for a turn.
    pub(crate) async fn turn(&self) -> Turn<'_> {
        // Never closed: the semaphore lives as long as the gate.
        Turn(
            self.0
                .acquire()
                .await
                .expect("the gate's semaphore is never closed"),
        )
    }
}

/// Counts of a table with no cheap sign of change (PostgreSQL), kept for [`COUNT_TTL`]: a
/// listing's first page repeated by many agents counts once a while, not once a call (a
/// count of millions of rows costs the database far more than the page). A kept count is
/// said as "about"; a count that ran past its limit is kept too, so no call waits for it
/// again meanwhile. When a count expires, one call counts again while the others are told
/// the old one (a stampede of counts at every expiry was the load's slowest calls). Bounded:
/// [`COUNTS_KEPT`] counts, none whose statement and values are over [`COUNT_KEY_MAX`] bytes
/// (a `where` value may be megabytes).
pub(crate) struct CountCache {
    ttl: Duration,
    kept: std::sync::Mutex<Vec<Kept>>,
}

/// One kept count: its key, what it found (`None`: it ran past its limit), when, and since
/// when a call has been counting it again.
struct Kept {
    key: String,
    made: Option<u64>,
    at: std::time::Instant,
    recounting: Option<std::time::Instant>,
}

impl Default for CountCache {
    fn default() -> CountCache {
        CountCache::with_ttl(COUNT_TTL)
    }
}

/// How long a count is kept.
pub(crate) const COUNT_TTL: Duration = Duration::from_secs(10);
const COUNTS_KEPT: usize = 64;
const COUNT_KEY_MAX: usize = 1024;

impl CountCache {
    fn with_ttl(ttl: Duration) -> CountCache {
        CountCache {
            ttl,
            kept: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The key of `sql` with `params`, `None` when it would be over [`COUNT_KEY_MAX`] (known
    /// before a long value is copied).
    fn key(sql: &str, params: &[String]) -> Option<String> {
        use std::fmt::Write;
        let len = params
            .iter()
            .fold(sql.len(), |n, p| n.saturating_add(p.len() + 22));
        if len > COUNT_KEY_MAX {
            return None;
        }
        let mut k = String::with_capacity(len);
        k.push_str(sql);
        for p in params {
            // Length-prefixed: no value can pass for two.
            let _ = write!(k, "\0{}:{p}", p.len());
        }
        Some(k)
    }

    /// The kept count of `sql` with `params`: within the time it is kept, or older while
    /// another call counts it again. `None`: the caller counts (and [`CountCache::put`]s).
    pub(crate) fn get(&self, sql: &str, params: &[String]) -> Option<Count> {
        let key = Self::key(sql, params)?;
        let mut kept = self.kept.lock().ok()?;
        let e = kept.iter_mut().find(|e| e.key == key)?;
        let told = e.made.map_or(Count::TimedOut, Count::About);
        if e.at.elapsed() < self.ttl || e.recounting.is_some_and(|r| r.elapsed() < self.ttl) {
            return Some(told);
        }
        e.recounting = Some(std::time::Instant::now());
        None
    }

    /// Keeps what counting `sql` with `params` found (`None`: it ran past its limit).
    pub(crate) fn put(&self, sql: &str, params: &[String], made: Option<u64>) {
        let Some(key) = Self::key(sql, params) else {
            return;
        };
        let Ok(mut kept) = self.kept.lock() else {
            return;
        };
        // Counts older than twice their time are gone (one being counted again stays).
        kept.retain(|e| e.key != key && e.at.elapsed() < 2 * self.ttl);
        if kept.len() >= COUNTS_KEPT {
            kept.remove(0);
        }
        kept.push(Kept {
            key,
            made,
            at: std::time::Instant::now(),
            recounting: None,
        });
    }
}

/// `NAME=SOURCE` when SOURCE names a database table: the scheme, the location and the table.
pub(crate) enum Spec<'a> {
    Sqlite { path: &'a str, table: &'a str },
    Postgres { url: &'a str, table: &'a str },
}

/// The database table SOURCE names, `None` for a file. A database URL without `#TABLE` is
/// an error.
pub(crate) fn parse_spec(source: &str) -> Result<Option<Spec<'_>>, String> {
    if source.starts_with("postgres://") || source.starts_with("postgresql://") {
        let shown = without_password(source);
        return match source.rsplit_once('#') {
            Some((url, table)) if !table.is_empty() => Ok(Some(Spec::Postgres { url, table })),
            _ => Err(format!(
                "{shown}: expected postgres://USER@HOST:PORT/DB#TABLE"
            )),
        };
    }
    let Some(rest) = source.strip_prefix("sqlite://") else {
        return Ok(None);
    };
    let Some((path, table)) = rest.rsplit_once('#') else {
        return Err(format!("{source}: expected sqlite://PATH#TABLE"));
    };
    if path.is_empty() || table.is_empty() {
        return Err(format!("{source}: expected sqlite://PATH#TABLE"));
    }
    Ok(Some(Spec::Sqlite { path, table }))
}

/// `url` without its password (`USER:PASSWORD@` → `USER@`).
pub(crate) fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (auth, host) = match rest.rsplit_once('@') {
        Some((a, h)) => (Some(a), h),
        None => (None, rest),
    };
    match auth {
        Some(a) => {
            let user = a.split_once(':').map_or(a, |(u, _)| u);
            format!("{scheme}://{user}@{host}")
        }
        None => format!("{scheme}://{host}"),
    }
}

/// `schema.table` or `table` as its two parts.
pub(crate) fn split_table(table: &str) -> (Option<&str>, &str) {
    match table.split_once('.') {
        Some((s, t)) if !s.is_empty() && !t.is_empty() => (Some(s), t),
        _ => (None, table),
    }
}

/// `name` as a double-quoted SQL identifier (SQLite and PostgreSQL alike: `"` doubled).
pub(crate) fn quote_ident(name: &str) -> String {
    let mut q = String::with_capacity(name.len() + 2);
    q.push('"');
    for c in name.chars() {
        if c == '"' {
            q.push('"');
        }
        q.push(c);
    }
    q.push('"');
    q
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_gate_lets_in_at_most_its_number_at_once() {
        let gate = Gate::new(2);
        let (inside, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        std::thread::scope(|s| {
            for _ in 0..6 {
                s.spawn(|| {
                    for _ in 0..20 {
                        let _turn = gate.enter();
                        let n = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(n, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_micros(200));
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                });
            }
        });
        assert_eq!(most.load(Ordering::SeqCst), 2);
    }

    /// Blocking threads (a streamed page, stdio) and tasks of the runtime (a page read
    /// ahead over HTTP) share the gate's turns.
    #[test]
    fn a_gate_counts_threads_and_tasks_together() {
        let gate = Gate::new(3);
        let (inside, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let hold = || {
            let n = inside.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(n, Ordering::SeqCst);
        };
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_time()
            .build()
            .unwrap();
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    for _ in 0..20 {
                        let _turn = gate.enter();
                        hold();
                        std::thread::sleep(Duration::from_micros(300));
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                });
            }
            let task = || async {
                for _ in 0..20 {
                    let _turn = gate.turn().await;
                    hold();
                    tokio::time::sleep(Duration::from_micros(300)).await;
                    inside.fetch_sub(1, Ordering::SeqCst);
                }
            };
            rt.block_on(async { tokio::join!(task(), task(), task()) });
        });
        assert_eq!(most.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn a_pool_opens_at_most_its_bound_and_closes_what_is_not_usable() {
        let pool: Pool<usize> = Pool::new(2);
        let opened = AtomicUsize::new(0);
        let open = || Ok(opened.fetch_add(1, Ordering::SeqCst) + 1);
        let a = pool.take(|_| true, open).unwrap();
        let b = pool.take(|_| true, open).unwrap();
        assert_eq!((a, b), (1, 2));
        std::thread::scope(|s| {
            // A third call waits for one to be put back instead of opening a third.
            let third = s.spawn(|| pool.take(|_| true, open).unwrap());
            std::thread::sleep(Duration::from_millis(50));
            assert_eq!(opened.load(Ordering::SeqCst), 2);
            pool.put(a, false);
            assert_eq!(third.join().unwrap(), 1);
        });
        // An idle connection that is not usable any more is closed and another opened.
        pool.put(b, false);
        assert_eq!(pool.take(|c| *c != 2, open).unwrap(), 3);
        // A failed open frees its place.
        pool.discard();
        assert!(pool.take(|_| true, || Err(SourceError::Timeout)).is_err());
        assert_eq!(pool.take(|_| true, open).unwrap(), 4);
    }

    #[test]
    fn counts_are_kept_as_about_bounded_in_number_and_size() {
        let c = CountCache::default();
        let p = |v: &str| vec![v.to_owned()];
        assert_eq!(c.get("q", &p("a")), None);
        c.put("q", &p("a"), Some(7));
        c.put("q", &p("b"), None);
        assert_eq!(c.get("q", &p("a")), Some(Count::About(7)));
        assert_eq!(c.get("q", &p("b")), Some(Count::TimedOut));
        // Values are length-prefixed: two values are not one with a separator in it.
        assert_eq!(c.get("q", &[String::new(), "1:a".into()]), None);
        // A long value is neither kept nor copied for the lookup.
        let long = p(&"x".repeat(COUNT_KEY_MAX));
        c.put("q", &long, Some(1));
        assert_eq!(c.get("q", &long), None);
        for i in 0..200 {
            c.put("q", &p(&i.to_string()), Some(i));
        }
        let kept = c.kept.lock().unwrap();
        assert_eq!(kept.len(), COUNTS_KEPT);
        // The newest stay.
        assert!(
            kept.iter()
                .any(|e| e.key.ends_with(":199") && e.made == Some(199))
        );
    }

    #[test]
    fn an_expired_count_is_counted_again_by_one_call_while_others_get_the_old_one() {
        let c = CountCache::with_ttl(Duration::from_millis(200));
        let p = vec!["a".to_owned()];
        c.put("q", &p, Some(7));
        assert_eq!(c.get("q", &p), Some(Count::About(7)));
        std::thread::sleep(Duration::from_millis(250));
        // Expired: the first call counts, the next ones are told the old count meanwhile.
        assert_eq!(c.get("q", &p), None);
        assert_eq!(c.get("q", &p), Some(Count::About(7)));
        assert_eq!(c.get("q", &p), Some(Count::About(7)));
        c.put("q", &p, Some(8));
        assert_eq!(c.get("q", &p), Some(Count::About(8)));
        // A call that never put its count back: after the time, another call counts.
        std::thread::sleep(Duration::from_millis(250));
        assert_eq!(c.get("q", &p), None);
        std::thread::sleep(Duration::from_millis(250));
        assert_eq!(c.get("q", &p), None);
    }

    #[test]
    fn keys_give_back_what_was_pushed() {
        let mut k = Keys::default();
        assert!(k.is_empty() && k.get(0).is_none());
        for key in ["1", r#""k-2""#, "", "null", "\"é\""] {
            k.push(key);
        }
        assert_eq!(k.len(), 5);
        let back: Vec<_> = (0..6).map(|i| k.get(i)).collect();
        assert_eq!(
            back,
            [
                Some("1"),
                Some(r#""k-2""#),
                Some(""),
                Some("null"),
                Some("\"é\""),
                None
            ]
        );
    }

    #[test]
    fn identifiers_are_quoted_with_quotes_doubled() {
        assert_eq!(quote_ident("a"), r#""a""#);
        assert_eq!(
            quote_ident(r#"x"; DROP TABLE t; --"#),
            r#""x""; DROP TABLE t; --""#
        );
    }

    #[test]
    fn urls_lose_their_password() {
        assert_eq!(
            without_password("postgres://u:s3cret@127.0.0.1:5432/db"),
            "postgres://u@127.0.0.1:5432/db"
        );
        assert_eq!(
            without_password("postgresql://u@h/db"),
            "postgresql://u@h/db"
        );
        assert_eq!(without_password("postgres://h/db"), "postgres://h/db");
        assert_eq!(
            without_password("postgres://u:p@ss@h/db"),
            "postgres://u@h/db"
        );
    }

    #[test]
    fn specs() {
        assert!(matches!(parse_spec("rows.json"), Ok(None)));
        assert!(matches!(
            parse_spec("sqlite://a/b.db#main.t"),
            Ok(Some(Spec::Sqlite {
                path: "a/b.db",
                table: "main.t"
            }))
        ));
        assert!(parse_spec("sqlite://a.db").is_err());
        assert!(parse_spec("sqlite://#t").is_err());
        assert_eq!(split_table("s.t"), (Some("s"), "t"));
        assert_eq!(split_table("t"), (None, "t"));
    }
}
