//! The one error type of the crate: boxed, positioned, classified.

use std::borrow::Cow;
use std::fmt;

/// What kind of problem an [`Error`] reports. Stable: match on it instead of on messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Category {
    /// The input is not valid syntax (JSON or TOON).
    Syntax,
    /// The input ended before the document was complete.
    Eof,
    /// The input is not valid UTF-8.
    Utf8,
    /// A number cannot be represented (for example `1e400`, which overflows f64).
    Number,
    /// Values are nested deeper than the configured limit.
    Depth,
    /// A size limit (input, string, keys per object, output) was exceeded.
    Limit,
    /// A TOON declared length (`[N]`) or field count does not match the content.
    Count,
    /// TOON indentation is invalid (strict mode).
    Indent,
    /// A value cannot be encoded in the requested format (for example a lone surrogate in TOON).
    Encode,
    /// An I/O error at the edge (reading input, writing output).
    Io,
}

/// An error with a category, a message and, for input errors, a position.
///
/// One pointer wide, so `Result<T, Error>` stays small on hot paths.
pub struct Error(Box<ErrorImpl>);

struct ErrorImpl {
    category: Category,
    message: Cow<'static, str>,
    position: Option<Position>,
    source: Option<std::io::Error>,
}

/// Where in the input an error was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// Byte offset from the start of the input (0-based).
    pub offset: usize,
    /// Line number (1-based).
    pub line: usize,
    /// Column number in bytes (1-based).
    pub column: usize,
}

impl Position {
    /// Computes line and column of byte `offset` in `src` (lines end at LF).
    pub fn of(src: &[u8], offset: usize) -> Position {
        let offset = offset.min(src.len());
        let before = &src[..offset];
        let line = memchr::memchr_iter(b'\n', before).count() + 1;
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
        Position {
            offset,
            line,
            column: offset - line_start + 1,
        }
    }
}

impl Error {
    /// An error without a position.
    #[cold]
    pub fn new(category: Category, message: impl Into<Cow<'static, str>>) -> Error {
        Error(Box::new(ErrorImpl {
            category,
            message: message.into(),
            position: None,
            source: None,
        }))
    }

    /// An error at byte `offset` of `src`; line and column are computed here, off the hot path.
    #[cold]
    pub fn at(
        category: Category,
        message: impl Into<Cow<'static, str>>,
        src: &[u8],
        offset: usize,
    ) -> Error {
        Error::with_position(category, message, Position::of(src, offset))
    }

    /// An error at a known position.
    #[cold]
    pub fn with_position(
        category: Category,
        message: impl Into<Cow<'static, str>>,
        position: Position,
    ) -> Error {
        Error(Box::new(ErrorImpl {
            category,
            message: message.into(),
            position: Some(position),
            source: None,
        }))
    }

    /// The category of the error.
    pub fn classify(&self) -> Category {
        self.0.category
    }

    /// The message, without position.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The position in the input, when the error is about input.
    pub fn position(&self) -> Option<Position> {
        self.0.position
    }

    /// 1-based line of the error, or 0 when it has no position.
    pub fn line(&self) -> usize {
        self.0.position.map_or(0, |p| p.line)
    }

    /// 1-based column (in bytes) of the error, or 0 when it has no position.
    pub fn column(&self) -> usize {
        self.0.position.map_or(0, |p| p.column)
    }

    /// Byte offset of the error, or 0 when it has no position.
    pub fn offset(&self) -> usize {
        self.0.position.map_or(0, |p| p.offset)
    }

    /// True when the input simply ended too early (more input could make it valid).
    pub fn is_eof(&self) -> bool {
        self.0.category == Category::Eof
    }

    /// The kind of the underlying I/O error, if this error came from I/O.
    pub fn io_error_kind(&self) -> Option<std::io::ErrorKind> {
        self.0.source.as_ref().map(std::io::Error::kind)
    }
}

impl From<std::io::Error> for Error {
    #[cold]
    fn from(e: std::io::Error) -> Error {
        Error(Box::new(ErrorImpl {
            category: Category::Io,
            message: Cow::Borrowed("i/o error"),
            position: None,
            source: Some(e),
        }))
    }
}

impl From<Error> for std::io::Error {
    fn from(e: Error) -> std::io::Error {
        if e.0.source.is_some() {
            // Unwrap the original I/O error so its kind survives.
            return e
                .0
                .source
                .unwrap_or_else(|| std::io::Error::other("i/o error"));
        }
        let kind = match e.0.category {
            Category::Eof => std::io::ErrorKind::UnexpectedEof,
            _ => std::io::ErrorKind::InvalidData,
        };
        std::io::Error::new(kind, e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.position {
            Some(p) => write!(f, "{}:{}: {}", p.line, p.column, self.0.message),
            None => match &self.0.source {
                Some(s) => write!(f, "{}: {}", self.0.message, s),
                None => f.write_str(&self.0.message),
            },
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("category", &self.0.category)
            .field("message", &self.0.message)
            .field("position", &self.0.position)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source.as_ref().map(|e| e as _)
    }
}

/// `Result` with the crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_one_pointer() {
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
    }

    #[test]
    fn position_counts_lines_and_columns() {
        let src = b"ab\ncd\n\nx";
        assert_eq!(
            Position::of(src, 0),
            Position {
                offset: 0,
                line: 1,
                column: 1
            }
        );
        assert_eq!(
            Position::of(src, 4),
            Position {
                offset: 4,
                line: 2,
                column: 2
            }
        );
        assert_eq!(
            Position::of(src, 7),
            Position {
                offset: 7,
                line: 4,
                column: 1
            }
        );
        // Past the end clamps to the end.
        assert_eq!(
            Position::of(src, 99),
            Position {
                offset: 8,
                line: 4,
                column: 2
            }
        );
        let e = Error::at(Category::Syntax, "expected a value", src, 4);
        assert_eq!(e.to_string(), "2:2: expected a value");
        assert_eq!((e.line(), e.column(), e.offset()), (2, 2, 4));
        assert_eq!(e.classify(), Category::Syntax);
    }

    #[test]
    fn io_errors_keep_their_kind() {
        let e: Error = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "gone").into();
        assert_eq!(e.io_error_kind(), Some(std::io::ErrorKind::BrokenPipe));
        let back: std::io::Error = e.into();
        assert_eq!(back.kind(), std::io::ErrorKind::BrokenPipe);
    }
}
