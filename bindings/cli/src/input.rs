//! Reading INPUT (a file or `-` for stdin) and turning failures into exit codes and the one
//! stderr line of the CLI contract.

use std::io::{Read, Write};
use std::process::ExitCode;

/// The bytes of INPUT and the name errors use for it.
pub struct Input {
    name: String,
    bytes: Vec<u8>,
}

impl Input {
    /// Reads `path` (`-` = stdin).
    pub fn read(path: &str) -> Result<Input, Failure> {
        if path == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .map_err(|e| Failure::io("<stdin>", &e))?;
            return Ok(Input {
                name: "<stdin>".into(),
                bytes,
            });
        }
        let name = display_name(path);
        let bytes = std::fs::read(path).map_err(|e| Failure::io(&name, &e))?;
        Ok(Input { name, bytes })
    }

    /// The name errors use (`<stdin>` for stdin; control characters escaped).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The input bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
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

/// Writes `bytes` to stdout and flushes.
pub fn write_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
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
