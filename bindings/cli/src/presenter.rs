//! Presenter files for the CLI (CLI.md "Presenter file"): reading one, and the command-line
//! overrides of its `format`, `limit` and `token_budget`.
//!
//! The engine's [`Presenter`] is immutable and has no setters for those values, so an override
//! rewrites the parsed file: the root members are kept in order as compact JSON, the
//! overridden ones are replaced in place (or appended), and the result is read again with
//! [`Presenter::from_json`]. Key paths in errors are unchanged by the rewrite; JSON syntax
//! errors are reported against the original file (it is parsed first).
//!
//! `"format": "auto"` is a CLI value the engine does not know: it is taken out of the file
//! before the engine reads it and handled by the caller (see [`crate::auto_format`]).

use toolwire::json::ParseOptions;
use toolwire::json::escape::write_json_string;
use toolwire::present::{FileError, Presenter};

use crate::input::Failure;

/// A format choice: one of the engine's formats by its presenter-file name, or `auto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatChoice {
    /// `pretty`, `compact`, `toon`, `toon-comma` or `toon-tab`.
    Named(&'static str),
    /// The cheapest by the engine's token estimator.
    Auto,
}

/// What the command line overrides in a presenter file.
#[derive(Clone, Copy, Debug, Default)]
pub struct Overrides {
    pub format: Option<FormatChoice>,
    pub limit: Option<usize>,
    pub token_budget: Option<usize>,
}

/// A presenter file, read and checked, that can be rebuilt with another data format.
pub struct PresenterFile {
    /// The root members in file order as `(key JSON, value JSON)`, overrides applied; the
    /// `format` member's value is `None` (filled in by [`build`]).
    members: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    /// The file's `format` (or the override) when it is `auto`.
    auto: bool,
    /// The presenter (for `auto`: with the engine's default format).
    presenter: Presenter,
}

impl PresenterFile {
    /// Reads `path`, applies `overrides` and builds the presenter. Every problem is exit 4 with
    /// one line naming the file and the key path (or `LINE:COLUMN` for bad JSON).
    pub fn read(path: &str, overrides: Overrides) -> Result<PresenterFile, Failure> {
        let bytes = std::fs::read(path).map_err(|e| Failure::presenter(format!("{path}: {e}")))?;
        let doc = toolwire::json::parse(&bytes, &ParseOptions::default()).map_err(|e| {
            Failure::presenter(match e.position() {
                Some(p) => format!("{path}:{}:{}: {}", p.line, p.column, e.message()),
                None => format!("{path}: {}", e.message()),
            })
        })?;
        let file_error = |e: FileError| Failure::presenter(format!("{path}: {e}"));
        let Some(root) = doc.root().as_object() else {
            // Not an object: the engine names the problem.
            return Err(match Presenter::from_json(&bytes) {
                Err(e) => file_error(e),
                Ok(_) => Failure::presenter(format!("{path}: expected an object")),
            });
        };
        let mut members = Vec::with_capacity(root.len() + 3);
        let mut auto = overrides.format == Some(FormatChoice::Auto);
        let mut format_value = match overrides.format {
            Some(FormatChoice::Named(f)) => Some(format!("\"{f}\"").into_bytes()),
            _ => None,
        };
        let (mut seen_format, mut seen_limit, mut seen_budget) = (false, false, false);
        for (key, value) in root.iter() {
            let key = key.as_bytes();
            let mut k = Vec::new();
            write_json_string(&mut k, key);
            let v = match key {
                b"format" => {
                    seen_format = true;
                    if overrides.format.is_none() {
                        if value.as_str().and_then(|s| s.to_str()) == Some("auto") {
                            auto = true;
                        } else {
                            format_value = Some(toolwire::json::to_vec_compact(value));
                        }
                    }
                    None
                }
                b"limit" if overrides.limit.is_some() => {
                    seen_limit = true;
                    overrides.limit.map(|n| n.to_string().into_bytes())
                }
                b"token_budget" if overrides.token_budget.is_some() => {
                    seen_budget = true;
                    overrides.token_budget.map(|n| n.to_string().into_bytes())
                }
                _ => Some(toolwire::json::to_vec_compact(value)),
            };
            members.push((k, v));
        }
        if !seen_format {
            members.push((b"\"format\"".to_vec(), None));
        }
        if let (Some(n), false) = (overrides.limit, seen_limit) {
            members.push((b"\"limit\"".to_vec(), Some(n.to_string().into_bytes())));
        }
        if let (Some(n), false) = (overrides.token_budget, seen_budget) {
            members.push((
                b"\"token_budget\"".to_vec(),
                Some(n.to_string().into_bytes()),
            ));
        }
        let presenter = build(&members, format_value.as_deref()).map_err(file_error)?;
        Ok(PresenterFile {
            members,
            auto,
            presenter,
        })
    }

    /// The presenter, with the file's format or the override (pretty for `auto`).
    pub fn presenter(&self) -> &Presenter {
        &self.presenter
    }

    /// True when the format is `auto` (from the file or the command line).
    pub fn auto(&self) -> bool {
        self.auto
    }

    /// The same presenter with the data format `format` (a presenter-file format name).
    pub fn with_format(&self, format: &str) -> Result<Presenter, Failure> {
        build(&self.members, Some(format!("\"{format}\"").as_bytes()))
            .map_err(|e| Failure::internal(format!("presenter {}: {e}", self.presenter.name())))
    }
}

/// Builds the presenter from the members and the `format` value (JSON), if any.
fn build(
    members: &[(Vec<u8>, Option<Vec<u8>>)],
    format: Option<&[u8]>,
) -> Result<Presenter, FileError> {
    let mut text = Vec::with_capacity(
        members
            .iter()
            .map(|(k, v)| k.len() + v.as_ref().map_or(16, Vec::len) + 2)
            .sum(),
    );
    text.push(b'{');
    let mut first = true;
    for (k, v) in members {
        let Some(v) = v.as_deref().or(format) else {
            continue;
        };
        if !first {
            text.push(b',');
        }
        first = false;
        text.extend_from_slice(k);
        text.push(b':');
        text.extend_from_slice(v);
    }
    text.push(b'}');
    Presenter::from_json(&text)
}
