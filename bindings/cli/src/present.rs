//! `toolwire present`: one JSON document through the engine's front door
//! ([`toolwire::call`]), printed as the agent would receive it.
//!
//! Everything between the input bytes and the output bytes is the engine's: how the input is
//! read, the presenter's overrides, `auto`, the error responses. This file maps the outcome to
//! the CLI contract: the stdout shape, the one stderr line and the exit code.

use toolwire::call::{Framing, Problem, Reply, ToolCall};
use toolwire::frame::{Id, Protocol};
use toolwire::present::{Overrides, Presenter};

use crate::args::ShapeArgs;
use crate::input::{Failure, Input, display_name, warn};

/// Reads and checks a presenter file: every problem is exit 4 with one line naming the file
/// and the key path (or `LINE:COLUMN` for bad JSON).
pub fn read_presenter(path: &str) -> Result<Presenter, Failure> {
    let name = display_name(path);
    let bytes = std::fs::read(path).map_err(|e| Failure::presenter(format!("{name}: {e}")))?;
    Presenter::from_json(&bytes).map_err(|e| {
        Failure::presenter(match e.position() {
            Some((line, column)) => format!("{name}:{line}:{column}: {}", e.message()),
            None => format!("{name}: {e}"),
        })
    })
}

/// The call `present` and `budget` make: the presenter file (read first: a bad presenter
/// makes the input irrelevant) and `--select`; with the presenter's name.
pub fn tool_call(
    shape: &ShapeArgs,
    overrides: Overrides,
) -> Result<(ToolCall, Option<String>), Failure> {
    let mut call = ToolCall::new().overrides(overrides).action("cli/present");
    let mut name = None;
    if let Some(path) = &shape.presenter {
        let presenter = read_presenter(path)?;
        call = call
            .action(format!("{}/present", presenter.name()))
            .presenter(&presenter);
        name = Some(presenter.name().to_owned());
    }
    if let Some(names) = shape.names() {
        call = call.select(names);
    }
    Ok((call, name))
}

/// `toolwire present`.
pub fn run(
    path: &str,
    shape: &ShapeArgs,
    overrides: Overrides,
    frame: Option<&str>,
    protocol: Protocol,
    blocks: bool,
) -> Result<(), Failure> {
    let (call, presenter) = tool_call(shape, overrides)?;
    let input = Input::read(path)?;
    let prepared = if input.mapped() {
        call.read_off_heap(input.bytes())
    } else {
        call.read(input.bytes())
    }
    .map_err(|e| input.malformed(&e))?;
    let reply = call.respond(&prepared).map_err(|e| input.malformed(&e))?;
    if let (true, Some(name)) = (reply.select_ignored(), &presenter) {
        warn(&format!(
            "--select ignored: presenter '{name}' does not enable select"
        ));
    }
    let out = match (blocks, frame) {
        (true, _) => Framing::Blocks,
        (false, Some(id)) => Framing::Frame {
            id: Id::number_or_string(id),
            protocol,
        },
        (false, None) => Framing::Result { protocol },
    };
    reply
        .write_io(&out, crate::input::stdout_writer())
        .map_err(|e| Failure::output(&e))?;
    input.check_unchanged()?;
    match error_line(&reply, input.name()) {
        Some(line) => Err(Failure::error_response_line(line)),
        None => Ok(()),
    }
}

/// The one stderr line of an error response (exit 5), `None` for a success response.
pub fn error_line(reply: &Reply<'_>, name: &str) -> Option<String> {
    Some(match reply.problem() {
        Some(Problem::Select(problems)) => match problems.first() {
            Some(p) => format!("{name}: {}: {}", p.name, p.detail),
            None => format!("{name}: _select: invalid"),
        },
        Some(Problem::Output) => {
            format!("{name}: the tool response is an error response (OUTPUT_VALIDATION_FAILED)")
        }
        Some(Problem::Encode(message)) => {
            format!("{name}: the tool response is an error response (INTERNAL_ERROR: {message})")
        }
        Some(_) | None if reply.is_error() => {
            format!("{name}: the tool response is an error response (isError: true)")
        }
        _ => return None,
    })
}
