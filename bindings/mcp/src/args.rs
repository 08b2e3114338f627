//! The arguments of a `tools/call` (SERVE.md §2), checked into a typed [`Call`]. Every
//! problem becomes one field of a `<validation_error>` response, never a JSON-RPC error.

use serde_json::Value;
use toolwire::wire;

use crate::collection::{Collection, FORMATS};
use crate::scalar::Scalar;

/// A checked call.
pub(crate) struct Call {
    pub(crate) action: Action,
    /// The `format` argument (`auto` included), if given.
    pub(crate) format: Option<&'static str>,
    /// The raw `_select` argument, if given (the engine checks it against the presenter).
    pub(crate) select: Option<Value>,
}

/// The action and its own arguments.
pub(crate) enum Action {
    List {
        filter: Vec<(String, Scalar)>,
        offset: usize,
        limit: Option<usize>,
        /// The `cursor` argument, as sent (checked against the list by `respond`).
        cursor: Option<String>,
    },
    Get {
        id: Scalar,
    },
}

/// The arguments a `tools/call` request holds, as read off the message: the ones that
/// decode, and `(name, reason)` for each that does not (a lone surrogate escape, nesting
/// past 128), each a problem of the call.
#[derive(Default)]
pub(crate) struct Sent {
    pub(crate) values: Option<Value>,
    pub(crate) unreadable: Vec<(String, String)>,
}

/// One problem: the field path and the detail (WIRE.md §8).
pub(crate) struct Problem {
    pub(crate) name: String,
    pub(crate) detail: String,
}

/// The ` You sent: <value>` rendering of WIRE.md §8 for a JSON value from the client.
pub(crate) fn you_sent(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => {
            let s = n.to_string();
            if s.chars().count() > 50 {
                wire::you_sent_string(&s).trim_matches('\'').to_owned()
            } else {
                s
            }
        }
        Value::String(s) => wire::you_sent_string(s),
        Value::Array(a) => format!("array({})", a.len()),
        Value::Object(_) => {
            let s = serde_json::to_string(v).unwrap_or_default();
            s.chars().take(50).collect()
        }
    }
}

/// The argument names, in the order the input schema lists them.
const ARGUMENTS: [&str; 8] = [
    "action", "where", "cursor", "offset", "limit", "format", "id", "_select",
];

/// A client-chosen name cut for a field path (a field name is not echoed whole).
fn cut(name: &str) -> String {
    if name.chars().count() > 64 {
        let s: String = name.chars().take(61).collect();
        format!("{s}...")
    } else {
        name.to_owned()
    }
}

fn options<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    names
        .into_iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A natural number argument: an integral number ≥ 0 (`3.0` is 3); beyond `usize` saturates.
fn natural(v: &Value) -> Option<usize> {
    let Value::Number(n) = v else { return None };
    if let Some(u) = n.as_u64() {
        return Some(usize::try_from(u).unwrap_or(usize::MAX));
    }
    let f = n.as_f64()?;
    if f.is_finite() && f >= 0.0 && f.fract() == 0.0 {
        // Saturating: an offset past the end is just an empty page.
        Some(if f >= usize::MAX as f64 {
            usize::MAX
        } else {
            f as usize
        })
    } else if n.to_string().bytes().all(|b| b.is_ascii_digit()) {
        Some(usize::MAX)
    } else {
        None
    }
}

/// Checks the arguments `sent` for `coll`. On failure, returns the validation `action`
/// attribute and the problems.
pub(crate) fn parse(sent: &Sent, coll: &Collection) -> Result<Call, (String, Vec<Problem>)> {
    let arguments = sent.values.as_ref();
    let mut problems: Vec<Problem> = sent
        .unreadable
        .iter()
        .map(|(name, why)| Problem {
            name: cut(name),
            detail: format!("Cannot be read: {why}."),
        })
        .collect();
    let empty = serde_json::Map::new();
    let obj = match arguments {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(o)) => o,
        Some(other) => {
            return Err((
                coll.name.clone(),
                vec![Problem {
                    name: "arguments".into(),
                    detail: format!("Expected an object. You sent: {}.", you_sent(other)),
                }],
            ));
        }
    };
    for (k, v) in obj {
        if !ARGUMENTS.contains(&k.as_str()) {
            problems.push(Problem {
                name: cut(k),
                detail: format!(
                    "Unknown argument. You sent: {}. Valid options: {}.",
                    you_sent(v),
                    options(ARGUMENTS)
                ),
            });
        }
    }
    let action = match obj.get("action") {
        Some(Value::String(s)) if s == "list" || s == "get" => Some(s.as_str()),
        v => {
            problems.push(Problem {
                name: "action".into(),
                detail: format!(
                    "{} You sent: {}. Valid options: 'list', 'get'.",
                    if v.is_none() {
                        "Required."
                    } else {
                        "Unknown action."
                    },
                    v.map_or("(missing)".into(), you_sent)
                ),
            });
            None
        }
    };
    let attr = match action {
        Some(a) => format!("{}/{a}", coll.name),
        None => coll.name.clone(),
    };
    let format = match obj.get("format") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if FORMATS.contains(&s.as_str()) => {
            FORMATS.iter().copied().find(|f| f == s)
        }
        Some(v) => {
            problems.push(Problem {
                name: "format".into(),
                detail: format!(
                    "Unknown format. You sent: {}. Valid options: {}.",
                    you_sent(v),
                    options(FORMATS)
                ),
            });
            None
        }
    };
    let nat = |name: &str, problems: &mut Vec<Problem>| match obj.get(name) {
        None | Some(Value::Null) => None,
        Some(v) => match natural(v) {
            Some(n) => Some(n),
            None => {
                problems.push(Problem {
                    name: name.into(),
                    detail: format!("Expected an integer ≥ 0. You sent: {}.", you_sent(v)),
                });
                None
            }
        },
    };
    let offset_given = !matches!(obj.get("offset"), None | Some(Value::Null));
    let offset = nat("offset", &mut problems).unwrap_or(0);
    let cursor = match obj.get("cursor") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) if offset_given => {
            problems.push(Problem {
                name: "offset".into(),
                detail: format!(
                    "Give cursor or offset, not both: the cursor already says where the page starts. You sent: {}.",
                    you_sent(&Value::String(c.clone()))
                ),
            });
            None
        }
        Some(Value::String(c)) => Some(c.clone()),
        Some(v) => {
            problems.push(Problem {
                name: "cursor".into(),
                detail: format!(
                    "Expected the cursor string a previous page named. You sent: {}.",
                    you_sent(v)
                ),
            });
            None
        }
    };
    let limit = nat("limit", &mut problems);
    let mut filter = Vec::new();
    match obj.get("where") {
        None | Some(Value::Null) => {}
        Some(Value::Object(w)) => {
            for (k, v) in w {
                if let Some(keys) = &coll.root_keys {
                    if !keys.iter().any(|x| x == k) {
                        problems.push(Problem {
                            name: format!("where.{}", cut(k)),
                            detail: format!(
                                "Unknown field '{}'. You sent: {}. Valid options: {}.",
                                cut(k),
                                you_sent(v),
                                options(keys.iter().map(String::as_str))
                            ),
                        });
                        continue;
                    }
                }
                match Scalar::from_json(v) {
                    Some(s) => filter.push((k.clone(), s)),
                    None => problems.push(Problem {
                        name: format!("where.{}", cut(k)),
                        detail: format!(
                            "Expected a JSON scalar (string, number, boolean or null). You sent: {}.",
                            you_sent(v)
                        ),
                    }),
                }
            }
        }
        Some(v) => problems.push(Problem {
            name: "where".into(),
            detail: format!(
                "Expected an object of field names to values. You sent: {}.",
                you_sent(v)
            ),
        }),
    }
    let id = match (action, obj.get("id")) {
        (Some("get"), None | Some(Value::Null)) => {
            problems.push(Problem {
                name: "id".into(),
                detail: format!(
                    "Required for action 'get'. You sent: (missing). Give the '{}' of the row.",
                    coll.key
                ),
            });
            None
        }
        (_, Some(v @ Value::String(_))) => Scalar::from_json(v),
        (_, Some(Value::Number(n)))
            if n.as_i64().is_some()
                || n.as_u64().is_some()
                || natural(&Value::Number(n.clone())).is_some() =>
        {
            Some(Scalar::Number(n.to_string()))
        }
        (_, Some(v)) => {
            problems.push(Problem {
                name: "id".into(),
                detail: format!(
                    "Expected a string or an integer. You sent: {}.",
                    you_sent(v)
                ),
            });
            None
        }
        (_, None) => None,
    };
    if !problems.is_empty() {
        return Err((attr, problems));
    }
    let action = match (action, id) {
        (Some("get"), Some(id)) => Action::Get { id },
        _ => Action::List {
            filter,
            offset,
            limit,
            cursor,
        },
    };
    Ok(Call {
        action,
        format,
        select: obj.get("_select").cloned(),
    })
}
