//! The one-shot anchors of ARCHITECTURE.md's whole-process CLI contracts: what a user would
//! write today with serde_json and toon-format, as a binary, for `benches/cli_contract.sh`.
//!
//! ```text
//! anchor gen N FILE          N flat invoices (the bench corpus) into FILE
//! anchor toon FILE           serde_json parse + toon-format encode (comma), to stdout
//! anchor toon-frame FILE     the same, framed as a JSON-RPC response line by serde_json
//! anchor pretty-frame FILE   serde_json parse + pretty print, framed the same way
//! ```

use std::io::Write;

fn frame(text: String) -> Vec<u8> {
    let msg = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"content": [{"type": "text", "text": text}]}
    });
    let mut line = serde_json::to_vec(&msg).expect("serializable");
    line.push(b'\n');
    line
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(mode), Some(arg)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: anchor gen N FILE | anchor (toon|toon-frame|pretty-frame) FILE");
        std::process::exit(2);
    };
    if mode == "gen" {
        let n: usize = arg.parse().expect("a row count");
        let json = toolwire_oracles::invoices::json(n, toolwire_oracles::invoices::Shape::Flat);
        std::fs::write(&args[3], json).expect("writable file");
        return;
    }
    let bytes = std::fs::read(arg).expect("readable file");
    let value: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
    let out = match mode.as_str() {
        "toon" => toon_format::encode_default(&value)
            .expect("encodes")
            .into_bytes(),
        "toon-frame" => frame(toon_format::encode_default(&value).expect("encodes")),
        "pretty-frame" => frame(serde_json::to_string_pretty(&value).expect("prints")),
        _ => {
            eprintln!("unknown mode {mode}");
            std::process::exit(2);
        }
    };
    std::io::stdout().lock().write_all(&out).expect("stdout");
}
