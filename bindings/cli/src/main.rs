//! `toolwire`: the command line of the toolwire engine (contract: `spec/CLI.md`).
//!
//! Exit codes: 0 success, 2 usage, 3 malformed input, 4 presenter file, 5 the tool response is
//! an error response (printed in full on stdout). Errors are one line on stderr naming the
//! file and `LINE:COLUMN`.

mod demo;
mod input;
mod tokens;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use toolwire::frame::{self, Id, Protocol};
use toolwire::json::{ParseOptions, Selector};
use toolwire::toon::{self, Delimiter};
use toolwire::wire::{self, Data, Format};

use crate::input::{Failure, Input};

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
    Demo {
        /// Number of invoice rows to generate.
        #[arg(long, default_value_t = 100_000)]
        rows: usize,
        /// Show a progress bar even when stdout is not a terminal.
        #[arg(long)]
        progress: bool,
    },
    /// Print the CallToolResult for one JSON document (the value a handler returned).
    Present {
        /// A JSON file, or `-` for stdin.
        #[arg(default_value = "-")]
        input: String,
        /// The `_select` argument an agent would send: names in its order.
        #[arg(long, value_delimiter = ',')]
        select: Option<Vec<String>>,
        /// Data format.
        #[arg(long, value_enum, default_value_t = FormatArg::Pretty)]
        format: FormatArg,
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
    /// TOON conversion (spec 4.4).
    Toon {
        #[command(subcommand)]
        command: ToonCommand,
    },
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

#[derive(Clone, Copy, Debug, ValueEnum)]
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
}

impl FormatArg {
    fn format(self) -> Format {
        match self {
            FormatArg::Pretty => Format::Pretty,
            FormatArg::Compact => Format::Compact,
            FormatArg::Toon => Format::Toon(Delimiter::Pipe),
            FormatArg::ToonComma => Format::Toon(Delimiter::Comma),
            FormatArg::ToonTab => Format::Toon(Delimiter::Tab),
        }
    }
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
        Command::Demo { rows, progress } => demo::run(rows, progress),
        Command::Present {
            input,
            select,
            format,
            frame,
            protocol,
            blocks,
        } => present(
            &input,
            select,
            format.format(),
            frame.as_deref(),
            &protocol,
            blocks,
        ),
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

fn present(
    path: &str,
    select: Option<Vec<String>>,
    format: Format,
    frame_id: Option<&str>,
    protocol: &str,
    blocks: bool,
) -> Result<(), Failure> {
    let input = Input::read(path)?;
    let opts = ParseOptions::default();
    let doc = match &select {
        Some(keys) => {
            let keys: Vec<&str> = keys
                .iter()
                .map(|k| k.trim())
                .filter(|k| !k.is_empty())
                .collect();
            if keys.is_empty() {
                toolwire::json::parse(input.bytes(), &opts)
            } else {
                toolwire::json::parse_selected(input.bytes(), &Selector::new(keys), &opts)
            }
        }
        None => toolwire::json::parse(input.bytes(), &opts),
    }
    .map_err(|e| input.malformed(&e))?;
    let root = doc.root();
    // A root JSON string is a string result: verbatim in every format.
    let data = match root.as_str() {
        // MCP text is Unicode: a lone surrogate cannot be passed on verbatim, and changing it
        // silently would alter the handler's text, so it is malformed input here.
        Some(s) => Data::Text(s.to_str().ok_or_else(|| {
            Failure::malformed_line(format!(
                "{}: a string result cannot hold a lone surrogate",
                input.name()
            ))
        })?),
        None => Data::Value(root),
    };
    let response = wire::response(data)
        .format(format)
        .build()
        .map_err(|e| input.malformed(&e))?;
    let protocol = Protocol::from_revision(protocol);
    let mut out = Vec::new();
    if blocks {
        for text in response.texts() {
            out.extend_from_slice(text.as_bytes());
            out.extend_from_slice(b"\n-----\n");
        }
    } else if let Some(id) = frame_id {
        frame::frame(&Id::from_cli(id), &response, protocol, &mut out);
    } else {
        frame::write_result(&response, protocol, &mut out);
        out.push(b'\n');
    }
    write_stdout(&out)?;
    if response.is_error() == Some(true) {
        return Err(Failure::error_response(path));
    }
    Ok(())
}

fn toon_encode(path: &str, delimiter: Delimiter, indent: usize) -> Result<(), Failure> {
    let input = Input::read(path)?;
    let doc = toolwire::json::parse(input.bytes(), &ParseOptions::default())
        .map_err(|e| input.malformed(&e))?;
    let opts = toon::EncodeOptions::new()
        .delimiter(delimiter)
        .indent(indent);
    let out = toon::to_vec(doc.root(), &opts).map_err(|e| input.malformed(&e))?;
    write_stdout(&out)
}

fn toon_decode(path: &str, lenient: bool, indent: usize) -> Result<(), Failure> {
    let input = Input::read(path)?;
    let opts = toon::DecodeOptions::new().strict(!lenient).indent(indent);
    let doc = toon::decode(input.bytes(), &opts).map_err(|e| input.malformed(&e))?;
    let mut out = Vec::new();
    toolwire::json::write_compact(doc.root(), &mut out);
    write_stdout(&out)
}
