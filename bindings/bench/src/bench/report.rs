//! `--report FILE.html`: one self-contained page (no script, no external asset, no network).
//!
//! The summary, a latency histogram and a tokens-per-format chart as inline SVG (the token
//! budget as a line on the chart, p50/p99 as lines on the histogram), and the first
//! response's blocks as text. Every figure of the `--json` object is in an element carrying
//! `data-key` (its path in the JSON, `latency_ms.p50`, `formats.0.o200k`) and `data-value`
//! (the same number), so a test can compare the page with the JSON. Every string from the
//! server or the command line is HTML-escaped.

use std::fmt::Write;

use serde_json::Value;

use super::stats::{Summary, ms, to_json};
use super::{Run, args_text};

/// Each block of the first response is shown up to this many bytes.
const BLOCK_SHOWN: usize = 256 * 1024;
const BINS: usize = 20;

/// `s` escaped for HTML text and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// A number as JSON writes it.
fn num(v: &Value) -> String {
    v.to_string()
}

fn figure(json: &Value, key: &str) -> String {
    let ptr = format!("/{}", key.replace('.', "/"));
    let v = json.pointer(&ptr).cloned().unwrap_or(Value::Null);
    format!(
        r#"<td class="n" data-key="{}" data-value="{}">{}</td>"#,
        esc(key),
        esc(&num(&v)),
        esc(&num(&v))
    )
}

/// The page.
pub fn html(run: &Run, s: &Summary) -> String {
    let json = to_json(run, s);
    let cfg = &run.config;
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    let _ = writeln!(h, "<title>toolwire bench: {}</title>", esc(&cfg.tool));
    h.push_str(STYLE);
    h.push_str("</head><body>\n");
    let _ = writeln!(
        h,
        r#"<h1>toolwire bench: <code id="tool" data-key="tool" data-value="{0}">{0}</code></h1>"#,
        esc(&cfg.tool)
    );
    let _ = writeln!(
        h,
        r#"<p>over <b data-key="transport" data-value="{0}">{0}</b>, protocol <b data-key="protocol" data-value="{1}">{1}</b>: <b data-key="calls" data-value="{2}">{2}</b> calls, {3} in flight, <b data-key="errors" data-value="{4}">{4}</b> errors.</p>"#,
        esc(cfg.target.transport()),
        esc(&run.protocol),
        s.calls,
        cfg.concurrency,
        s.errors
    );
    for a in &cfg.args {
        let _ = writeln!(
            h,
            "<p class=\"args\">args <code>{}</code></p>",
            esc(&args_text(a))
        );
    }
    let verdict = if super::stats::reasons(run, s).is_empty() {
        r#"<p class="ok" id="verdict">Within budget; no call failed.</p>"#.to_owned()
    } else {
        format!(
            r#"<p class="bad" id="verdict">{}</p>"#,
            esc(&super::stats::reasons(run, s).join("; "))
        )
    };
    h.push_str(&verdict);
    h.push('\n');

    h.push_str("<h2>Summary</h2>\n<table id=\"summary\">\n");
    h.push_str("<tr><th>ms</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr>\n");
    let _ = writeln!(
        h,
        "<tr><th>latency</th>{}{}{}{}</tr>",
        figure(&json, "latency_ms.p50"),
        figure(&json, "latency_ms.p90"),
        figure(&json, "latency_ms.p99"),
        figure(&json, "latency_ms.max")
    );
    let _ = writeln!(
        h,
        "<tr><th>ttfb</th>{}<td></td>{}<td></td></tr>",
        figure(&json, "ttfb_ms.p50"),
        figure(&json, "ttfb_ms.p99")
    );
    h.push_str(
        "<tr><th>per call</th><th>min</th><th>median</th><th>max</th><th>budget</th></tr>\n",
    );
    for (name, key, budget) in [
        ("bytes", "bytes", "budget.bytes"),
        ("o200k tokens", "tokens.o200k", "budget.tokens"),
        ("cl100k tokens", "tokens.cl100k", "budget.tokens"),
    ] {
        let _ = writeln!(
            h,
            "<tr><th>{name}</th>{}{}{}{}</tr>",
            figure(&json, &format!("{key}.min")),
            figure(&json, &format!("{key}.median")),
            figure(&json, &format!("{key}.max")),
            figure(&json, budget)
        );
    }
    let _ = writeln!(
        h,
        "<tr><th>over budget</th><td>by tokens</td>{}<td>by bytes</td>{}</tr>",
        figure(&json, "budget.over_tokens"),
        figure(&json, "budget.over_bytes")
    );
    h.push_str("</table>\n");

    h.push_str("<h2>Latency</h2>\n");
    h.push_str(&histogram(run, s));

    h.push_str("<h2>Tokens per format</h2>\n");
    if run.formats.is_empty() {
        h.push_str("<p>The tool offers no <code>format</code> enum: the chart shows its median call.</p>\n");
    } else {
        h.push_str("<table id=\"formats\">\n<tr><th>format</th><th>bytes</th><th>o200k</th><th>cl100k</th><th>latency ms</th><th></th></tr>\n");
        for (i, f) in run.formats.iter().enumerate() {
            let mark = if s.cheapest == Some(i) {
                "cheapest"
            } else if f.call.is_error {
                "error"
            } else {
                ""
            };
            let _ = writeln!(
                h,
                r#"<tr data-format="{}"><th>{}</th>{}{}{}{}<td class="mark">{mark}</td></tr>"#,
                esc(&f.format),
                esc(&f.format),
                figure(&json, &format!("formats.{i}.bytes")),
                figure(&json, &format!("formats.{i}.o200k")),
                figure(&json, &format!("formats.{i}.cl100k")),
                figure(&json, &format!("formats.{i}.latency_ms")),
            );
        }
        h.push_str("</table>\n");
    }
    h.push_str(&token_chart(run, s));

    h.push_str("<h2>The first response, as the agent reads it</h2>\n");
    match run.calls.first() {
        None => h.push_str("<p>No call was made.</p>\n"),
        Some(c) => {
            let r = run.response(c);
            if let Some(e) = &c.error {
                let _ = writeln!(h, "<p class=\"bad\">{}</p>", esc(e));
            }
            for (i, b) in r.blocks.iter().enumerate() {
                let (shown, cut) = cut(b, BLOCK_SHOWN);
                let _ = write!(
                    h,
                    "<h3>block {} <small>({} bytes)</small></h3>\n<pre class=\"block\">{}",
                    i + 1,
                    b.len(),
                    esc(shown)
                );
                if cut > 0 {
                    let _ = write!(h, "\n<i>… {cut} more bytes not shown</i>");
                }
                h.push_str("</pre>\n");
            }
        }
    }
    h.push_str("<p class=\"foot\">Written by <code>toolwire bench</code>. Tokens: each text block counted on its own with tiktoken's o200k_base and cl100k_base.</p>\n");
    h.push_str("</body></html>\n");
    h
}

/// At most `max` bytes of `s` (on a character boundary) and how many bytes were left off.
fn cut(s: &str, max: usize) -> (&str, usize) {
    if s.len() <= max {
        return (s, 0);
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (&s[..end], s.len() - end)
}

const W: f64 = 720.0;
const H: f64 = 260.0;
const LEFT: f64 = 60.0;
const BOTTOM: f64 = 40.0;
const TOP: f64 = 20.0;

fn histogram(run: &Run, s: &Summary) -> String {
    let lat: Vec<f64> = run.calls.iter().map(|c| ms(c.latency_ms)).collect();
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg id="latency-histogram" xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img" aria-label="latency histogram">"#
    );
    if lat.is_empty() {
        svg.push_str("</svg>\n");
        return svg;
    }
    let lo = lat.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = lat.iter().copied().fold(0.0, f64::max);
    let span = (hi - lo).max(1e-3);
    let mut bins = [0usize; BINS];
    for &x in &lat {
        let b = (((x - lo) / span) * BINS as f64) as usize;
        bins[b.min(BINS - 1)] += 1;
    }
    let peak = bins.iter().copied().max().unwrap_or(1).max(1);
    let plot_w = W - LEFT - 20.0;
    let plot_h = H - BOTTOM - TOP;
    let bw = plot_w / BINS as f64;
    let x_of = |v: f64| LEFT + (v - lo) / span * plot_w;
    axes(&mut svg, plot_w, plot_h);
    for (i, &n) in bins.iter().enumerate() {
        let bh = n as f64 / peak as f64 * plot_h;
        let _ = write!(
            svg,
            r#"<rect class="bar" data-count="{n}" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"><title>{n} calls</title></rect>"#,
            LEFT + i as f64 * bw + 1.0,
            TOP + plot_h - bh,
            (bw - 2.0).max(1.0),
            bh
        );
    }
    for (name, v, class) in [("p50", s.latency.p50, "p50"), ("p99", s.latency.p99, "p99")] {
        let x = x_of(v);
        // Labels near the right edge end at their line instead of starting there.
        let (anchor, tx) = if x > LEFT + plot_w * 0.7 {
            ("end", x - 3.0)
        } else {
            ("start", x + 3.0)
        };
        let _ = write!(
            svg,
            r#"<line class="{class}" x1="{x:.1}" x2="{x:.1}" y1="{TOP}" y2="{:.1}"/><text class="lbl" text-anchor="{anchor}" x="{:.1}" y="{:.1}">{name} {v} ms</text>"#,
            TOP + plot_h,
            tx,
            TOP + 12.0 + if class == "p99" { 14.0 } else { 0.0 }
        );
    }
    let _ = write!(
        svg,
        r#"<text class="lbl" x="{LEFT}" y="{:.1}">{lo} ms</text><text class="lbl" text-anchor="end" x="{:.1}" y="{:.1}">{hi} ms</text><text class="lbl" x="4" y="{TOP}">{peak} calls</text></svg>"#,
        H - 20.0,
        LEFT + plot_w,
        H - 20.0
    );
    svg.push('\n');
    svg
}

fn axes(svg: &mut String, plot_w: f64, plot_h: f64) {
    let _ = write!(
        svg,
        r#"<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{:.1}"/><line class="axis" x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}"/>"#,
        TOP + plot_h,
        TOP + plot_h,
        LEFT + plot_w,
        TOP + plot_h
    );
}

fn token_chart(run: &Run, s: &Summary) -> String {
    // (label, o200k, cl100k, cheapest)
    let bars: Vec<(String, usize, usize, bool)> = if run.formats.is_empty() {
        vec![(
            "median call".to_owned(),
            s.o200k.median,
            s.cl100k.median,
            false,
        )]
    } else {
        run.formats
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let r = run.response(&f.call);
                (f.format.clone(), r.o200k, r.cl100k, s.cheapest == Some(i))
            })
            .collect()
    };
    let budget = run.config.budget_tokens;
    let top = bars
        .iter()
        .map(|b| b.1.max(b.2))
        .max()
        .unwrap_or(0)
        .max(budget)
        .max(1) as f64
        * 1.08;
    let plot_w = W - LEFT - 20.0;
    let plot_h = H - BOTTOM - TOP;
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg id="tokens-chart" xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img" aria-label="tokens per format">"#
    );
    axes(&mut svg, plot_w, plot_h);
    let slot = plot_w / bars.len() as f64;
    let bw = (slot * 0.8 / 2.0).min(40.0);
    for (i, (label, o, c, cheapest)) in bars.iter().enumerate() {
        let x0 = LEFT + i as f64 * slot + (slot - 2.0 * bw) / 2.0;
        for (j, (v, class)) in [(*o, "o200k"), (*c, "cl100k")].into_iter().enumerate() {
            let bh = v as f64 / top * plot_h;
            let _ = write!(
                svg,
                r#"<rect class="{class}" data-tokens="{v}" x="{:.1}" y="{:.1}" width="{bw:.1}" height="{bh:.1}"><title>{} {class}: {v}</title></rect>"#,
                x0 + j as f64 * bw,
                TOP + plot_h - bh,
                esc(label)
            );
        }
        let _ = write!(
            svg,
            r#"<text class="lbl{}" text-anchor="middle" x="{:.1}" y="{:.1}">{}{}</text>"#,
            if *cheapest { " cheap" } else { "" },
            x0 + bw,
            H - 22.0,
            esc(label),
            if *cheapest { " ✓" } else { "" }
        );
    }
    let y = TOP + plot_h - budget as f64 / top * plot_h;
    let _ = write!(
        svg,
        r#"<line class="budget" data-budget="{budget}" x1="{LEFT}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}"/><text class="lbl bad" x="{:.1}" y="{:.1}" text-anchor="end">budget {budget} tokens</text>"#,
        LEFT + plot_w,
        LEFT + plot_w,
        y - 4.0
    );
    let _ = write!(
        svg,
        r#"<rect class="o200k" x="{LEFT}" y="{:.1}" width="10" height="10"/><text class="lbl" x="{:.1}" y="{:.1}">o200k</text><rect class="cl100k" x="{:.1}" y="{:.1}" width="10" height="10"/><text class="lbl" x="{:.1}" y="{:.1}">cl100k</text></svg>"#,
        H - 12.0,
        LEFT + 14.0,
        H - 3.0,
        LEFT + 70.0,
        H - 12.0,
        LEFT + 84.0,
        H - 3.0
    );
    svg.push('\n');
    svg
}

const STYLE: &str = r#"<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em; padding: 0 1em; color: #1d232b; background: #fff; }
h1 { font-size: 1.5em; } h2 { margin-top: 1.6em; font-size: 1.2em; border-bottom: 1px solid #ccd; }
table { border-collapse: collapse; } th, td { padding: .25em .7em; border-bottom: 1px solid #e4e6ea; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.ok { color: #17733a; font-weight: 600; } .bad { color: #b3261e; font-weight: 600; }
pre.block { background: #f4f5f7; border: 1px solid #dde; padding: .8em; overflow: auto; max-height: 30em; white-space: pre-wrap; word-break: break-all; }
svg { background: #fafbfc; border: 1px solid #e4e6ea; }
svg .bar { fill: #3a6ea5; } svg .o200k { fill: #3a6ea5; } svg .cl100k { fill: #e39b3a; }
svg .axis { stroke: #556; stroke-width: 1; } svg .budget { stroke: #b3261e; stroke-width: 2; stroke-dasharray: 6 4; }
svg .p50 { stroke: #17733a; stroke-width: 1.5; } svg .p99 { stroke: #8a2be2; stroke-width: 1.5; }
svg .lbl { font-size: 12px; fill: #333; } svg .cheap { font-weight: 700; fill: #17733a; } svg text.bad { fill: #b3261e; }
.foot { color: #667; font-size: .85em; margin-top: 2em; }
</style>
"#;

#[cfg(test)]
mod tests {
    use super::{cut, esc};

    #[test]
    fn escaping_and_cutting() {
        assert_eq!(
            esc(r#"<a href="x">&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(cut("héllo", 2), ("h", 5));
        assert_eq!(cut("abc", 3), ("abc", 0));
    }
}
