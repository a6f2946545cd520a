//! Requests over a real socket: a router served by `axum::serve` on 127.0.0.1, spoken to in
//! raw HTTP/1.1 (requests pipelined on one connection, each answer's framing checked byte by
//! byte) and in HTTP/2 (h2c, hyper's client), where framing and keep-alive show.

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How long a test waits for a server's answers.
const PATIENCE: Duration = Duration::from_secs(10);

/// A response as read off the wire.
#[derive(Debug, Clone)]
pub struct WireAnswer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl WireAnswer {
    /// The single value of header `name`, as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(name)
            .map(|v| v.to_str().expect("visible ASCII"))
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Serves `router` on 127.0.0.1, on a port the system picks, until the test ends.
pub async fn serve(router: Router) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a local port");
    let addr = listener.local_addr().expect("bound");
    tokio::spawn(async move {
        axum::serve(listener, router)
            .await
            .expect("the server runs");
    });
    addr
}

/// One request in HTTP/1.1: the request line, `Host` (`127.0.0.1` unless `headers` name one),
/// `headers`, and `body` with its length.
pub fn http1(method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    let mut raw = format!("{method} {path} HTTP/1.1\r\n");
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        raw.push_str("Host: 127.0.0.1\r\n");
    }
    for (name, value) in headers {
        raw.push_str(&format!("{name}: {value}\r\n"));
    }
    if !body.is_empty() {
        raw.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    raw.push_str("\r\n");
    raw.push_str(body);
    raw.into_bytes()
}

/// Sends `requests` pipelined on one connection, the last with `Connection: close` added, and
/// reads the answers until the server closes it. Panics unless exactly one well-framed answer
/// comes back per request, with not one byte more.
pub async fn pipelined(addr: SocketAddr, requests: &[Vec<u8>]) -> Vec<WireAnswer> {
    let mut stream = TcpStream::connect(addr).await.expect("the server accepts");
    let mut sent = Vec::new();
    for (i, request) in requests.iter().enumerate() {
        if i + 1 == requests.len() {
            let blank = find(request, b"\r\n\r\n").expect("a request head ends with a blank line");
            sent.extend_from_slice(&request[..blank + 2]);
            sent.extend_from_slice(b"Connection: close\r\n");
            sent.extend_from_slice(&request[blank + 2..]);
        } else {
            sent.extend_from_slice(request);
        }
    }
    stream.write_all(&sent).await.expect("the request is sent");
    let mut received = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut received))
        .await
        .expect("the server answers and closes in time")
        .expect("the connection reads");
    let mut answers = Vec::new();
    let mut rest = &received[..];
    while !rest.is_empty() {
        let (answer, after) = parse(rest).unwrap_or_else(|why| {
            panic!(
                "answer {} is not well framed ({why}): {:?}",
                answers.len() + 1,
                String::from_utf8_lossy(&received)
            )
        });
        answers.push(answer);
        rest = after;
    }
    assert_eq!(
        answers.len(),
        requests.len(),
        "one answer per request, nothing more: {:?}",
        String::from_utf8_lossy(&received)
    );
    answers
}

/// Sends `request` in HTTP/2 over a new connection (h2c, prior knowledge), its authority the
/// server's address unless its URI names one.
pub async fn http2(addr: SocketAddr, request: Request<Body>) -> WireAnswer {
    let stream = TcpStream::connect(addr).await.expect("the server accepts");
    let (mut sender, connection) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        hyper_util::rt::TokioIo::new(stream),
    )
    .await
    .expect("the HTTP/2 handshake");
    tokio::spawn(connection);
    let (mut parts, body) = request.into_parts();
    if parts.uri.authority().is_none() {
        parts.uri = format!("http://{addr}{}", parts.uri)
            .parse()
            .expect("a URI");
    }
    let response = tokio::time::timeout(
        PATIENCE,
        sender.send_request(Request::from_parts(parts, body)),
    )
    .await
    .expect("an answer in time")
    .expect("the stream is answered, not reset");
    let (parts, body) = response.into_parts();
    let body = body
        .collect()
        .await
        .expect("the body arrives whole")
        .to_bytes();
    WireAnswer {
        status: parts.status,
        headers: parts.headers,
        body: body.to_vec(),
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Parses one HTTP/1.1 answer at the start of `bytes`; returns it and the bytes after it.
fn parse(bytes: &[u8]) -> Result<(WireAnswer, &[u8]), String> {
    let head_end = find(bytes, b"\r\n\r\n").ok_or("no end of head")?;
    let head = std::str::from_utf8(&bytes[..head_end]).map_err(|_| "a head that is not text")?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().ok_or("no status line")?;
    let code = status_line
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .ok_or_else(|| format!("not a status line: {status_line:?}"))?;
    let status = StatusCode::from_bytes(code.as_bytes()).map_err(|_| format!("status {code:?}"))?;
    let mut headers = HeaderMap::new();
    for line in lines {
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| format!("header line {line:?}"))?;
        let name: http::HeaderName = name.parse().map_err(|_| format!("header name {name:?}"))?;
        headers.append(
            name,
            value
                .trim()
                .parse()
                .map_err(|_| format!("value {value:?}"))?,
        );
    }
    let rest = &bytes[head_end + 4..];
    let lengths: Vec<&str> = headers
        .get_all("content-length")
        .iter()
        .map(|v| v.to_str().unwrap_or("?"))
        .collect();
    if lengths.len() > 1 {
        return Err(format!("several Content-Length: {lengths:?}"));
    }
    let no_body = status.is_informational()
        || status == StatusCode::NO_CONTENT
        || status == StatusCode::NOT_MODIFIED;
    if headers
        .get("transfer-encoding")
        .is_some_and(|te| te == "chunked")
    {
        if !lengths.is_empty() {
            return Err("both Content-Length and chunked".to_owned());
        }
        return chunked(rest).map(|(body, after)| {
            (
                WireAnswer {
                    status,
                    headers,
                    body,
                },
                after,
            )
        });
    }
    let length = match lengths.first() {
        Some(length) => length
            .parse::<usize>()
            .map_err(|_| format!("Content-Length {length:?}"))?,
        None if no_body => 0,
        None => rest.len(),
    };
    if no_body && length != 0 {
        return Err(format!("a {status} with a body of {length} bytes"));
    }
    let body = rest
        .get(..length)
        .ok_or("fewer body bytes than Content-Length")?;
    Ok((
        WireAnswer {
            status,
            headers,
            body: body.to_vec(),
        },
        &rest[length..],
    ))
}

/// Reads a chunked body; returns it and the bytes after it.
fn chunked(mut bytes: &[u8]) -> Result<(Vec<u8>, &[u8]), String> {
    let mut body = Vec::new();
    loop {
        let line_end = find(bytes, b"\r\n").ok_or("no end of chunk size")?;
        let size = std::str::from_utf8(&bytes[..line_end]).map_err(|_| "chunk size")?;
        let size = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| format!("chunk size {size:?}"))?;
        bytes = &bytes[line_end + 2..];
        if size == 0 {
            let end = find(bytes, b"\r\n").ok_or("no end of trailers")?;
            return Ok((body, &bytes[end + 2..]));
        }
        body.extend_from_slice(bytes.get(..size).ok_or("a short chunk")?);
        bytes = bytes.get(size + 2..).ok_or("no end of chunk")?;
    }
}

/// Sends one WebSocket handshake in HTTP/1.1 (`GET path` with `headers`, then
/// `Sec-WebSocket-Version` and `-Key`) and reads the answer's head only: a `101` leaves the
/// connection to the socket. Returns the status.
pub async fn http1_handshake(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> StatusCode {
    let mut all = headers.to_vec();
    all.push(("sec-websocket-version", "13"));
    all.push(("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="));
    let mut stream = TcpStream::connect(addr).await.expect("the server accepts");
    stream
        .write_all(&http1("GET", path, &all, ""))
        .await
        .expect("the handshake is sent");
    let mut received = Vec::new();
    let mut buffer = [0; 1024];
    while find(&received, b"\r\n\r\n").is_none() {
        let read = tokio::time::timeout(PATIENCE, stream.read(&mut buffer))
            .await
            .expect("the server answers in time")
            .expect("the connection reads");
        assert!(read > 0, "closed before an answer: {received:?}");
        received.extend_from_slice(&buffer[..read]);
    }
    let head = String::from_utf8_lossy(&received);
    let code = head
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .unwrap_or_else(|| panic!("not a status line: {head:?}"));
    StatusCode::from_bytes(code.as_bytes()).expect("a status")
}

/// Sends one WebSocket handshake in HTTP/2 (h2c): an extended `CONNECT` (RFC 8441) with
/// `:protocol` `websocket`, `headers` and `Sec-WebSocket-Version`, after a first request on the
/// same connection (so that the server's settings, which allow extended `CONNECT`, have
/// arrived). `path` may be a whole URI, to name another authority than the server's address.
/// Returns the status: `200` opens the socket.
pub async fn http2_handshake(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> StatusCode {
    let stream = TcpStream::connect(addr).await.expect("the server accepts");
    let (mut sender, connection) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        hyper_util::rt::TokioIo::new(stream),
    )
    .await
    .expect("the HTTP/2 handshake");
    tokio::spawn(connection);
    let first = Request::builder()
        .method("HEAD")
        .uri(format!("http://{addr}/"))
        .body(Body::empty())
        .expect("a request");
    tokio::time::timeout(PATIENCE, sender.send_request(first))
        .await
        .expect("an answer in time")
        .expect("the first request is answered");
    let mut builder = Request::builder()
        .method("CONNECT")
        .uri(if path.starts_with('/') {
            format!("http://{addr}{path}")
        } else {
            path.to_owned()
        })
        .header("sec-websocket-version", "13")
        .extension(hyper::ext::Protocol::from_static("websocket"));
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    let request = builder.body(Body::empty()).expect("a request");
    let response = tokio::time::timeout(PATIENCE, sender.send_request(request))
        .await
        .expect("an answer in time")
        .expect("the handshake is answered, not reset");
    response.status()
}
