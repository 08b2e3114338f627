//! Every `console` example in README.md is run with the real binary and its output compared
//! line for line, so the README cannot drift from what the CLI does.

use std::path::Path;
use std::process::Command;

/// `(command, expected output)` pairs from the README's ```console blocks.
fn console_examples(readme: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut in_block = false;
    let mut current: Option<(String, String)> = None;
    for line in readme.lines() {
        if line.starts_with("```") {
            if in_block {
                out.extend(current.take());
            }
            in_block = line == "```console";
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            out.extend(current.take());
            current = Some((cmd.to_owned(), String::new()));
        } else if let Some((_, expected)) = current.as_mut() {
            expected.push_str(line);
            expected.push('\n');
        }
    }
    out
}

#[test]
fn readme_console_examples_are_true() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let examples = console_examples(&readme);
    assert!(examples.len() >= 4, "README lost its CLI examples");
    let bin_dir = Path::new(crate::BIN).parent().unwrap().to_owned();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (cmd, expected) in examples {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("{cmd} 2>&1"))
            .env("PATH", &path)
            .output()
            .unwrap();
        let got = String::from_utf8(out.stdout).unwrap();
        // Outputs without a trailing newline (toon encode/decode) are shown on their own line;
        // a command without output (writing a file) shows nothing.
        let got = if got.is_empty() || got.ends_with('\n') {
            got
        } else {
            got + "\n"
        };
        assert_eq!(got, expected, "README example: $ {cmd}");
    }
}
