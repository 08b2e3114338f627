//! The spare tapes (`toolwire::doc`): a dropped tape of at least 128 KiB is kept while all
//! the kept ones stay within 32 MiB, and reused by the next document that fits in one, so a
//! process parsing large documents per call does not fault in fresh pages every call. One
//! test function, holding the process alone (`isolated.rs`): the spares are process-wide,
//! and no other test may take them between two steps.
use toolwire::json::{ParseOptions, parse, to_vec_compact as to_vec};
use toolwire::test_hooks::{drop_spare_tapes, spare_tape_bytes, tape_address};

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
    let _alone = crate::alone();
    // No spare left by a test that ran before: the first parse gets fresh memory.
    drop_spare_tapes();
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

    // Several are kept: two documents dropped together are both reused by the next two (the
    // windowed reader holds one tape per window of an input it reads once).
    let (a, b) = (parse(&mid, &opts).unwrap(), parse(&mid, &opts).unwrap());
    let mut dropped = [tape_address(&a), tape_address(&b)];
    drop((a, b));
    let (c, d) = (parse(&mid, &opts).unwrap(), parse(&mid, &opts).unwrap());
    let mut reused = [tape_address(&c), tape_address(&d)];
    dropped.sort_unstable();
    reused.sort_unstable();
    assert_eq!(reused, dropped, "both dropped tapes are reused");
    assert_eq!(to_vec(c.root()), mid);
    assert_eq!(to_vec(d.root()), mid);
    drop((c, d));

    // All the kept tapes stay within 32 MiB: of 20 tapes of 2.4 MB dropped together, 13 are
    // kept.
    let tape_bytes = 200_001 * 12;
    let many: Vec<_> = (0..20).map(|_| parse(&mid, &opts).unwrap()).collect();
    drop(many);
    let held = spare_tape_bytes();
    assert!(
        held <= 32 << 20 && held >= 13 * tape_bytes,
        "{held} bytes of spare tapes after dropping 20 of {tape_bytes}"
    );

    // A larger tape makes room for itself by giving up smaller ones: 10.8 MB (900k nodes)
    // dropped into full spares is kept, and reused.
    let large = array_of(900_000);
    let first_large = parse(&large, &opts).unwrap();
    let large_at = tape_address(&first_large);
    drop(first_large);
    let second_large = parse(&large, &opts).unwrap();
    assert_eq!(
        tape_address(&second_large),
        large_at,
        "a larger tape evicts smaller ones to be kept"
    );
    assert_eq!(to_vec(second_large.root()), large);
    drop(second_large);
    assert!(spare_tape_bytes() <= 32 << 20);
}

#[test]
fn a_tape_under_1_mib_and_under_its_estimate_is_reused() {
    let _alone = crate::alone();
    drop_spare_tapes();
    let opts = ParseOptions::default();
    // 30,000 strings of 13 bytes: one node per 14 bytes of input, fewer than the parser's
    // estimate (its finished tape, 240 kB, is between half and 7/8 of what the same input
    // asks for again), and a tape under 1 MiB, which glibc maps afresh all the same.
    let mut src = String::from("[");
    for i in 0..30_000 {
        if i > 0 {
            src.push(',');
        }
        src.push_str(&format!("\"s{i:010}\""));
    }
    src.push(']');
    let first = parse(src.as_bytes(), &opts).unwrap();
    let first_at = tape_address(&first);
    drop(first);
    assert!(spare_tape_bytes() >= 30_001 * 8, "the dropped tape is kept");
    let again = parse(src.as_bytes(), &opts).unwrap();
    assert_eq!(
        tape_address(&again),
        first_at,
        "and reused by the same input"
    );
    assert_eq!(to_vec(again.root()), src.as_bytes());
}

#[test]
fn a_builder_reserving_room_takes_a_spare_tape_with_its_nodes() {
    let _alone = crate::alone();
    drop_spare_tapes();
    let opts = ParseOptions::default();
    // A 2.4 MB tape dropped: the spare.
    let mid = array_of(200_000);
    let dropped = parse(&mid, &opts).unwrap();
    let spare_at = tape_address(&dropped);
    drop(dropped);

    // A builder that learns its size as it goes (the Python binding's walk): a few nodes,
    // then room for the rest, in the spare, the nodes pushed before kept.
    let mut b = toolwire::DocBuilder::new(b"");
    let m = b.begin_array();
    for i in 0..64 {
        b.i64(i % 10);
    }
    b.reserve(200_000 - 64, 0);
    for i in 64..200_000 {
        b.i64(i % 10);
    }
    b.end_array(m, 200_000);
    let doc = b.finish();
    assert_eq!(tape_address(&doc), spare_at, "reserve took the spare");
    assert_eq!(
        to_vec(doc.root()),
        mid,
        "the nodes before the reserve are kept"
    );
    drop(doc);

    // A small reserve leaves the spare alone.
    let mut b = toolwire::DocBuilder::new(b"");
    b.reserve(1000, 0);
    b.null();
    let small = b.finish();
    assert_ne!(tape_address(&small), spare_at);
    drop(small);
    assert_eq!(tape_address(&parse(&mid, &opts).unwrap()), spare_at);
}
