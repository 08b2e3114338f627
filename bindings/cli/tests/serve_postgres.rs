//! `toolwire serve` from PostgreSQL tables (SERVE.md §7): a PostgreSQL server started by the
//! test itself (`serve_common::postgres`), served by the real binary over stdio and HTTP. A
//! page read whole over HTTP is read by a task of the server's runtime (tokio-postgres), over
//! stdio and when streamed on a blocking thread (`postgres`): the tests that hold the
//! contract of a page run over both.

use crate::serve_common::postgres::{PASSWORD, Postgres, Relay};
use crate::serve_common::*;
use serde_json::{Value, json};

const TYPES: &str = r#"
CREATE TABLE t (
    id bigint PRIMARY KEY,
    name text,
    big bigint,
    price double precision,
    amount numeric,
    paid boolean,
    tags jsonb,
    at timestamptz,
    code varchar(8)
);
INSERT INTO t VALUES
    (1, 'Acme', 9223372036854775807, 0.1::float8 + 0.2::float8, 12.50, true, '["a", {"b": 2}]', '2026-01-02 03:04:05+00', '5'),
    (2, 'Globex', -9223372036854775808, 1e300, 0.1, false, '{"k": [1, 2.5]}', NULL, NULL),
    (3, 'Initech, "Ltd"', 5, 5e-324, 123456789012345678901234567890, NULL, '"s"', NULL, 'x'),
    (4, '株式会社サンプル', 5, 5, NULL, true, NULL, NULL, NULL);
CREATE TABLE pair (a int, b int, PRIMARY KEY (a, b));
CREATE VIEW cheap AS SELECT id, name FROM t WHERE price < 1;
"#;

/// A server under test, over stdio or HTTP.
enum Served {
    Stdio(Raw),
    Http(Http),
}

impl Served {
    fn start(http: bool, args: &[&str]) -> Served {
        if http {
            Served::Http(Http::start(args))
        } else {
            Served::Stdio(Raw::start(args))
        }
    }

    /// One request and its answer.
    fn call(&mut self, v: Value) -> Value {
        match self {
            Served::Stdio(s) => s.call(v),
            Served::Http(h) => {
                let (status, _, body) = h.post(&v, "");
                assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
                serde_json::from_slice(&body).unwrap()
            }
        }
    }

    /// The answers of `calls` sent at once.
    fn at_once(&mut self, calls: &[Value]) -> Vec<Value> {
        match self {
            Served::Stdio(s) => {
                for c in calls {
                    s.send_json(c);
                }
                calls.iter().map(|_| s.json()).collect()
            }
            Served::Http(h) => std::thread::scope(|scope| {
                let port = h.port;
                let each: Vec<_> = calls
                    .iter()
                    .map(|c| scope.spawn(move || post(port, c, "application/json")))
                    .collect();
                each.into_iter()
                    .map(|t| serde_json::from_slice(&t.join().unwrap().2).unwrap())
                    .collect()
            }),
        }
    }

    fn raw(&self) -> &Raw {
        match self {
            Served::Stdio(s) => s,
            Served::Http(h) => &h.raw,
        }
    }
}

/// What answers one request: a server over stdio or either transport.
trait Answers {
    fn answer(&mut self, v: Value) -> Value;
}

impl Answers for Raw {
    fn answer(&mut self, v: Value) -> Value {
        self.call(v)
    }
}

impl Answers for Served {
    fn answer(&mut self, v: Value) -> Value {
        self.call(v)
    }
}

fn list(s: &mut impl Answers, id: u64, args: Value) -> Value {
    let mut a = args;
    a["action"] = json!("list");
    a["format"] = json!("compact");
    s.answer(call(id, "t", a))
}

fn ids(s: &mut impl Answers, w: Value) -> Vec<i64> {
    let r = list(s, 1, json!({"where": w, "_select": ["id"]}));
    data_json(&r)
        .as_array()
        .unwrap_or_else(|| panic!("{r}"))
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect()
}

/// Every stderr line the server wrote so far.
fn stderr_lines(s: &Raw) -> Vec<String> {
    std::iter::from_fn(|| s.stderr.try_recv().ok()).collect()
}

/// The server's sessions (`pg_stat_activity`).
const SESSIONS: &str = "FROM pg_stat_activity WHERE application_name = 'toolwire serve'";

/// The server's sessions in `state`.
fn sessions(state: &str) -> String {
    format!("{SESSIONS} AND state = '{state}'")
}

/// Sessions of the server idle in a transaction: a streamed page waiting for its client.
const WAITING: &str = "idle in transaction";

/// Waits (up to 15 s) until `n` of the server's sessions are in `state`.
fn until_sessions(pg: &Postgres, state: &str, n: usize, why: &str) {
    let sql = format!("SELECT count(*) {}", sessions(state));
    until_sql(pg, &sql, &n.to_string(), why);
}

/// Waits (up to 15 s) until `sql` answers `want`.
fn until_sql(pg: &Postgres, sql: &str, want: &str, why: &str) {
    let mut tries = 0;
    while pg.sql(sql).trim() != want {
        tries += 1;
        assert!(tries < 300, "{why}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn a_postgres_table_served_through_every_action_over_stdio() {
    a_postgres_table_served_through_every_action(false);
}

#[test]
fn a_postgres_table_served_through_every_action_over_http() {
    a_postgres_table_served_through_every_action(true);
}

fn a_postgres_table_served_through_every_action(http: bool) {
    let pg = Postgres::start();
    pg.sql(TYPES);
    let spec = format!("t={}#t", pg.url());
    let mut s = Served::start(http, &["--collection", &spec]);
    let r = list(&mut s, 1, json!({}));
    assert_eq!(
        texts(&r["result"])[0],
        r#"[{"id":1,"name":"Acme","big":9223372036854775807,"price":0.30000000000000004,"amount":12.5,"paid":true,"tags":["a",{"b":2}],"at":"2026-01-02T03:04:05+00:00","code":"5"},{"id":2,"name":"Globex","big":-9223372036854775808,"price":1e+300,"amount":0.1,"paid":false,"tags":{"k":[1,2.5]},"at":null,"code":null},{"id":3,"name":"Initech, \"Ltd\"","big":5,"price":5e-324,"amount":1.2345678901234568e+29,"paid":null,"tags":"s","at":null,"code":"x"},{"id":4,"name":"株式会社サンプル","big":5,"price":5,"amount":null,"paid":true,"tags":null,"at":null,"code":null}]"#
    );
    // where: the server's equality rules.
    assert_eq!(ids(&mut s, json!({"name": "Acme"})), [1]);
    assert_eq!(ids(&mut s, json!({"price": 0.30000000000000004})), [1]);
    assert_eq!(ids(&mut s, json!({"big": 5.0})), [3, 4]);
    assert_eq!(ids(&mut s, json!({"big": 9223372036854775807u64})), [1]);
    assert_eq!(ids(&mut s, json!({"big": "5"})), Vec::<i64>::new());
    assert_eq!(ids(&mut s, json!({"code": 5})), Vec::<i64>::new());
    assert_eq!(ids(&mut s, json!({"paid": true})), [1, 4]);
    assert_eq!(ids(&mut s, json!({"paid": null})), [3]);
    assert_eq!(ids(&mut s, json!({"tags": "s"})), [3]);
    assert_eq!(ids(&mut s, json!({"at": "2026-01-02T03:04:05+00:00"})), [1]);
    assert_eq!(ids(&mut s, json!({"amount": 0.1})), [2]);
    // offset: from the row it names, in key order; past the table, none.
    for (offset, want) in [(1, vec![2, 3]), (3, vec![4]), (9, vec![])] {
        let r = list(
            &mut s,
            1,
            json!({"offset": offset, "limit": 2, "_select": ["id"]}),
        );
        let got: Vec<i64> = data_json(&r)
            .as_array()
            .unwrap_or_else(|| panic!("{r}"))
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect();
        assert_eq!(got, want, "offset {offset}");
    }
    // get, by number or by the digits as a string; not found.
    let r = s.call(call(
        2,
        "t",
        json!({"action": "get", "id": "2", "format": "compact"}),
    ));
    assert_eq!(data_json(&r)["name"], "Globex");
    let r = s.call(call(3, "t", json!({"action": "get", "id": 99})));
    assert!(texts(&r["result"])[0].starts_with("<tool_error code=\"NOT_FOUND\" "));
    let r = s.call(call(3, "t", json!({"action": "get", "id": "not a number"})));
    assert!(texts(&r["result"])[0].starts_with("<tool_error code=\"NOT_FOUND\" "));
    // _select in the select list.
    let r = list(&mut s, 4, json!({"_select": ["price", "name"], "limit": 1}));
    assert_eq!(
        texts(&r["result"])[0],
        r#"[{"price":0.30000000000000004,"name":"Acme"}]"#
    );
    // Hostile values: results, the table intact.
    for v in [
        json!("'; DROP TABLE t; --"),
        json!("a\u{0}b"),
        json!("\u{202e}ﷺ𝕏"),
        json!("'".repeat(1 << 20)),
        json!(1e300),
        json!(-0.0),
        json!(123456789012345678901234567890u128),
    ] {
        for field in ["name", "id", "tags", "paid", "at", "amount", "price"] {
            let r = list(&mut s, 5, json!({"where": {field: v}}));
            assert_eq!(r["result"].get("isError"), None, "{field} {r}");
        }
    }
    let r = list(&mut s, 6, json!({"where": {"name\"; DROP TABLE t; --": 1}}));
    assert!(texts(&r["result"])[0].starts_with("<validation_error"));
    assert_eq!(pg.sql("SELECT count(*) FROM t").trim(), "4");
    // The password appears nowhere: not in the tool, not in the log.
    let tools = s.call(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}));
    assert!(!tools.to_string().contains(PASSWORD));
    assert!(stderr_lines(s.raw()).iter().all(|l| !l.contains(PASSWORD)));
}

#[test]
fn keys_views_passwords_and_start_up_failures() {
    let pg = Postgres::start();
    pg.sql(TYPES);
    let run = |spec: String, env: Option<&str>, extra: &[&str]| {
        let mut c = std::process::Command::new(BIN);
        c.args(["serve", "--collection", &spec]).args(extra);
        c.stdin(std::process::Stdio::null());
        if let Some(p) = env {
            c.env("PGPASSWORD", p);
        } else {
            c.env_remove("PGPASSWORD");
        }
        let out = c.output().unwrap();
        (out.status.code(), String::from_utf8(out.stderr).unwrap())
    };
    let (code, err) = run(format!("p={}#pair", pg.url()), None, &[]);
    assert_eq!(code, Some(3));
    let shown = pg.url_without_password();
    assert_eq!(
        err,
        format!(
            "{shown}#pair: table pair has no single-column primary key; give its presenter a \"key\" naming a unique column\n"
        )
    );
    let (code, err) = run(format!("p={}#nope", pg.url()), None, &[]);
    assert_eq!(
        (code, err),
        (Some(3), format!("{shown}#nope: no table or view nope\n"))
    );
    // A wrong password: exit 3, neither password printed.
    let bad = pg.url().replace(PASSWORD, "wrong-pw-Zx81");
    let (code, err) = run(format!("p={bad}#t"), None, &[]);
    assert_eq!(code, Some(3), "{err}");
    assert!(
        !err.contains("wrong-pw-Zx81") && !err.contains(PASSWORD),
        "{err}"
    );
    // The password from PGPASSWORD; a view with the presenter's key (schema.view).
    let presenter = temp_file(
        "p.json",
        br#"{"name": "Cheap", "key": "id", "format": "compact"}"#,
    );
    let spec = format!("cheap={shown}#public.cheap");
    let p = format!("cheap={}", presenter.display());
    let mut c = std::process::Command::new(BIN);
    c.args(["serve", "--collection", &spec, "--presenter", &p]);
    c.env("PGPASSWORD", PASSWORD);
    let mut s = Raw::start_with(c);
    let r = s.call(call(1, "cheap", json!({"action": "list"})));
    assert_eq!(
        texts(&r["result"])[0],
        r#"[{"id":1,"name":"Acme"},{"id":3,"name":"Initech, \"Ltd\""}]"#
    );
}

#[test]
fn cursors_while_rows_change_and_a_database_that_goes_away_over_stdio() {
    cursors_while_rows_change_and_a_database_that_goes_away(false);
}

#[test]
fn cursors_while_rows_change_and_a_database_that_goes_away_over_http() {
    cursors_while_rows_change_and_a_database_that_goes_away(true);
}

fn cursors_while_rows_change_and_a_database_that_goes_away(http: bool) {
    let mut pg = Postgres::start();
    pg.sql("CREATE TABLE t (id int PRIMARY KEY, grp text NOT NULL);
            INSERT INTO t SELECT g * 2, CASE WHEN g % 3 = 0 THEN 'a' ELSE 'b' END FROM generate_series(0, 999) g;");
    let spec = format!("t={}#t", pg.url());
    let mut s = Served::start(http, &["--collection", &spec]);
    for filter in [json!({}), json!({"grp": "a"})] {
        let existing: Vec<i64> = (0..1000)
            .filter(|v| filter == json!({}) || v % 3 == 0)
            .map(|v| v * 2)
            .collect();
        let mut seen: Vec<i64> = Vec::new();
        let mut args = json!({"where": filter, "limit": 97, "_select": ["id"]});
        let mut page = 0i64;
        loop {
            let r = list(&mut s, 1, args.clone());
            seen.extend(
                data_json(&r)
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v["id"].as_i64().unwrap()),
            );
            let last = *seen.last().unwrap_or(&0);
            let odd = last / 2 * 2 + 1;
            pg.sql(&format!(
                "INSERT INTO t VALUES ({odd}, 'a'), ({}, 'a'), ({}, 'b') ON CONFLICT DO NOTHING;
                 DELETE FROM t WHERE id % 2 = 1 AND id < {last} - 40;",
                odd - 10,
                5001 + page * 2
            ));
            match next_args(&r["result"]) {
                Some(n) => args = n,
                None => break,
            }
            page += 1;
            assert!(page < 100, "paging does not end");
        }
        assert!(
            seen.windows(2).all(|w| w[0] < w[1]),
            "rows repeat or go back"
        );
        let old: Vec<i64> = seen.iter().copied().filter(|v| v % 2 == 0).collect();
        assert_eq!(old, existing, "every row that existed, once, for {filter}");
        pg.sql("DELETE FROM t WHERE id % 2 = 1");
    }
    // The database goes away: UNAVAILABLE, and the server keeps serving.
    pg.stop();
    let r = list(&mut s, 2, json!({"limit": 1}));
    let t = texts(&r["result"]);
    assert!(
        t[0].starts_with("<tool_error code=\"UNAVAILABLE\" "),
        "{}",
        t[0]
    );
    assert!(!t[0].contains(PASSWORD));
    let r = s.call(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}));
    assert_eq!(r["result"]["tools"][0]["name"], "t");
    // Back: the next call is answered, by new connections.
    pg.resume();
    let r = list(&mut s, 4, json!({"limit": 1}));
    assert_eq!(texts(&r["result"])[0], r#"[{"id":0,"grp":"a"}]"#);
    // Restarted while connections sat idle in the pool: no call fails (a connection that
    // finds its server gone is replaced within the call).
    let calls: Vec<Value> = (0..4)
        .map(|i| call(10 + i, "t", json!({"action": "list", "limit": 200})))
        .collect();
    for r in s.at_once(&calls) {
        assert_ne!(r["result"]["isError"], json!(true), "{r}");
    }
    pg.stop();
    pg.resume();
    for i in 0..6 {
        let r = list(&mut s, 20 + i, json!({"limit": 1}));
        assert_eq!(
            texts(&r["result"])[0],
            r#"[{"id":0,"grp":"a"}]"#,
            "call {i} after the restart"
        );
    }
    assert!(stderr_lines(s.raw()).iter().all(|l| !l.contains(PASSWORD)));
}

#[test]
fn connections_lost_while_idle_fail_no_call_over_stdio() {
    connections_lost_while_idle_fail_no_call(false);
}

#[test]
fn connections_lost_while_idle_fail_no_call_over_http() {
    connections_lost_while_idle_fail_no_call(true);
}

/// Every connection of the pool is severed while idle, unknown to the server until it uses
/// one: each call still gets its answer, from a new connection made within the call, on
/// both clients (a page read ahead by a task, a count, a `get` on a blocking thread).
fn connections_lost_while_idle_fail_no_call(http: bool) {
    let pg = Postgres::start();
    pg.sql(
        "CREATE TABLE t (id int PRIMARY KEY, grp int, name text);
         INSERT INTO t SELECT g, g % 3, 'n' || g FROM generate_series(1, 30) g;",
    );
    let relay = Relay::to(pg.port);
    let spec = format!("t={}#t", relay.url());
    let mut s = Served::start(http, &["--collection", &spec]);
    // A `where` of its own each round: its count is not one kept from before.
    for grp in 0..3 {
        let r = list(
            &mut s,
            1,
            json!({"where": {"grp": grp}, "limit": 3, "_select": ["id"]}),
        );
        let t = texts(&r["result"]);
        let first = if grp == 0 { 3 } else { grp };
        let want = json!([{"id": first}, {"id": first + 3}, {"id": first + 6}]).to_string();
        assert_eq!(t[0], want, "round {grp}: {t:?}");
        assert!(t[1].contains("3 shown, 7 hidden"), "round {grp}: {t:?}");
        let r = s.call(call(
            2,
            "t",
            json!({"action": "get", "id": 2, "format": "compact"}),
        ));
        let t = texts(&r["result"]);
        assert_eq!(t[0], r#"{"id":2,"grp":2,"name":"n2"}"#, "round {grp}");
        relay.sever();
    }
    assert!(stderr_lines(s.raw()).iter().all(|l| !l.contains(PASSWORD)));
}

#[test]
fn a_client_gone_while_its_page_is_read_ahead_cancels_its_statement_and_is_logged() {
    let pg = Postgres::start();
    pg.sql(
        "CREATE TABLE t (id int PRIMARY KEY);
         INSERT INTO t VALUES (1), (2);
         CREATE VIEW slow AS SELECT id, CASE WHEN id = 1 THEN pg_sleep(60)::text END AS s FROM t;",
    );
    let presenter = temp_file("p.json", br#"{"name": "Slow", "key": "id"}"#);
    let (slow, t) = (
        format!("slow={}#slow", pg.url()),
        format!("t={}#t", pg.url()),
    );
    let p = format!("slow={}", presenter.display());
    let s = Http::start(&[
        "--collection",
        &slow,
        "--collection",
        &t,
        "--presenter",
        &p,
        "--statement-timeout-ms",
        "120000",
    ]);
    let sock = posted(s.port, &call(7, "slow", json!({"action": "list"})));
    until_sessions(&pg, "active", 1, "the page is never read");
    let pid = pg.sql(&format!("SELECT pid {}", sessions("active")));
    let all = format!("SELECT count(*) {SESSIONS}");
    let before = pg.sql(&all);
    drop(sock);
    let log = s.raw.stderr.recv_timeout(WAIT).expect("a log line");
    assert!(
        log.contains("call 7 of slow cancelled (connection closed)"),
        "{log}"
    );
    // The statement is cancelled, not left to run to its time limit outside the gate, and
    // its connection kept: a client closing its connections does not make the server
    // connect anew each time.
    until_sessions(&pg, "active", 0, "the statement of a gone client runs on");
    let state = format!(
        "SELECT state FROM pg_stat_activity WHERE pid = {}",
        pid.trim()
    );
    until_sql(
        &pg,
        &state,
        "idle",
        "a gone client's connection is not kept",
    );
    // The others are answered; a page of the same table on the kept connection.
    let r = post(
        s.port,
        &call(8, "t", json!({"action": "get", "id": 2})),
        "application/json",
    );
    assert_eq!(r.0, 200);
    let r: Value = serde_json::from_slice(&r.2).unwrap();
    assert_eq!(data_json(&r), json!({"id": 2}));
    let page = json!({"action": "list", "where": {"id": 2}, "format": "compact"});
    let r = post(s.port, &call(9, "slow", page), "application/json");
    assert_eq!(r.0, 200);
    let r: Value = serde_json::from_slice(&r.2).unwrap();
    assert_eq!(texts(&r["result"])[0], r#"[{"id":2,"s":null}]"#);
    assert_eq!(pg.sql(&all), before, "a new connection");
}

#[test]
fn statements_and_counts_under_time_limits_over_stdio() {
    statements_and_counts_under_time_limits(false);
}

#[test]
fn statements_and_counts_under_time_limits_over_http() {
    statements_and_counts_under_time_limits(true);
}

fn statements_and_counts_under_time_limits(http: bool) {
    let pg = Postgres::start();
    pg.sql(
        "CREATE TABLE t (id int PRIMARY KEY);
         INSERT INTO t SELECT generate_series(1, 40);
         CREATE VIEW slow AS SELECT id, pg_sleep(0.02)::text AS s FROM t;",
    );
    let presenter = temp_file(
        "p.json",
        br#"{"name": "Slow", "key": "id", "format": "compact"}"#,
    );
    let spec = format!("t={}#slow", pg.url());
    let p = format!("t={}", presenter.display());
    let start = |limit: &str, ms: &str| {
        Served::start(http, &["--collection", &spec, "--presenter", &p, limit, ms])
    };
    // A page of 3 rows sleeps 80 ms (LIMIT 4) and is answered; counting all 40 rows would
    // take 800 ms, past the 300 ms given: rows remain, without a number.
    let mut s = start("--count-timeout-ms", "300");
    let r = s.call(call(1, "t", json!({"action": "list", "limit": 3})));
    let t = texts(&r["result"]);
    assert_eq!(t[0], r#"[{"id":1,"s":""},{"id":2,"s":""},{"id":3,"s":""}]"#);
    assert!(t[1].contains("3 shown, more hidden."), "{}", t[1]);
    assert!(
        t[2].starts_with("<llm_directives>\n- Next page: call t with "),
        "{}",
        t[2]
    );
    // A statement past its limit: TIMEOUT, and the server goes on.
    let mut s = start("--statement-timeout-ms", "50");
    let r = s.call(call(1, "t", json!({"action": "list", "limit": 10})));
    let t = texts(&r["result"]);
    assert!(
        t[0].starts_with("<tool_error code=\"TIMEOUT\" "),
        "{}",
        t[0]
    );
    let r = s.call(call(2, "t", json!({"action": "get", "id": 5})));
    assert_eq!(texts(&r["result"])[0], r#"{"id":5,"s":""}"#);
}

/// Pages are read from a portal 1000 rows at a time: pages that end just before, at and just
/// after a batch edge, and past the table, uncapped, hold every row once in key order and say
/// whether rows remain.
#[test]
fn pages_across_portal_batches_hold_every_row_once() {
    let pg = Postgres::start();
    pg.sql(
        "CREATE TABLE t (id int PRIMARY KEY, s text);
         INSERT INTO t SELECT g, 'row ' || g FROM generate_series(1, 3000) g;",
    );
    let spec = format!("t={}#t", pg.url());
    let mut s = Raw::start(&uncapped(&spec));
    for (n, limit) in [999, 1000, 1001, 2000, 2001, 3000, 3001, 5000]
        .into_iter()
        .enumerate()
    {
        let r = list(&mut s, n as u64, json!({"limit": limit}));
        let rows = data_json(&r);
        let rows = rows.as_array().unwrap();
        let want = limit.min(3000);
        assert_eq!(rows.len(), want, "limit {limit}");
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row, &json!({"id": i + 1, "s": format!("row {}", i + 1)}));
        }
        let next = next_args(&r["result"]);
        assert_eq!(next.is_some(), limit < 3000, "limit {limit}");
        if let Some(next) = next {
            let rest = data_json(&s.call(call(100, "t", next)));
            assert_eq!(rest.as_array().unwrap().len(), (3000 - limit).min(limit));
            assert_eq!(rest[0]["id"], json!(limit + 1), "limit {limit}");
        }
    }
}

/// A long page of an uncapped server streams from its portal: a client that stops reading
/// holds the server mid-page (its session idle in its transaction); the database failing then
/// ends the data block after the rows that went out, every one whole and in key order, with
/// `UNAVAILABLE` saying how many; the server serves the next call; a page cancelled mid-way
/// ends as one valid message too.
#[test]
fn a_streamed_page_cut_by_the_database_or_the_client_ends_as_one_message() {
    const ROWS: usize = 200_000;
    let pg = Postgres::start();
    pg.sql(&format!(
        "CREATE TABLE t (id int PRIMARY KEY, s text);
         INSERT INTO t SELECT g, 'a row long enough to fill a pipe ' || g FROM generate_series(1, {ROWS}) g;"
    ));
    let spec = format!("t={}#t", pg.url());
    let mut s = Raw::start_paused(&uncapped(&spec));
    s.send_json(&call(1, "t", json!({"action": "list", "limit": ROWS})));
    // Rows went out (a page that fails before its first row is read again, whole), and the
    // server waits for its reader.
    s.read_head(4096);
    until_sessions(&pg, WAITING, 1, "the server never waited mid-page");
    // Every session of the server, whatever its state: one seen waiting may be fetching by
    // now if the pipe was not full yet.
    let ended = pg.sql(&format!(
        "SELECT bool_or(pg_terminate_backend(pid)) {SESSIONS}"
    ));
    assert_eq!(ended.trim(), "t");
    s.resume();
    let r = s.json();
    assert_eq!(r["result"]["isError"], json!(true));
    let t = texts(&r["result"]);
    let rows: Vec<Value> = serde_json::from_str(&t[0]).unwrap_or_else(|e| panic!("{e}"));
    assert!(!rows.is_empty() && rows.len() < ROWS, "{}", rows.len());
    for (i, row) in rows.iter().enumerate() {
        let id = i + 1;
        assert_eq!(
            row,
            &json!({"id": id, "s": format!("a row long enough to fill a pipe {id}")})
        );
    }
    assert_eq!(t.len(), 2);
    assert!(
        t[1].starts_with("<tool_error code=\"UNAVAILABLE\""),
        "{}",
        t[1]
    );
    assert!(
        t[1].contains(&format!("failed after {} rows of this page", rows.len())),
        "{}",
        t[1]
    );
    assert!(!t[1].contains(PASSWORD), "{}", t[1]);
    let r = list(&mut s, 2, json!({"limit": 3}));
    assert_eq!(data_json(&r).as_array().map(Vec::len), Some(3), "{r}");
    // Cancelled mid-page: the message closes as cancelled, and the session is released.
    let mut s = Raw::start_paused(&uncapped(&spec));
    s.send_json(&call(7, "t", json!({"action": "list", "limit": ROWS})));
    // Mid-message (a call cancelled before its first byte is answered with nothing).
    s.read_head(4096);
    until_sessions(&pg, WAITING, 1, "the server never waited mid-page");
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#);
    s.resume();
    let r = s.json();
    assert_eq!(r["id"], 7);
    assert_eq!(r["result"]["isError"], true);
    let t = texts(&r["result"]);
    assert!(
        t.last()
            .unwrap()
            .starts_with("<tool_error code=\"CANCELLED\">"),
        "{t:?}"
    );
    until_sessions(
        &pg,
        WAITING,
        0,
        "the session of a cancelled page is never released",
    );
}

/// `--db-statements 1`: one statement at a time on the database; a streamed page whose
/// client stopped reading holds its connection but not its turn, so other calls are
/// answered meanwhile.
#[test]
fn a_stalled_streamed_page_does_not_hold_the_databases_turn() {
    let pg = Postgres::start();
    pg.sql(
        "CREATE TABLE t (id int PRIMARY KEY, s text);
         INSERT INTO t SELECT g, repeat('a row long enough to fill the buffers ', 8) || g FROM generate_series(1, 300000) g;",
    );
    let spec = format!("t={}#t", pg.url());
    let mut args = uncapped(&spec);
    // No limit on a stalled write: the page stays stalled for as long as the test runs.
    args.extend(["--db-statements", "1", "--write-timeout", "0"]);
    let s = Http::start(&args);
    let stalled = posted(
        s.port,
        &call(1, "t", json!({"action": "list", "limit": 300000})),
    );
    // Nobody reads: the server waits mid-page, its session idle in its transaction.
    until_sessions(&pg, WAITING, 1, "the server never waited mid-page");
    for i in 0..5 {
        let (status, _, b) = s.post(
            &call(
                10 + i,
                "t",
                json!({"action": "list", "limit": 3, "format": "compact"}),
            ),
            "",
        );
        assert_eq!(status, 200);
        let r: Value = serde_json::from_slice(&b).unwrap();
        assert_eq!(data_json(&r).as_array().map(Vec::len), Some(3), "{r}");
    }
    drop(stalled);
}

/// A table's counts are kept a while (`source::COUNT_TTL`) and then said as "about"; a count
/// past its time limit is kept too and never fails a call; closing stdin while calls run on
/// a PostgreSQL table ends the server cleanly (its pool's runtime is shut down, not dropped
/// on an async thread).
#[test]
fn counts_kept_a_while_timed_out_counts_and_stdin_closed_mid_calls() {
    let pg = Postgres::start();
    pg.sql(
        "CREATE TABLE t (id int PRIMARY KEY, status text);
         INSERT INTO t SELECT g, 's' || (g % 200) FROM generate_series(1, 40000) g;",
    );
    let spec = format!("t={}#t", pg.url());
    let mut s = Raw::start(&["--collection", &spec]);
    let first = json!({"where": {"status": "s7"}, "limit": 5, "_select": ["id"]});
    let r = list(&mut s, 1, first.clone());
    let d = directive(&r["result"]).unwrap_or_else(|| panic!("{r}"));
    assert!(
        d.starts_with("<llm_directives>\n- Next page: call t with "),
        "{d}"
    );
    assert!(texts(&r["result"])[1].contains("5 shown, 195 hidden."));
    // A row more; the same first page again is answered from the kept count, as "about".
    pg.sql("INSERT INTO t VALUES (40001, 's7')");
    let r = list(&mut s, 2, first);
    let d = directive(&r["result"]).unwrap_or_else(|| panic!("{r}"));
    assert!(
        d.starts_with("<llm_directives>\n- About 195 more rows. Next page: call t with "),
        "{d}"
    );
    assert!(texts(&r["result"])[1].contains("5 shown, more hidden."));
    // Counts cut at 1 ms: 200 listings, each counted (or not) without failing.
    let mut s = Raw::start(&["--collection", &spec, "--count-timeout-ms", "1"]);
    for i in 0..200u64 {
        let r = list(
            &mut s,
            i,
            json!({"where": {"status": format!("s{i}")}, "limit": 5}),
        );
        assert_ne!(r["result"]["isError"], json!(true), "{r}");
        assert_eq!(data_json(&r).as_array().map(Vec::len), Some(5), "{r}");
    }
    // Calls in flight when stdin closes: the server exits 0 without a panic.
    let mut s = Raw::start(&["--collection", &spec]);
    for i in 0..8u64 {
        s.send_json(&call(i, "t", json!({"action": "list", "limit": 1000})));
    }
    s.close_stdin();
    assert!(s.wait_exit().success());
    let err = stderr_lines(&s).join("\n");
    assert!(!err.contains("panicked"), "{err}");
}

/// Every statement runs read-only, pages and `get` too (one statement, no explicit
/// transaction): a view whose rows call a function that writes fails, and writes nothing.
#[test]
fn a_view_that_writes_is_refused_by_the_read_only_session() {
    let pg = Postgres::start();
    pg.sql(
        "CREATE TABLE t (id int PRIMARY KEY);
         INSERT INTO t VALUES (1), (2);
         CREATE TABLE log (n int);
         CREATE FUNCTION w(n int) RETURNS int LANGUAGE sql VOLATILE
             AS 'INSERT INTO log VALUES (n) RETURNING n';
         CREATE VIEW v AS SELECT id, w(id) AS x FROM t;",
    );
    let presenter = temp_file("p.json", br#"{"name": "V", "key": "id"}"#);
    let spec = format!("v={}#v", pg.url());
    let p = format!("v={}", presenter.display());
    let mut s = Raw::start(&["--collection", &spec, "--presenter", &p]);
    for (id, args) in [
        (1, json!({"action": "list"})),
        (2, json!({"action": "get", "id": 1})),
    ] {
        let r = s.call(call(id, "v", args));
        assert_eq!(r["result"]["isError"], json!(true), "{r}");
        let t = &texts(&r["result"])[0];
        assert!(t.starts_with("<tool_error code=\"UNAVAILABLE\""), "{t}");
    }
    // The operator's log says why: 25006, read_only_sql_transaction.
    s.wait_logs("25006", 1);
    assert_eq!(pg.sql("SELECT count(*) FROM log").trim(), "0");
}
