//! A hostile server cannot hang the audit nor make it read without end: each request ends at
//! the timeout, headers are cut at `MAX_HEADER_BYTES`, bodies at `MAX_BODY_BYTES`, and a
//! `101 Switching Protocols` is closed at once. The servers here are raw sockets that misbehave
//! on purpose, on 127.0.0.1.

use crate::run;

use std::time::{Duration, Instant};

use run::run_binary;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How a raw server answers a request.
#[derive(Clone, Copy, Debug)]
enum Answer {
    /// `200`, no body, CORS for any origin.
    Plain,
    /// [`Answer::Plain`], then the connection's next request is dropped unanswered: what a
    /// client meets when a server closes a connection whose request body it did not read, as
    /// the client sends its next request on it.
    PlainThenClose,
    /// Nothing, ever.
    Silent,
    /// `200` and a chunked body that does not end.
    EndlessBody,
    /// A status line, then header lines that do not end.
    EndlessHeaders,
    /// `101 Switching Protocols`, then bytes that do not end.
    SwitchThenStream,
}

/// The longest a misbehaving server keeps at it, whatever the client does.
const SERVER_LIMIT: Duration = Duration::from_secs(60);

/// Serves `answer(request head)` on 127.0.0.1, on a port the system picks.
async fn raw_server(answer: fn(&str) -> Answer) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            tokio::spawn(tokio::time::timeout(SERVER_LIMIT, serve(socket, answer)));
        }
    });
    format!("http://127.0.0.1:{port}")
}

/// Reads one request head (the audit's requests have no body); `None` when the client is gone.
async fn read_head(socket: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buffer = [0u8; 4096];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 64 * 1024 {
        let read = socket.read(&mut buffer).await.ok().filter(|n| *n > 0)?;
        head.extend_from_slice(&buffer[..read]);
    }
    Some(String::from_utf8_lossy(&head).into_owned())
}

async fn serve(mut socket: TcpStream, answer: fn(&str) -> Answer) {
    while let Some(head) = read_head(&mut socket).await {
        let endless: &[u8] = match answer(&head) {
            Answer::Plain => {
                let plain = "HTTP/1.1 200 OK\r\ncontent-length: 0\r\naccess-control-allow-origin: *\r\n\r\n";
                if socket.write_all(plain.as_bytes()).await.is_err() {
                    return;
                }
                continue;
            }
            Answer::PlainThenClose => {
                let plain = "HTTP/1.1 200 OK\r\ncontent-length: 0\r\naccess-control-allow-origin: *\r\n\r\n";
                let _ = socket.write_all(plain.as_bytes()).await;
                let _ = read_head(&mut socket).await;
                return;
            }
            Answer::Silent => {
                tokio::time::sleep(SERVER_LIMIT).await;
                return;
            }
            Answer::EndlessBody => {
                let start = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n";
                let _ = socket.write_all(start.as_bytes()).await;
                b"4000\r\n"
            }
            Answer::EndlessHeaders => {
                let _ = socket.write_all(b"HTTP/1.1 200 OK\r\n").await;
                b"x-filler: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n"
            }
            Answer::SwitchThenStream => {
                let start = "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n";
                let _ = socket.write_all(start.as_bytes()).await;
                b"\x81\x7e\x40\x00"
            }
        };
        // Until the client goes away (or the server's own limit).
        let filler = vec![b'a'; 0x4000];
        loop {
            let chunk = if endless.starts_with(b"4000") {
                [endless, &filler, b"\r\n"].concat()
            } else if endless.starts_with(b"x-filler") {
                endless.to_vec()
            } else {
                [endless, &filler].concat()
            };
            if socket.write_all(&chunk).await.is_err() {
                return;
            }
        }
    }
}

/// Runs the binary on `url` for one origin with `timeout` seconds a request; its exit code,
/// standard error, and how long it took.
async fn timed(url: &str, timeout: &str) -> (run::Run, Duration) {
    let start = Instant::now();
    let run = run_binary(&[url, "--origin", "https://app.example", "--timeout", timeout]).await;
    (run, start.elapsed())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_never_answers_ends_at_the_timeout() {
    let base = raw_server(|_| Answer::Silent).await;
    let (run, took) = timed(&format!("{base}/items"), "1").await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("timeout"), "{}", run.stderr);
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_post_without_a_body_says_so_and_keeps_its_connection() {
    // A bodiless POST sent as an empty chunked body lets a server answer before the body ends
    // and close the connection; the audit's next request on it then got no answer.
    fn answer(head: &str) -> Answer {
        let head = head.to_ascii_lowercase();
        if head.starts_with("post ") && !head.contains("\r\ncontent-length: 0\r\n") {
            Answer::PlainThenClose
        } else {
            Answer::Plain
        }
    }
    let base = raw_server(answer).await;
    let run = run_binary(&[
        &format!("{base}/items"),
        "--origin",
        "https://app.example",
        "--method",
        "POST",
        "--credentials",
    ])
    .await;
    // Every case is answered: the two form posts are sent, and so are the requests after them.
    assert_eq!(run.code, 1, "{}\n{}", run.stderr, run.stdout);
    assert!(
        run.stdout.contains("cross-site-post-reaches-handler"),
        "{}",
        run.stdout
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endless_body_is_cut() {
    // The cases are probed as usual; each body is read up to the cap, not to the timeout.
    let base = raw_server(|_| Answer::EndlessBody).await;
    let (run, took) = timed(&format!("{base}/items"), "60").await;
    assert_ne!(run.code, 2, "{}", run.stderr);
    assert!(took < Duration::from_secs(30), "took {took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn endless_headers_are_cut() {
    let base = raw_server(|_| Answer::EndlessHeaders).await;
    let (run, took) = timed(&format!("{base}/items"), "60").await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("header"), "{}", run.stderr);
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_switch_of_protocols_is_closed_at_once() {
    fn answer(head: &str) -> Answer {
        if head.to_ascii_lowercase().contains("upgrade: websocket") {
            Answer::SwitchThenStream
        } else {
            Answer::Plain
        }
    }
    let base = raw_server(answer).await;
    let (run, took) = timed(&format!("{base}/socket"), "60").await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains("websocket-from-hostile-origin"),
        "{}",
        run.stdout
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_route_that_hangs_is_reported_and_the_others_audited() {
    fn answer(head: &str) -> Answer {
        if head.contains(" /slow ") {
            Answer::Silent
        } else {
            Answer::Plain
        }
    }
    let base = raw_server(answer).await;
    let table = "METHOD  PATH    MODULE     CORS       HANDLER\n\
                 GET     /slow   AppModule  AppModule  Slow::get\n\
                 GET     /fast   AppModule  AppModule  Fast::get\n";
    let file = std::env::temp_dir().join(format!("cors-audit-{}-hang.txt", std::process::id()));
    std::fs::write(&file, table).unwrap();
    let run = run_binary(&[
        base.as_str(),
        "--routes",
        file.to_str().unwrap(),
        "--origin",
        "https://app.example",
        "--timeout",
        "1",
    ])
    .await;
    let _ = std::fs::remove_file(&file);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let slow = run
        .stdout
        .split("\n== ")
        .find(|s| s.starts_with("GET /slow"))
        .unwrap();
    assert!(slow.contains("could not probe: OPTIONS"), "{slow}");
    let fast = run
        .stdout
        .split("\n== ")
        .find(|s| s.starts_with("GET /fast"))
        .unwrap();
    assert!(fast.contains("get "), "the other route is audited: {fast}");
    assert!(
        run.stdout.ends_with("on 2 routes, 1 could not be probed\n"),
        "{}",
        run.stdout
    );
}
