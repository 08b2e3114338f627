//! Reading INPUT (a file or `-` for stdin) and turning failures into exit codes and the one
//! stderr line of the CLI contract.

use std::io::{Read, Write};
use std::process::ExitCode;
use std::time::SystemTime;

/// Regular files at least this long are mapped rather than read: below it a `read` costs
/// less than setting up and faulting in a mapping.
const MAP_AT_LEAST: u64 = 1 << 20;

/// The bytes of INPUT and the name errors use for it.
pub struct Input {
    name: String,
    bytes: Bytes,
}

/// Where the input bytes are: read into the heap (stdin, pipes, small files) or mapped.
enum Bytes {
    Read(Vec<u8>),
    /// A regular file mapped read-only, with its length and modification time when mapped
    /// (see [`Input::check_unchanged`]).
    Mapped(memmap2::Mmap, std::fs::File, u64, Option<SystemTime>),
}

impl Input {
    /// Reads `path` (`-` = stdin). A regular file of 1 MiB or more is mapped, not copied
    /// (docs/DECISIONS.md, "Read once": a file changed while it is mapped is reported by
    /// [`Input::check_unchanged`]).
    pub fn read(path: &str) -> Result<Input, Failure> {
        if path == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .map_err(|e| Failure::io("<stdin>", &e))?;
            return Ok(Input {
                name: "<stdin>".into(),
                bytes: Bytes::Read(bytes),
            });
        }
        let name = display_name(path);
        let io = |e: std::io::Error| Failure::io(&name, &e);
        let file = std::fs::File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if meta.is_file() && meta.len() >= MAP_AT_LEAST {
            // SAFETY: the mapping is read-only and private, and lives as long as `Input`,
            // which hands out slices borrowing from it. The one hazard of a file mapping is
            // another process changing the file meanwhile: the bytes read are then whatever
            // the file holds at that moment (truncation can end the process with SIGBUS), as
            // with any reader of a file being written; `check_unchanged` reports it.
            if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
                let modified = meta.modified().ok();
                return Ok(Input {
                    name,
                    bytes: Bytes::Mapped(map, file, meta.len(), modified),
                });
            }
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        let mut file = file;
        file.read_to_end(&mut bytes).map_err(io)?;
        Ok(Input {
            name,
            bytes: Bytes::Read(bytes),
        })
    }

    /// True when the bytes are a mapped file (not on the heap).
    pub fn mapped(&self) -> bool {
        matches!(self.bytes, Bytes::Mapped(..))
    }

    /// Exit 3 when a mapped file changed (length or modification time) while it was read:
    /// what was written may then match no version of it. Read input cannot change.
    pub fn check_unchanged(&self) -> Result<(), Failure> {
        let Bytes::Mapped(_, file, len, modified) = &self.bytes else {
            return Ok(());
        };
        let now = file.metadata().map_err(|e| Failure::io(&self.name, &e))?;
        if now.len() != *len || now.modified().ok() != *modified {
            return Err(Failure {
                code: 3,
                line: format!(
                    "{}: the file changed while it was read; the output may match no version of it",
                    self.name
                ),
            });
        }
        Ok(())
    }

    /// The name errors use (`<stdin>` for stdin; control characters escaped).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The input bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Read(v) => v,
            Bytes::Mapped(m, ..) => m,
        }
    }

    /// Exit 3 with `NAME:LINE:COLUMN: message` (or `NAME: message` without a position).
    pub fn malformed(&self, e: &toolwire::Error) -> Failure {
        let line = match e.position() {
            Some(p) => format!("{}:{}:{}: {}", self.name, p.line, p.column, e.message()),
            None => format!("{}: {}", self.name, e.message()),
        };
        Failure { code: 3, line }
    }
}

/// A file name as error lines show it: control characters (a newline would split the one
/// line of the contract) escaped as Rust writes them (`\n`, `\u{1b}`), everything else as is.
pub fn display_name(path: &str) -> String {
    if !path.chars().any(char::is_control) {
        return path.to_owned();
    }
    path.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A warning line on stderr, `toolwire: ` first. A closed stderr is not an error.
pub fn warn(message: &str) {
    let _ = writeln!(std::io::stderr(), "toolwire: {message}");
}

/// Stdout for the chunked writers: on Unix a duplicate of descriptor 1 as a plain file, so
/// each 256 KiB chunk is one `write`. `io::Stdout` is line-buffered: it scans every chunk for
/// its last line feed, writes up to it and copies the tail into its buffer, which for TOON's
/// many lines was 2% of `toon encode`'s instructions (std's memrchr) and a second write per
/// chunk. Nothing else is written to stdout by the commands that use it.
pub fn stdout_writer() -> Box<dyn Write> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() {
            return Box::new(std::fs::File::from(fd));
        }
    }
    Box::new(std::io::stdout().lock())
}

/// Writes `bytes` to stdout and flushes.
pub fn write_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = stdout_writer();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| Failure::output(&e))
}

/// A failed command: its exit code and its one stderr line.
pub struct Failure {
    code: u8,
    line: String,
}

impl Failure {
    /// An I/O failure reading `name` (exit 3: the input could not be had).
    pub fn io(name: &str, e: &std::io::Error) -> Failure {
        Failure {
            code: 3,
            line: format!("{name}: {e}"),
        }
    }

    /// Data that could not be written or read (exit 3), with its one line.
    pub fn data(line: String) -> Failure {
        Failure { code: 3, line }
    }

    /// An I/O failure writing stdout (exit 1): not the input's fault, nor a usage error.
    pub fn output(e: &std::io::Error) -> Failure {
        Failure {
            code: 1,
            line: format!("<stdout>: {e}"),
        }
    }

    /// A bug in toolwire itself (exit 1): never expected.
    pub fn internal(msg: impl Into<String>) -> Failure {
        Failure {
            code: 1,
            line: format!("internal error: {}", msg.into()),
        }
    }

    /// The response was printed and is an error response (exit 5), with a ready-made line
    /// (line breaks in it become spaces: the contract is one line).
    pub fn error_response_line(line: String) -> Failure {
        Failure {
            code: 5,
            line: line.replace(['\n', '\r'], " "),
        }
    }

    /// Anything wrong in the presenter file (exit 4).
    pub fn presenter(line: String) -> Failure {
        Failure { code: 4, line }
    }

    /// Prints the line (a closed stderr is ignored) and returns the exit code.
    pub fn report(self) -> ExitCode {
        let _ = writeln!(std::io::stderr(), "{}", self.line);
        ExitCode::from(self.code)
    }
}
