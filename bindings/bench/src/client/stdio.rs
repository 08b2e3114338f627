//! The stdio transport: a child process, newline-delimited JSON-RPC on its stdin/stdout.
//!
//! One reader task reads stdout in whatever pieces the pipe gives, notes the instant the
//! first byte of each line arrived and hands each complete response line to the request
//! waiting for its id. The child's stderr is drained into a short tail, quoted when the
//! server dies.

use std::collections::{HashMap, VecDeque};
use std::process::Stdio as Pipe;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::oneshot;

use super::{Arrival, ClientError, one_line, unframed_len};

/// Lines of the child's stderr kept for error messages.
const TAIL: usize = 20;
/// How long [`Stdio::close`] waits for the child to exit after closing its stdin.
const GRACE: Duration = Duration::from_secs(2);

type Waiter = oneshot::Sender<Result<Arrival, ClientError>>;

/// A server child process.
pub(crate) struct Stdio {
    program: String,
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    child: tokio::sync::Mutex<Child>,
    pending: Arc<Mutex<HashMap<u64, Waiter>>>,
    tail: Arc<Mutex<VecDeque<String>>>,
    /// The task draining stderr: awaited (briefly) so the tail holds the server's last words.
    drain: tokio::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
}

/// Splits a command line into words as a POSIX shell does (single and double quotes,
/// backslash escapes), with no expansion of any kind.
pub fn split_command(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err("an unclosed ' quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => cur.push(c),
                            Some(c) => {
                                cur.push('\\');
                                cur.push(c);
                            }
                            None => return Err("an unclosed \" quote".into()),
                        },
                        Some(c) => cur.push(c),
                        None => return Err("an unclosed \" quote".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => cur.push(c),
                    None => return Err("a trailing backslash".into()),
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    if words.is_empty() {
        return Err("an empty command".into());
    }
    Ok(words)
}

impl Stdio {
    pub(crate) fn spawn(cmd: &str) -> Result<Stdio, ClientError> {
        let words = split_command(cmd)
            .map_err(|e| ClientError::Transport(format!("--stdio {cmd:?}: {e}")))?;
        let program = words[0].clone();
        let mut child = Command::new(&program)
            .args(&words[1..])
            .stdin(Pipe::piped())
            .stdout(Pipe::piped())
            .stderr(Pipe::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ClientError::Transport(format!("cannot start {program:?}: {e}")))?;
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let pending: Arc<Mutex<HashMap<u64, Waiter>>> = Arc::default();
        let tail: Arc<Mutex<VecDeque<String>>> = Arc::default();
        let mut drain = None;
        if let Some(err) = stderr {
            let tail = tail.clone();
            drain = Some(tokio::spawn(async move {
                let mut lines = BufReader::new(err).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
                    if t.len() == TAIL {
                        t.pop_front();
                    }
                    t.push_back(line);
                }
            }));
        }
        let stdin = Arc::new(tokio::sync::Mutex::new(child.stdin.take()));
        if let Some(out) = stdout {
            tokio::spawn(read_stdout(out, pending.clone(), stdin.clone()));
        }
        Ok(Stdio {
            program,
            stdin,
            child: tokio::sync::Mutex::new(child),
            pending,
            tail,
            drain: tokio::sync::Mutex::new(drain),
        })
    }

    /// A receiver for the response with this id (registered before the request is sent, so
    /// a fast response is never missed).
    pub(crate) fn register(&self, id: u64) -> oneshot::Receiver<Result<Arrival, ClientError>> {
        let (tx, rx) = oneshot::channel();
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, tx);
        rx
    }

    pub(crate) fn forget(&self, id: u64) {
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
    }

    pub(crate) async fn send(&self, line: &[u8]) -> Result<(), ClientError> {
        let mut stdin = self.stdin.lock().await;
        let Some(w) = stdin.as_mut() else {
            return Err(ClientError::Transport("stdin is closed".into()));
        };
        let r = async {
            w.write_all(line).await?;
            w.flush().await
        }
        .await;
        drop(stdin);
        match r {
            Ok(()) => Ok(()),
            Err(_) => Err(self.gone().await),
        }
    }

    /// Why the server is gone: its exit status (waited for briefly) and its last stderr line.
    pub(crate) async fn gone(&self) -> ClientError {
        let status = {
            let mut child = self.child.lock().await;
            match tokio::time::timeout(Duration::from_millis(500), child.wait()).await {
                Ok(Ok(s)) => s.to_string(),
                _ => "still running, its stdout closed".to_owned(),
            }
        };
        if let Some(d) = self.drain.lock().await.take() {
            let _ = tokio::time::timeout(Duration::from_millis(500), d).await;
        }
        let last = self
            .tail
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(|l| format!("; its last stderr line: {}", one_line(l, 300)))
            .unwrap_or_default();
        ClientError::Transport(format!(
            "the server {:?} exited ({status}){last}",
            self.program
        ))
    }

    pub(crate) async fn close(self) {
        self.stdin.lock().await.take();
        let mut child = self.child.lock().await;
        if tokio::time::timeout(GRACE, child.wait()).await.is_err() {
            let _ = child.kill().await;
        }
    }
}

/// Reads stdout line by line, timing each line's first and last byte.
async fn read_stdout(
    mut out: tokio::process::ChildStdout,
    pending: Arc<Mutex<HashMap<u64, Waiter>>>,
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
) {
    let mut line: Vec<u8> = Vec::new();
    let mut first: Option<Instant> = None;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match out.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let now = Instant::now();
        let mut rest = &buf[..n];
        while !rest.is_empty() {
            if first.is_none() {
                first = Some(now);
            }
            match rest.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    line.extend_from_slice(&rest[..i]);
                    rest = &rest[i + 1..];
                    let start = first.take().unwrap_or(now);
                    if let Some(reply) = deliver(&pending, std::mem::take(&mut line), start, now) {
                        let stdin = stdin.clone();
                        tokio::spawn(async move {
                            if let Some(w) = stdin.lock().await.as_mut() {
                                let _ = w.write_all(&reply).await;
                                let _ = w.flush().await;
                            }
                        });
                    }
                }
                None => {
                    line.extend_from_slice(rest);
                    rest = &[];
                }
            }
        }
    }
    // EOF: every waiter learns the server is gone (its sender is dropped).
    pending.lock().unwrap_or_else(|p| p.into_inner()).clear();
}

/// Hands a response line to its waiter. Returns the reply to a request from the server
/// (`ping` gets `{}`, anything else "method not found": this client offers no capability),
/// so a server that asks something never waits for an answer that does not come.
fn deliver(
    pending: &Mutex<HashMap<u64, Waiter>>,
    line: Vec<u8>,
    first: Instant,
    last: Instant,
) -> Option<Vec<u8>> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let message: Value = match serde_json::from_slice(&line) {
        Ok(v) => v,
        Err(e) => {
            // Not JSON on stdout: the server broke the transport. Fail every waiter.
            let err = ClientError::Protocol(format!(
                "the server wrote a line that is not JSON on stdout ({e}): {}",
                one_line(&String::from_utf8_lossy(&line[..line.len().min(120)]), 120)
            ));
            for (_, w) in pending.lock().unwrap_or_else(|p| p.into_inner()).drain() {
                let _ = w.send(Err(err.clone()));
            }
            return None;
        }
    };
    if let Some(method) = message.get("method") {
        // A notification (not measured), or a request from the server.
        let id = message.get("id")?;
        let reply = if method.as_str() == Some("ping") {
            serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {}})
        } else {
            serde_json::json!({"jsonrpc": "2.0", "id": id,
                               "error": {"code": -32601, "message": "Method not found"}})
        };
        let mut b = serde_json::to_vec(&reply).ok()?;
        b.push(b'\n');
        return Some(b);
    }
    let id = message.get("id").and_then(Value::as_u64)?;
    let waiter = pending
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&id);
    if let Some(w) = waiter {
        let bytes = unframed_len(&line);
        let _ = w.send(Ok(Arrival {
            message,
            bytes,
            first,
            last,
        }));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::split_command;

    #[test]
    fn words_split_as_a_shell_splits_them() {
        let ok = |s: &str| split_command(s).unwrap();
        assert_eq!(ok("a b\tc"), ["a", "b", "c"]);
        assert_eq!(
            ok("  node  'my server.mjs' --x "),
            ["node", "my server.mjs", "--x"]
        );
        assert_eq!(
            ok(r#"sh -c "echo \"hi\" \$HOME""#),
            ["sh", "-c", r#"echo "hi" $HOME"#]
        );
        assert_eq!(ok(r#"a\ b "x\y" ''"#), ["a b", r"x\y", ""]);
        assert_eq!(ok("a'b'\"c\"d"), ["abcd"]);
        for bad in ["", "   ", "'open", "\"open", "tail\\"] {
            assert!(split_command(bad).is_err(), "{bad:?}");
        }
    }
}
