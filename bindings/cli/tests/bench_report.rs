//! `toolwire bench --report FILE.html`: one self-contained page whose figures are the
//! `--json` ones, whose server text is escaped, loaded in a real browser (headless Chromium:
//! a screenshot decoded and checked non-blank, the DOM's figures compared with the JSON).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::bench_common::*;
use serde_json::{Value, json};

/// Rows whose text tries to break out of the page.
const HOSTILE: &str =
    r#"</pre><script>alert(1)</script><img src=x onerror=alert(2)> & "q" 'x' <!-- "#;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolwire-bench-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Every `data-key="K" data-value="V"` pair of a page, in order.
fn figures(html: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("data-key=\"") {
        rest = &rest[i + 10..];
        let k_end = rest.find('"').unwrap();
        let key = unescape(&rest[..k_end]);
        rest = &rest[k_end..];
        let v = rest
            .find("data-value=\"")
            .expect("data-value after data-key");
        rest = &rest[v + 12..];
        let v_end = rest.find('"').unwrap();
        out.push((key, unescape(&rest[..v_end])));
        rest = &rest[v_end..];
    }
    out
}

/// Checks that the page's figures are the JSON's and that every figure of the JSON is there.
fn same_figures(page: &[(String, String)], j: &Value) {
    for (k, v) in page {
        let want = j
            .pointer(&format!("/{}", k.replace('.', "/")))
            .unwrap_or_else(|| panic!("{k} is not in the JSON"));
        let got: Value = match want {
            Value::String(_) => Value::String(v.clone()),
            _ => serde_json::from_str(v).unwrap_or_else(|e| panic!("{k}={v}: {e}")),
        };
        assert_eq!(&got, want, "{k}");
    }
    let keys: Vec<&str> = page.iter().map(|(k, _)| k.as_str()).collect();
    let mut needed: Vec<String> = [
        "tool",
        "transport",
        "protocol",
        "calls",
        "errors",
        "latency_ms.p50",
        "latency_ms.p90",
        "latency_ms.p99",
        "latency_ms.max",
        "ttfb_ms.p50",
        "ttfb_ms.p99",
        "bytes.min",
        "bytes.median",
        "bytes.max",
        "tokens.o200k.min",
        "tokens.o200k.median",
        "tokens.o200k.max",
        "tokens.cl100k.min",
        "tokens.cl100k.median",
        "tokens.cl100k.max",
        "budget.tokens",
        "budget.bytes",
        "budget.over_tokens",
        "budget.over_bytes",
    ]
    .map(String::from)
    .to_vec();
    for i in 0..j["formats"].as_array().unwrap().len() {
        for f in ["bytes", "o200k", "cl100k", "latency_ms"] {
            needed.push(format!("formats.{i}.{f}"));
        }
    }
    for n in &needed {
        assert!(keys.contains(&n.as_str()), "the page has no figure {n}");
    }
}

fn bench_with_report(report: &Path) -> Value {
    let data = tmp("evil.json");
    let rows: Vec<Value> = (0..30)
        .map(|i| json!({"id": format!("r{i}"), "note": format!("{HOSTILE}{i}")}))
        .collect();
    std::fs::write(&data, serde_json::to_vec(&rows).unwrap()).unwrap();
    let cmd = serve_cmd(&format!("--collection 'evil={}'", data.display()));
    let out = toolwire(&[
        "bench",
        "--stdio",
        &cmd,
        "--tool",
        "evil",
        "--args",
        r#"{"action":"list","limit":4}"#,
        "--calls",
        "12",
        "--concurrency",
        "2",
        "--budget-tokens",
        "300",
        "--json",
        "--report",
        report.to_str().unwrap(),
    ]);
    // Four rows of hostile notes are over a 300-token budget in some formats, not in others:
    // whatever the measured calls did, the exit code says it.
    let j = out.json();
    let over = j["budget"]["over_tokens"].as_u64().unwrap();
    assert_eq!(out.code, if over > 0 { 5 } else { 0 }, "{out:?}");
    j
}

#[test]
fn the_report_is_self_contained_escaped_and_carries_the_json_figures() {
    let report = tmp("static.html");
    let j = bench_with_report(&report);
    let html = std::fs::read_to_string(&report).unwrap();
    let lower = html.to_ascii_lowercase();
    // Nothing runs, nothing is fetched.
    for bad in [
        "<script", "<img", "<link", "<iframe", "<object", "<embed", " src=\"", " href=\"", "url(",
        "@import", "<!-- ",
    ] {
        assert!(!lower.contains(bad), "the page contains {bad:?}");
    }
    for (i, _) in lower.match_indices("http") {
        assert!(
            lower[i..].starts_with("http://www.w3.org/2000/svg"),
            "an address other than the SVG namespace at {i}"
        );
    }
    // The server's text is shown, escaped.
    assert!(
        html.contains("&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{html}"
    );
    assert!(html.contains(r#"id="latency-histogram""#));
    assert!(html.contains(r#"id="tokens-chart""#));
    // The budget is a line on the tokens chart.
    assert!(html.contains(r#"class="budget" data-budget="300""#));
    // The histogram counts every call.
    let bars: u64 = html
        .match_indices(r#"class="bar" data-count=""#)
        .map(|(i, m)| {
            let rest = &html[i + m.len()..];
            rest[..rest.find('"').unwrap()].parse::<u64>().unwrap()
        })
        .sum();
    assert_eq!(bars, 12);
    same_figures(&figures(&html), &j);
}

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser"].into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// Runs headless Chromium on `page` with `args`; its stdout.
fn headless(browser: &str, page: &Path, args: &[String]) -> Vec<u8> {
    let profile = tmp(&format!("profile-{}", args.len()));
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--window-size=1000,1400",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn chromium");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut b).ok();
        b
    });
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium {args:?}: {status}");
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    reader.join().unwrap()
}

#[test]
fn chromium_renders_the_report_and_its_dom_figures_equal_the_json() {
    let Some(browser) = chromium() else {
        missing("the report's browser check: no chromium on PATH (apt-get install -y chromium)");
        return;
    };
    let report = tmp("browser.html");
    let j = bench_with_report(&report);
    let shot = tmp("shot.png");
    headless(
        browser,
        &report,
        &[format!("--screenshot={}", shot.display())],
    );
    // Decode the screenshot: a real image, and not one flat colour.
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let px = info.color_type.samples();
    assert!(px >= 3, "{:?}", info.color_type);
    assert!(
        info.width >= 800 && info.height >= 800,
        "{}x{}",
        info.width,
        info.height
    );
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()]
        .chunks(px)
        .map(|p| &p[..3])
        .collect();
    let mut counts = std::collections::HashMap::new();
    for p in &pixels {
        *counts.entry(*p).or_insert(0usize) += 1;
    }
    let background = counts.values().copied().max().unwrap();
    let drawn = pixels.len() - background;
    assert!(counts.len() >= 16, "only {} colours", counts.len());
    assert!(
        drawn * 50 > pixels.len(),
        "{drawn} of {} pixels drawn",
        pixels.len()
    );
    // The bars of the charts are drawn in their colours (#3a6ea5 and #e39b3a).
    assert!(
        counts.contains_key(&[0x3a, 0x6e, 0xa5][..]),
        "no o200k/histogram bar colour"
    );
    assert!(
        counts.contains_key(&[0xe3, 0x9b, 0x3a][..]),
        "no cl100k bar colour"
    );
    // The DOM as the browser built it: the same figures as the JSON.
    let dom = String::from_utf8(headless(browser, &report, &["--dump-dom".into()])).unwrap();
    let page = figures(&dom);
    assert!(page.len() >= 24, "{} figures in the DOM", page.len());
    same_figures(&page, &j);
    // The hostile text stayed text: no element came from it.
    let lower = dom.to_ascii_lowercase();
    assert!(!lower.contains("<script"), "a script element in the DOM");
    assert!(!lower.contains("<img"), "an element from the server's text");
    assert!(
        dom.contains("&lt;img src=x onerror=alert(2)&gt;"),
        "the text is not shown"
    );
}
