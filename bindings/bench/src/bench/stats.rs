//! The figures of a run: percentiles, budgets, the cheapest format; the table and the JSON.
//!
//! Percentiles are nearest-rank (`p` of n sorted values is the value at rank ⌈p·n/100⌉), so
//! every figure is a value that was measured, and the median of an even count is the lower
//! middle one. Times are milliseconds rounded to 3 decimals (microseconds) once, here: the
//! table, the JSON and the report print the same numbers.

use serde_json::{Value, json};

use super::{Call, Run, args_text};
use crate::client::one_line;

/// Latency percentiles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latency {
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// The slowest call.
    pub max: f64,
}

/// Min, median, max of a count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spread {
    /// Smallest.
    pub min: usize,
    /// Median (the lower middle value of an even count).
    pub median: usize,
    /// Largest.
    pub max: usize,
}

/// The summary of a run.
#[derive(Debug, Clone)]
pub struct Summary {
    /// Measured calls.
    pub calls: usize,
    /// Of which failed (`isError` or a JSON-RPC error).
    pub errors: usize,
    /// Latency, ms.
    pub latency: Latency,
    /// Time to first byte, ms: p50 and p99.
    pub ttfb: (f64, f64),
    /// Message bytes.
    pub bytes: Spread,
    /// o200k_base tokens.
    pub o200k: Spread,
    /// cl100k_base tokens.
    pub cl100k: Spread,
    /// Calls whose tokens (either vocabulary) exceed the token budget.
    pub over_tokens: usize,
    /// Calls whose message exceeds the byte budget.
    pub over_bytes: usize,
    /// Index (into `Run::formats`) of the format call with the fewest o200k tokens among
    /// those that did not fail (the first on a tie).
    pub cheapest: Option<usize>,
}

/// Rounds milliseconds to microseconds.
pub(crate) fn ms(x: f64) -> f64 {
    (x * 1e3).round() / 1e3
}

fn rank<T: Copy>(sorted: &[T], p: f64) -> T {
    let n = sorted.len();
    let r = ((p / 100.0) * n as f64).ceil() as usize;
    sorted[r.clamp(1, n) - 1]
}

fn percentiles(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

fn spread(mut v: Vec<usize>) -> Spread {
    if v.is_empty() {
        return Spread {
            min: 0,
            median: 0,
            max: 0,
        };
    }
    v.sort_unstable();
    Spread {
        min: v[0],
        median: rank(&v, 50.0),
        max: v[v.len() - 1],
    }
}

/// Over the token budget: either vocabulary's count exceeds it.
pub(crate) fn over_tokens(run: &Run, c: &Call) -> bool {
    let r = run.response(c);
    r.o200k.max(r.cl100k) > run.config.budget_tokens
}

/// The summary of `run`.
pub fn summarize(run: &Run) -> Summary {
    let calls = &run.calls;
    let lat = percentiles(calls.iter().map(|c| ms(c.latency_ms)).collect());
    let ttfb = percentiles(calls.iter().map(|c| ms(c.ttfb_ms)).collect());
    let at = |v: &[f64], p: f64| if v.is_empty() { 0.0 } else { rank(v, p) };
    let cheapest = run
        .formats
        .iter()
        .enumerate()
        .filter(|(_, f)| !f.call.is_error)
        .min_by_key(|(_, f)| run.response(&f.call).o200k)
        .map(|(i, _)| i);
    Summary {
        calls: calls.len(),
        errors: calls.iter().filter(|c| c.is_error).count(),
        latency: Latency {
            p50: at(&lat, 50.0),
            p90: at(&lat, 90.0),
            p99: at(&lat, 99.0),
            max: lat.last().copied().unwrap_or(0.0),
        },
        ttfb: (at(&ttfb, 50.0), at(&ttfb, 99.0)),
        bytes: spread(calls.iter().map(|c| c.bytes).collect()),
        o200k: spread(calls.iter().map(|c| run.response(c).o200k).collect()),
        cl100k: spread(calls.iter().map(|c| run.response(c).cl100k).collect()),
        over_tokens: calls.iter().filter(|c| over_tokens(run, c)).count(),
        over_bytes: calls
            .iter()
            .filter(|c| c.bytes > run.config.budget_bytes)
            .count(),
        cheapest,
    }
}

fn spread_json(s: &Spread) -> Value {
    json!({"min": s.min, "median": s.median, "max": s.max})
}

/// The `--json` object (issue #16 item 3, plus `cheapest` on the format entries).
pub fn to_json(run: &Run, s: &Summary) -> Value {
    let formats: Vec<Value> = run
        .formats
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let r = run.response(&f.call);
            json!({
                "format": f.format,
                "bytes": f.call.bytes,
                "o200k": r.o200k,
                "cl100k": r.cl100k,
                "latency_ms": ms(f.call.latency_ms),
                "isError": f.call.is_error,
                "cheapest": s.cheapest == Some(i),
            })
        })
        .collect();
    json!({
        "tool": run.config.tool,
        "transport": run.config.target.transport(),
        "protocol": run.protocol,
        "calls": s.calls,
        "errors": s.errors,
        "concurrency": run.config.concurrency,
        "latency_ms": {"p50": s.latency.p50, "p90": s.latency.p90, "p99": s.latency.p99,
                       "max": s.latency.max},
        "ttfb_ms": {"p50": s.ttfb.0, "p99": s.ttfb.1},
        "bytes": spread_json(&s.bytes),
        "tokens": {"o200k": spread_json(&s.o200k), "cl100k": spread_json(&s.cl100k)},
        "budget": {"tokens": run.config.budget_tokens, "bytes": run.config.budget_bytes,
                   "over_tokens": s.over_tokens, "over_bytes": s.over_bytes},
        "formats": formats,
    })
}

/// The table for humans.
pub fn table(run: &Run, s: &Summary) -> String {
    let mut t = String::new();
    t.push_str(&format!(
        "tool {} over {} (protocol {}): {} calls, {} in flight, {} errors\n",
        one_line(&run.config.tool, 100),
        run.config.target.transport(),
        run.protocol,
        s.calls,
        run.config.concurrency,
        s.errors
    ));
    if run.config.args.len() > 1 || run.config.args[0] != json!({}) {
        for a in &run.config.args {
            t.push_str(&format!("  args {}\n", args_text(a)));
        }
    }
    t.push('\n');
    t.push_str(&format!(
        "{:<12} {:>10} {:>10} {:>10} {:>10}\n",
        "ms", "p50", "p90", "p99", "max"
    ));
    let l = &s.latency;
    t.push_str(&format!(
        "{:<12} {:>10.3} {:>10.3} {:>10.3} {:>10.3}\n",
        "latency", l.p50, l.p90, l.p99, l.max
    ));
    t.push_str(&format!(
        "{:<12} {:>10.3} {:>10} {:>10.3}\n\n",
        "ttfb", s.ttfb.0, "", s.ttfb.1
    ));
    t.push_str(&format!(
        "{:<12} {:>10} {:>10} {:>10} {:>10}\n",
        "per call", "min", "median", "max", "budget"
    ));
    for (name, sp, budget) in [
        ("bytes", &s.bytes, run.config.budget_bytes),
        ("o200k", &s.o200k, run.config.budget_tokens),
        ("cl100k", &s.cl100k, run.config.budget_tokens),
    ] {
        t.push_str(&format!(
            "{:<12} {:>10} {:>10} {:>10} {:>10}\n",
            name, sp.min, sp.median, sp.max, budget
        ));
    }
    t.push_str(&format!(
        "over budget: {} calls by tokens, {} by bytes\n",
        s.over_tokens, s.over_bytes
    ));
    if !run.formats.is_empty() {
        t.push_str(&format!(
            "\n{:<12} {:>10} {:>10} {:>10} {:>10}\n",
            "format", "bytes", "o200k", "cl100k", "latency_ms"
        ));
        for (i, f) in run.formats.iter().enumerate() {
            let r = run.response(&f.call);
            let mark = if s.cheapest == Some(i) {
                "  <- cheapest"
            } else if f.call.is_error {
                "  (error)"
            } else {
                ""
            };
            t.push_str(&format!(
                "{:<12} {:>10} {:>10} {:>10} {:>10.3}{}\n",
                one_line(&f.format, 40),
                f.call.bytes,
                r.o200k,
                r.cl100k,
                ms(f.call.latency_ms),
                mark
            ));
        }
    }
    t
}

/// The first text of a failed call, for the reason line.
fn what_failed(run: &Run, c: &Call) -> String {
    if let Some(e) = &c.error {
        return e.clone();
    }
    let text = run
        .response(c)
        .blocks
        .first()
        .map(String::as_str)
        .unwrap_or("");
    format!("isError: {}", one_line(text, 200))
}

/// Why the run exits 5 (empty: it does not).
pub fn reasons(run: &Run, s: &Summary) -> Vec<String> {
    let mut out = Vec::new();
    if let Some((i, c)) = run.calls.iter().enumerate().find(|(_, c)| c.is_error) {
        out.push(format!(
            "{} of {} calls failed (call {}: {})",
            s.errors,
            s.calls,
            i + 1,
            what_failed(run, c)
        ));
    }
    if s.over_tokens > 0 {
        out.push(format!(
            "{} of {} calls over the token budget {} (max o200k {}, cl100k {})",
            s.over_tokens, s.calls, run.config.budget_tokens, s.o200k.max, s.cl100k.max
        ));
    }
    if s.over_bytes > 0 {
        out.push(format!(
            "{} of {} calls over the byte budget {} (max {} bytes)",
            s.over_bytes, s.calls, run.config.budget_bytes, s.bytes.max
        ));
    }
    let failed: Vec<_> = run.formats.iter().filter(|f| f.call.is_error).collect();
    if let Some(f) = failed.first() {
        out.push(format!(
            "{} of {} per-format calls failed (format {}: {})",
            failed.len(),
            run.formats.len(),
            one_line(&f.format, 40),
            what_failed(run, &f.call)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{rank, spread};

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u32> = (1..=20).collect();
        assert_eq!(rank(&v, 50.0), 10);
        assert_eq!(rank(&v, 90.0), 18);
        assert_eq!(rank(&v, 99.0), 20);
        assert_eq!(rank(&[7], 50.0), 7);
        assert_eq!(rank(&[1, 2], 50.0), 1);
        let s = spread(vec![5, 1, 9, 3]);
        assert_eq!((s.min, s.median, s.max), (1, 3, 9));
        assert_eq!(spread(vec![]).max, 0);
    }
}
