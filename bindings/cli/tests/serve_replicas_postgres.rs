//! Two `toolwire serve --http` replicas behind the repository's nginx configuration, sharing
//! one PostgreSQL table (SERVE.md §6, §7): paging by cursor through nginx, each page answered
//! by whichever replica nginx picks, returns every row once, and both replicas served.

use std::time::{Duration, Instant};

use crate::serve_common::nginx::*;
use crate::serve_common::postgres::Postgres;
use crate::serve_common::*;
use serde_json::{Value, json};

#[test]
fn two_replicas_share_one_postgres_behind_nginx() {
    let Some(bin) = nginx_binary() else {
        let required = std::env::var("TOOLWIRE_REQUIRE_EXTERNAL").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "nginx not found (required by TOOLWIRE_REQUIRE_EXTERNAL=1)"
        );
        eprintln!("serve_replicas_postgres: nginx is not installed: the test DID NOT RUN");
        return;
    };
    let pg = Postgres::start();
    pg.sql(
        "CREATE TABLE t (id int PRIMARY KEY, v text NOT NULL);
         INSERT INTO t SELECT g, 'row ' || g FROM generate_series(1, 3000) g;",
    );
    let spec = format!("t={}#t", pg.url());
    let rport = free_port();
    let replicas: Vec<Http> = ["127.0.0.1", "127.0.0.2"]
        .iter()
        .map(|ip| Http::start_at(&format!("{ip}:{rport}"), &["--collection", &spec]))
        .collect();
    let port = free_port();
    let nginx = start_nginx(&bin, &config(rport, port), port);
    let mut got = Vec::new();
    let mut args = json!({"action": "list", "limit": 90, "format": "compact"});
    let mut calls = 0;
    loop {
        let (status, _, body) = post(port, &call(calls, "t", args.clone()), "application/json");
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        calls += 1;
        let v: Value = serde_json::from_slice(&body).unwrap();
        let page: Vec<Value> = serde_json::from_str(&texts(&v["result"])[0]).unwrap();
        got.extend(page.iter().map(|r| r["id"].as_i64().unwrap()));
        match next_args(&v["result"]) {
            Some(n) => args = n,
            None => break,
        }
        assert!(calls < 100);
    }
    assert_eq!(got, (1..=3000).collect::<Vec<i64>>());
    let t0 = Instant::now();
    let log = loop {
        let log = nginx.access_log();
        if log.lines().count() >= calls as usize || t0.elapsed() > WAIT {
            break log;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let on_a = log
        .lines()
        .filter(|l| l.ends_with(&format!("upstream=127.0.0.1:{rport}")))
        .count();
    let on_b = log
        .lines()
        .filter(|l| l.ends_with(&format!("upstream=127.0.0.2:{rport}")))
        .count();
    assert_eq!(on_a + on_b, calls as usize, "{log}");
    assert!(
        on_a > 0 && on_b > 0,
        "both replicas serve: {on_a} and {on_b}"
    );
    drop(replicas);
}
