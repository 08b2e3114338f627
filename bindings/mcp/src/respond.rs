//! Every call of the server into the engine: a `tools/call` of a collection's tool checked,
//! its rows picked (`where`, `offset`), and the rest handed to the engine's front door
//! ([`toolwire::call`]): the presenter with the call's `limit` and `format` as overrides, the
//! page as [`Input::page`] (the rows it shows, out of the matching rows after `offset`), the
//! next-call directive as [`ToolCall::paging`], `--structured` as [`ToolCall::structured`]
//! and the message cap as [`ToolCall::respond_within`]. The reply is framed by the engine
//! straight into the transport's sink. Also: the tool objects of `tools/list`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;
use toolwire::Sink;
use toolwire::call::{Fit, Framing, Input, Problem as CallProblem, Reply, ToolCall};
use toolwire::frame::{Id, Protocol};
use toolwire::present::{ActionDescription, Overrides};
use toolwire::wire::{self, FieldProblem, Format, ToolError, ToolResponse};

use crate::args::{Action, Call, Problem, Sent, you_sent};
use crate::collection::{Collection, DEFAULT_LIST_LIMIT, FORMATS, Server};
use crate::cursor::{self, Counted, Position, Refused};
use crate::scalar::{Scalar, field_equals, key_equals};
use crate::source::{BATCH_ROWS, Count, STREAM_BATCH};

/// Collections of at least this many rows report progress while a `where` filter scans them.
const PROGRESS_SCAN_ROWS: usize = 10_000;
/// Pages of at least this many rows report progress before their result.
const PROGRESS_PAGE_ROWS: usize = 1_000;

/// What a call reports on its way: progress, and whether the client went away.
pub(crate) struct Hooks<'a> {
    /// `(progress, total)` notifications; `None` when the call has no progress token.
    pub(crate) progress: Option<&'a mut (dyn FnMut(u64, u64) + 'a)>,
    /// Set when the call is cancelled (or its connection closed).
    pub(crate) cancel: &'a Arc<AtomicBool>,
    /// What [`prefetch`] read for this call, if it ran.
    pub(crate) prefetched: Option<Prefetched>,
}

/// The database reads of a `list` page read whole, done ahead by a task on the server's
/// runtime ([`prefetch`]): the call then answers without waiting for the database.
pub(crate) struct Prefetched {
    page: Result<crate::source::Page, crate::source::SourceError>,
    /// The count the page needed (`None`: none).
    count: Option<Result<Count, crate::source::SourceError>>,
}

impl Prefetched {
    /// The rows of the page read (none when it failed).
    pub(crate) fn rows(&self) -> usize {
        self.page.as_ref().map_or(0, |p| p.keys.len())
    }
}

/// Reads ahead, on the server's runtime, what a call of `coll` with `arguments` needs from a
/// database whose client is asynchronous (PostgreSQL): a `list` page read whole and, when it
/// needs one, its count. `None` when the call reads nothing ahead (a file or SQLite
/// collection, `get`, a page of [`BATCH_ROWS`] rows or more, arguments or a cursor answered
/// by an error): it then reads on its blocking thread. The call is answered by [`tools_call`]
/// with what this returned in [`Hooks::prefetched`].
pub(crate) async fn prefetch(
    server: &Server,
    coll: &Collection,
    id: &Id,
    protocol: Protocol,
    arguments: &Sent,
) -> Option<Prefetched> {
    let table = coll.table.as_deref()?;
    let call = crate::args::parse(arguments, coll).ok()?;
    let t = TableCall {
        server,
        coll,
        table,
        call: &call,
        id,
        protocol,
        fit: Fit {
            cap: server.cap,
            tokens: server.max_tokens,
        },
    };
    let Action::List {
        filter,
        offset,
        limit,
        cursor,
    } = &call.action
    else {
        return None;
    };
    let plan = t.plan(*offset, *limit, cursor.as_deref()).ok()?;
    // A long page is read from a portal a batch at a time, whole or streamed.
    if plan.limit >= BATCH_ROWS {
        return None;
    }
    let query = plan.query(filter);
    let page = table.page_async(&query)?.await;
    let count = match &page {
        Ok(p) if needs_count(plan.counted, p.keys.len(), p.more) => Some(
            table
                .count_async(filter, plan.after.as_ref(), server.count_timeout)?
                .await,
        ),
        _ => None,
    };
    Some(Prefetched { page, count })
}

/// The count a keyset page of `shown` rows carries from its cursor: one the page does not
/// prove wrong (rows remain past it).
fn carried(counted: Counted, shown: usize) -> Option<usize> {
    match counted {
        Counted::About(n) => usize::try_from(n).ok().filter(|&n| n > shown),
        _ => None,
    }
}

/// Whether a keyset page of `shown` rows that `more` rows follow asks the database for its
/// count (SERVE.md §2's "hidden" number): not when its cursor carries one that holds, or
/// said that counting took too long.
fn needs_count(counted: Counted, shown: usize, more: bool) -> bool {
    more && counted != Counted::TimedOut && carried(counted, shown).is_none()
}

/// Where a `list` call of a table starts and what it reads: its arguments and cursor
/// checked, before anything is read.
struct ListPlan {
    select: Option<Value>,
    fp: [u8; 8],
    after: Option<Scalar>,
    offset: usize,
    counted: Counted,
    limit: usize,
    /// `_select` pushed into the select list (the key always: the cursor needs it).
    columns: Option<Vec<String>>,
}

impl ListPlan {
    fn query<'a>(&'a self, filter: &'a [(String, Scalar)]) -> crate::source::PageQuery<'a> {
        crate::source::PageQuery {
            filter,
            columns: self.columns.as_deref(),
            after: self.after.as_ref(),
            offset: self.offset,
            limit: self.limit,
        }
    }
}

impl Hooks<'_> {
    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
    fn report(&mut self, done: usize, total: usize) {
        if let Some(p) = self.progress.as_mut() {
            p(done as u64, total as u64);
        }
    }
}

/// How a call ended, for the log line.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A result was written (`true` when `isError`).
    Written { is_error: bool },
    /// Cancelled before the first byte: nothing was written.
    Cancelled,
}

/// Answers `tools/call` of `coll` with `arguments`: writes the whole JSON-RPC response line
/// into `out`, or nothing when cancelled before the first byte.
pub(crate) fn tools_call<S: Sink + ?Sized>(
    server: &Server,
    coll: &Collection,
    id: &Id,
    protocol: Protocol,
    arguments: &Sent,
    hooks: &mut Hooks<'_>,
    out: &mut S,
) -> Outcome {
    let shape = Framing::Frame {
        id: id.clone(),
        protocol,
    };
    let fit = Fit {
        cap: server.cap,
        tokens: server.max_tokens,
    };
    // The server's own error responses (validation, not found) fit the limits too.
    let write = |r: ToolResponse<'static>, out: &mut S| {
        let r = fit.fit_response(r, &shape);
        toolwire::frame::write_frame(id, &r, protocol, out);
        Outcome::Written {
            is_error: r.is_error() == Some(true),
        }
    };
    let call = match crate::args::parse(arguments, coll) {
        Ok(c) => c,
        Err((action, problems)) => return write(validation(&action, &problems), out),
    };
    let action = match &call.action {
        Action::List { .. } => "list",
        Action::Get { .. } => "get",
    };
    let mut front = ToolCall::new()
        .presenter(&coll.presenter)
        .action(format!("{}/{action}", coll.name))
        .structured(server.structured)
        .cancel_flag(Arc::clone(hooks.cancel));
    if let Some(f) = call.format {
        front = front.format(f.parse::<Format>().unwrap_or_default());
    }
    // `_select` as the client sent it, checked by the engine against the presenter.
    if let Some(bytes) = call
        .select
        .as_ref()
        .and_then(|v| serde_json::to_vec(v).ok())
    {
        if let Ok(doc) = toolwire::json::parse(&bytes, &Default::default()) {
            front = front.select_value(doc.root());
        }
    }
    if let Some(table) = &coll.table {
        let t = TableCall {
            server,
            coll,
            table: table.as_ref(),
            call: &call,
            id,
            protocol,
            fit,
        };
        return t.respond(front, hooks, out);
    }
    let Some(all) = coll.doc.root().as_array() else {
        return write(internal("the collection is not an array"), out);
    };
    let rows = &coll.rows;
    // A `list`'s next call, the page's offset and the matching rows (for a first row over
    // the limits: the call that skips it).
    let mut listing: Option<(NextCall, usize, usize)> = None;
    let (front, input) = match &call.action {
        Action::Get { id: key } => {
            let found = crate::filter::find_key(&coll.indexes, rows, &coll.key, key, key_equals);
            let Some(i) = found else {
                return write(not_found(coll, key), out);
            };
            (front, Input::value(rows[i]))
        }
        Action::List {
            filter,
            offset,
            limit,
            cursor,
        } => {
            let select = effective_select(coll, &call);
            let fp = list_fingerprint(coll, filter, select.as_ref());
            let offset = match cursor
                .as_deref()
                .map(|c| cursor::decode(&coll.cursor_key, fp, c))
            {
                None => *offset,
                Some(Ok(Position::Offset(n))) => usize::try_from(n).unwrap_or(usize::MAX),
                Some(Ok(Position::After(..))) => {
                    return write(bad_cursor(coll, Refused::Malformed), out);
                }
                Some(Err(why)) => return write(bad_cursor(coll, why), out),
            };
            let offset = &offset;
            let total = rows.len();
            let limit_of_call = limit
                .unwrap_or(coll.limit.unwrap_or(DEFAULT_LIST_LIMIT))
                .min(coll.limit.unwrap_or(usize::MAX));
            let mut matching = total;
            let input = if filter.is_empty() {
                if *offset == 0 {
                    Input::value(all.as_value())
                } else {
                    let rest = rows.get(*offset..).unwrap_or_default();
                    Input::page(rest.iter().copied().take(limit_of_call), rest.len())
                }
            } else {
                // The first call filtering on a field builds its index (a scan, reported as
                // progress on large collections); later ones read candidates only.
                let report = total >= PROGRESS_SCAN_ROWS;
                let mut progress = |done: usize, all: usize| {
                    if report {
                        hooks.report(done, all);
                    }
                };
                let matched = crate::filter::matching(
                    &coll.indexes,
                    rows,
                    filter,
                    field_equals,
                    &mut progress,
                );
                matching = matched.len();
                let rest = matched.get(*offset..).unwrap_or_default();
                Input::page(
                    rest.iter().map(|&i| rows[i]).take(limit_of_call),
                    rest.len(),
                )
            };
            let front = front.overrides(Overrides {
                limit: Some(limit_of_call),
                ..Overrides::default()
            });
            let next = NextCall::new(coll, &call, filter, *limit, select, fp);
            let front = front.paging(next.clone().hint(*offset));
            listing = Some((next, *offset, matching));
            (front, input)
        }
    };
    if hooks.cancelled() {
        return Outcome::Cancelled;
    }
    let reply = front.respond_fitted(&input, &shape, fit);
    let reply: Reply<'_> = match reply {
        Ok(r) => r,
        Err(_) if hooks.cancelled() => return Outcome::Cancelled,
        Err(e) => return write(internal(&e.to_string()), out),
    };
    if let Some(kept) = reply.response().items().filter(|_| action == "list") {
        if kept >= PROGRESS_PAGE_ROWS {
            hooks.report(kept, kept);
        }
    }
    if hooks.cancelled() {
        return Outcome::Cancelled;
    }
    if let Some((next, offset, matching)) = listing.filter(|_| reply.item_too_large()) {
        // The page's first row alone is over the limits: say which, and the call past it.
        return write(next.skip(offset, matching, reply.problem()), out);
    }
    reply.write(&shape, out);
    Outcome::Written {
        is_error: reply.is_error(),
    }
}

/// A call of a collection served from a database table (SERVE.md §7): the page read from
/// the database as JSON text, into the engine's JSON-bytes path.
struct TableCall<'a> {
    server: &'a Server,
    coll: &'a Collection,
    table: &'a dyn crate::source::Backend,
    call: &'a Call,
    id: &'a Id,
    protocol: Protocol,
    fit: Fit,
}

impl TableCall<'_> {
    fn write<S: Sink + ?Sized>(&self, r: ToolResponse<'static>, out: &mut S) -> Outcome {
        let shape = Framing::Frame {
            id: self.id.clone(),
            protocol: self.protocol,
        };
        let r = self.fit.fit_response(r, &shape);
        toolwire::frame::write_frame(self.id, &r, self.protocol, out);
        Outcome::Written {
            is_error: r.is_error() == Some(true),
        }
    }

    fn respond<S: Sink + ?Sized>(
        &self,
        front: ToolCall,
        hooks: &mut Hooks<'_>,
        out: &mut S,
    ) -> Outcome {
        let coll = self.coll;
        let shape = Framing::Frame {
            id: self.id.clone(),
            protocol: self.protocol,
        };
        let bytes: Vec<u8>;
        let (front, doc, total, skip) = match &self.call.action {
            Action::Get { id: key } => match self.table.get(key) {
                Ok(Some(row)) => {
                    bytes = row;
                    let doc = match toolwire::json::parse(&bytes, &Default::default()) {
                        Ok(d) => d,
                        Err(e) => return self.write(internal(&e.to_string()), out),
                    };
                    (front, doc, None, None)
                }
                Ok(None) => return self.write(not_found(coll, key), out),
                Err(e) => return self.write(self.unavailable(&e), out),
            },
            Action::List {
                filter,
                offset,
                limit,
                cursor,
            } => {
                let plan = match self.plan(*offset, *limit, cursor.as_deref()) {
                    Ok(p) => p,
                    Err(r) => return self.write(*r, out),
                };
                let query = plan.query(filter);
                let (select, fp, counted, limit_of_call) =
                    (plan.select.clone(), plan.fp, plan.counted, plan.limit);
                if self.streams(limit_of_call) {
                    let next = NextCall::new(coll, self.call, filter, *limit, select, fp);
                    let front = front.format(Format::Compact).overrides(Overrides {
                        limit: Some(limit_of_call),
                        ..Overrides::default()
                    });
                    return self.stream(&front, &query, counted, &next, hooks, out);
                }
                let (page, count) = match hooks.prefetched.take() {
                    Some(p) => (p.page, p.count),
                    None => (self.table.page(&query), None),
                };
                let page = match page {
                    Ok(p) => p,
                    Err(e) => return self.write(self.unavailable(&e), out),
                };
                if hooks.cancelled() {
                    return Outcome::Cancelled;
                }
                let (total, carried) =
                    match self.total(&query, page.keys.len(), page.more, counted, count) {
                        Ok(t) => t,
                        Err(e) => return self.write(self.unavailable(&e), out),
                    };
                let total = Some(total);
                bytes = page.json;
                let doc = match toolwire::json::parse(&bytes, &Default::default()) {
                    Ok(d) => d,
                    Err(e) => return self.write(internal(&e.to_string()), out),
                };
                let next = NextCall::new(coll, self.call, filter, *limit, select, fp);
                // Shared with the next-call directive, not copied (a key a row).
                let keys = Arc::new(page.keys);
                let front = front
                    .overrides(Overrides {
                        limit: Some(limit_of_call),
                        ..Overrides::default()
                    })
                    .paging(next.clone().keyset_hint(keys.clone(), carried));
                (front, doc, total, Some((next, keys)))
            }
        };
        let input = match (total, doc.root().as_array().map(|rows| rows.len())) {
            // The page's own document, not a copy of its rows' nodes.
            (Some(total), Some(len)) if total == len => Input::doc(doc),
            (Some(total), Some(_)) => Input::page_of(doc, total),
            (Some(_), None) => return self.write(internal("the page is not an array"), out),
            (None, _) => Input::value(doc.root()),
        };
        if hooks.cancelled() {
            return Outcome::Cancelled;
        }
        let reply = match front.respond_fitted(&input, &shape, self.fit) {
            Ok(r) => r,
            Err(_) if hooks.cancelled() => return Outcome::Cancelled,
            Err(e) => return self.write(internal(&e.to_string()), out),
        };
        if hooks.cancelled() {
            return Outcome::Cancelled;
        }
        if let Some((next, keys)) = skip.filter(|_| reply.item_too_large()) {
            // The page's first row alone is over the limits: the call past it.
            return self.write(next.skip_key(keys.get(0), reply.problem()), out);
        }
        reply.write(&shape, out);
        Outcome::Written {
            is_error: reply.is_error(),
        }
    }

    /// The [`ListPlan`] of a `list` call with these arguments, or the error response to its
    /// cursor.
    fn plan(
        &self,
        offset: usize,
        limit: Option<usize>,
        cursor: Option<&str>,
    ) -> Result<ListPlan, Box<ToolResponse<'static>>> {
        let coll = self.coll;
        let Action::List { filter, .. } = &self.call.action else {
            return Err(Box::new(internal("not a list call")));
        };
        let select = effective_select(coll, self.call);
        let fp = list_fingerprint(coll, filter, select.as_ref());
        let (after, offset, counted) = match cursor.map(|c| cursor::decode(&coll.cursor_key, fp, c))
        {
            None => (None, offset, Counted::Unknown),
            Some(Ok(Position::After(k, counted))) => {
                match serde_json::from_str::<Value>(&k)
                    .ok()
                    .as_ref()
                    .and_then(Scalar::from_json)
                {
                    Some(s) => (Some(s), 0, counted),
                    None => return Err(Box::new(bad_cursor(coll, Refused::Malformed))),
                }
            }
            Some(Ok(Position::Offset(n))) => (
                None,
                usize::try_from(n).unwrap_or(usize::MAX),
                Counted::Unknown,
            ),
            Some(Err(why)) => return Err(Box::new(bad_cursor(coll, why))),
        };
        let limit = limit
            .unwrap_or(coll.limit.unwrap_or(DEFAULT_LIST_LIMIT))
            .min(coll.limit.unwrap_or(usize::MAX));
        let columns = select
            .as_ref()
            .filter(|_| coll.pushdown)
            .and_then(Value::as_array)
            .filter(|names| !names.is_empty())
            .map(|names| {
                names
                    .iter()
                    .filter_map(|n| n.as_str().map(str::to_owned))
                    .collect()
            });
        Ok(ListPlan {
            select,
            fp,
            after,
            offset,
            counted,
            limit,
            columns,
        })
    }

    /// The engine's `total` of a keyset page of `q` that shows `shown` rows (`more`: rows
    /// follow it), and the count its next cursor carries. The listing is counted once, by its
    /// first page; later pages carry the count in their cursor (docs/DECISIONS.md, "Database
    /// sources"), and a carried count the page proves wrong (rows remain past it) is counted
    /// again. A carried count (or one the table kept from a moment ago) is not the engine's
    /// `total`: its truncation notice says "more hidden", and only the next-call directive
    /// names the number, as "about".
    fn total(
        &self,
        q: &crate::source::PageQuery<'_>,
        shown: usize,
        more: bool,
        counted: Counted,
        prefetched: Option<Result<Count, crate::source::SourceError>>,
    ) -> Result<(usize, Option<usize>), crate::source::SourceError> {
        let mut carried = carried(counted, shown);
        if !more {
            return Ok((shown, carried));
        }
        if !needs_count(counted, shown, more) {
            return Ok((toolwire::call::UNCOUNTED, carried));
        }
        let past = |n: u64| {
            usize::try_from(n)
                .unwrap_or(usize::MAX)
                .saturating_sub(q.offset)
        };
        let count = match prefetched {
            Some(c) => c?,
            None => self
                .table
                .count(q.filter, q.after, self.server.count_timeout)?,
        };
        let total = match count {
            Count::Exact(n) => past(n).max(shown + 1),
            Count::About(n) => {
                carried = Some(past(n)).filter(|&n| n > shown);
                toolwire::call::UNCOUNTED
            }
            Count::TimedOut => toolwire::call::UNCOUNTED,
        };
        Ok((total, carried))
    }

    /// Whether a `list` page of `limit` rows streams: a long page ([`BATCH_ROWS`] rows or
    /// more) of a table served without a presenter file, from a server without a message cap
    /// or token budget (a cut needs the whole page before its first byte) and without
    /// `--structured` (the rows would go twice), in compact JSON (TOON's header needs the row
    /// count, and its tag fallback every string, before the first row is written). Any other
    /// page is read whole first.
    fn streams(&self, limit: usize) -> bool {
        self.coll.pushdown
            && self.fit.cap.is_none()
            && self.fit.tokens.is_none()
            && !self.server.structured
            && self.call.format.is_none_or(|f| f == "compact")
            && limit >= BATCH_ROWS
    }

    /// A `list` page streamed as the database reads it ([`streams`](Self::streams)): compact
    /// JSON, [`STREAM_BATCH`] rows at a time through the engine (its `_select` and tag-safe
    /// writer, so the rows are the bytes the page read whole would hold), then the truncation
    /// notice and the next call once the page is read. Memory holds one batch, whatever the
    /// page's size. A database that fails after the first rows went out ends the data block
    /// there and adds `<tool_error code="UNAVAILABLE">` saying so (`isError`).
    fn stream<S: Sink + ?Sized>(
        &self,
        front: &ToolCall,
        q: &crate::source::PageQuery<'_>,
        counted: Counted,
        next: &NextCall,
        hooks: &mut Hooks<'_>,
        out: &mut S,
    ) -> Outcome {
        let shape = Framing::Frame {
            id: self.id.clone(),
            protocol: self.protocol,
        };
        // What the engine says of no rows: its checks of the call (`_select`) come before any
        // row is read, and this is the answer when none matches.
        let empty = match toolwire::json::parse(b"[]", &Default::default()) {
            Ok(d) => Input::doc(d),
            Err(e) => return self.write(internal(&e.to_string()), out),
        };
        let none = match front.respond(&empty) {
            Ok(r) if r.is_error() => {
                r.write(&shape, out);
                return Outcome::Written { is_error: true };
            }
            Ok(r) => r,
            Err(e) => return self.write(internal(&e.to_string()), out),
        };
        let mut page = PageOut {
            id: self.id,
            out: Some(out),
            opened: None,
        };
        let mut batch = Vec::with_capacity(64 * 1024);
        let mut block = Vec::with_capacity(64 * 1024);
        let (mut in_batch, mut shown, mut more) = (0usize, 0usize, false);
        let mut last_key = String::new();
        let mut failed: Option<String> = None;
        // The rows of `batch` into the data block, through the engine.
        let mut flush = |batch: &mut Vec<u8>,
                         in_batch: &mut usize,
                         page: &mut PageOut<'_, '_, S>|
         -> Result<(), String> {
            if *in_batch == 0 {
                return Ok(());
            }
            batch.push(b']');
            let doc =
                toolwire::json::parse(batch, &Default::default()).map_err(|e| e.to_string())?;
            let input = Input::doc(doc);
            let reply = front.respond(&input).map_err(|e| e.to_string())?;
            if reply.is_error() {
                return Err("a batch of the page was refused".into());
            }
            block.clear();
            reply.response().write_block(0, &mut block);
            // The batch's array without its brackets: the rows, comma-separated.
            let rows = block
                .get(1..block.len().saturating_sub(1))
                .filter(|r| !r.is_empty())
                .ok_or("a batch of the page wrote no rows")?;
            page.rows(rows);
            batch.clear();
            batch.push(b'[');
            *in_batch = 0;
            Ok(())
        };
        batch.push(b'[');
        let read = self.table.rows(q, &mut |row, key| {
            if shown == q.limit {
                more = true;
                return false;
            }
            if in_batch > 0 {
                batch.push(b',');
            }
            batch.extend_from_slice(row);
            last_key.clear();
            last_key.push_str(key);
            in_batch += 1;
            shown += 1;
            if in_batch == STREAM_BATCH {
                if let Err(e) = flush(&mut batch, &mut in_batch, &mut page) {
                    failed = Some(e);
                    return false;
                }
            }
            !hooks.cancelled()
        });
        // The rows read before the end (or a failure) go out too.
        if failed.is_none() && !hooks.cancelled() {
            if let Err(e) = flush(&mut batch, &mut in_batch, &mut page) {
                failed = Some(e);
            }
        }
        let Some(mut w) = page.opened else {
            // Nothing went out: an answer as any other page's.
            let Some(out) = page.out else {
                return Outcome::Cancelled;
            };
            if hooks.cancelled() {
                return Outcome::Cancelled;
            }
            if let Some(e) = failed {
                return self.write(internal(&e), out);
            }
            if let Err(e) = read {
                return self.write(self.unavailable(&e), out);
            }
            none.write(&shape, out);
            return Outcome::Written { is_error: false };
        };
        w.text(b"]");
        let cut = |what: String| {
            ToolError::new("UNAVAILABLE")
                .message(format!(
                    "{what} after {shown} rows of this page: the data above holds those rows only."
                ))
                .recovery(format!(
                    "Call {} again in a few seconds, or with a smaller limit.",
                    self.coll.name
                ))
                .into_response()
        };
        let rest = match (failed, read) {
            (Some(e), _) => {
                eprintln!("toolwire: {}: a streamed page failed: {e}", self.coll.name);
                cut(format!("The {} page could not be written", self.coll.name))
            }
            (None, Err(e)) => {
                eprintln!(
                    "toolwire: {} ({}): {}",
                    self.coll.name,
                    self.table.describe(),
                    e.message()
                );
                cut(format!("The database of {} failed", self.coll.name))
            }
            // Cancelled, or the whole listing: the message ends here (a cancelled one is
            // refused by the transport, which closes it as cancelled).
            (None, Ok(())) if !more || hooks.cancelled() => wire::response(())
                .build()
                .unwrap_or_else(|e| internal(&e.to_string())),
            (None, Ok(())) => {
                // The rows went out whole: a count that fails leaves them "more hidden".
                let (total, carried) =
                    self.total(q, shown, more, counted, None)
                        .unwrap_or_else(|e| {
                            eprintln!(
                                "toolwire: {} ({}): a count failed: {}",
                                self.coll.name,
                                self.table.describe(),
                                e.message()
                            );
                            (toolwire::call::UNCOUNTED, None)
                        });
                wire::response(())
                    .ui_block(toolwire::present::truncation_notice(shown, total))
                    .llm_hint(next.keyset_directive(&last_key, shown, total, carried))
                    .build()
                    .unwrap_or_else(|e| internal(&e.to_string()))
            }
        };
        let from = usize::from(rest.is_error() != Some(true));
        let is_error = rest.is_error() == Some(true);
        w.close(&rest, from, self.protocol);
        Outcome::Written { is_error }
    }

    /// `<tool_error code="UNAVAILABLE">`: the database did not answer (`TIMEOUT`: the
    /// statement ran past its time limit). The detail goes to the log; the response names
    /// the tool, never the database's location or password.
    fn unavailable(&self, e: &crate::source::SourceError) -> ToolResponse<'static> {
        eprintln!(
            "toolwire: {} ({}): {}",
            self.coll.name,
            self.table.describe(),
            e.message()
        );
        let (code, message, retry) = match e {
            crate::source::SourceError::Timeout => (
                "TIMEOUT",
                format!("The {} query ran past its time limit.", self.coll.name),
                "Narrow the call with a where filter on an indexed column, or a smaller limit.",
            ),
            crate::source::SourceError::Unavailable(_) => (
                "UNAVAILABLE",
                format!("The database of {} is unavailable.", self.coll.name),
                "This may be a transient error. Retry the same call in a few seconds.",
            ),
        };
        ToolError::new(code)
            .message(message)
            .recovery(retry)
            .into_response()
    }
}

/// Where a streamed page goes: the transport's sink until its first rows, then the response
/// they opened.
struct PageOut<'o, 'i, S: Sink + ?Sized> {
    id: &'i Id,
    out: Option<&'o mut S>,
    opened: Option<toolwire::frame::StreamedResponse<'o, S>>,
}

impl<S: Sink + ?Sized> PageOut<'_, '_, S> {
    /// Appends `rows` (JSON values, comma-separated) to the data block, opening the response
    /// and its array with the first.
    fn rows(&mut self, rows: &[u8]) {
        if let Some(w) = self.opened.as_mut() {
            w.text(b",");
            w.text(rows);
        } else if let Some(out) = self.out.take() {
            let mut w = toolwire::frame::StreamedResponse::open(self.id, out);
            w.text(b"[");
            w.text(rows);
            self.opened = Some(w);
        }
    }
}

/// The problems a `<validation_error>` lists; past them, one more says how many are left
/// (a client's arguments decide how many there are, the message cap and token budget do not
/// grow with them).
const MAX_PROBLEMS: usize = 8;

fn validation(action: &str, problems: &[Problem]) -> ToolResponse<'static> {
    let mut p: Vec<FieldProblem> = problems
        .iter()
        .take(MAX_PROBLEMS)
        .map(|p| FieldProblem {
            name: p.name.clone(),
            detail: p.detail.clone(),
        })
        .collect();
    if problems.len() > MAX_PROBLEMS {
        p.push(FieldProblem {
            name: "arguments".into(),
            detail: format!(
                "{} more problems not listed. Fix the ones above and call again.",
                problems.len() - MAX_PROBLEMS
            ),
        });
    }
    wire::validation_error(action, &p)
}

fn internal(message: &str) -> ToolResponse<'static> {
    wire::error_with_code("INTERNAL_ERROR", message)
}

fn not_found(coll: &Collection, key: &Scalar) -> ToolResponse<'static> {
    let shown = you_sent(&key.to_json());
    ToolError::new("NOT_FOUND")
        .message(format!("No {} row has {} = {shown}.", coll.name, coll.key))
        .recovery(format!(
            "Call {} with action 'list' (a 'where' filter narrows it) to find a valid {}.",
            coll.name, coll.key
        ))
        .into_response()
}

/// `_select` as the engine applies it: duplicates collapse (WIRE.md §4), and a presenter
/// without select ignores it (`None`).
fn effective_select(coll: &Collection, call: &Call) -> Option<Value> {
    call.select
        .as_ref()
        .filter(|_| coll.presenter.input_schema_property().is_some())
        .map(|s| match s {
            Value::Array(names) => {
                let mut seen = Vec::new();
                for n in names {
                    if !seen.contains(n) {
                        seen.push(n.clone());
                    }
                }
                Value::Array(seen)
            }
            other => other.clone(),
        })
}

/// The fingerprint of a list (SERVE.md §8: a cursor is refused with another `where` or
/// `_select`): the tool, the `where` with its keys sorted, the effective `_select`.
fn list_fingerprint(
    coll: &Collection,
    filter: &[(String, Scalar)],
    select: Option<&Value>,
) -> [u8; 8] {
    let mut sorted: Vec<&(String, Scalar)> = filter.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let w: serde_json::Map<String, Value> = sorted
        .iter()
        .map(|(k, v)| (k.clone(), v.to_json()))
        .collect();
    let w = serde_json::to_string(&w).unwrap_or_default();
    let s = select.map(Value::to_string).unwrap_or_default();
    cursor::fingerprint(&coll.name, &w, &s)
}

fn bad_cursor(coll: &Collection, why: Refused) -> ToolResponse<'static> {
    validation(
        &format!("{}/list", coll.name),
        &[Problem {
            name: "cursor".into(),
            detail: why.detail().into(),
        }],
    )
}

/// The arguments of a `list` call at another position: the call's own `where`, `limit`,
/// `format` and effective `_select`, with a `cursor` for the position (SERVE.md §2, §8).
#[derive(Clone)]
struct NextCall {
    name: String,
    key: crate::cursor::CursorKey,
    fp: [u8; 8],
    filter: Option<serde_json::Map<String, Value>>,
    limit: Option<usize>,
    format: Option<&'static str>,
    select: Option<Value>,
}

impl NextCall {
    fn new(
        coll: &Collection,
        call: &Call,
        filter: &[(String, Scalar)],
        limit: Option<usize>,
        select: Option<Value>,
        fp: [u8; 8],
    ) -> NextCall {
        NextCall {
            name: coll.name.clone(),
            key: coll.cursor_key.clone(),
            fp,
            filter: (!filter.is_empty()).then(|| {
                filter
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect()
            }),
            limit,
            format: call.format,
            select,
        }
    }

    /// The arguments, as copyable JSON, of the call whose page starts at `position`.
    fn args(&self, position: usize) -> String {
        self.args_at(&Position::Offset(position as u64))
    }

    fn args_at(&self, at: &Position) -> String {
        let mut args = serde_json::Map::new();
        args.insert("action".into(), "list".into());
        if let Some(w) = &self.filter {
            args.insert("where".into(), Value::Object(w.clone()));
        }
        if let Some(l) = self.limit {
            args.insert("limit".into(), l.into());
        }
        if let Some(f) = self.format {
            args.insert("format".into(), f.into());
        }
        if let Some(s) = &self.select {
            args.insert("_select".into(), s.clone());
        }
        args.insert(
            "cursor".into(),
            cursor::encode(&self.key, self.fp, at).into(),
        );
        copyable_json(&Value::Object(args))
    }

    /// The directive naming the next page of a page that starts at `offset` (the engine's
    /// [`ToolCall::paging`]). The counts are the truncation notice's, not repeated here.
    fn hint(self, offset: usize) -> impl Fn(usize, usize) -> String + Send + Sync + 'static {
        move |shown, _| {
            format!(
                "Next page: call {} with {}",
                self.name,
                self.args(offset.saturating_add(shown))
            )
        }
    }

    /// The arguments of the call whose page starts after the row whose key has the JSON
    /// text `key` (keyset paging).
    fn args_after(&self, key: &str, counted: Counted) -> String {
        self.args_at(&Position::After(key.to_owned(), counted))
    }

    /// The directive naming the next page of a keyset page whose rows have `keys`. `about`:
    /// the matching rows as the listing's first page counted them, carried by the cursor
    /// (the engine's count is then `UNCOUNTED`: rows may have changed since, so the number
    /// is said to be "about"). The next cursor carries what is left of the count.
    fn keyset_hint(
        self,
        keys: Arc<crate::source::Keys>,
        about: Option<usize>,
    ) -> impl Fn(usize, usize) -> String + Send + Sync + 'static {
        move |shown, remaining| {
            let Some(last) = shown.checked_sub(1).and_then(|i| keys.get(i)) else {
                return String::new();
            };
            self.keyset_directive(last, shown, remaining, about)
        }
    }

    /// The directive naming the page after the row whose key has the JSON text `last`, of a
    /// page that shows `shown` of `remaining` rows ([`keyset_hint`](Self::keyset_hint)).
    fn keyset_directive(
        &self,
        last: &str,
        shown: usize,
        remaining: usize,
        about: Option<usize>,
    ) -> String {
        {
            // The truncation notice says how many rows were shown and how many remain, but
            // for a carried count (the notice's "more hidden"): that one is said here.
            let (count, counted) = match (remaining, about) {
                (toolwire::call::UNCOUNTED, Some(n)) => (
                    format!("About {} more rows. ", n.saturating_sub(shown)),
                    Counted::About(n.saturating_sub(shown) as u64),
                ),
                (toolwire::call::UNCOUNTED, None) => (String::new(), Counted::TimedOut),
                (n, _) => (String::new(), Counted::About((n - shown) as u64)),
            };
            format!(
                "{count}Next page: call {} with {}",
                self.name,
                self.args_after(last, counted)
            )
        }
    }

    /// The `TOO_LARGE` of a keyset page whose first row (key `first`) is alone over the
    /// limits: the call that skips it.
    fn skip_key(
        &self,
        first: Option<&str>,
        problem: Option<&CallProblem>,
    ) -> ToolResponse<'static> {
        let limit = problem
            .and_then(CallProblem::limit)
            .unwrap_or_else(|| "the limits".into());
        let (message, recovery) = match first {
            Some(k) => (
                format!("The {} row {k} is alone larger than {limit}.", self.name),
                format!(
                    "Skip it: call {} with {}. Or ask for fewer fields with _select, or a more compact format.",
                    self.name,
                    self.args_after(k, Counted::Unknown)
                ),
            ),
            None => (
                format!("A {} row is alone larger than {limit}.", self.name),
                "Ask for fewer fields with _select, or a more compact format.".to_owned(),
            ),
        };
        ToolError::new("TOO_LARGE")
            .message(message)
            .recovery(recovery)
            .into_response()
    }

    /// The `TOO_LARGE` of a page whose first row, at `offset` of `matching`, is alone over
    /// the limit `problem` names: the call that skips it, when rows follow it.
    fn skip(
        &self,
        offset: usize,
        matching: usize,
        problem: Option<&CallProblem>,
    ) -> ToolResponse<'static> {
        let limit = problem
            .and_then(CallProblem::limit)
            .unwrap_or_else(|| "the limits".into());
        let recovery = if offset + 1 < matching {
            format!(
                "Skip it: call {} with {}. Or ask for fewer fields with _select, or a more compact format.",
                self.name,
                self.args(offset + 1)
            )
        } else {
            "It is the last matching row: ask for fewer fields with _select, or a more compact format.".into()
        };
        ToolError::new("TOO_LARGE")
            .message(format!(
                "The {} row at position {offset} of the {matching} matching rows is alone larger than {limit}.",
                self.name
            ))
            .recovery(recovery)
            .into_response()
    }
}

/// `v` as compact JSON that an agent can copy out of a block and send back as is: `&`, `<`
/// and `>` (which the block's tag-safe escape would turn into `&amp;` and `&lt;`, changing the
/// value) are written as the JSON escapes `\u0026`, `\u003c` and `\u003e`. In JSON text they
/// occur only inside strings, where the escape means the same character.
fn copyable_json(v: &Value) -> String {
    let text = serde_json::to_string(v).unwrap_or_default();
    if !text.contains(['&', '<', '>']) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("\\u0026"),
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            c => out.push(c),
        }
    }
    out
}

/// The tool object of `coll` for `tools/list` (compact JSON).
pub(crate) fn tool_json(coll: &Collection, structured: bool) -> String {
    let p = &coll.presenter;
    let actions = [
        ActionDescription {
            name: "list".into(),
            description: format!(
                "List the rows of {}: filter with where; page with the cursor each page names (or offset) and limit",
                coll.name
            ),
            required: Vec::new(),
            destructive: false,
        },
        ActionDescription {
            name: "get".into(),
            description: format!("Get one row of {} by its {}", coll.name, coll.key),
            required: vec!["id".into()],
            destructive: false,
        },
    ];
    let what = match &coll.table {
        Some(_) => format!("Query the {} table", coll.name),
        None => format!("Query the {} collection ({} rows)", coll.name, coll.len()),
    };
    let description = toolwire::present::toon_description(&coll.name, &what, "action", &actions);
    let mut props = serde_json::Map::new();
    props.insert(
        "action".into(),
        serde_json::json!({"type": "string", "enum": ["list", "get"], "description": "list: rows matching where, paged by cursor (or offset) and limit; get: one row by id"}),
    );
    let mut w = serde_json::json!({
        "type": "object",
        "description": "list: keep rows whose root field equals the value (numbers by value, strings exactly); every key must hold",
        "additionalProperties": {"type": ["string", "number", "boolean", "null"]}
    });
    if let Some(keys) = &coll.root_keys {
        w["propertyNames"] = serde_json::json!({"enum": keys});
    }
    props.insert("where".into(), w);
    props.insert(
        "cursor".into(),
        serde_json::json!({"type": "string", "description": "list: the cursor the previous page named, to continue where it stopped (with the same where and _select); instead of offset"}),
    );
    props.insert(
        "offset".into(),
        serde_json::json!({"type": "integer", "minimum": 0, "default": 0, "description": "list: skip this many matching rows"}),
    );
    let mut limit = serde_json::json!({"type": "integer", "minimum": 0});
    limit["description"] = match coll.limit {
        Some(n) => format!("list: at most this many rows (at most {n}; default {n})").into(),
        None => format!("list: at most this many rows (default {DEFAULT_LIST_LIMIT})").into(),
    };
    props.insert("limit".into(), limit);
    props.insert(
        "format".into(),
        serde_json::json!({"type": "string", "enum": FORMATS, "description": format!("the data block's format (default {})", coll.format)}),
    );
    props.insert(
        "id".into(),
        serde_json::json!({"type": ["string", "integer"], "description": format!("get: the row's {}", coll.key)}),
    );
    if let Some(sel) = p.input_schema_property() {
        if let Ok(v) = serde_json::from_str::<Value>(&sel) {
            props.insert("_select".into(), v);
        }
    }
    let mut tool = serde_json::json!({
        "name": coll.name,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": Value::Object(props),
            "required": ["action"],
            "additionalProperties": false
        },
        "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
    });
    if structured {
        let schema = p.output_schema("2025-11-25", true);
        if let Ok(v) = serde_json::from_str::<Value>(&schema) {
            tool["outputSchema"] = v;
        }
    }
    serde_json::to_string(&tool).unwrap_or_default()
}
