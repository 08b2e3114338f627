//! MCP streamable HTTP (SERVE.md §3, §4): `POST /mcp`, stateless — every request is
//! answered on its own, no session is kept or required. A `tools/call` result streams in
//! chunks as it is encoded (`application/json`, or one server-sent event when the client
//! accepts only `text/event-stream` or asked for progress and accepts it).
//!
//! Checks, in order: path (404), `Host` when bound to loopback and `Origin` (403), bearer
//! token (401), method (405), body size (413), the body's time limit (408), then for a
//! `tools/call` only, the bound on calls in flight (503).
//!
//! Hostile clients (docs/RELIABILITY.md): a call slot is taken only once the body is read
//! and only by a `tools/call` (the engine's work; pings, lists of tools and errors need
//! none); every connection waits at most its time limit for the client ([`Guarded`]: the
//! head, the idle keep-alive, a stalled response write; the body in [`handle`]); at most
//! `--max-connections` are open, the next ones wait in the listen queue.

use std::convert::Infallible;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll, Waker};
use std::time::Duration;

use bytes::Bytes;
use http_body::Frame;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::time::{Instant, Sleep};

use crate::collection::Server;
use crate::rpc::{self, Context, Reply};
use crate::stream::{self, Framing};
use crate::{Failure, HttpLimits, ServeArgs};

/// Request bodies over this many bytes get 413.
pub(crate) const MAX_BODY: usize = 4 << 20;

/// The HTTP settings, checked before anything is loaded.
pub(crate) struct Config {
    addr: SocketAddr,
    allow_origins: Vec<String>,
    token: Option<String>,
    max_concurrent: usize,
    max_connections: usize,
    limits: Limits,
    /// How long open connections may take to finish after SIGTERM or SIGINT.
    shutdown_grace: Duration,
}

/// The time limits of a connection (`None`: no limit).
#[derive(Clone, Copy)]
struct Limits {
    header: Option<Duration>,
    body: Option<Duration>,
    idle: Option<Duration>,
    write: Option<Duration>,
}

impl Limits {
    fn from_args(l: &HttpLimits) -> Limits {
        // At most 2^30 s (34 years), so a deadline never overflows an `Instant`.
        let secs = |s: u64| (s > 0).then(|| Duration::from_secs(s.min(1 << 30)));
        Limits {
            header: secs(l.header_timeout),
            body: secs(l.body_timeout),
            idle: secs(l.idle_timeout),
            write: secs(l.write_timeout),
        }
    }
}

impl Config {
    pub(crate) fn from_args(addr: &str, args: &ServeArgs) -> Result<Config, Failure> {
        let parsed = addr.parse::<SocketAddr>().ok().or_else(|| {
            // `localhost:PORT` is loopback by definition; other names are not resolved.
            let port = addr.strip_prefix("localhost:")?.parse::<u16>().ok()?;
            Some(SocketAddr::from(([127, 0, 0, 1], port)))
        });
        let Some(addr) = parsed else {
            return Err(Failure::usage(format!(
                "--http {addr}: expected IP:PORT (e.g. 127.0.0.1:8765)"
            )));
        };
        if !addr.ip().is_loopback() && !args.allow_remote {
            return Err(Failure::usage(format!(
                "--http {addr}: not a loopback address; add --allow-remote to serve other hosts"
            )));
        }
        let token = match &args.auth_token_env {
            None => None,
            Some(var) => match std::env::var(var) {
                Ok(t) if !t.is_empty() => Some(t),
                _ => {
                    return Err(Failure::usage(format!(
                        "--auth-token-env {var}: the variable is not set or empty"
                    )));
                }
            },
        };
        Ok(Config {
            addr,
            allow_origins: args.allow_origins.clone(),
            token,
            max_concurrent: args.max_concurrent.max(1),
            max_connections: args.limits.max_connections.max(1),
            limits: Limits::from_args(&args.limits),
            shutdown_grace: Duration::from_secs(args.limits.shutdown_grace.min(1 << 30)),
        })
    }
}

pub(crate) struct State {
    server: Arc<Server>,
    cfg: Config,
    /// `Host` values accepted when bound to loopback.
    hosts: Vec<String>,
    loopback: bool,
    /// Calls the engine works on (`--max-concurrent`).
    permits: Arc<Semaphore>,
}

impl State {
    /// The state of a server answering at `local`.
    pub(crate) fn new(server: Arc<Server>, cfg: Config, local: SocketAddr) -> State {
        let port = local.port();
        let mut hosts = vec![host_port(local.ip(), port), format!("localhost:{port}")];
        if local.ip().is_loopback() {
            hosts.push(format!("127.0.0.1:{port}"));
            hosts.push(format!("[::1]:{port}"));
        }
        State {
            server,
            loopback: local.ip().is_loopback(),
            hosts,
            permits: Arc::new(Semaphore::new(cfg.max_concurrent)),
            cfg,
        }
    }
}

fn host_port(ip: IpAddr, port: u16) -> String {
    match ip {
        IpAddr::V4(v4) => format!("{v4}:{port}"),
        IpAddr::V6(v6) => format!("[{v6}]:{port}"),
    }
}

/// Binds, prints `listening on http://HOST:PORT/mcp` on stderr, and serves until SIGTERM or
/// SIGINT. Then it stops accepting (the listener is closed: a load balancer's next attempt
/// goes to another replica), lets every connection finish the request it is answering and
/// closes it (an idle keep-alive one at once), and returns when all are closed or the
/// shutdown grace (`--shutdown-grace`) is over, cutting the rest; a second signal cuts them
/// at once (docs/DECISIONS.md, "HTTP").
pub(crate) async fn serve(server: Arc<Server>, cfg: Config) -> io::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let listener = tokio::net::TcpListener::bind(cfg.addr).await?;
    let local = listener.local_addr()?;
    eprintln!(
        "listening on http://{}/mcp",
        host_port(local.ip(), local.port())
    );
    // The connection bound: at the bound the server stops accepting (as Go's
    // `netutil.LimitListener` and Tomcat's `maxConnections` do), so new clients wait in the
    // kernel's listen queue and are served as soon as a connection closes; none holds a
    // descriptor meanwhile. nginx accepts and closes instead, which fails clients that a
    // moment later could have been served.
    let max = cfg.max_connections;
    let grace = cfg.shutdown_grace;
    let open = Arc::new(Semaphore::new(max));
    let state = Arc::new(State::new(server, cfg, local));
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let signalled = loop {
        let next = async {
            let slot = open.clone().acquire_owned().await;
            (slot, listener.accept().await)
        };
        let (slot, accepted) = tokio::select! {
            signalled = signal_of(&mut term, &mut int) => break signalled,
            next = next => next,
        };
        let Ok(slot) = slot else {
            unreachable!("the semaphore is never closed")
        };
        let (stream, _) = match accepted {
            Ok(x) => x,
            // Out of file descriptors and the like: keep serving the others.
            Err(e) => {
                eprintln!("toolwire serve: accept: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let (state, stopping) = (state.clone(), stopping.clone());
        tokio::spawn(async move {
            serve_connection(state, stream, false, Some(stopping)).await;
            drop(slot);
        });
    };
    drop(listener);
    // Counted before they are told to stop (an idle one closes at once).
    let open_now = max - open.available_permits();
    let _ = stop.send(true);
    eprintln!(
        "toolwire serve: {signalled}: no new connections; {open_now} open, given {} s to finish",
        grace.as_secs()
    );
    let all = u32::try_from(max).unwrap_or(u32::MAX);
    let finished = tokio::select! {
        done = tokio::time::timeout(grace, open.acquire_many(all)) => done.is_ok(),
        _ = signal_of(&mut term, &mut int) => false,
    };
    if finished {
        eprintln!("toolwire serve: stopped");
    } else {
        let cut = max - open.available_permits();
        eprintln!("toolwire serve: stopped with {cut} connection(s) cut after the grace period");
    }
    Ok(())
}

/// The name of the next SIGTERM or SIGINT.
async fn signal_of(
    term: &mut tokio::signal::unix::Signal,
    int: &mut tokio::signal::unix::Signal,
) -> &'static str {
    tokio::select! {
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
    }
}

/// Serves HTTP/1 on one connection until it closes, fails or exceeds a time limit; once
/// `stopping` turns true, until the request being answered is (an idle connection closes
/// at once). `half_close`: answer the requests already read after the client shut its
/// write side (the fuzz target; a real client that does that has gone).
pub(crate) async fn serve_connection<S>(
    state: Arc<State>,
    io: S,
    half_close: bool,
    stopping: Option<tokio::sync::watch::Receiver<bool>>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let phase = Arc::new(Phase::default());
    let io = hyper_util::rt::TokioIo::new(Guarded::new(io, phase.clone(), state.cfg.limits));
    let svc = hyper::service::service_fn(move |req| {
        let state = state.clone();
        let busy = Busy::enter(&phase);
        async move {
            let mut r = handle(&state, req).await;
            r.body_mut().busy = Some(busy);
            Ok::<_, Infallible>(r)
        }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .half_close(half_close)
        .serve_connection(io, svc);
    let mut conn = std::pin::pin!(conn);
    if let Some(mut stopping) = stopping {
        tokio::select! {
            _ = conn.as_mut() => return,
            // The sender gone is a stop too.
            _ = stopping.wait_for(|stop| *stop) => conn.as_mut().graceful_shutdown(),
        }
    }
    let _ = conn.await;
}

/// Where a connection is in its request cycle, shared by its IO ([`Guarded`], which applies
/// the head and idle limits) and its service (which marks a request busy until its response
/// body is dropped). A generation counts the changes, so the IO arms one deadline per
/// phase: `generation << 2 | phase`.
#[derive(Default)]
struct Phase {
    now: AtomicU64,
    /// The task of the last read left pending while busy: woken when the request ends, so
    /// the idle limit is armed without relying on hyper to read again before the client
    /// writes (hyper 1.12's poll loop happens to; nothing in its API promises it).
    reader: Mutex<Option<Waker>>,
}

/// Waiting for a request head, or reading one: the header limit.
const HEAD: u64 = 0;
/// Between requests, no byte of the next one yet: the idle limit.
const IDLE: u64 = 1;
/// A request is being answered: the body limit (in [`handle`]) and the write limit.
const BUSY: u64 = 2;

impl Phase {
    fn get(&self) -> u64 {
        self.now.load(Ordering::Relaxed)
    }
    fn set(&self, phase: u64) {
        let next = ((self.get() >> 2) + 1) << 2 | phase;
        self.now.store(next, Ordering::Relaxed);
    }
    fn reader(&self) -> std::sync::MutexGuard<'_, Option<Waker>> {
        self.reader.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A request being answered: the connection is idle again when this (held by the response
/// body) is dropped.
struct Busy(Arc<Phase>);

impl Busy {
    fn enter(phase: &Arc<Phase>) -> Busy {
        phase.set(BUSY);
        Busy(phase.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.set(IDLE);
        if let Some(w) = self.0.reader().take() {
            w.wake();
        }
    }
}

/// A deadline armed by the first `Pending` after [`Deadline::disarm`].
#[derive(Default)]
struct Deadline {
    sleep: Option<Pin<Box<Sleep>>>,
    armed: bool,
}

impl Deadline {
    fn disarm(&mut self) {
        self.armed = false;
    }

    /// `Ready` once `limit` has passed since the deadline was armed (by this call when it
    /// was not); registers the waker otherwise.
    fn poll_expired(&mut self, cx: &mut TaskContext<'_>, limit: Duration) -> Poll<()> {
        if !self.armed {
            self.armed = true;
            let at = Instant::now() + limit;
            match &mut self.sleep {
                Some(s) => s.as_mut().reset(at),
                None => self.sleep = Some(Box::pin(tokio::time::sleep_until(at))),
            }
        }
        match &mut self.sleep {
            Some(s) => s.as_mut().poll(cx),
            None => Poll::Pending,
        }
    }
}

fn timed_out(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, format!("{what} timed out"))
}

/// A connection's IO with its time limits: a read pending while the connection waits for a
/// head (`HEAD`: from the connection or the first byte after an idle keep-alive) or for the
/// next request (`IDLE`) fails with `TimedOut` once that phase's limit has passed; a write
/// (or flush) pending for longer than the write limit fails the same way. hyper then closes
/// the connection and drops the response body, whose call stops: its channel's receiver is
/// gone, so the engine's next `blocking_send` fails.
struct Guarded<S> {
    io: S,
    phase: Arc<Phase>,
    limits: Limits,
    /// The phase (with its generation) the read deadline was armed for.
    read_for: u64,
    read: Deadline,
    write: Deadline,
}

impl<S> Guarded<S> {
    fn new(io: S, phase: Arc<Phase>, limits: Limits) -> Guarded<S> {
        Guarded {
            io,
            read_for: phase.get(),
            phase,
            limits,
            read: Deadline::default(),
            write: Deadline::default(),
        }
    }

    /// A write that made no progress: `TimedOut` once it has waited for the write limit.
    fn write_stalled<T>(&mut self, cx: &mut TaskContext<'_>) -> Poll<io::Result<T>> {
        match self.limits.write {
            Some(limit) if self.write.poll_expired(cx, limit).is_ready() => {
                Poll::Ready(Err(timed_out("response write")))
            }
            _ => Poll::Pending,
        }
    }

    /// Keeps the write deadline for the next stall only.
    fn wrote<T>(
        &mut self,
        r: Poll<io::Result<T>>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<io::Result<T>> {
        if r.is_pending() {
            return self.write_stalled(cx);
        }
        self.write.disarm();
        r
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Guarded<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let r = Pin::new(&mut this.io).poll_read(cx, buf);
        let now = this.phase.get();
        if r.is_ready() {
            if buf.filled().len() > before && now & 3 == IDLE {
                // The first bytes of the next request: its head has the header limit.
                this.phase.set(HEAD);
            }
            return r;
        }
        if now != this.read_for {
            this.read_for = now;
            this.read.disarm();
        }
        let limit = match now & 3 {
            HEAD => this.limits.header.map(|l| (l, "request head")),
            IDLE => this.limits.idle.map(|l| (l, "idle keep-alive")),
            _ => {
                let mut reader = this.phase.reader();
                if !reader.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    *reader = Some(cx.waker().clone());
                }
                None
            }
        };
        match limit {
            Some((limit, what)) if this.read.poll_expired(cx, limit).is_ready() => {
                Poll::Ready(Err(timed_out(what)))
            }
            _ => Poll::Pending,
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Guarded<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.io).poll_write(cx, buf);
        this.wrote(r, cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        this.wrote(r, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.io).poll_flush(cx);
        this.wrote(r, cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.io).poll_shutdown(cx);
        this.wrote(r, cx)
    }
}

/// A response body: a whole buffer, or chunks from an encoding call.
pub(crate) struct Body {
    kind: Kind,
    /// The request this body answers, over when the body is dropped (see [`Phase`]).
    busy: Option<Busy>,
}

enum Kind {
    Full(Option<Bytes>),
    Stream {
        rx: mpsc::Receiver<Bytes>,
        /// Held until the body is dropped: the call counts against the bound until then.
        _permit: OwnedSemaphorePermit,
    },
}

impl Body {
    fn full(bytes: Option<Bytes>) -> Body {
        Body {
            kind: Kind::Full(bytes),
            busy: None,
        }
    }
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.get_mut().kind {
            Kind::Full(b) => Poll::Ready(b.take().map(|b| Ok(Frame::data(b)))),
            Kind::Stream { rx, .. } => rx.poll_recv(cx).map(|o| o.map(|b| Ok(Frame::data(b)))),
        }
    }
}

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    let mut r = Response::new(Body::full(Some(Bytes::from(format!("{text}\n")))));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

fn header_str(req: &Request<Incoming>, name: header::HeaderName) -> Option<&str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// Constant-time comparison of the bearer token.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn handle(state: &State, req: Request<Incoming>) -> Response<Body> {
    if req.uri().path() != "/mcp" {
        return plain(StatusCode::NOT_FOUND, "not found: the MCP endpoint is /mcp");
    }
    if state.loopback {
        let host = header_str(&req, header::HOST).unwrap_or("");
        if !state.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
            return plain(StatusCode::FORBIDDEN, "forbidden: Host is not this server");
        }
    }
    if let Some(origin) = req.headers().get(header::ORIGIN) {
        let ok = origin
            .to_str()
            .is_ok_and(|o| state.cfg.allow_origins.iter().any(|a| a == o));
        if !ok {
            return plain(StatusCode::FORBIDDEN, "forbidden: Origin not allowed");
        }
    }
    if let Some(token) = &state.cfg.token {
        let given = header_str(&req, header::AUTHORIZATION)
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        if !same(given.as_bytes(), token.as_bytes()) {
            let mut r = plain(
                StatusCode::UNAUTHORIZED,
                "unauthorized: a bearer token is required",
            );
            r.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return r;
        }
    }
    if req.method() != Method::POST {
        let mut r = plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "method not allowed: this stateless server answers POST only",
        );
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return r;
    }
    let declared = header_str(&req, header::CONTENT_LENGTH).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        return too_large();
    }
    let accept = header_str(&req, header::ACCEPT)
        .unwrap_or("")
        .to_ascii_lowercase();
    let sse_ok = accept.contains("text/event-stream");
    let json_ok = accept.is_empty()
        || accept.contains("application/json")
        || accept.contains("*/*")
        || accept.contains("application/*");
    let header_version = header_str(
        &req,
        "mcp-protocol-version".parse().unwrap_or(header::ACCEPT),
    )
    .map(str::to_owned);
    // The body, read frame by frame with the size limit applied as it grows, within the
    // body's time limit. No call slot is held meanwhile: a slow body costs a connection.
    let read = read_body(req.into_body());
    let read = match state.cfg.limits.body {
        Some(limit) => tokio::time::timeout(limit, read)
            .await
            .unwrap_or(Err(BodyRefused::Late)),
        None => read.await,
    };
    let buf = match read {
        Ok(buf) => buf,
        Err(BodyRefused::Unreadable) => {
            return plain(
                StatusCode::BAD_REQUEST,
                "bad request: the body could not be read",
            );
        }
        Err(BodyRefused::TooLarge) => return too_large(),
        Err(BodyRefused::Late) => {
            // The rest of the body may still come: the connection cannot serve another
            // request.
            let mut r = plain(
                StatusCode::REQUEST_TIMEOUT,
                "request timeout: the body did not arrive in time",
            );
            r.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return r;
        }
    };
    let mut ctx = Context {
        negotiated: None,
        header_version,
    };
    let framing_for = |progress: bool| {
        if sse_ok && (!json_ok || progress) {
            Framing::Sse
        } else {
            Framing::Line
        }
    };
    match rpc::handle(&state.server, &buf, &mut ctx) {
        Reply::None | Reply::Cancel(_) => {
            // Notifications (cancellation included: over HTTP a call is cancelled by
            // closing its connection) are accepted and not answered.
            let mut r = Response::new(Body::full(None));
            *r.status_mut() = StatusCode::ACCEPTED;
            r
        }
        Reply::Line { bytes, status } => {
            let framing = framing_for(false);
            let body = match framing {
                Framing::Line => bytes,
                Framing::Sse => [b"event: message\ndata: ".as_slice(), &bytes, b"\n"].concat(),
            };
            let mut r = Response::new(Body::full(Some(Bytes::from(body))));
            *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            set_type(&mut r, framing);
            r
        }
        Reply::Call(job) => {
            // Only the engine's work takes a slot; 503 (not a JSON-RPC error) so that a load
            // balancer in front of replicas (SERVE.md §6) may retry another one.
            let Ok(permit) = state.permits.clone().try_acquire_owned() else {
                let mut r = plain(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "busy: too many calls at once",
                );
                r.headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
                return r;
            };
            let framing = framing_for(job.progress_token.is_some());
            let cancel = Arc::new(AtomicBool::new(false));
            // A page of a database whose client is asynchronous is read by this task (no
            // thread waits for the database); a short one is then answered here too, its
            // engine work a few tens of microseconds (docs/DECISIONS.md, "Database sources").
            let reading = Unanswered(&job);
            let prefetched = job.prefetch().await;
            reading.answered();
            if prefetched.as_ref().is_some_and(|p| p.rows() <= INLINE_ROWS) {
                let chunks = std::cell::RefCell::new(Vec::<Bytes>::new());
                let send = |b: Bytes| {
                    chunks.borrow_mut().push(b);
                    true
                };
                stream::run_into(
                    &job,
                    prefetched,
                    framing,
                    stream::CHUNK,
                    &send,
                    &cancel,
                    None,
                );
                let chunks = chunks.into_inner();
                let body = match <[Bytes; 1]>::try_from(chunks) {
                    Ok([one]) => one,
                    Err(many) => Bytes::from(many.concat()),
                };
                let mut r = Response::new(Body::full(Some(body)));
                set_type(&mut r, framing);
                drop(permit);
                return r;
            }
            let (tx, rx) = mpsc::channel::<Bytes>(8);
            tokio::task::spawn_blocking(move || {
                let outcome = stream::run(&job, prefetched, framing, &tx, &cancel);
                if outcome == crate::respond::Outcome::Cancelled {
                    log_cancelled(&job);
                }
            });
            let mut r = Response::new(Body {
                kind: Kind::Stream {
                    rx,
                    _permit: permit,
                },
                busy: None,
            });
            set_type(&mut r, framing);
            r
        }
    }
}

/// A call whose page is being read ahead: its client closing the connection drops the
/// request's task, and with it this, which says so in the log as a cancelled streamed call
/// does.
struct Unanswered<'a>(&'a rpc::CallJob);

impl Unanswered<'_> {
    /// The page was read: the call goes on.
    fn answered(self) {
        std::mem::forget(self);
    }
}

impl Drop for Unanswered<'_> {
    fn drop(&mut self) {
        log_cancelled(self.0);
    }
}

/// The log line of a call whose client closed the connection before its answer was sent.
fn log_cancelled(job: &rpc::CallJob) {
    eprintln!(
        "toolwire serve: call {} of {} cancelled (connection closed)",
        job.key,
        job.tool_name()
    );
}

/// The most rows of a page read ahead
/// ([`CallJob::prefetch`](crate::rpc::CallJob::prefetch)) that the runtime's task answers
/// itself; a longer one goes to a blocking thread.
const INLINE_ROWS: usize = 256;

/// Why a request body is not read: 400, 413, 408.
enum BodyRefused {
    Unreadable,
    TooLarge,
    Late,
}

/// A request body, whole.
async fn read_body(mut body: Incoming) -> Result<Vec<u8>, BodyRefused> {
    let mut buf = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| BodyRefused::Unreadable)?;
        if let Ok(data) = frame.into_data() {
            if buf.len() + data.len() > MAX_BODY {
                return Err(BodyRefused::TooLarge);
            }
            buf.extend_from_slice(&data);
        }
    }
    Ok(buf)
}

fn too_large() -> Response<Body> {
    plain(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload too large: at most 4 MiB",
    )
}

fn set_type(r: &mut Response<Body>, framing: Framing) {
    let t = match framing {
        Framing::Line => "application/json",
        Framing::Sse => "text/event-stream",
    };
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(t));
    if framing == Framing::Sse {
        r.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    }
}
