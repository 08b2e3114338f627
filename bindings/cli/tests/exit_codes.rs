//! Regression tests of issue #17 item 7 (exit codes) and item 9 (one-line messages), with the
//! real binary: each failed before the fix.

use std::io::Write;
use std::process::{Command, Stdio};

fn spawn(args: &[&str]) -> Command {
    let mut c = Command::new(crate::BIN);
    c.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn run(mut c: Command, stdin: &[u8]) -> std::process::Output {
    let mut child = c.spawn().expect("spawn toolwire");
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn closed_stderr_is_not_a_panic() {
    // Malformed input, so the binary writes its error line into a pipe nobody reads: the exit
    // code is still the contract's 3 (it was a panic, exit 101).
    let mut child = spawn(&["present"]).spawn().unwrap();
    drop(child.stderr.take());
    let _ = child.stdin.take().unwrap().write_all(b"[1,");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    // A warning line into a closed stderr does not stop the command either.
    let dir = std::env::temp_dir().join(format!("toolwire-exit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("p.json");
    std::fs::write(&p, r#"{"name": "P"}"#).unwrap();
    let mut child = spawn(&[
        "present",
        "--presenter",
        p.to_str().unwrap(),
        "--select",
        "a",
    ])
    .spawn()
    .unwrap();
    drop(child.stderr.take());
    let _ = child.stdin.take().unwrap().write_all(b"{\"a\":1}");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_indent_is_a_usage_error() {
    for args in [
        &["toon", "encode", "--indent", "0"][..],
        &["toon", "encode", "--indent", "65"],
        &["toon", "decode", "--indent", "0"],
    ] {
        let out = run(spawn(args), b"{}");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(out.stdout, b"");
        assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
    }
}

#[cfg(target_os = "linux")]
#[test]
fn write_error_on_stdout_exits_1_not_the_malformed_input_code() {
    for args in [&["present"][..], &["toon", "encode"], &["toon", "decode"]] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let mut c = spawn(args);
        c.stdout(full);
        let input: &[u8] = if args[0] == "toon" && args[1] == "decode" {
            b"a: 1"
        } else {
            b"[1,2,3]"
        };
        let out = run(c, input);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "<stdout>: No space left on device (os error 28)\n"
        );
    }
}

#[test]
fn protocol_must_be_a_revision_date() {
    for bad in [
        "garbage",
        "2026-13-01",
        "2026-02-30",
        "26-07-28",
        "2026-07-28x",
    ] {
        let out = run(spawn(&["present", "--protocol", bad]), b"{}");
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert_eq!(out.stdout, b"", "{bad}");
    }
    // Compared as a date: 2026-07-28 and later add resultType, earlier ones do not.
    for (rev, result_type) in [
        ("2025-06-18", false),
        ("2026-07-27", false),
        ("2026-07-28", true),
        ("2027-01-01", true),
    ] {
        let out = run(spawn(&["present", "--protocol", rev]), b"{}");
        assert_eq!(out.status.code(), Some(0), "{rev}");
        let line = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            line.contains("\"resultType\":\"complete\""),
            result_type,
            "{rev}"
        );
    }
}

#[test]
fn a_file_name_with_a_newline_stays_on_one_line() {
    let dir = std::env::temp_dir().join(format!("toolwire-nl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("bad\ninput.json");
    std::fs::write(&input, b"[1,").unwrap();
    let out = run(spawn(&["present", input.to_str().unwrap()]), b"");
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.contains("bad\\ninput.json:1:4: "), "{err:?}");
    let presenter = dir.join("bad\npresenter.json");
    std::fs::write(&presenter, b"{\"name\": 1}").unwrap();
    let out = run(
        spawn(&["present", "--presenter", presenter.to_str().unwrap()]),
        b"[]",
    );
    assert_eq!(out.status.code(), Some(4));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(
        err.contains("bad\\npresenter.json: name: expected a string"),
        "{err:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `toolwire serve` from a database that cannot be served: exit 3 (2 for a source without
/// `#TABLE`), one stderr line naming the source and the cause, never the password.
#[test]
fn database_sources_that_cannot_be_served() {
    let dir = std::env::temp_dir().join(format!("toolwire-exit-db-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("t.db");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER);")
        .unwrap();
    let junk = dir.join("junk.db");
    std::fs::write(
        &junk,
        "not a database, only text long enough for a header".repeat(4),
    )
    .unwrap();
    let presenter = dir.join("p.json");
    std::fs::write(&presenter, r#"{"name": "P", "key": "nokey"}"#).unwrap();
    let (d, j) = (db.display(), junk.display());
    let missing = dir.join("missing.db");
    let m = missing.display();
    let serve = |spec: &str, extra: &[&str]| {
        let mut args = vec!["serve", "--collection", spec];
        args.extend_from_slice(extra);
        let out = run(spawn(&args), b"");
        (out.status.code(), String::from_utf8(out.stderr).unwrap())
    };
    let p = format!("t={}", presenter.display());
    for (spec, extra, code, line) in [
        (
            format!("t=sqlite://{m}#t"),
            &[][..],
            3,
            format!("sqlite://{m}#t: unable to open database file: {m}"),
        ),
        (
            format!("t=sqlite://{j}#t"),
            &[],
            3,
            format!("sqlite://{j}#t: file is not a database"),
        ),
        (
            format!("t=sqlite://{d}#nope"),
            &[],
            3,
            format!("sqlite://{d}#nope: no table or view nope in {d}"),
        ),
        (
            format!("t=sqlite://{d}#t"),
            &["--presenter", p.as_str()],
            3,
            format!("sqlite://{d}#t: the presenter's key 'nokey' is not a column of t"),
        ),
        (
            format!("t=sqlite://{d}"),
            &[],
            2,
            format!("toolwire: sqlite://{d}: expected sqlite://PATH#TABLE"),
        ),
        (
            "t=postgres://u:s3cret-pw@127.0.0.1:1/db".into(),
            &[],
            2,
            "toolwire: postgres://u@127.0.0.1:1/db: expected postgres://USER@HOST:PORT/DB#TABLE"
                .into(),
        ),
        (
            "t=postgres://u:s3cret-pw@127.0.0.1:notaport/db#t".into(),
            &[],
            3,
            "postgres://u@127.0.0.1:notaport/db#t: not a PostgreSQL URL".into(),
        ),
    ] {
        let (got, err) = serve(&spec, extra);
        assert_eq!(
            (got, err.as_str()),
            (Some(code), format!("{line}\n").as_str())
        );
    }
    // Nothing listens on port 1: the cause is named, the password is not.
    let (got, err) = serve("t=postgres://u:s3cret-pw@127.0.0.1:1/db#t", &[]);
    assert_eq!(got, Some(3), "{err}");
    assert!(
        err.starts_with("postgres://u@127.0.0.1:1/db#t: error connecting to server: ")
            && err.to_lowercase().contains("refused")
            && err.lines().count() == 1
            && !err.contains("s3cret-pw"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
