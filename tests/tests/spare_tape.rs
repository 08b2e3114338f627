//! The spare tape (`toolwire::doc`): a dropped tape of 1 MiB to 32 MiB is reused by the next
//! document that fits in it, so a process parsing a large document per call does not fault
//! in fresh pages every call. One test function: the spare is process-wide, and no other
//! test of this binary may take it between two steps.
use toolwire::json::{ParseOptions, parse, to_vec_compact as to_vec};
use toolwire::test_hooks::tape_address;

/// `[0,1,2,…]` of `n` elements (one node each, plus the array's).
fn array_of(n: usize) -> Vec<u8> {
    let mut s = String::from("[");
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&(i % 10).to_string());
    }
    s.push(']');
    s.into_bytes()
}

#[test]
fn a_dropped_tape_is_reused_by_the_next_document_that_fits() {
    let opts = ParseOptions::default();
    // 200,001 nodes: a 2.4 MB tape, in the spare's range.
    let mid = array_of(200_000);
    let first = parse(&mid, &opts).unwrap();
    let first_at = tape_address(&first);
    drop(first);

    let second = parse(&mid, &opts).unwrap();
    assert_eq!(
        tape_address(&second),
        first_at,
        "the dropped tape is reused"
    );
    assert_eq!(
        to_vec(second.root()),
        mid,
        "a reused tape holds the new document only"
    );

    // While the second holds it, the spare is empty: a third gets fresh memory.
    let third = parse(&mid, &opts).unwrap();
    assert_ne!(tape_address(&third), first_at);
    assert_eq!(to_vec(third.root()), mid);
    drop(second);
    drop(third);
    let kept = {
        let again = parse(&mid, &opts).unwrap();
        tape_address(&again)
    };

    // A tape over 32 MiB (3M nodes, 36 MB) is not kept: the spare is still the last one.
    let huge = array_of(3_000_000);
    drop(parse(&huge, &opts).unwrap());
    let after_huge = parse(&mid, &opts).unwrap();
    assert_eq!(
        tape_address(&after_huge),
        kept,
        "a huge tape does not replace the spare"
    );
    drop(after_huge);

    // A small document neither takes the spare nor replaces it.
    let small = array_of(1000);
    let small_doc = parse(&small, &opts).unwrap();
    assert_ne!(tape_address(&small_doc), kept);
    drop(small_doc);
    let after_small = parse(&mid, &opts).unwrap();
    assert_eq!(
        tape_address(&after_small),
        kept,
        "a small tape leaves the spare alone"
    );

    drop(after_small);
}
