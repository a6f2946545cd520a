//! What an audit probes, and why it may not run.

use std::fmt;
use std::time::Duration;

use http::Method;

use crate::transport::TransportError;

/// What to probe and what the API is meant to allow.
#[derive(Clone, Debug)]
pub struct AuditConfig {
    /// The resource to probe, such as `http://127.0.0.1:3000/items`; for
    /// [`audit_routes`](crate::audit_routes), the base URL the routes' paths are joined to,
    /// such as `http://127.0.0.1:3000`.
    pub url: String,
    /// The origins meant to read the API, as the policy declares them: origins
    /// (`https://app.example`), the policy's patterns (`https://*.example.com`), `null` when
    /// the policy allows it, and examples of what a predicate allows. They are compiled with
    /// the engine of cors-axum, so a declared match is never a finding. The first is the model
    /// of the hostile look-alikes and the origin of the allowed requests.
    pub origins: Vec<String>,
    /// The methods to preflight; empty: those the resource lists in `Allow`, or `GET`. Routes
    /// given to [`audit_routes`](crate::audit_routes) use their own method instead.
    pub methods: Vec<Method>,
    /// The request headers the pages send (names), which need a preflight.
    pub headers: Vec<String>,
    /// Whether the pages send credentials (`fetch(url, { credentials: "include" })`): then
    /// the allowed origin's credentialed requests must work, `*` is a finding, and so is a
    /// cross-site form `POST` that reaches a handler (cookies make it a forgery).
    pub credentials: bool,
    /// The `Cookie` credentialed probes carry, `NAME=VALUE`, as a browser would send the
    /// user's session: many servers grant credentials only to requests that carry one. A
    /// harmless dummy by default.
    pub cookie: String,
    /// The time each request may take.
    pub timeout: Duration,
}

impl AuditConfig {
    /// The cookie credentialed probes carry unless told otherwise.
    pub const DEFAULT_COOKIE: &'static str = "cors_audit=1";

    /// The configuration for `url` and one allowed `origin`, with the defaults: methods from
    /// `Allow`, the headers `x-pingother` and `content-type` (of a JSON body), no credentials,
    /// the cookie [`DEFAULT_COOKIE`](Self::DEFAULT_COOKIE), a 10-second timeout.
    pub fn new(url: impl Into<String>, origin: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            origins: vec![origin.into()],
            methods: Vec::new(),
            headers: vec!["x-pingother".to_owned(), "content-type".to_owned()],
            credentials: false,
            cookie: Self::DEFAULT_COOKIE.to_owned(),
            timeout: Duration::from_secs(10),
        }
    }

    /// Checks the URL and the cookie, and returns the cookie as credentialed probes send it;
    /// the origins are checked when they are compiled.
    pub(crate) fn check(&self) -> Result<http::HeaderValue, AuditError> {
        if !(self.url.starts_with("http://") || self.url.starts_with("https://")) {
            return Err(AuditError::InvalidUrl(self.url.clone()));
        }
        let named = self.cookie.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && http::HeaderName::from_bytes(name.as_bytes()).is_ok()
        });
        match http::HeaderValue::from_str(&self.cookie) {
            Ok(cookie) if named => Ok(cookie),
            _ => Err(AuditError::InvalidRequest(format!(
                "`--cookie {}` is not a cookie; write it as `NAME=VALUE`, e.g. `session=abc123`",
                self.cookie
            ))),
        }
    }
}

/// Why an audit could not run.
#[derive(Debug)]
#[non_exhaustive]
pub enum AuditError {
    /// A declared origin is neither an origin (`scheme://host[:port]`) nor a pattern the engine
    /// accepts.
    InvalidOrigin {
        /// The declared value.
        origin: String,
        /// Why the engine refuses it, naming the value.
        reason: String,
    },
    /// The URL is not an absolute `http://` or `https://` URL.
    InvalidUrl(String),
    /// A configured header name, method or cookie is invalid.
    InvalidRequest(String),
    /// A route table or OpenAPI document cannot be read.
    InvalidRoutes(String),
    /// A request failed (connection refused, timeout, TLS, an answer over the limits).
    Transport(TransportError),
}

impl fmt::Display for AuditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidOrigin { reason, .. } => write!(f, "--origin: {reason}"),
            Self::InvalidUrl(url) => {
                write!(
                    f,
                    "`{url}` is not an absolute http:// or https:// URL, e.g. `http://127.0.0.1:3000/items`"
                )
            }
            Self::InvalidRequest(what) | Self::InvalidRoutes(what) => f.write_str(what),
            Self::Transport(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for AuditError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Transport(error) => Some(error),
            _ => None,
        }
    }
}

impl From<TransportError> for AuditError {
    fn from(error: TransportError) -> Self {
        Self::Transport(error)
    }
}
