//! `toolwire`: the command line of the toolwire engine (contract: `spec/CLI.md`).
//!
//! Exit codes: 0 success, 2 usage, 3 malformed input, 4 presenter file, 5 the tool response is
//! an error response (printed in full on stdout). Errors are one line on stderr naming the
//! file and `LINE:COLUMN`.

mod budget;
mod demo;
mod input;
mod presenter;
mod tokens;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use toolwire::frame::{self, Id, Protocol};
use toolwire::json::{ParseOptions, Selector};
use toolwire::present::{PresentError, Presenter};
use toolwire::toon::{self, Delimiter};
use toolwire::wire::{self, Data, Format, ToolResponse};
use toolwire::{Doc, Value};

use crate::input::{Failure, Input};
use crate::presenter::{FormatChoice, Overrides, PresenterFile};

/// toolwire: turn tool handler results into MCP tool responses (TOON/JSON blocks).
#[derive(Parser, Debug)]
#[command(name = "toolwire", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Present a generated invoice collection in every format and compare bytes, tokens, speed.
    ///
    /// Prints the first blocks of the built-in Invoice presenter's response (limit 50, TOON),
    /// then one line per format for the data block of ALL rows (the presenter without its
    /// limit): bytes, tokens (o200k_base), the best time of presenting and encoding (ms), and
    /// MB/s of JSON input over that time; the first format with the fewest tokens ends with
    /// `  <- cheapest`. A progress bar shows on stderr when stdout and stderr are terminals.
    Demo {
        /// Number of invoice rows to generate.
        #[arg(long, default_value_t = 100_000)]
        rows: usize,
        /// Show a progress bar even when stdout is not a terminal.
        #[arg(long)]
        progress: bool,
        /// Print only the data block of all rows in this format (what the table measures).
        #[arg(long, hide = true, value_name = "FORMAT",
              value_parser = ["pretty", "compact", "toon", "toon-comma", "toon-tab"])]
        dump: Option<String>,
    },
    /// Print the CallToolResult for one JSON document (the value a handler returned).
    ///
    /// Exit codes: 0 success, 2 usage, 3 malformed input, 4 presenter file, 5 the response
    /// is an error response (printed in full on stdout; one line on stderr).
    Present {
        /// A JSON file, or `-` for stdin.
        #[arg(default_value = "-")]
        input: String,
        #[command(flatten)]
        shape: ShapeArgs,
        /// Data format (overrides the presenter file's `format`; default pretty). `auto`: the
        /// cheapest of pretty, compact, toon-comma, toon by the engine's token estimator.
        #[arg(long, value_enum)]
        format: Option<FormatArg>,
        /// Keep at most N items of a collection (overrides the presenter file's `limit`).
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// Keep as many whole items as fit in N estimated tokens (overrides `token_budget`).
        #[arg(long, value_name = "N")]
        token_budget: Option<usize>,
        /// Print the whole JSON-RPC response line with this id.
        #[arg(long, allow_hyphen_values = true)]
        frame: Option<String>,
        /// The negotiated MCP protocol revision.
        #[arg(long, default_value = "2025-11-25")]
        protocol: String,
        /// Print each block's text followed by a line `-----`, for humans.
        #[arg(long)]
        blocks: bool,
    },
    /// Compare the response's cost in every format: bytes, tokens, encode time.
    ///
    /// Prints one header line and one line per format (pretty, compact, toon, toon-comma,
    /// toon-tab), columns separated by spaces:
    /// `format bytes o200k cl100k encode_ms`, where bytes and tokens cover every block of
    /// the response (each block tokenized on its own, as the agent receives them; tokens by
    /// tiktoken's o200k_base and cl100k_base) and encode_ms is the best of up to 5 runs of
    /// presenting and writing the response. The line with the fewest o200k tokens (the first
    /// on a tie) ends with `  <- cheapest`.
    Budget {
        /// A JSON file, or `-` for stdin.
        #[arg(default_value = "-")]
        input: String,
        #[command(flatten)]
        shape: ShapeArgs,
    },
    /// TOON conversion (spec 4.4).
    Toon {
        #[command(subcommand)]
        command: ToonCommand,
    },
    /// Serve collections to agents as an MCP server (stdio, or streamable HTTP with --http).
    Serve(toolwire_mcp::ServeArgs),
}

#[derive(Subcommand, Debug)]
enum ToonCommand {
    /// JSON → TOON.
    Encode {
        /// A JSON file, or `-` for stdin.
        #[arg(default_value = "-")]
        input: String,
        /// Row and inline-array delimiter.
        #[arg(long, value_enum, default_value_t = DelimiterArg::Comma)]
        delimiter: DelimiterArg,
        /// Spaces per indentation level.
        #[arg(long, default_value_t = 2)]
        indent: usize,
    },
    /// TOON → compact JSON.
    Decode {
        /// A TOON file, or `-` for stdin.
        #[arg(default_value = "-")]
        input: String,
        /// Accept what strict mode rejects, as the TOON spec's non-strict mode does.
        #[arg(long)]
        lenient: bool,
        /// Spaces per indentation level.
        #[arg(long, default_value_t = 2)]
        indent: usize,
    },
}

/// The presenter file and `_select` (shared by `present` and `budget`).
#[derive(clap::Args, Debug)]
struct ShapeArgs {
    /// A presenter file (JSON, CLI.md "Presenter file").
    #[arg(long, value_name = "FILE")]
    presenter: Option<String>,
    /// The `_select` argument an agent would send: names in its order, spaces trimmed.
    #[arg(long, value_delimiter = ',')]
    select: Option<Vec<String>>,
}

impl ShapeArgs {
    /// The `_select` names, trimmed, empty ones dropped (`Some(&[])`: all fields).
    fn names(&self) -> Option<Vec<&str>> {
        self.select.as_ref().map(|keys| {
            keys.iter()
                .map(|k| k.trim())
                .filter(|k| !k.is_empty())
                .collect()
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    /// JSON.stringify(data, null, 2)
    Pretty,
    /// JSON.stringify(data)
    Compact,
    /// TOON with `|` (as toon_success)
    Toon,
    /// TOON with `,`
    ToonComma,
    /// TOON with a tab
    ToonTab,
    /// The cheapest of pretty, compact, toon-comma, toon by the engine's token estimator
    Auto,
}

/// Every fixed format with its name (the names of `--format` and of presenter files).
pub const FORMATS: [(&str, Format); 5] = [
    ("pretty", Format::Pretty),
    ("compact", Format::Compact),
    ("toon", Format::Toon(Delimiter::Pipe)),
    ("toon-comma", Format::Toon(Delimiter::Comma)),
    ("toon-tab", Format::Toon(Delimiter::Tab)),
];

impl FormatArg {
    fn choice(self) -> FormatChoice {
        match self {
            FormatArg::Pretty => FormatChoice::Named("pretty"),
            FormatArg::Compact => FormatChoice::Named("compact"),
            FormatArg::Toon => FormatChoice::Named("toon"),
            FormatArg::ToonComma => FormatChoice::Named("toon-comma"),
            FormatArg::ToonTab => FormatChoice::Named("toon-tab"),
            FormatArg::Auto => FormatChoice::Auto,
        }
    }
}

/// The engine format of a format name from [`FORMATS`].
fn format_named(name: &str) -> Format {
    FORMATS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(Format::Pretty, |(_, f)| *f)
}

/// `--format auto`: the engine's [`Format::Auto`] choice for `value`
/// ([`toolwire::present::choose_auto`]: the cheapest of pretty, compact, toon-comma and toon
/// by the engine's token estimator), as a format name. No value (a text result) is pretty:
/// the format does not apply.
pub fn auto_format(value: Option<Value<'_>>) -> &'static str {
    let Some(value) = value else {
        return "pretty";
    };
    let chosen = toolwire::present::choose_auto(value);
    FORMATS
        .iter()
        .find(|(_, f)| *f == chosen)
        .map_or("pretty", |(n, _)| n)
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum DelimiterArg {
    Comma,
    Tab,
    Pipe,
}

impl DelimiterArg {
    fn delimiter(self) -> Delimiter {
        match self {
            DelimiterArg::Comma => Delimiter::Comma,
            DelimiterArg::Tab => Delimiter::Tab,
            DelimiterArg::Pipe => Delimiter::Pipe,
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("usage error");
            eprintln!("toolwire: {}", first.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Serve(args) => return toolwire_mcp::run(args),
        Command::Demo {
            rows,
            progress,
            dump,
        } => demo::run(rows, progress, dump.as_deref()),
        Command::Present {
            input,
            shape,
            format,
            limit,
            token_budget,
            frame,
            protocol,
            blocks,
        } => present(
            &input,
            &shape,
            Overrides {
                format: format.map(FormatArg::choice),
                limit,
                token_budget,
            },
            frame.as_deref(),
            &protocol,
            blocks,
        ),
        Command::Budget { input, shape } => budget::run(&input, &shape),
        Command::Toon {
            command:
                ToonCommand::Encode {
                    input,
                    delimiter,
                    indent,
                },
        } => toon_encode(&input, delimiter.delimiter(), indent),
        Command::Toon {
            command:
                ToonCommand::Decode {
                    input,
                    lenient,
                    indent,
                },
        } => toon_decode(&input, lenient, indent),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => f.report(),
    }
}

fn write_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| Failure::io("<stdout>", &e))
}

/// What `present` and `budget` share: the presenter file (if any), the input document parsed
/// with the presenter's pushdown selector, and the `_select` names the presenter will see.
struct Prepared<'a> {
    file: Option<PresenterFile>,
    input: &'a Input,
    doc: Doc<'a>,
    /// `_select` for the presenter: `None` without a presenter, when not given, or when the
    /// presenter does not enable select.
    select: Option<Vec<&'a str>>,
}

/// Reads the presenter file (exit 4 first: a bad presenter makes the input irrelevant), then
/// parses the input: with a presenter, through its selector (parser pushdown); without one,
/// `--select` applies to root keys unchecked.
fn prepare<'a>(
    input: &'a Input,
    shape: &'a ShapeArgs,
    file: Option<PresenterFile>,
) -> Result<Prepared<'a>, Failure> {
    let opts = ParseOptions::default();
    let names = shape.names();
    let (selector, select) = match &file {
        Some(file) => {
            let p = file.presenter();
            let select = match names {
                Some(names) if p.select_enabled() => Some(names),
                Some(_) => {
                    eprintln!(
                        "toolwire: --select ignored: presenter '{}' does not enable select",
                        p.name()
                    );
                    None
                }
                None => None,
            };
            (p.selector(select.as_deref()), select)
        }
        None => (
            names
                .filter(|n| !n.is_empty())
                .map(|n| Selector::new(n.iter())),
            None,
        ),
    };
    let doc = match &selector {
        Some(sel) => toolwire::json::parse_selected(input.bytes(), sel, &opts),
        None => toolwire::json::parse(input.bytes(), &opts),
    }
    .map_err(|e| input.malformed(&e))?;
    Ok(Prepared {
        file,
        input,
        doc,
        select,
    })
}

/// Why a response could not be built: a failure of the command (exit 3), or an error
/// response to print (exit 5).
enum Outcome<'d> {
    Ok(ToolResponse<'d>),
    ErrorResponse(ToolResponse<'static>, String),
}

impl Prepared<'_> {
    /// The response in `format` (`None`: the presenter's own, or pretty without one; `auto`
    /// resolved by [`auto_format`]).
    fn respond(&self, format: Option<&str>, overrides: Overrides) -> Result<Outcome<'_>, Failure> {
        let root = self.doc.root();
        match &self.file {
            Some(file) => {
                let select = self.select.as_deref();
                let rebuilt;
                let presenter: &Presenter = match format {
                    Some(f) => {
                        rebuilt = file.with_format(f)?;
                        &rebuilt
                    }
                    None if file.auto() => {
                        // Present once, then pick the cheapest format for the data it kept.
                        let first = file.presenter().present(root, select);
                        let f = match &first {
                            Ok(r) => auto_format(r.data()),
                            Err(_) => "pretty",
                        };
                        rebuilt = file.with_format(f)?;
                        &rebuilt
                    }
                    None => file.presenter(),
                };
                Ok(self.present_with(presenter))
            }
            None => self.respond_plain(root, format, overrides),
        }
    }

    /// The response through `presenter` (the file's presenter, possibly rebuilt with another
    /// format), with the validation action `<name>/present`.
    fn present_with(&self, presenter: &Presenter) -> Outcome<'_> {
        match presenter.present(self.doc.root(), self.select.as_deref()) {
            Ok(r) => Outcome::Ok(r),
            Err(e) => {
                let line = self.error_line(&e);
                let action = format!("{}/present", presenter.name());
                Outcome::ErrorResponse(e.into_response(&action), line)
            }
        }
    }

    /// Without a presenter: a string root is a text result; `--limit`/`--token-budget` go
    /// through an anonymous presenter without schema.
    fn respond_plain<'s>(
        &'s self,
        root: Value<'s>,
        format: Option<&str>,
        overrides: Overrides,
    ) -> Result<Outcome<'s>, Failure> {
        let name = match (format, overrides.format) {
            (Some(f), _) => f,
            (None, Some(FormatChoice::Named(f))) => f,
            (None, Some(FormatChoice::Auto)) => {
                auto_format(root.as_str().is_none().then_some(root))
            }
            (None, None) => "pretty",
        };
        let format = format_named(name);
        // A root JSON string is a string result: verbatim in every format.
        if let Some(s) = root.as_str() {
            // MCP text is Unicode: a lone surrogate cannot be passed on verbatim, and changing
            // it silently would alter the handler's text, so it is malformed input here.
            let text = s.to_str().ok_or_else(|| {
                Failure::malformed_line(format!(
                    "{}: a string result cannot hold a lone surrogate",
                    self.input.name()
                ))
            })?;
            return wire::response(Data::Text(text))
                .format(format)
                .build()
                .map(Outcome::Ok)
                .map_err(|e| self.input.malformed(&e));
        }
        if overrides.limit.is_none() && overrides.token_budget.is_none() {
            return wire::response(Data::Value(root))
                .format(format)
                .build()
                .map(Outcome::Ok)
                .map_err(|e| self.input.malformed(&e));
        }
        let mut b = Presenter::builder("cli").format(format);
        if let Some(n) = overrides.limit {
            b = b.limit(n);
        }
        if let Some(n) = overrides.token_budget {
            b = b.token_budget(n);
        }
        let p = b
            .build()
            .map_err(|e| Failure::internal(format!("cli presenter: {e}")))?;
        Ok(match p.present(root, None) {
            Ok(r) => Outcome::Ok(r),
            Err(PresentError::Encode(e)) => return Err(self.input.malformed(&e)),
            Err(e) => {
                let line = self.error_line(&e);
                Outcome::ErrorResponse(e.into_response("cli/present"), line)
            }
        })
    }

    /// The one stderr line of an error response.
    fn error_line(&self, e: &PresentError) -> String {
        let name = self.input.name();
        match e {
            PresentError::Select(problems) => match problems.first() {
                Some(p) => format!("{name}: {}: {}", p.name, p.detail),
                None => format!("{name}: _select: invalid"),
            },
            PresentError::Output(_) => {
                format!("{name}: the tool response is an error response (OUTPUT_VALIDATION_FAILED)")
            }
            PresentError::Encode(e) => format!(
                "{name}: the tool response is an error response (INTERNAL_ERROR: {})",
                e.message()
            ),
        }
    }
}

fn present(
    path: &str,
    shape: &ShapeArgs,
    overrides: Overrides,
    frame_id: Option<&str>,
    protocol: &str,
    blocks: bool,
) -> Result<(), Failure> {
    let file = shape
        .presenter
        .as_deref()
        .map(|p| PresenterFile::read(p, overrides))
        .transpose()?;
    let input = Input::read(path)?;
    let out = Output {
        path,
        frame_id,
        protocol: Protocol::from_revision(protocol),
        blocks,
    };
    if file.is_none() && shape.names().is_none() {
        if let Some(format) = plain_array_format(&input, overrides) {
            // The bytes go into the response as they are: a large array is read window by
            // window and never held as a whole document (the same output, byte for byte).
            let response = wire::response(Data::Json(input.bytes()))
                .format(format)
                .build()
                .map_err(|e| input.malformed(&e))?;
            return out.write(&response, None);
        }
    }
    let prepared = prepare(&input, shape, file)?;
    match prepared.respond(None, overrides)? {
        Outcome::Ok(r) => out.write(&r, None),
        Outcome::ErrorResponse(r, line) => out.write(&r, Some(line)),
    }
}

/// The format of a plain response (no presenter, no `--select`) whose data is a root JSON
/// array and needs no document up front: not `auto`, no `--limit` or `--token-budget`.
fn plain_array_format(input: &Input, overrides: Overrides) -> Option<Format> {
    let array = input.bytes().trim_ascii_start().first() == Some(&b'[');
    let name = match overrides {
        Overrides {
            limit: None,
            token_budget: None,
            format: None,
        } => "pretty",
        Overrides {
            limit: None,
            token_budget: None,
            format: Some(FormatChoice::Named(name)),
        } => name,
        _ => return None,
    };
    array.then(|| format_named(name))
}

/// Where and how `present` prints its response.
struct Output<'a> {
    path: &'a str,
    frame_id: Option<&'a str>,
    protocol: Protocol,
    blocks: bool,
}

impl Output<'_> {
    /// Prints `response` (blocks, a JSON-RPC line or the bare result); exit 5 when it is an
    /// error response (`line`: its stderr line, when not the default one).
    fn write(&self, response: &ToolResponse<'_>, line: Option<String>) -> Result<(), Failure> {
        let failure = match line {
            Some(line) => Some(Failure::error_response_line(line)),
            None => (response.is_error() == Some(true)).then(|| Failure::error_response(self.path)),
        };
        if self.blocks {
            let mut out = Vec::new();
            for text in response.texts() {
                out.extend_from_slice(text.as_bytes());
                out.extend_from_slice(b"\n-----\n");
            }
            write_stdout(&out)?;
        } else {
            // Streamed to stdout in 256 KiB chunks as it is encoded: the line is never held
            // whole (everything that can fail was checked when the response was built).
            stream_stdout(|sink| match self.frame_id {
                Some(id) => frame::frame(&Id::from_cli(id), response, self.protocol, sink),
                None => {
                    frame::write_result(response, self.protocol, sink);
                    toolwire::Sink::write_byte(sink, b'\n');
                }
            })?;
        }
        match failure {
            Some(f) => Err(f),
            None => Ok(()),
        }
    }
}

fn toon_encode(path: &str, delimiter: Delimiter, indent: usize) -> Result<(), Failure> {
    let input = Input::read(path)?;
    let opts = toon::EncodeOptions::new()
        .delimiter(delimiter)
        .indent(indent);
    // Validated before the first byte (a large root array window by window), then streamed.
    stream_stdout(|sink| toon::encode_json(input.bytes(), &opts, sink))?
        .map_err(|e| input.malformed(&e))
}

/// The sink of [`stream_stdout`]: a concrete type for the encoders (only the once-per-chunk
/// consumer call is dynamic).
type StdoutSink<'a> = frame::ChunkedSink<&'a mut dyn FnMut(bytes::Bytes) -> bool>;

/// Runs `write` into a sink that hands 256 KiB chunks to stdout as they fill: `write`'s own
/// result (inside), or the first I/O error (outside).
fn stream_stdout<T>(write: impl FnOnce(&mut StdoutSink<'_>) -> T) -> Result<T, Failure> {
    let mut stdout = std::io::stdout().lock();
    let mut error = None;
    let mut consumer = |chunk: bytes::Bytes| {
        let written = stdout.write_all(&chunk);
        let ok = written.is_ok();
        error = error.take().or(written.err());
        ok
    };
    let mut sink: StdoutSink<'_> = frame::ChunkedSink::new(256 << 10, &mut consumer);
    let result = write(&mut sink);
    sink.finish();
    let flushed = stdout.flush();
    match error.or(flushed.err()) {
        Some(e) => Err(Failure::io("<stdout>", &e)),
        None => Ok(result),
    }
}

fn toon_decode(path: &str, lenient: bool, indent: usize) -> Result<(), Failure> {
    let input = Input::read(path)?;
    let opts = toon::DecodeOptions::new().strict(!lenient).indent(indent);
    let doc = toon::decode(input.bytes(), &opts).map_err(|e| input.malformed(&e))?;
    let mut out = Vec::new();
    toolwire::json::write_compact(doc.root(), &mut out);
    write_stdout(&out)
}
