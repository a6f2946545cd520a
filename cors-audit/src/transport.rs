//! Sending the probes.

use std::fmt;
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

/// The transport of the command-line tool: HTTP/1.1 with [ureq](https://docs.rs/ureq), TLS
/// with rustls.
#[derive(Debug)]
pub struct UreqTransport {
    agent: ureq::Agent,
}

impl UreqTransport {
    /// A transport whose requests may take `timeout` each.
    pub fn new(timeout: Duration) -> Self {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .allow_non_standard_methods(true)
            .build()
            .into();
        Self { agent }
    }
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
        let request = request.body(()).map_err(|e| error(e.to_string()))?;
        let mut response = self.agent.run(request).map_err(|e| error(e.to_string()))?;
        // Read the body to the end, so that the connection can be used again.
        let _ = response.body_mut().read_to_vec();
        Ok((response.status(), response.headers().clone()))
    }
}
