//! TOON decoder: the official 4.4 decode fixtures (read in place) and exact own tests.

use toolwire::toon::{DecodeOptions, decode};
use toolwire::{Category, Error};

// ---------------------------------------------------------------------------------------
// Conformance: every case of every file in fixtures/decode.

/// The spec version this decoder targets.
const TARGET: (u32, u32) = (4, 4);

fn version(v: &str) -> (u32, u32) {
    let mut it = v
        .split('.')
        .map(|p| p.parse::<u32>().expect("numeric version"));
    (it.next().unwrap_or(0), it.next().unwrap_or(0))
}

#[test]
fn official_decode_fixtures() {
    let Some(root) = toolwire_tests::toon_fixtures() else {
        return;
    };
    let dir = root.join("decode");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/decode")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut total = 0;
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).expect("fixture file");
        let suite: serde_json::Value = serde_json::from_str(&text).expect("fixture json");
        let cases = suite["tests"].as_array().expect("tests array");
        let mut passed = 0;
        for (i, case) in cases.iter().enumerate() {
            total += 1;
            if let Some(v) = case.get("minSpecVersion").and_then(|v| v.as_str()) {
                if version(v) > TARGET {
                    failures.push(format!("{name}#{i}: needs spec {v}, newer than the target"));
                    continue;
                }
            }
            let opts = case.get("options");
            let mut o = DecodeOptions::new();
            if let Some(s) = opts.and_then(|o| o.get("strict")).and_then(|v| v.as_bool()) {
                o = o.strict(s);
            }
            if let Some(n) = opts
                .and_then(|o| o.get("indentSize"))
                .and_then(|v| v.as_u64())
            {
                o = o.indent(n as usize);
            }
            let input = case["input"].as_str().expect("input string");
            let got = decode(input.as_bytes(), &o);
            let should_error = case.get("shouldError").and_then(|v| v.as_bool()) == Some(true);
            match (should_error, got) {
                (true, Err(e)) if e.line() >= 1 && e.column() >= 1 => passed += 1,
                (true, Err(e)) => failures.push(format!("{name}#{i}: error without position: {e}")),
                (true, Ok(doc)) => failures.push(format!(
                    "{name}#{i}: expected an error, decoded {}",
                    toolwire_tests::doc_to_serde(doc.root())
                )),
                (false, Err(e)) => {
                    failures.push(format!("{name}#{i}: {input:?}: unexpected error {e}"))
                }
                (false, Ok(doc)) => {
                    let got = toolwire_tests::doc_to_serde(doc.root());
                    if toolwire_tests::json_model_eq(&got, &case["expected"]) {
                        passed += 1;
                    } else {
                        failures.push(format!(
                            "{name}#{i}: {input:?}: expected {}, got {got}",
                            case["expected"]
                        ));
                    }
                }
            }
        }
        eprintln!("{name}: {passed}/{} passed", cases.len());
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(total, 404, "the 4.4 decode suite has 404 cases");
}
