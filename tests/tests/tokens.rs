//! `toolwire::tokens` against tiktoken's unchunked `encode_ordinary` (docs/RELIABILITY.md,
//! "The token-budget guarantee"): exact on normal text, close and bounded on pathological
//! runs, and no tokenizer call ever sees a long run (a bound on the work, never a timing).

use toolwire::tokens::{RUN_CHUNK, RUN_LIMIT, SEGMENT_BYTES, Vocabulary, count, count_bound};

fn unchunked(v: Vocabulary, t: &str) -> usize {
    match v {
        Vocabulary::O200k => tiktoken_rs::o200k_base_singleton(),
        Vocabulary::Cl100k => tiktoken_rs::cl100k_base_singleton(),
    }
    .encode_ordinary(t)
    .len()
}

#[test]
fn safe_points_keep_counts_exact_on_normal_text() {
    let mut text = String::new();
    for i in 0..3000 {
        text.push_str(&format!(
            "  {{\n    \"id\": \"INV-{i:05}\",\n    \"amount\": {},\n    \"note\": \"Ünïcode 漢字 😀 {i}/x\"\n  }},\n",
            i * 37
        ));
        text.push_str(&format!("  - {i}|caf\u{e9}|{}.5|  ok\n/", i * 3));
        if i % 7 == 0 {
            text.push_str(&format!("[{i}]{{a,b}}:\n  x,{i}\n\t{i}'s\r\n  \n"));
        }
    }
    assert!(text.len() > 16 * SEGMENT_BYTES);
    for v in [Vocabulary::O200k, Vocabulary::Cl100k] {
        let exact = unchunked(v, &text);
        assert_eq!(count(v, &text), exact, "{v:?}");
        assert_eq!(count_bound(v, &text), exact, "{v:?}");
    }
}

/// Pathological runs, of a size unchunked counting still handles.
fn runs() -> Vec<String> {
    let n = 3 * RUN_LIMIT;
    vec![
        "a".repeat(n),
        format!("x {} y", "A".repeat(n)),
        "漢".repeat(n / 3),
        "é".repeat(n / 2),
        format!("k: {}\nz", " ".repeat(n)),
        format!("{}\n\n\n/ok", "-".repeat(n)),
        "aB".repeat(n / 2),
        "😀".repeat(n / 4),
        format!("{{\"s\": \"{}\", \"n\": 12}}", "ab".repeat(n)),
        "\n".repeat(n),
        "the".repeat(n / 3),
    ]
}

#[test]
fn long_runs_count_close_to_unchunked_and_the_bound_is_above() {
    for v in [Vocabulary::O200k, Vocabulary::Cl100k] {
        for t in runs() {
            let exact = unchunked(v, &t);
            let chunked = count(v, &t);
            let cuts = t.len() / RUN_CHUNK;
            assert!(
                chunked.abs_diff(exact) <= cuts + 1,
                "{v:?} {:?}: {chunked} vs {exact}",
                &t[..12]
            );
            assert!(count_bound(v, &t) >= exact, "{v:?} {:?}", &t[..12]);
        }
    }
}

#[test]
fn the_tokenizer_never_sees_a_long_run() {
    // What can be super-linear is the work of one tokenizer call: bound the text each call
    // sees on 4 MB of every pathological run (without tokenizing it).
    for t in runs() {
        let big = t.repeat((4 << 20) / t.len() + 1);
        for bound in [false, true] {
            let (longest, seen) = toolwire::test_hooks::tokenizer_calls(&big, bound);
            assert!(longest <= RUN_LIMIT + 2 * RUN_CHUNK + 8, "{longest}");
            // Equal chunks of a repeated run are tokenized once.
            assert!(seen <= big.len());
        }
    }
}
