//! One parse of the bench corpus with a chosen kernel, for instruction counts under
//! callgrind (wall-clock on a shared machine is noise; instructions are not):
//!
//! ```text
//! parse_kernels ROWS flat|nested KERNEL [select]
//! ```
//!
//! KERNEL is `bytewise` (the parser without block masks, as before the kernels),
//! `fallback`, `sse2`, `avx2` or `neon`. With `VERIFY=1` the document is also checked
//! against the bytewise parse (leave it unset when counting instructions).

use toolwire::json::{ParseOptions, Selector, parse, parse_selected};
use toolwire::test_hooks::{Kernel, with_kernel};
use toolwire_oracles::invoices::{self, Shape};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: parse_kernels ROWS flat|nested bytewise|fallback|sse2|avx2|neon [select]";
    let (Some(rows), Some(shape), Some(kernel)) = (args.get(1), args.get(2), args.get(3)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let rows: usize = rows.parse().expect("ROWS is a number");
    let shape = if shape == "nested" {
        Shape::Nested
    } else {
        Shape::Flat
    };
    let json = invoices::json(rows, shape);
    let opts = ParseOptions::new();
    let sel = (args.get(4).map(String::as_str) == Some("select"))
        .then(|| Selector::new(["id", "amount_cents"]));
    let run = || match &sel {
        None => parse(&json, &opts).expect("corpus parses"),
        Some(s) => parse_selected(&json, s, &opts).expect("corpus parses"),
    };
    let kernel = match kernel.as_str() {
        "bytewise" => None,
        "fallback" => Some(Kernel::Fallback),
        "sse2" => Some(Kernel::Sse2),
        "avx2" => Some(Kernel::Avx2),
        "neon" => Some(Kernel::Neon),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let doc = with_kernel(kernel, run).unwrap_or_else(|| {
        eprintln!("this CPU cannot run {kernel:?}");
        std::process::exit(2);
    });
    if std::env::var_os("VERIFY").is_some() {
        let want = with_kernel(None, run).expect("bytewise");
        assert_eq!(format!("{:?}", doc.root()), format!("{:?}", want.root()));
        println!("same document as the bytewise parse");
    }
    println!("{} bytes, {} nodes", json.len(), doc.node_count());
}
