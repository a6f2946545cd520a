//! Sending the probes.

use std::fmt;
use std::io::Read;
use std::time::Duration;

use http::{HeaderMap, Method, StatusCode};

/// How an audit reaches the API: one request, its status and headers.
pub trait Transport {
    /// Sends `method` to `url` with exactly `headers` (and what the HTTP client must add:
    /// `Host`, `Content-Length`), without following redirects.
    fn send(
        &mut self,
        method: &Method,
        url: &str,
        headers: &HeaderMap,
    ) -> Result<(StatusCode, HeaderMap), TransportError>;
}

/// A request that got no answer.
#[derive(Debug)]
pub struct TransportError {
    method: Method,
    url: String,
    cause: String,
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} got no answer: {}",
            self.method, self.url, self.cause
        )
    }
}

impl std::error::Error for TransportError {}

/// The most bytes of an answer's header section: a server that sends more gets no answer.
pub const MAX_HEADER_BYTES: usize = 64 * 1024;

/// The most bytes of an answer's body read (and dropped); a longer body is cut there.
pub const MAX_BODY_BYTES: u64 = 1024 * 1024;

/// The transport of the command-line tool: HTTP/1.1 with [ureq](https://docs.rs/ureq), TLS
/// with rustls. A hostile server cannot hang it nor grow its memory: each request, body
/// included, ends after the timeout; headers are cut at [`MAX_HEADER_BYTES`] and bodies at
/// [`MAX_BODY_BYTES`]; a `101 Switching Protocols` answer is closed at once.
#[derive(Debug)]
pub struct UreqTransport {
    agent: ureq::Agent,
    /// The `Host` every request carries instead of the URL's.
    host: Option<http::HeaderValue>,
}

impl UreqTransport {
    /// A transport whose requests may take `timeout` each, from connecting to the end of the
    /// body.
    pub fn new(timeout: Duration) -> Self {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .max_response_header_size(MAX_HEADER_BYTES)
            .http_status_as_error(false)
            .max_redirects(0)
            .allow_non_standard_methods(true)
            .build()
            .into();
        Self { agent, host: None }
    }

    /// The same, every request carrying `Host: host` instead of the URL's host: to audit an
    /// API that answers each of its tenants on its own host (`acme.api.example`) at an address
    /// that is not that host's (`http://127.0.0.1:3000`). An error names a `host` that is not
    /// a header value.
    pub fn with_host(mut self, host: &str) -> Result<Self, String> {
        let value = http::HeaderValue::from_str(host)
            .map_err(|_| format!("`--host {}` is not a host", host.escape_debug()))?;
        self.host = Some(value);
        Ok(self)
    }
}

/// Whether a bodiless request of `method` must say `Content-Length: 0`, as a browser's does.
/// Without it ureq sends a `POST` or `PUT` as an empty chunked body: a server that answers
/// before that body's last chunk arrives closes the connection, and the next request on it
/// gets no answer.
fn declares_no_body(method: &Method, headers: &HeaderMap) -> bool {
    let bodiless = [Method::GET, Method::HEAD, Method::OPTIONS, Method::TRACE];
    !bodiless.contains(method)
        && *method != Method::CONNECT
        && !headers.contains_key(http::header::CONTENT_LENGTH)
        && !headers.contains_key(http::header::TRANSFER_ENCODING)
}

impl Transport for UreqTransport {
    fn send(
        &mut self,
        method: &Method,
        url: &str,
        headers: &HeaderMap,
    ) -> Result<(StatusCode, HeaderMap), TransportError> {
        let error = |cause: String| TransportError {
            method: method.clone(),
            url: url.to_owned(),
            cause,
        };
        let mut request = http::Request::builder().method(method.clone()).uri(url);
        for (name, value) in headers {
            request = request.header(name, value);
        }
        if let Some(host) = &self.host {
            request = request.header(http::header::HOST, host);
        }
        if declares_no_body(method, headers) {
            request = request.header(http::header::CONTENT_LENGTH, "0");
        }
        let request = request.body(()).map_err(|e| error(e.to_string()))?;
        let mut response = self.agent.run(request).map_err(|e| error(e.to_string()))?;
        let status = response.status();
        let headers = response.headers().clone();
        // After a 101 the connection speaks another protocol: dropping the response closes it.
        if status != StatusCode::SWITCHING_PROTOCOLS {
            // Read the body (up to the cap) so that the connection can be used again; the
            // audit needs only the headers, so a broken body is no error.
            let mut body = response.body_mut().as_reader().take(MAX_BODY_BYTES);
            let _ = std::io::copy(&mut body, &mut std::io::sink());
        }
        Ok((status, headers))
    }
}
