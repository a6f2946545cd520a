#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod cases;
mod findings;
mod report;
mod transport;

use std::time::Duration;

use http::Method;

pub use cases::{Case, Expectation};
pub use findings::{Finding, FindingKind, Severity};
pub use report::{Exchange, Outcome, Report, Verdict};
pub use transport::{Transport, TransportError, UreqTransport};

/// What to probe and what the API is meant to allow.
#[derive(Clone, Debug)]
pub struct AuditConfig {
    /// The resource to probe, such as `http://127.0.0.1:3000/items`.
    pub url: String,
    /// The origins meant to read the API's responses; the first one is the model of the
    /// hostile look-alikes.
    pub origins: Vec<String>,
    /// The methods to preflight; empty: those the resource lists in `Allow`, or `GET`.
    pub methods: Vec<Method>,
    /// The request headers the pages send (names), which need a preflight.
    pub headers: Vec<String>,
    /// Whether the pages send credentials (`fetch(url, { credentials: "include" })`).
    pub credentials: bool,
    /// The time each request may take.
    pub timeout: Duration,
}

impl AuditConfig {
    /// The configuration for `url` and one allowed `origin`, with the defaults: methods from
    /// `Allow`, the headers `x-pingother` and `content-type` (of a JSON body), no credentials,
    /// a 10-second timeout.
    pub fn new(url: impl Into<String>, origin: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            origins: vec![origin.into()],
            methods: Vec::new(),
            headers: vec!["x-pingother".to_owned(), "content-type".to_owned()],
            credentials: false,
            timeout: Duration::from_secs(10),
        }
    }
}

/// Why an audit could not run.
#[derive(Debug)]
#[non_exhaustive]
pub enum AuditError {
    /// A configured origin is not `scheme://host[:port]`.
    InvalidOrigin(String),
    /// The URL is not an absolute `http://` or `https://` URL.
    InvalidUrl(String),
    /// A configured header name or method is invalid.
    InvalidRequest(String),
    /// A request failed (connection refused, timeout, TLS).
    Transport(TransportError),
}

impl std::fmt::Display for AuditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::InvalidOrigin(origin) => write!(
                f,
                "`{origin}` is not an origin; write it as `scheme://host[:port]`, e.g. `https://app.example`"
            ),
            Self::InvalidUrl(url) => {
                write!(f, "`{url}` is not an absolute http:// or https:// URL")
            }
            Self::InvalidRequest(what) => write!(f, "{what}"),
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

/// Probes `config.url` with the cases of [`Case::all`] through `transport`, judges every answer
/// as a browser would ([`cors_axum_core::browser`]), and returns the report with the
/// misconfigurations found. `progress` is told `(done, total, case)` before each case.
pub fn audit(
    config: &AuditConfig,
    transport: &mut dyn Transport,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Report, AuditError> {
    if !(config.url.starts_with("http://") || config.url.starts_with("https://")) {
        return Err(AuditError::InvalidUrl(config.url.clone()));
    }
    let allowed = config
        .origins
        .first()
        .ok_or_else(|| AuditError::InvalidOrigin(String::new()))?;
    for origin in &config.origins {
        cases::OriginParts::parse(origin)
            .ok_or_else(|| AuditError::InvalidOrigin(origin.clone()))?;
    }

    // What the resource says of itself: `OPTIONS` without `Origin`.
    let plain = transport.send(&Method::OPTIONS, &config.url, &http::HeaderMap::new())?;
    let allow = report::allow_methods(&plain.1);
    let methods = if !config.methods.is_empty() {
        config.methods.clone()
    } else if !allow.is_empty() {
        allow.clone()
    } else {
        vec![Method::GET]
    };

    let all = Case::all(config, allowed, &methods)?;
    let total = all.len();
    let mut outcomes = Vec::with_capacity(total);
    for (done, case) in all.into_iter().enumerate() {
        progress(done, total, &case.name);
        outcomes.push(report::run(case, &config.url, transport)?);
    }
    progress(total, total, "");
    let findings = findings::find(&outcomes, config, allowed, &allow);
    Ok(Report {
        target: config.url.clone(),
        allowed_origins: config.origins.clone(),
        allow: allow.iter().map(ToString::to_string).collect(),
        outcomes,
        findings,
    })
}
