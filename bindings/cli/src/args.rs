//! The command line (CLI.md): clap definitions only. Every value is parsed by the engine's
//! own parsers (format names by [`Format`], protocol revisions by [`Protocol`]), so no name
//! is spelled here.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand, ValueEnum};
use toolwire::frame::Protocol;
use toolwire::toon::{Delimiter, MAX_INDENT};
use toolwire::wire::Format;

/// toolwire: turn tool handler results into MCP tool responses (TOON/JSON blocks).
#[derive(Parser, Debug)]
#[command(name = "toolwire", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
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
        #[arg(long, hide = true, value_name = "FORMAT", value_parser = fixed_format())]
        dump: Option<Format>,
        /// Write the invoices into this SQLite file instead (table `invoices`, key `id`,
        /// replaced if present), to serve with `--collection invoices=sqlite://FILE#invoices`.
        #[arg(long, value_name = "FILE", conflicts_with = "dump")]
        sqlite: Option<String>,
    },
    /// Print the CallToolResult for one JSON document (the value a handler returned).
    ///
    /// Exit codes: 0 success, 1 output error, 2 usage, 3 malformed input, 4 presenter file,
    /// 5 the response is an error response (printed in full on stdout; one line on stderr).
    Present {
        /// A JSON file, or `-` for stdin.
        #[arg(default_value = "-")]
        input: String,
        #[command(flatten)]
        shape: ShapeArgs,
        /// Data format (overrides the presenter file's `format`; default pretty). `auto`: the
        /// cheapest of pretty, compact, toon-comma, toon by the engine's token estimator.
        #[arg(long, value_parser = any_format())]
        format: Option<Format>,
        /// Keep at most N items of a collection (overrides the presenter file's `limit`).
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// Keep as many whole items as fit in N tokens (overrides `token_budget`).
        #[arg(long, value_name = "N")]
        token_budget: Option<usize>,
        /// Print the whole JSON-RPC response line with this id.
        #[arg(long, allow_hyphen_values = true)]
        frame: Option<String>,
        /// The negotiated MCP protocol revision (a date, YYYY-MM-DD).
        #[arg(long, default_value = "2025-11-25", value_parser = revision)]
        protocol: Protocol,
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
    /// Measure what one tool of any MCP server costs an agent: tokens, bytes, latency.
    ///
    /// Connects as an MCP client (the stateless 2026-07-28 revision when the server offers
    /// it, else the initialize handshake), calls the tool --calls times with --concurrency
    /// calls in flight (each --args in turn), then once per value of the tool's `format`
    /// enum with the first --args. Per call: latency, time to first byte, message bytes,
    /// isError, tokens (o200k_base and cl100k_base, each text block on its own).
    ///
    /// Exit codes: 0; 5 when a call failed or exceeded a budget (the reason on stderr);
    /// 2 usage (also a --tool the server lacks); 6 the server would not start or could not
    /// be reached, died, broke the protocol, or did not answer within --timeout.
    Bench(BenchArgs),
}

/// `toolwire bench` (CLI.md).
#[derive(clap::Args, Debug)]
#[command(group = clap::ArgGroup::new("server").required(true).args(["stdio", "http"]))]
pub struct BenchArgs {
    /// Start this command and speak MCP on its stdin/stdout ("CMD ARGS…", split as a shell
    /// splits words, without expansions).
    #[arg(long, value_name = "CMD")]
    pub stdio: Option<String>,
    /// Speak MCP streamable HTTP to this endpoint (http://HOST:PORT/PATH).
    #[arg(long, value_name = "URL")]
    pub http: Option<String>,
    /// The tool to call.
    #[arg(long)]
    pub tool: String,
    /// The arguments of a call, a JSON object; repeat to use several in turn.
    #[arg(long = "args", value_name = "JSON", value_parser = json_object)]
    pub args: Vec<serde_json::Value>,
    /// Number of measured calls.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub calls: u64,
    /// Calls in flight at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub concurrency: u64,
    /// A call over this many tokens (o200k_base or cl100k_base) is over budget.
    #[arg(long, default_value_t = 25_000, value_name = "T")]
    pub budget_tokens: usize,
    /// A call whose message is over this many bytes is over budget.
    #[arg(long, default_value_t = 8_388_608, value_name = "B")]
    pub budget_bytes: usize,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also write a self-contained HTML report page.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<std::path::PathBuf>,
    /// Seconds any one request may take (the connection and every call).
    #[arg(long, default_value_t = 60.0, value_name = "S", value_parser = seconds)]
    pub timeout: f64,
    /// Ask for this MCP revision instead of the newest the server offers (2026-07-28 or
    /// later: stateless only; earlier: the initialize handshake only).
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = revision_date)]
    pub protocol: Option<String>,
    /// HTTP: accept only text/event-stream responses (as some clients do).
    #[arg(long, conflicts_with = "stdio")]
    pub sse: bool,
}

impl BenchArgs {
    /// The bench's settings.
    pub fn config(self) -> toolwire_bench::bench::Config {
        use toolwire_bench::client::Target;
        let target = match (self.stdio, self.http) {
            (Some(cmd), _) => Target::Stdio(cmd),
            (None, Some(url)) => Target::Http(url),
            // clap's group requires one of them.
            (None, None) => Target::Stdio(String::new()),
        };
        let args = if self.args.is_empty() {
            vec![serde_json::Value::Object(Default::default())]
        } else {
            self.args
        };
        toolwire_bench::bench::Config {
            target,
            tool: self.tool,
            args,
            calls: self.calls as usize,
            concurrency: self.concurrency as usize,
            budget_tokens: self.budget_tokens,
            budget_bytes: self.budget_bytes,
            json: self.json,
            report: self.report,
            timeout: std::time::Duration::from_secs_f64(self.timeout),
            protocol: self.protocol,
            sse_only: self.sse,
        }
    }
}

/// `--args`: a JSON object.
fn json_object(s: &str) -> Result<serde_json::Value, String> {
    match serde_json::from_str::<serde_json::Value>(s) {
        Ok(v @ serde_json::Value::Object(_)) => Ok(v),
        Ok(_) => Err("expected a JSON object".into()),
        Err(e) => Err(format!("not JSON: {e}")),
    }
}

/// `bench --protocol`: a revision date, kept as written.
fn revision_date(s: &str) -> Result<String, String> {
    revision(s).map(|_| s.to_owned())
}

/// `--timeout`: positive seconds, at most a day.
fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x <= 86_400.0 => Ok(x),
        _ => Err(format!("'{s}' is not a number of seconds in (0, 86400]")),
    }
}

#[derive(Subcommand, Debug)]
pub enum ToonCommand {
    /// JSON → TOON.
    Encode {
        /// A JSON file, or `-` for stdin.
        #[arg(default_value = "-")]
        input: String,
        /// Row and inline-array delimiter.
        #[arg(long, value_enum, default_value_t = DelimiterArg::Comma)]
        delimiter: DelimiterArg,
        /// Spaces per indentation level.
        #[arg(long, default_value_t = 2, value_parser = indent())]
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
        #[arg(long, default_value_t = 2, value_parser = indent())]
        indent: usize,
    },
}

/// The presenter file and `_select` (shared by `present` and `budget`).
#[derive(clap::Args, Debug)]
pub struct ShapeArgs {
    /// A presenter file (JSON, CLI.md "Presenter file").
    #[arg(long, value_name = "FILE")]
    pub presenter: Option<String>,
    /// The `_select` argument an agent would send: names in its order, spaces trimmed.
    #[arg(long, value_delimiter = ',')]
    pub select: Option<Vec<String>>,
}

impl ShapeArgs {
    /// The `_select` names, trimmed, empty ones dropped (`Some(&[])`: all fields).
    pub fn names(&self) -> Option<Vec<&str>> {
        self.select.as_ref().map(|keys| {
            keys.iter()
                .map(|k| k.trim())
                .filter(|k| !k.is_empty())
                .collect()
        })
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum DelimiterArg {
    Comma,
    Tab,
    Pipe,
}

impl DelimiterArg {
    pub fn delimiter(self) -> Delimiter {
        match self {
            DelimiterArg::Comma => Delimiter::Comma,
            DelimiterArg::Tab => Delimiter::Tab,
            DelimiterArg::Pipe => Delimiter::Pipe,
        }
    }
}

/// `--format`: any of the engine's format names, listed with their meaning in `--help`.
fn any_format() -> impl TypedValueParser<Value = Format> {
    formats(&Format::ALL)
}

/// A fixed format (not `auto`).
fn fixed_format() -> impl TypedValueParser<Value = Format> {
    formats(&Format::FIXED)
}

fn formats(list: &[Format]) -> impl TypedValueParser<Value = Format> + use<> {
    PossibleValuesParser::new(
        list.iter()
            .map(|f| PossibleValue::new(f.name()).help(f.meaning())),
    )
    .try_map(|s| s.parse::<Format>())
}

/// `--protocol`: an MCP revision date, compared as a date.
fn revision(s: &str) -> Result<Protocol, String> {
    Protocol::parse(s).ok_or_else(|| format!("'{s}' is not a revision date (YYYY-MM-DD)"))
}

/// `--indent`: 1 to the engine's maximum.
fn indent() -> impl TypedValueParser<Value = usize> {
    clap::value_parser!(u64)
        .range(1..=MAX_INDENT as u64)
        .map(|n| n as usize)
}
