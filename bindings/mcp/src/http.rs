//! MCP streamable HTTP (SERVE.md §3, §4): `POST /mcp`, stateless — every request is
//! answered on its own, no session is kept or required. A `tools/call` result streams in
//! chunks as it is encoded (`application/json`, or one server-sent event when the client
//! accepts only `text/event-stream` or asked for progress and accepts it).
//!
//! Checks, in order: path (404), `Host` when bound to loopback and `Origin` (403), bearer
//! token (401), method (405), body size (413), the bound on concurrent requests (503).

use std::convert::Infallible;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::task::{Context as TaskContext, Poll};

use bytes::Bytes;
use http_body::Frame;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use crate::collection::Server;
use crate::rpc::{self, Context, Reply};
use crate::stream::{self, Framing};
use crate::{Failure, ServeArgs};

/// Request bodies over this many bytes get 413.
pub(crate) const MAX_BODY: usize = 4 << 20;

/// The HTTP settings, checked before anything is loaded.
pub(crate) struct Config {
    addr: SocketAddr,
    allow_origins: Vec<String>,
    token: Option<String>,
    max_concurrent: usize,
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
        })
    }
}

struct State {
    server: Arc<Server>,
    cfg: Config,
    /// `Host` values accepted when bound to loopback.
    hosts: Vec<String>,
    loopback: bool,
    permits: Arc<Semaphore>,
}

fn host_port(ip: IpAddr, port: u16) -> String {
    match ip {
        IpAddr::V4(v4) => format!("{v4}:{port}"),
        IpAddr::V6(v6) => format!("[{v6}]:{port}"),
    }
}

/// Binds, prints `listening on http://HOST:PORT/mcp` on stderr, and serves forever.
pub(crate) async fn serve(server: Arc<Server>, cfg: Config) -> io::Result<()> {
    let listener = tokio::net::TcpListener::bind(cfg.addr).await?;
    let local = listener.local_addr()?;
    eprintln!(
        "listening on http://{}/mcp",
        host_port(local.ip(), local.port())
    );
    let port = local.port();
    let mut hosts = vec![host_port(local.ip(), port), format!("localhost:{port}")];
    if local.ip().is_loopback() {
        hosts.push(format!("127.0.0.1:{port}"));
        hosts.push(format!("[::1]:{port}"));
    }
    let state = Arc::new(State {
        server,
        loopback: local.ip().is_loopback(),
        hosts,
        permits: Arc::new(Semaphore::new(cfg.max_concurrent)),
        cfg,
    });
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(x) => x,
            // Out of file descriptors and the like: keep serving the others.
            Err(e) => {
                eprintln!("toolwire serve: accept: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let state = state.clone();
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            let svc = hyper::service::service_fn(move |req| {
                let state = state.clone();
                async move { Ok::<_, Infallible>(handle(&state, req).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, svc)
                .await;
        });
    }
}

/// A response body: a whole buffer, or chunks from an encoding call.
pub(crate) enum Body {
    Full(Option<Bytes>),
    Stream {
        rx: mpsc::Receiver<Bytes>,
        /// Held until the body is dropped: the call counts against the bound until then.
        _permit: OwnedSemaphorePermit,
    },
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            Body::Full(b) => Poll::Ready(b.take().map(|b| Ok(Frame::data(b)))),
            Body::Stream { rx, .. } => rx.poll_recv(cx).map(|o| o.map(|b| Ok(Frame::data(b)))),
        }
    }
}

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    let mut r = Response::new(Body::Full(Some(Bytes::from(format!("{text}\n")))));
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
    let too_large = || {
        plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload too large: at most 4 MiB",
        )
    };
    let declared = header_str(&req, header::CONTENT_LENGTH).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        return too_large();
    }
    let Ok(permit) = state.permits.clone().try_acquire_owned() else {
        let mut r = plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy: too many requests at once",
        );
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return r;
    };
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
    // The body, read frame by frame with the limit applied as it grows.
    let mut body = req.into_body();
    let mut buf = Vec::new();
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else {
            return plain(
                StatusCode::BAD_REQUEST,
                "bad request: the body could not be read",
            );
        };
        if let Ok(data) = frame.into_data() {
            if buf.len() + data.len() > MAX_BODY {
                return too_large();
            }
            buf.extend_from_slice(&data);
        }
    }
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
            let mut r = Response::new(Body::Full(None));
            *r.status_mut() = StatusCode::ACCEPTED;
            r
        }
        Reply::Line { bytes, status } => {
            let framing = framing_for(false);
            let body = match framing {
                Framing::Line => bytes,
                Framing::Sse => [b"event: message\ndata: ".as_slice(), &bytes, b"\n"].concat(),
            };
            let mut r = Response::new(Body::Full(Some(Bytes::from(body))));
            *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            set_type(&mut r, framing);
            r
        }
        Reply::Call(job) => {
            let framing = framing_for(job.progress_token.is_some());
            let (tx, rx) = mpsc::channel::<Bytes>(8);
            let cancel = Arc::new(AtomicBool::new(false));
            tokio::task::spawn_blocking(move || {
                let outcome = stream::run(&job, framing, &tx, &cancel);
                if outcome == crate::respond::Outcome::Cancelled {
                    eprintln!(
                        "toolwire serve: call {} of {} cancelled (connection closed)",
                        job.key,
                        job.tool_name()
                    );
                }
            });
            let mut r = Response::new(Body::Stream {
                rx,
                _permit: permit,
            });
            set_type(&mut r, framing);
            r
        }
    }
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
