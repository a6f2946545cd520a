//! `examples/tenants` as users run it: two replicas (two processes of the example) against one
//! PostgreSQL server of the test's own, over real sockets. A change of the table reaches both
//! within a second; a flood of unknown origins queries nothing; the database stopped, both keep
//! serving the last origins; back up, a change made then reaches both.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::common::wire::{WireAnswer, http1, http1_handshake, pipelined};
use crate::support::postgres::{Postgres, free_port};

/// One process of the example, killed on drop.
struct Replica {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Builds the example (its dependencies are those of this test, so this is a link) and
/// returns its path, `target/<profile>/examples/tenants`, next to this test's
/// `target/<profile>/deps`.
fn build_example() -> std::path::PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "--example",
            "tenants",
            "--features",
            "postgres",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the example builds");
    let test = std::env::current_exe().expect("the test's own path");
    let profile = test
        .parent()
        .and_then(|deps| deps.parent())
        .expect("tests run from target/<profile>/deps");
    let binary = profile.join("examples").join("tenants");
    assert!(binary.is_file(), "{} is built", binary.display());
    binary
}

/// Starts a replica and waits until it listens (at most 60 s).
fn start_replica(example: &std::path::Path, database_url: &str) -> Replica {
    let port = free_port();
    let mut child = Command::new(example)
        .env("DATABASE_URL", database_url)
        .env("HOST", "127.0.0.1")
        .env("PORT", port.to_string())
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the example starts");
    let stdout = child.stdout.take().expect("piped");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            println!("[replica :{port}] {line}");
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let replica = Replica {
        child,
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
    };
    while Instant::now() < deadline {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(100))
            && line.starts_with("listening on")
        {
            return replica;
        }
    }
    panic!("the replica on port {port} did not start listening");
}

async fn get(addr: SocketAddr, origin: &str) -> WireAnswer {
    let request = http1("GET", "/", &[("origin", origin)], "");
    pipelined(addr, &[request]).await.remove(0)
}

/// Whether `GET /` from `origin` is answered 200 with the origin allowed; panics on a 5xx.
async fn granted(addr: SocketAddr, origin: &str) -> bool {
    let answer = get(addr, origin).await;
    assert!(!answer.status.is_server_error(), "{answer:?}");
    assert_eq!(answer.status, 200, "{answer:?}");
    answer.header("access-control-allow-origin") == Some(origin)
}

/// How long until every replica answers `origin` as `expected`, polling every 10 ms for at
/// most `limit` (then panics).
async fn until_all(
    replicas: &[Replica],
    origin: &str,
    expected: bool,
    limit: Duration,
) -> Duration {
    let start = Instant::now();
    loop {
        let mut all = true;
        for replica in replicas {
            all &= granted(replica.addr, origin).await == expected;
        }
        if all {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < limit,
            "`{origin}` not {} by every replica within {limit:?}",
            if expected { "granted" } else { "refused" }
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn connect(url: &str) -> tokio_postgres::Client {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match tokio_postgres::connect(url, tokio_postgres::NoTls).await {
            Ok((client, connection)) => {
                tokio::spawn(connection);
                return client;
            }
            Err(error) if Instant::now() < deadline => {
                eprintln!("connecting: {error}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(error) => panic!("connecting to the test's database: {error}"),
        }
    }
}

async fn execute(client: &tokio_postgres::Client, sql: &str, origin: &str) {
    client.execute(sql, &[&origin]).await.expect(sql);
}

const INSERT: &str = "INSERT INTO tenant_origins (origin) VALUES ($1)";
const DELETE: &str = "DELETE FROM tenant_origins WHERE origin = $1";

/// The resident memory of a process, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .expect("VmRSS");
    line.split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("a number")
}

/// Statements on the table in the server's log (every statement is logged) from `from` on: the
/// reads of the follow (the check of the table's triggers reads the catalog, not the table).
fn table_queries(server: &Postgres, from: usize) -> (usize, usize) {
    let log = std::fs::read_to_string(server.log()).unwrap_or_default();
    let count = log
        .get(from..)
        .unwrap_or_default()
        .lines()
        .filter(|l| {
            // Simple queries are logged as `statement:`, prepared ones as `execute <name>:`.
            (l.contains("statement:") || l.contains("execute "))
                && l.contains("FROM tenant_origins")
        })
        .count();
    (count, log.len())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_replicas_follow_one_database() {
    let Some(server) = Postgres::start() else {
        return;
    };
    let example = build_example();
    let replicas = [
        start_replica(&example, &server.url()),
        start_replica(&example, &server.url()),
    ];
    let client = connect(&server.url()).await;

    changes_reach_both_replicas(&client, &replicas).await;
    the_same_list_guards_handshakes_and_posts(&client, &replicas).await;
    a_hosts_origin_reaches_both_on_that_host_only(&client, &replicas).await;
    a_flood_of_unknown_origins_queries_nothing(&server, &replicas).await;
    a_flood_of_unknown_hosts_and_origins_queries_nothing(&server, &replicas).await;
    drop(client);
    the_database_stopped_and_restarted_loses_nothing(&server, &replicas).await;
    a_hosts_origin_reaches_both_after_the_restart(&server, &replicas).await;
}

async fn changes_reach_both_replicas(client: &tokio_postgres::Client, replicas: &[Replica]) {
    let origin = "https://acme.example";
    assert!(!granted(replicas[0].addr, origin).await);
    assert!(
        granted(replicas[0].addr, "http://localhost:8080").await,
        "the front-end"
    );
    execute(client, INSERT, origin).await;
    let inserted = until_all(replicas, origin, true, Duration::from_secs(1)).await;
    execute(client, DELETE, origin).await;
    let deleted = until_all(replicas, origin, false, Duration::from_secs(1)).await;
    println!("insert granted by both in {inserted:?}, delete refused by both in {deleted:?}");
}

async fn the_same_list_guards_handshakes_and_posts(
    client: &tokio_postgres::Client,
    replicas: &[Replica],
) {
    let tenant = "https://globex.example";
    execute(client, INSERT, tenant).await;
    until_all(replicas, tenant, true, Duration::from_secs(1)).await;
    for replica in replicas {
        let shake = |origin| async move {
            let headers = [
                ("origin", origin),
                ("connection", "upgrade"),
                ("upgrade", "websocket"),
            ];
            http1_handshake(replica.addr, "/ws", &headers).await
        };
        assert_eq!(shake(tenant).await, 101);
        assert_eq!(shake("https://evil.example").await, 403);
        let post = |origin| {
            let headers = [("origin", origin), ("sec-fetch-site", "cross-site")];
            http1("POST", "/notes", &headers, "note")
        };
        let answers = pipelined(replica.addr, &[post(tenant), post("https://evil.example")]).await;
        assert_eq!(answers[0].status, 200, "{:?}", answers[0]);
        assert_eq!(answers[1].status, 403, "{:?}", answers[1]);
    }
}

async fn a_flood_of_unknown_origins_queries_nothing(server: &Postgres, replicas: &[Replica]) {
    const REQUESTS: usize = 20_000;
    const BATCH: usize = 500;
    // Warm up: the allocator's arenas and the connection paths of both replicas.
    flood(replicas, 0..2_000, BATCH).await;
    let rss_before: Vec<u64> = replicas.iter().map(|r| rss_kib(r.child.id())).collect();
    let (_, log_at) = table_queries(server, 0);
    let start = Instant::now();
    flood(replicas, 100_000..100_000 + REQUESTS, BATCH).await;
    let elapsed = start.elapsed();
    // The server writes its log at once; a moment for the file to show it.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (queries, _) = table_queries(server, log_at);
    let rss_after: Vec<u64> = replicas.iter().map(|r| rss_kib(r.child.id())).collect();
    println!(
        "{REQUESTS} unknown origins in {elapsed:?}: {queries} queries of the table; RSS before \
         {rss_before:?} KiB, after {rss_after:?} KiB"
    );
    assert!(queries <= 10, "{queries} queries of the table");
    for (before, after) in rss_before.iter().zip(&rss_after) {
        assert!(
            after.saturating_sub(*before) < 5 * 1024,
            "RSS grew from {before} to {after} KiB"
        );
    }
}

/// `GET /` from a distinct unlisted origin for each number of `range`, split over the replicas
/// and four connections at a time, `batch` requests pipelined per connection; asserts that
/// none is granted and none is a 5xx.
async fn flood(replicas: &[Replica], range: std::ops::Range<usize>, batch: usize) {
    let numbers: Vec<usize> = range.collect();
    for round in numbers.chunks(batch * 4) {
        let mut tasks = Vec::new();
        for (i, chunk) in round.chunks(batch).enumerate() {
            let addr = replicas[i % replicas.len()].addr;
            let requests: Vec<Vec<u8>> = chunk
                .iter()
                .map(|n| {
                    let origin = format!("https://unknown-{n}.example");
                    http1("GET", "/", &[("origin", &origin)], "")
                })
                .collect();
            tasks.push(tokio::spawn(
                async move { pipelined(addr, &requests).await },
            ));
        }
        for task in tasks {
            for answer in task.await.expect("the flood's task") {
                assert_eq!(answer.status, 200, "{answer:?}");
                assert!(
                    answer.header("access-control-allow-origin").is_none(),
                    "{answer:?}"
                );
            }
        }
    }
}

async fn the_database_stopped_and_restarted_loses_nothing(server: &Postgres, replicas: &[Replica]) {
    let listed = "https://globex.example";
    server.pause();
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(1500) {
        for replica in replicas {
            assert!(
                granted(replica.addr, listed).await,
                "a listed origin, database down"
            );
            assert!(!granted(replica.addr, "https://initech.example").await);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.resume();
    let client = connect(&server.url()).await;
    let origin = "https://initech.example";
    execute(&client, INSERT, origin).await;
    let back = until_all(replicas, origin, true, Duration::from_secs(5)).await;
    println!("after the restart, an insert granted by both in {back:?}");
    assert!(granted(replicas[1].addr, listed).await);
}

// Each tenant's origins on its own host: `tenant_host_origins` (issue 41).

const INSERT_HOST: &str = "INSERT INTO tenant_host_origins (host, origin) VALUES ($1, $2)";
const DELETE_HOST: &str = "DELETE FROM tenant_host_origins WHERE host = $1 AND origin = $2";

/// Whether `GET /` for `host` from `origin` is answered 200 with the origin allowed, whether a
/// cross-site `POST` is let through, and whether a WebSocket handshake is accepted (three
/// requests one after the other: a change may arrive between them).
async fn granted_on(addr: SocketAddr, host: &str, origin: &str) -> [bool; 3] {
    let get = http1("GET", "/", &[("host", host), ("origin", origin)], "");
    let post = http1(
        "POST",
        "/notes",
        &[
            ("host", host),
            ("origin", origin),
            ("sec-fetch-site", "cross-site"),
        ],
        "note",
    );
    let answers = pipelined(addr, &[get, post]).await;
    assert_eq!(answers[0].status, 200, "{answers:?}");
    assert!(
        matches!(answers[1].status.as_u16(), 200 | 403),
        "{answers:?}"
    );
    let get = answers[0].header("access-control-allow-origin") == Some(origin);
    let shake = [
        ("host", host),
        ("origin", origin),
        ("connection", "upgrade"),
        ("upgrade", "websocket"),
    ];
    let handshake = http1_handshake(addr, "/ws", &shake).await;
    assert!(matches!(handshake.as_u16(), 101 | 403), "{handshake}");
    [get, answers[1].status == 200, handshake == 101]
}

/// How long until every replica answers `origin` on `host` as `expected`, its `GET`, `POST`
/// and handshake alike (polling every 10 ms, at most `limit`), asserting meanwhile that no
/// other host and not the bare address grant it any of them.
async fn until_all_on(
    replicas: &[Replica],
    host: &str,
    origin: &str,
    expected: bool,
    limit: Duration,
) -> Duration {
    let start = Instant::now();
    loop {
        let mut all = true;
        for replica in replicas {
            all &= granted_on(replica.addr, host, origin).await == [expected; 3];
            let ip = replica.addr.to_string();
            for other in ["globex.api.example", "api.example", ip.as_str()] {
                let granted = granted_on(replica.addr, other, origin).await;
                assert_eq!(granted, [false; 3], "{other}");
            }
        }
        if all {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < limit,
            "`{origin}` on `{host}` not {} by every replica within {limit:?}",
            if expected { "granted" } else { "refused" }
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn a_hosts_origin_reaches_both_on_that_host_only(
    client: &tokio_postgres::Client,
    replicas: &[Replica],
) {
    let (host, origin) = ("acme.api.example", "https://app.acme.example");
    assert_eq!(granted_on(replicas[0].addr, host, origin).await, [false; 3]);
    // The row spells the host as it likes: the tenant is the host lower-cased.
    let row = ("ACME.api.example", origin);
    client
        .execute(INSERT_HOST, &[&row.0, &row.1])
        .await
        .expect(INSERT_HOST);
    let inserted = until_all_on(replicas, host, origin, true, Duration::from_secs(1)).await;
    client
        .execute(DELETE_HOST, &[&row.0, &row.1])
        .await
        .expect(DELETE_HOST);
    let deleted = until_all_on(replicas, host, origin, false, Duration::from_secs(1)).await;
    println!(
        "a host's origin granted by both on its host in {inserted:?}, its delete refused by \
         both in {deleted:?}"
    );
}

/// `GET /` for a distinct unlisted host from a distinct unlisted origin, 20,000 times over
/// both replicas: nothing granted, no query of either table, resident memory grown by under
/// 5 MB.
async fn a_flood_of_unknown_hosts_and_origins_queries_nothing(
    server: &Postgres,
    replicas: &[Replica],
) {
    const REQUESTS: usize = 20_000;
    const BATCH: usize = 500;
    let queries_from = |from: usize| {
        let log = std::fs::read_to_string(server.log()).unwrap_or_default();
        let count = log
            .get(from..)
            .unwrap_or_default()
            .lines()
            .filter(|l| {
                (l.contains("statement:") || l.contains("execute "))
                    && (l.contains("FROM tenant_origins") || l.contains("FROM tenant_host_origins"))
            })
            .count();
        (count, log.len())
    };
    let rss_before: Vec<u64> = replicas.iter().map(|r| rss_kib(r.child.id())).collect();
    let (_, log_at) = queries_from(0);
    let start = Instant::now();
    let numbers: Vec<usize> = (200_000..200_000 + REQUESTS).collect();
    for round in numbers.chunks(BATCH * 4) {
        let mut tasks = Vec::new();
        for (i, chunk) in round.chunks(BATCH).enumerate() {
            let addr = replicas[i % replicas.len()].addr;
            let requests: Vec<Vec<u8>> = chunk
                .iter()
                .map(|n| {
                    let host = format!("tenant-{n}.api.example");
                    let origin = format!("https://app.tenant-{n}.example");
                    http1("GET", "/", &[("host", &host), ("origin", &origin)], "")
                })
                .collect();
            tasks.push(tokio::spawn(
                async move { pipelined(addr, &requests).await },
            ));
        }
        for task in tasks {
            for answer in task.await.expect("the flood's task") {
                assert_eq!(answer.status, 200, "{answer:?}");
                assert!(
                    answer.header("access-control-allow-origin").is_none(),
                    "{answer:?}"
                );
            }
        }
    }
    let elapsed = start.elapsed();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (queries, _) = queries_from(log_at);
    let rss_after: Vec<u64> = replicas.iter().map(|r| rss_kib(r.child.id())).collect();
    println!(
        "{REQUESTS} unknown hosts and origins in {elapsed:?}: {queries} queries of the tables; \
         RSS before {rss_before:?} KiB, after {rss_after:?} KiB"
    );
    assert!(queries <= 10, "{queries} queries of the tables");
    for (before, after) in rss_before.iter().zip(&rss_after) {
        assert!(
            after.saturating_sub(*before) < 5 * 1024,
            "RSS grew from {before} to {after} KiB"
        );
    }
}

/// After the restart, the hosts' table is followed again too.
async fn a_hosts_origin_reaches_both_after_the_restart(server: &Postgres, replicas: &[Replica]) {
    let client = connect(&server.url()).await;
    let (host, origin) = ("initech.api.example", "https://app.initech.example");
    client
        .execute(INSERT_HOST, &[&host, &origin])
        .await
        .expect(INSERT_HOST);
    let back = until_all_on(replicas, host, origin, true, Duration::from_secs(5)).await;
    println!("after the restart, a host's origin granted by both in {back:?}");
}
