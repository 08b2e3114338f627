//! The presenter's two errors: [`PresenterError`], a presenter that cannot be built or read
//! from a file, and [`PresentError`], a presentation that did not produce a success response.

use crate::wire::{FieldProblem, ToolError, ToolResponse};

/// What is wrong with a presenter, read from a file
/// ([`Presenter::from_json`](super::Presenter::from_json)) or built
/// ([`PresenterBuilder::build`](super::PresenterBuilder::build)): the key path (the file's, or
/// the builder's equivalent such as `ui.item[0]`) and the problem, plus the line and column
/// when a file is not JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PresenterError {
    // Visible to the presenter file's reader, which writes the path and the position.
    pub(super) path: String,
    pub(super) message: String,
    pub(super) position: Option<(usize, usize)>,
}

impl PresenterError {
    pub(crate) fn new(path: &str, message: impl Into<String>) -> PresenterError {
        PresenterError {
            path: path.to_owned(),
            message: message.into(),
            position: None,
        }
    }

    /// The key path (`ui.collection[0].table.columns`), empty for the whole file.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// `(line, column)` (1-based) when the file is not valid JSON.
    pub fn position(&self) -> Option<(usize, usize)> {
        self.position
    }
}

impl std::fmt::Display for PresenterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.position, self.path.is_empty()) {
            (Some((l, c)), _) => write!(f, "{l}:{c}: {}", self.message),
            (None, true) => f.write_str(&self.message),
            (None, false) => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

impl std::error::Error for PresenterError {}

/// Why [`Presenter::present`](super::Presenter::present) did not produce a success response.
#[derive(Debug)]
pub enum PresentError {
    /// The data does not match the schema: `OUTPUT_VALIDATION_FAILED` (WIRE.md §8).
    Output(Box<ToolError>),
    /// A `_select` name is not a field of the schema (WIRE.md §4).
    Select(Vec<FieldProblem>),
    /// The data cannot be encoded (for example nested deeper than the TOON depth limit).
    Encode(crate::Error),
}

impl PresentError {
    /// The error response: the `<tool_error>` for output problems and encoding failures, the
    /// `<validation_error action="…">` for a bad `_select`.
    pub fn into_response(self, action: &str) -> ToolResponse<'static> {
        match self {
            PresentError::Output(e) => e.into_response(),
            PresentError::Select(p) => crate::wire::validation_error(action, &p),
            PresentError::Encode(e) => crate::wire::error_with_code("INTERNAL_ERROR", e.message()),
        }
    }
}

impl std::fmt::Display for PresentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PresentError::Output(e) => {
                let mut v = Vec::new();
                e.write(&mut v);
                f.write_str(&String::from_utf8_lossy(&v))
            }
            PresentError::Select(p) => {
                for x in p {
                    write!(f, "{}: {} ", x.name, x.detail)?;
                }
                Ok(())
            }
            PresentError::Encode(e) => write!(f, "{}", e.message()),
        }
    }
}

impl std::error::Error for PresentError {}
