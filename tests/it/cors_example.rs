//! `examples/cors.rs` run as `cargo run --example cors` runs it, its origins from `CORS_ORIGIN`:
//! a port wildcard grants every port of its host and nothing else; a pattern over a public
//! suffix stops it before it listens, with an error naming the suffix.
//!
//! The example's binary is the one `cargo test --workspace` builds next to this test's (the
//! workspace's build directory is locked while tests run, so the test cannot build it itself).

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio::time::timeout;

/// How long the example may take to listen, or to stop on a bad configuration.
const START: Duration = Duration::from_secs(30);

/// `target/<profile>/examples/cors`, next to `target/<profile>/deps/<this test>`.
fn example_binary() -> PathBuf {
    let test = std::env::current_exe().expect("the test's own path");
    let profile = test
        .parent()
        .and_then(|deps| deps.parent())
        .expect("tests run from target/<profile>/deps");
    let binary = profile
        .join("examples")
        .join(format!("cors{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.is_file(),
        "{} is not built: run `cargo test --workspace` (it builds the examples) or \
         `cargo build --example cors` first",
        binary.display()
    );
    binary
}

/// The example started with `CORS_ORIGIN=origins` on a port of its choosing.
fn start(origins: &str) -> Child {
    Command::new(example_binary())
        .env("CORS_ORIGIN", origins)
        .env("HOST", "127.0.0.1")
        .env("PORT", "0")
        .env("RUST_BACKTRACE", "0")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the example starts")
}

/// The address the example prints once it listens (`listening on http://ADDR`).
async fn address(child: &mut Child) -> String {
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut lines = BufReader::new(stdout).lines();
    let find = async {
        while let Some(line) = lines.next_line().await.expect("stdout is readable") {
            if let Some(address) = line.strip_prefix("listening on http://") {
                return address.to_owned();
            }
        }
        panic!("the example stopped before it listened");
    };
    timeout(START, find)
        .await
        .expect("the example listens in time")
}

/// The `Access-Control-Allow-Origin` of `GET /` from `origin`, over a socket.
async fn allowed_origin(address: &str, origin: &str) -> Option<String> {
    let mut stream = TcpStream::connect(address)
        .await
        .expect("the example accepts");
    let request = format!(
        "GET / HTTP/1.1\r\nHost: {address}\r\nOrigin: {origin}\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    timeout(START, stream.read_to_string(&mut answer))
        .await
        .expect("the example answers in time")
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    answer
        .split("\r\n\r\n")
        .next()
        .unwrap()
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("access-control-allow-origin")
                .then(|| value.trim().to_owned())
        })
}

#[tokio::test]
async fn a_port_wildcard_grants_every_port_of_its_host_and_nothing_else() {
    let mut example = start("http://localhost:*");
    let address = address(&mut example).await;
    for granted in ["http://localhost:5173", "http://localhost:8080"] {
        assert_eq!(
            allowed_origin(&address, granted).await.as_deref(),
            Some(granted)
        );
    }
    for refused in [
        "http://localhost",
        "https://localhost:5173",
        "http://localhost.evil.example:5173",
        "http://evil.example:5173",
        "null",
    ] {
        assert_eq!(allowed_origin(&address, refused).await, None, "{refused}");
    }
    example.kill().await.unwrap();
}

#[tokio::test]
async fn a_pattern_over_a_public_suffix_stops_the_example_naming_the_suffix() {
    let example = start("https://*.co.uk");
    let output = timeout(START, example.wait_with_output())
        .await
        .expect("the example stops in time")
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(!output.status.success(), "{stdout}");
    assert!(!stdout.contains("listening on"), "{stdout}");
    assert!(
        stderr.contains("invalid CORS option `origin`: `https://*.co.uk`")
            && stderr.contains("the public suffix `co.uk`"),
        "{stderr}"
    );
}
