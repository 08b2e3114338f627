//! Reading INPUT (a file or `-` for stdin) and turning failures into exit codes and the one
//! stderr line of the CLI contract.

use std::io::Read;
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
        let bytes = std::fs::read(path).map_err(|e| Failure::io(path, &e))?;
        Ok(Input {
            name: path.into(),
            bytes,
        })
    }

    /// The name errors use (`<stdin>` for stdin).
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

/// A failed command: its exit code and its one stderr line.
pub struct Failure {
    code: u8,
    line: String,
}

impl Failure {
    /// An I/O failure reading or writing `name` (exit 3: the input could not be had).
    pub fn io(name: &str, e: &std::io::Error) -> Failure {
        Failure {
            code: 3,
            line: format!("{name}: {e}"),
        }
    }

    /// Exit 3 with a ready-made line.
    pub fn malformed_line(line: String) -> Failure {
        Failure { code: 3, line }
    }

    /// A bug in toolwire itself (exit 1): never expected.
    pub fn internal(msg: impl Into<String>) -> Failure {
        Failure {
            code: 1,
            line: format!("internal error: {}", msg.into()),
        }
    }

    /// The response was printed and is an error response (exit 5).
    pub fn error_response(name: &str) -> Failure {
        Failure::error_response_line(format!(
            "{name}: the tool response is an error response (isError: true)"
        ))
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

    /// Prints the line and returns the exit code.
    pub fn report(self) -> ExitCode {
        eprintln!("{}", self.line);
        ExitCode::from(self.code)
    }
}
