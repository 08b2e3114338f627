//! `toolwire serve` from SQLite tables (SERVE.md §7): a real file written by the test, served
//! by the real binary over stdio, with raw JSON-RPC lines and rmcp's client.

use crate::serve_common::*;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

/// A table of every kind of column the server maps.
const TYPES: &str = r#"
CREATE TABLE t (
    id INTEGER PRIMARY KEY,
    name TEXT,
    big INTEGER,
    price REAL,
    paid BOOLEAN,
    tags JSON,
    raw BLOB,
    code TEXT
);
INSERT INTO t VALUES
    (1, 'Acme', 9007199254740993, 0.1 + 0.2, 1, '["a", {"b": 2}]', x'00ff', '5'),
    (2, 'Globex', -9223372036854775808, 1e300, 0, '{"k": [1, 2.5]}', NULL, NULL),
    (3, 'Initech, "Ltd"', 9223372036854775807, 4.9406564584124654e-324, NULL, 'not json', NULL, 'x'),
    (4, '株式会社サンプル', 5, 5.0, 1, NULL, NULL, NULL);
"#;

fn serve(db: &std::path::Path, table: &str, extra: &[&str]) -> Raw {
    let spec = format!("t=sqlite://{}#{table}", db.display());
    let mut args = vec!["--collection", spec.as_str()];
    args.extend_from_slice(extra);
    Raw::start(&args)
}

fn list(s: &mut Raw, id: u64, args: Value) -> Value {
    let mut a = args;
    a["action"] = json!("list");
    a["format"] = json!("compact");
    s.call(call(id, "t", a))
}

#[test]
fn columns_become_json_values_exactly() {
    let db = sqlite_file(TYPES);
    let mut s = serve(&db, "t", &[]);
    let r = list(&mut s, 1, json!({}));
    let rows = data_json(&r);
    // Text is compared as written, so the digits of every number are checked too.
    let text = &texts(&r["result"])[0];
    assert_eq!(
        text,
        r#"[{"id":1,"name":"Acme","big":9007199254740993,"price":0.30000000000000004,"paid":true,"tags":["a",{"b":2}],"raw":"00FF","code":"5"},{"id":2,"name":"Globex","big":-9223372036854775808,"price":1e+300,"paid":false,"tags":{"k":[1,2.5]},"raw":null,"code":null},{"id":3,"name":"Initech, \"Ltd\"","big":9223372036854775807,"price":5e-324,"paid":null,"tags":"not json","raw":null,"code":"x"},{"id":4,"name":"株式会社サンプル","big":5,"price":5,"paid":true,"tags":null,"raw":null,"code":null}]"#
    );
    assert_eq!(rows.as_array().unwrap().len(), 4);
    assert_eq!(r["result"].get("isError"), None);
}

#[test]
fn where_matches_by_the_servers_equality_rules() {
    let db = sqlite_file(TYPES);
    let mut s = serve(&db, "t", &[]);
    let ids = |s: &mut Raw, w: Value| -> Vec<i64> {
        let r = list(s, 1, json!({"where": w, "_select": ["id"]}));
        data_json(&r)
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(ids(&mut s, json!({"name": "Acme"})), [1]);
    assert_eq!(ids(&mut s, json!({"name": "acme"})), Vec::<i64>::new());
    // Numbers by value, integers digit for digit.
    assert_eq!(ids(&mut s, json!({"price": 0.30000000000000004})), [1]);
    assert_eq!(ids(&mut s, json!({"price": 5})), [4]);
    assert_eq!(ids(&mut s, json!({"big": 5.0})), [4]);
    assert_eq!(ids(&mut s, json!({"big": 9223372036854775807u64})), [3]);
    // A string never equals a number, nor a number a string (SQLite's affinity would).
    assert_eq!(ids(&mut s, json!({"big": "5"})), Vec::<i64>::new());
    assert_eq!(ids(&mut s, json!({"code": 5})), Vec::<i64>::new());
    assert_eq!(ids(&mut s, json!({"code": "5"})), [1]);
    // Booleans in a BOOLEAN column; null as null.
    assert_eq!(ids(&mut s, json!({"paid": true})), [1, 4]);
    assert_eq!(ids(&mut s, json!({"paid": 1})), Vec::<i64>::new());
    assert_eq!(ids(&mut s, json!({"paid": null})), [3]);
    assert_eq!(ids(&mut s, json!({"code": null, "paid": true})), [4]);
    assert_eq!(ids(&mut s, json!({"name": "株式会社サンプル"})), [4]);
    // A field that is not a column: a validation error naming the columns.
    let r = list(&mut s, 2, json!({"where": {"nope": 1}}));
    let t = texts(&r["result"]);
    assert_eq!(r["result"]["isError"], true);
    assert!(
        t[0].starts_with("<validation_error action=\"t/list\">\n<field name=\"where.nope\">Unknown field 'nope'. You sent: 1. Valid options: 'id', 'name', 'big', 'price', 'paid', 'tags', 'raw', 'code'.</field>"),
        "{}",
        t[0]
    );
}

#[test]
fn get_select_and_not_found() {
    let db = sqlite_file(TYPES);
    let mut s = serve(&db, "t", &[]);
    let r = s.call(call(
        1,
        "t",
        json!({"action": "get", "id": 2, "format": "compact"}),
    ));
    assert_eq!(data_json(&r)["name"], "Globex");
    // A string id equals an integer key's digits (agents send ids either way).
    let r = s.call(call(
        2,
        "t",
        json!({"action": "get", "id": "4", "format": "compact"}),
    ));
    assert_eq!(data_json(&r)["big"], 5);
    let r = s.call(call(3, "t", json!({"action": "get", "id": 99})));
    let t = texts(&r["result"]);
    assert!(
        t[0].starts_with("<tool_error code=\"NOT_FOUND\" "),
        "{}",
        t[0]
    );
    // `_select` picks columns in request order, with or without the key.
    let r = list(&mut s, 4, json!({"_select": ["price", "name"], "limit": 1}));
    assert_eq!(
        texts(&r["result"])[0],
        r#"[{"price":0.30000000000000004,"name":"Acme"}]"#
    );
    let r = list(&mut s, 5, json!({"_select": ["secret"]}));
    assert_eq!(r["result"]["isError"], true);
    assert!(texts(&r["result"])[0].contains("Unknown field 'secret'"));
}

#[test]
fn hostile_where_values_leave_the_table_intact() {
    let db = sqlite_file(TYPES);
    let mut s = serve(&db, "t", &[]);
    let big = "'; DROP TABLE t; --".repeat(200_000 / 19);
    let hostile = [
        json!("'"),
        json!("\""),
        json!("'; DROP TABLE t; --"),
        json!("\"; DROP TABLE t; --"),
        json!("a\u{0}b"),
        json!("\u{202e}ﷺ𝕏\u{fffd}"),
        json!(big),
        json!("3.9 MB".repeat(650_000)),
    ];
    for (i, v) in hostile.iter().enumerate() {
        for field in ["name", "id", "tags", "paid"] {
            let r = list(&mut s, i as u64, json!({"where": {field: v}}));
            assert_eq!(data_json(&r), json!([]), "{field} = {i}");
        }
    }
    // Wrong types: validation errors.
    for v in [json!([1]), json!({"a": 1})] {
        let r = list(&mut s, 9, json!({"where": {"name": v}}));
        assert!(texts(&r["result"])[0].starts_with("<validation_error"));
    }
    // Hostile names: unknown fields, never SQL.
    let r = list(
        &mut s,
        10,
        json!({"where": {"name\" = name; DROP TABLE t; --": 1}, "_select": ["id\"; DROP TABLE t; --"]}),
    );
    assert!(texts(&r["result"])[0].starts_with("<validation_error"));
    // Past the transport's 4 MiB request limit: a JSON-RPC error, the server goes on.
    let r = list(&mut s, 11, json!({"where": {"name": "x".repeat(10 << 20)}}));
    assert_eq!(r["error"]["code"], -32600, "{r}");
    let r = list(&mut s, 12, json!({}));
    assert_eq!(data_json(&r).as_array().unwrap().len(), 4);
    drop(s);
    let check = rusqlite::Connection::open(&db).unwrap();
    let n: i64 = check
        .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 4);
}

#[test]
fn cursors_return_every_row_once_while_rows_are_inserted_and_deleted() {
    let mut setup = String::from(
        "PRAGMA journal_mode = WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, grp TEXT NOT NULL);",
    );
    setup.push_str("INSERT INTO t SELECT value * 2, CASE WHEN value % 3 = 0 THEN 'a' ELSE 'b' END FROM generate_series(0, 999);");
    let db = sqlite_file(&setup.replace("generate_series(0, 999)", "(WITH RECURSIVE s(value) AS (SELECT 0 UNION ALL SELECT value + 1 FROM s WHERE value < 999) SELECT value FROM s)"));
    let writer = rusqlite::Connection::open(&db).unwrap();
    let mut s = serve(&db, "t", &[]);
    for filter in [json!({}), json!({"grp": "a"})] {
        let existing: Vec<i64> = (0..1000)
            .filter(|v| filter == json!({}) || v % 3 == 0)
            .map(|v| v * 2)
            .collect();
        let mut seen: Vec<i64> = Vec::new();
        let mut args = json!({"where": filter, "limit": 37, "_select": ["id"]});
        let mut page = 0;
        loop {
            let r = list(&mut s, page, args.clone());
            seen.extend(
                data_json(&r)
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v["id"].as_i64().unwrap()),
            );
            // Between pages: new rows (odd ids) inserted just past the page, behind it and
            // past the end; new rows behind the page deleted.
            let last = *seen.last().unwrap_or(&0);
            let odd = last / 2 * 2 + 1;
            writer
                .execute(
                    "INSERT OR IGNORE INTO t VALUES (?1, 'a'), (?2, 'a'), (?3, 'b')",
                    [odd, odd - 10, 5001 + page as i64 * 2],
                )
                .unwrap();
            writer
                .execute("DELETE FROM t WHERE id % 2 = 1 AND id < ?1 - 40", [last])
                .unwrap();
            match next_args(&r["result"]) {
                Some(n) => args = n,
                None => break,
            }
            page += 1;
            assert!(page < 200, "paging does not end");
        }
        assert!(
            seen.windows(2).all(|w| w[0] < w[1]),
            "rows repeat or go back"
        );
        let old: Vec<i64> = seen.iter().copied().filter(|v| v % 2 == 0).collect();
        assert_eq!(old, existing, "every row that existed, once, for {filter}");
        writer
            .execute("DELETE FROM t WHERE id % 2 = 1", [])
            .unwrap();
    }
}

#[test]
fn keys_views_and_start_up_failures() {
    let db = sqlite_file(
        "CREATE TABLE pair (a INTEGER, b INTEGER, PRIMARY KEY (a, b));
         CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER);
         INSERT INTO t VALUES ('b', 2), ('a', 1), ('c', 3);
         CREATE VIEW big AS SELECT id, n * 10 AS tens FROM t WHERE n > 1;",
    );
    let fail = |spec: String, extra: &[&str]| {
        let out = std::process::Command::new(BIN)
            .arg("serve")
            .args(["--collection", &spec])
            .args(extra)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stderr).unwrap())
    };
    let d = db.display();
    let (code, err) = fail(format!("p=sqlite://{d}#pair"), &[]);
    assert_eq!(code, Some(3));
    assert_eq!(
        err,
        format!(
            "sqlite://{d}#pair: table pair has no single-column primary key; give its presenter a \"key\" naming a unique column\n"
        )
    );
    let (code, err) = fail(format!("p=sqlite://{d}#nope"), &[]);
    assert_eq!(
        (code, err),
        (
            Some(3),
            format!("sqlite://{d}#nope: no table or view nope in {d}\n")
        )
    );
    let (code, _) = fail(format!("p=sqlite://{}/missing.db#t", d), &[]);
    assert_eq!(code, Some(3));
    let (code, err) = fail(format!("p=sqlite://{d}"), &[]);
    assert_eq!(code, Some(2), "{err}");
    // A view: the key from the presenter file.
    let presenter = temp_file(
        "p.json",
        br#"{"name": "Big", "key": "id", "format": "compact"}"#,
    );
    let spec = format!("big=sqlite://{d}#main.big");
    let mut s = Raw::start(&[
        "--collection",
        &spec,
        "--presenter",
        &format!("big={}", presenter.display()),
    ]);
    let r = s.call(call(1, "big", json!({"action": "list"})));
    assert_eq!(
        texts(&r["result"])[0],
        r#"[{"id":"b","tens":20},{"id":"c","tens":30}]"#
    );
    let r = s.call(call(2, "big", json!({"action": "get", "id": "c"})));
    assert_eq!(texts(&r["result"])[0], r#"{"id":"c","tens":30}"#);
    // The table is only read: the file's bytes do not change.
    let before = std::fs::read(&db).unwrap();
    drop(s);
    assert_eq!(std::fs::read(&db).unwrap(), before);
}

#[test]
fn counts_and_statements_under_time_limits() {
    let db = sqlite_file(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT);
         INSERT INTO t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) SELECT i, 'row' FROM n;",
    );
    // Counting 20000 rows through a filter cannot finish in 0 ms: rows remain, without a
    // number.
    let mut s = serve(&db, "t", &["--count-timeout-ms", "0"]);
    let r = list(&mut s, 1, json!({"limit": 2, "where": {"s": "row"}}));
    let t = texts(&r["result"]);
    assert!(
        t[1].contains("⚠️ Dataset truncated. 2 shown, more hidden."),
        "{}",
        t[1]
    );
    assert!(
        t[2].starts_with("<llm_directives>\n- Next page: call t with "),
        "{}",
        t[2]
    );
    let next = next_args(&r["result"]).unwrap();
    let r = s.call(call(2, "t", next));
    assert_eq!(
        texts(&r["result"])[0],
        r#"[{"id":3,"s":"row"},{"id":4,"s":"row"}]"#
    );
    assert!(texts(&r["result"])[1].contains("2 shown, more hidden"));
    // The count in time: a number.
    let mut s = serve(&db, "t", &[]);
    let r = list(&mut s, 1, json!({"limit": 2, "where": {"s": "row"}}));
    assert!(texts(&r["result"])[1].contains("2 shown, 19998 hidden"));
    // A statement past its limit: TIMEOUT, and the server goes on. (With a presenter file:
    // without one, the server reads a first page at start-up to choose the format.)
    let presenter = temp_file("p.json", br#"{"name": "T", "format": "compact"}"#);
    let presenter = format!("t={}", presenter.display());
    let mut s = serve(
        &db,
        "t",
        &["--statement-timeout-ms", "0", "--presenter", &presenter],
    );
    let r = list(&mut s, 1, json!({"where": {"s": "none"}}));
    let t = texts(&r["result"]);
    assert!(
        t[0].starts_with("<tool_error code=\"TIMEOUT\" "),
        "{}",
        t[0]
    );
    let r = s.call(call(2, "t", json!({"action": "get", "id": 7})));
    assert!(texts(&r["result"])[0].contains("\"s\""), "{r}");
}

/// The count of the truncation notice: made by a listing's first page, carried by the cursor
/// to the next pages (which say "about", since rows may change between calls), made again
/// when a page proves the carried number wrong, and exact on every first page.
#[test]
fn a_listing_is_counted_once_and_its_later_pages_say_about() {
    let db = sqlite_file(
        "PRAGMA journal_mode = WAL;
         CREATE TABLE t (id INTEGER PRIMARY KEY, grp TEXT NOT NULL);
         INSERT INTO t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
             SELECT i, CASE WHEN i <= 15 THEN 'a' ELSE 'b' END FROM n;",
    );
    let writer = rusqlite::Connection::open(&db).unwrap();
    let mut s = serve(&db, "t", &[]);
    let all = json!({"limit": 10, "_select": ["id"]});
    let r = list(&mut s, 1, all.clone());
    let d = directive(&r["result"]).unwrap();
    assert!(
        d.starts_with("<llm_directives>\n- Next page: call t with "),
        "{d}"
    );
    assert!(texts(&r["result"])[1].contains("10 shown, 990 hidden"));
    // Rows inserted between pages: the next page says the first count's number, as "about",
    // and its notice names no number.
    writer
        .execute("INSERT INTO t VALUES (2001, 'b'), (2002, 'b')", [])
        .unwrap();
    let r = s.call(call(2, "t", next_args(&r["result"]).unwrap()));
    let d = directive(&r["result"]).unwrap();
    assert!(
        d.contains("- About 980 more rows. Next page: call t with "),
        "{d}"
    );
    assert!(texts(&r["result"])[1].contains("10 shown, more hidden"));
    let r = s.call(call(3, "t", next_args(&r["result"]).unwrap()));
    let d = directive(&r["result"]).unwrap();
    assert!(d.contains("- About 970 more rows. Next page"), "{d}");
    // A first page counts again, and sees the new rows (the count made before them is not
    // reused).
    let r = list(&mut s, 4, all);
    assert!(texts(&r["result"])[1].contains("10 shown, 992 hidden"));
    // A carried count that the next page proves wrong (rows remain past it) is made again.
    let r = list(&mut s, 5, json!({"limit": 10, "where": {"grp": "a"}}));
    assert!(texts(&r["result"])[1].contains("10 shown, 5 hidden"));
    writer
        .execute("UPDATE t SET grp = 'a' WHERE id BETWEEN 16 AND 35", [])
        .unwrap();
    let r = s.call(call(6, "t", next_args(&r["result"]).unwrap()));
    assert!(texts(&r["result"])[1].contains("10 shown, 15 hidden"));
}

/// The file goes away mid-serve: removed, then replaced by a file that is not a database,
/// the calls are `UNAVAILABLE` and the server keeps serving; a database put back at the path
/// is served (its rows, not those of the file the server first opened).
#[test]
fn an_sqlite_file_that_goes_away_is_unavailable_then_served_again() {
    let db = sqlite_file(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT);
         INSERT INTO t VALUES (1, 'one'), (2, 'two');",
    );
    let presenter = temp_file("p.json", br#"{"name": "T", "format": "compact"}"#);
    let presenter = format!("t={}", presenter.display());
    let mut s = serve(&db, "t", &["--presenter", &presenter]);
    let ok = |r: &Value, want: &str| {
        assert_eq!(r["result"].get("isError"), None, "{r}");
        assert_eq!(texts(&r["result"])[0], want);
    };
    let unavailable = |r: &Value| {
        assert_eq!(r["result"]["isError"], json!(true), "{r}");
        let t = &texts(&r["result"])[0];
        assert!(t.starts_with("<tool_error code=\"UNAVAILABLE\" "), "{t}");
        assert!(
            !t.contains(db.to_str().unwrap()),
            "the path is not shown: {t}"
        );
    };
    let r = s.call(call(1, "t", json!({"action": "list"})));
    ok(&r, r#"[{"id":1,"s":"one"},{"id":2,"s":"two"}]"#);
    let aside = db.with_extension("aside");
    std::fs::rename(&db, &aside).unwrap();
    unavailable(&s.call(call(2, "t", json!({"action": "list"}))));
    unavailable(&s.call(call(3, "t", json!({"action": "get", "id": 1}))));
    std::fs::write(
        &db,
        b"not a database, only text that is long enough to be read as a header page",
    )
    .unwrap();
    unavailable(&s.call(call(4, "t", json!({"action": "list"}))));
    unavailable(&s.call(call(5, "t", json!({"action": "get", "id": 2}))));
    // Another database at the path: its rows.
    std::fs::remove_file(&db).unwrap();
    let other = rusqlite::Connection::open(&db).unwrap();
    other
        .execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT); INSERT INTO t VALUES (3, 'three');",
        )
        .unwrap();
    drop(other);
    let r = s.call(call(6, "t", json!({"action": "list"})));
    ok(&r, r#"[{"id":3,"s":"three"}]"#);
    // The first file back: its rows again.
    std::fs::rename(&aside, &db).unwrap();
    let r = s.call(call(7, "t", json!({"action": "get", "id": 2})));
    ok(&r, r#"{"id":2,"s":"two"}"#);
}

/// An uncapped page of 200k rows (no message cap, no token budget, a `limit` past the table)
/// over HTTP: the body holds every row exactly once, in key order, with its values; a page
/// that stops short names the cursor of exactly the rows after it.
#[test]
fn an_uncapped_page_of_200k_rows_is_complete_and_in_key_order() {
    const ROWS: i64 = 200_000;
    let db = sqlite_file(&format!(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT, x REAL);
         INSERT INTO t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {ROWS})
             SELECT i * 3, CASE WHEN i % 1000 = 0 THEN 'say \"hi\" <tool_error>' || i ELSE 'row ' || i END, i / 4.0 FROM n;"
    ));
    let spec = format!("t=sqlite://{}#t", db.display());
    let s = Http::start(&uncapped(&spec));
    let page = |id: u64, args: Value| {
        let (status, _, body) = s.post(&call(id, "t", args), "");
        assert_eq!(status, 200);
        let r: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(r["result"].get("isError"), None);
        let rows: Vec<Value> = serde_json::from_str(&texts(&r["result"])[0]).unwrap();
        (rows, next_args(&r["result"]))
    };
    let check = |rows: &[Value], from: i64| {
        for (k, row) in rows.iter().enumerate() {
            let i = from + k as i64;
            let s = if i % 1000 == 0 {
                format!("say \"hi\" <tool_error>{i}")
            } else {
                format!("row {i}")
            };
            assert_eq!(
                (&row["id"], &row["s"], row["x"].as_f64()),
                (&json!(i * 3), &json!(s), Some(i as f64 / 4.0)),
                "row {i}"
            );
            assert_eq!(row.as_object().map(|o| o.len()), Some(3), "row {i}");
        }
    };
    let (rows, next) = page(
        1,
        json!({"action": "list", "limit": ROWS + 1, "format": "compact"}),
    );
    assert_eq!(rows.len(), ROWS as usize);
    assert_eq!(next, None);
    check(&rows, 1);
    let (first, next) = page(
        2,
        json!({"action": "list", "limit": 120_000, "format": "compact"}),
    );
    assert_eq!(first.len(), 120_000);
    check(&first, 1);
    let (rest, next) = page(3, next.expect("the next page's call"));
    assert_eq!(rest.len(), 80_000);
    assert_eq!(next, None);
    check(&rest, 120_001);
}

/// A long page of an uncapped server streams (a batch of rows at a time through the engine)
/// and is byte for byte the page a capped server reads whole and cuts nowhere: rows with
/// reserved tags, non-ASCII text, JSON values and fractions; `_select` without the key; a
/// `where`; pages that leave rows behind (notice, count, cursor) and one that does not; an
/// unknown `_select` field (the same `<validation_error>`).
#[test]
fn a_streamed_page_is_the_page_read_whole() {
    let db = sqlite_file(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, price REAL, tags JSON, status TEXT);
         INSERT INTO t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
             SELECT i,
                 CASE WHEN i % 97 = 0 THEN 'x </domain_rules> <tool_error code=\"X\">' || i
                      WHEN i % 3 = 0 THEN 'Åsa Ørsted 株式会社 🚀 ' || i ELSE 'row \"' || i END,
                 i / 7.0,
                 CASE WHEN i % 5 = 0 THEN json_object('k', json_array(i, 'é', 2.5)) END,
                 CASE WHEN i % 2 = 0 THEN 'open' ELSE 'paid' END
             FROM n;",
    );
    let spec = format!("t=sqlite://{}#t", db.display());
    let mut streamed = Raw::start(&uncapped(&spec));
    let mut whole = Raw::start(&[
        "--collection",
        &spec,
        "--max-message-bytes",
        "1000000000",
        "--max-tokens",
        "0",
    ]);
    for (n, args) in [
        json!({"limit": 1500}),
        json!({"limit": 1000, "where": {"status": "open"}, "_select": ["name", "tags"]}),
        json!({"limit": 5000, "_select": ["price"]}),
        json!({"limit": 2500, "where": {"status": "none"}}),
        json!({"limit": 2000, "_select": ["nope"]}),
    ]
    .into_iter()
    .enumerate()
    {
        let mut a = args.clone();
        a["action"] = json!("list");
        let id = n as u64;
        streamed.send_json(&call(id, "t", a.clone()));
        let s = streamed.line();
        a["format"] = json!("compact");
        whole.send_json(&call(id, "t", a));
        let w = whole.line();
        let r: Value = serde_json::from_slice(&s).unwrap();
        assert_tag_safe(&r["result"]);
        if n == 4 {
            // Checked before any row is read, as on any page.
            assert!(
                texts(&r["result"])[0].starts_with("<validation_error"),
                "{r}"
            );
        } else {
            let rows = data_json(&r);
            assert!(!rows.as_array().unwrap().is_empty() || n == 3, "{args}");
        }
        // The whole page's next call names the format its call named; the cursor is the same.
        let w = String::from_utf8(w)
            .unwrap()
            .replace(r#",\"format\":\"compact\""#, "");
        let s = String::from_utf8(s).unwrap();
        let at = s.bytes().zip(w.bytes()).position(|(a, b)| a != b);
        assert!(
            s == w,
            "{args}: differ at {at:?} of {} / {}",
            s.len(),
            w.len()
        );
    }
}

/// A client that reads a streamed page slowly does not run the database into its time limit:
/// the limit applies to each batch the database reads, not to the time the client takes.
#[test]
fn a_slow_reader_of_a_streamed_page_is_not_a_timeout() {
    let db = sqlite_file(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT);
         INSERT INTO t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
             SELECT i, 'a row of some length to fill the pipe ' || i FROM n;",
    );
    let spec = format!("t=sqlite://{}#t", db.display());
    let mut args = uncapped(&spec);
    args.extend(["--statement-timeout-ms", "300"]);
    let mut s = Raw::start_paused(&args);
    s.send_json(&call(1, "t", json!({"action": "list", "limit": 100000})));
    // Nobody reads: the server fills the pipe and waits, mid-page, longer than its limit.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    s.resume();
    let r = s.json();
    assert_eq!(
        r["result"].get("isError"),
        None,
        "{}",
        texts(&r["result"])[0]
    );
    let rows = data_json(&r);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 100_000);
    assert_eq!(rows[99_999]["id"], json!(100_000));
}

/// A first row alone over the token budget: `TOO_LARGE` naming its key, and the call that
/// skips it (a cursor after that key) gives the next row.
#[test]
fn a_row_alone_over_the_budget_names_the_call_that_skips_it() {
    let db = sqlite_file(&format!(
        "CREATE TABLE t (id TEXT PRIMARY KEY, s TEXT);
         INSERT INTO t VALUES ('a', '{}'), ('b', 'small');",
        "word ".repeat(3000)
    ));
    let mut s = serve(&db, "t", &["--max-tokens", "500"]);
    let r = list(&mut s, 1, json!({}));
    let t = &texts(&r["result"])[0];
    assert!(
        t.starts_with("<tool_error code=\"TOO_LARGE\" ")
            && t.contains("The t row \"a\" is alone larger than the token budget of 500 tokens"),
        "{t}"
    );
    let at = t.find("Skip it: call t with ").unwrap() + "Skip it: call t with ".len();
    let end = at + t[at..].find("}. ").unwrap() + 1;
    let skip: Value = serde_json::from_str(&t[at..end]).unwrap();
    let r = s.call(call(2, "t", skip));
    assert_eq!(texts(&r["result"])[0], r#"[{"id":"b","s":"small"}]"#);
}

#[test]
fn the_demo_writes_an_sqlite_file_the_server_serves() {
    let p = temp_file("inv.db", b"");
    std::fs::remove_file(&p).unwrap();
    let out = std::process::Command::new(BIN)
        .args(["demo", "--rows", "120", "--sqlite"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(out.status.success());
    let spec = format!("invoices=sqlite://{}#invoices", p.display());
    let mut s = Raw::start(&["--collection", &spec]);
    // The same rows as the built-in collection, in key order.
    let mut all = Vec::new();
    let mut args = json!({"action": "list", "format": "compact", "limit": 50});
    loop {
        let r = s.call(call(1, "invoices", args.clone()));
        all.extend(data_json(&r).as_array().unwrap().iter().cloned());
        match next_args(&r["result"]) {
            Some(n) => args = n,
            None => break,
        }
    }
    assert_eq!(all, demo_rows(120));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_on_an_sqlite_table() {
    let db = sqlite_file(TYPES);
    let spec = format!("t=sqlite://{}#t", db.display());
    let child = TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|c| {
        c.args(["serve", "--collection", &spec]);
    }))
    .unwrap();
    let client = ().serve(child).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools[0].name, "t");
    let schema = serde_json::to_value(&tools[0].input_schema).unwrap();
    assert_eq!(
        schema["properties"]["_select"]["items"]["enum"],
        json!(["big", "code", "id", "name", "paid", "price", "raw", "tags"])
    );
    let r = client
        .call_tool(CallToolRequestParams::new("t").with_arguments(
            json!({"action": "list", "where": {"paid": true}, "_select": ["name"], "format": "compact"})
                .as_object()
                .unwrap()
                .clone(),
        ))
        .await
        .unwrap();
    let text = r.content[0].as_text().unwrap().text.clone();
    assert_eq!(text, r#"[{"name":"Acme"},{"name":"株式会社サンプル"}]"#);
    client.cancel().await.unwrap();
}

#[test]
fn get_matches_ids_across_number_and_text_keys() {
    let db = sqlite_file(
        "CREATE TABLE k (id TEXT PRIMARY KEY, n INTEGER);
         INSERT INTO k VALUES ('7', 1), ('x', 2), ('07', 3);",
    );
    let mut s = serve(&db, "k", &[]);
    let get = |s: &mut Raw, id: Value| {
        let r = s.call(call(
            1,
            "t",
            json!({"action": "get", "id": id, "format": "compact"}),
        ));
        texts(&r["result"])[0].clone()
    };
    // A number id equals a text key with its digits, exactly (not '07').
    assert_eq!(get(&mut s, json!(7)), r#"{"id":"7","n":1}"#);
    assert_eq!(get(&mut s, json!("7")), r#"{"id":"7","n":1}"#);
    assert_eq!(get(&mut s, json!("07")), r#"{"id":"07","n":3}"#);
    assert!(get(&mut s, json!(8)).starts_with("<tool_error code=\"NOT_FOUND\" "));
}
