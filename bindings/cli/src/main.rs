//! `toolwire`: the command line of the toolwire engine (contract: `spec/CLI.md`).
//!
//! A thin shell: argument parsing ([`args`]) and exit codes ([`input::Failure`]) over the
//! engine's front door ([`toolwire::call`]), which owns every presentation decision.
//!
//! Exit codes: 0 success, 1 an error writing the output (or a bug), 2 usage, 3 malformed
//! input, 4 presenter file, 5 the tool response is an error response (printed in full on
//! stdout). Errors are one line on stderr naming the file and `LINE:COLUMN`.

mod args;
mod budget;
mod demo;
mod input;
mod present;
mod tokens;
mod toon;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use toolwire::present::Overrides;

use crate::args::{Cli, Command, ToonCommand};

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
            let _ = writeln!(
                std::io::stderr(),
                "toolwire: {}",
                first.trim_start_matches("error: ")
            );
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Demo {
            rows,
            sqlite: Some(file),
            ..
        } => demo::write_sqlite(&file, rows),
        Command::Demo {
            rows,
            progress,
            dump,
            sqlite: None,
        } => demo::run(rows, progress, dump),
        Command::Present {
            input,
            shape,
            format,
            limit,
            token_budget,
            frame,
            protocol,
            blocks,
        } => present::run(
            &input,
            &shape,
            Overrides {
                format,
                limit,
                token_budget,
            },
            frame.as_deref(),
            protocol,
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
        } => toon::encode(&input, delimiter.delimiter(), indent),
        Command::Toon {
            command:
                ToonCommand::Decode {
                    input,
                    lenient,
                    indent,
                },
        } => toon::decode(&input, lenient, indent),
        Command::Serve(args) => return toolwire_mcp::run(args),
        Command::Bench(args) => return toolwire_bench::bench::run(args.config()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => f.report(),
    }
}
