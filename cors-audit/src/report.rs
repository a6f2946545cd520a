//! Running the cases, and the report: a table for people, JSON for machines.

use std::fmt;

use http::{HeaderMap, Method, StatusCode};
use serde::Serialize;

use crate::cases::{Case, Expectation, Probe};
use crate::findings::Finding;
use crate::transport::{Transport, TransportError};

/// One request of a case and its answer.
#[derive(Clone, Debug, Serialize)]
pub struct Exchange {
    /// The method sent.
    pub method: String,
    /// Whether it was the preflight of the case.
    pub preflight: bool,
    /// The request headers sent.
    pub request_headers: Vec<(String, String)>,
    /// The answer's status.
    pub status: u16,
    /// The answer's headers.
    pub headers: Vec<(String, String)>,
}

impl Exchange {
    /// The answer's first value of header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The answer's values of header `name`, split at commas and trimmed.
    pub fn list(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .flat_map(|(_, v)| v.split(','))
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .collect()
    }
}

/// What a browser does with a case's answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// The script reads the response.
    Readable {
        /// The response's status.
        status: u16,
    },
    /// The browser refuses the script the response (or refused the preflight).
    Blocked {
        /// The check that failed.
        why: String,
    },
    /// Not a browser request: the answer is shown as it is.
    Shown {
        /// The response's status.
        status: u16,
    },
}

/// One case, what was sent and received, and the verdict.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// The case's name.
    pub name: String,
    /// The request, in words.
    pub request: String,
    /// What the case should give.
    #[serde(serialize_with = "expectation_name")]
    pub expectation: Expectation,
    /// How its origin was made, for hostile cases.
    pub hostility: Option<&'static str>,
    /// The verdict.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// The requests and answers, preflight first.
    pub exchanges: Vec<Exchange>,
    /// The `Origin` the case sent, if any.
    pub origin: Option<String>,
    /// Whether the case sent credentials.
    pub credentials: bool,
}

fn expectation_name<S: serde::Serializer>(e: &Expectation, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match e {
        Expectation::Readable => "readable",
        Expectation::NotReadable => "not-readable",
        Expectation::Shown => "shown",
    })
}

impl Outcome {
    /// The last answer: the actual response, or the refused preflight's.
    pub fn last(&self) -> Option<&Exchange> {
        self.exchanges.last()
    }

    /// The preflight's answer, if one was sent.
    pub fn preflight(&self) -> Option<&Exchange> {
        self.exchanges.iter().find(|e| e.preflight)
    }

    /// Whether a browser let the script read the response.
    pub fn is_readable(&self) -> bool {
        matches!(self.verdict, Verdict::Readable { .. })
    }
}

/// The result of an audit.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The probed URL.
    pub target: String,
    /// The origins meant to read it.
    pub allowed_origins: Vec<String>,
    /// The methods the resource lists in `Allow` (plain `OPTIONS`).
    pub allow: Vec<String>,
    /// Every case, in order.
    pub outcomes: Vec<Outcome>,
    /// The misconfigurations found.
    pub findings: Vec<Finding>,
}

impl Report {
    /// Whether the audit found nothing.
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }
}

fn pairs(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect()
}

/// Sends `case` to `url` and judges the answers.
pub(crate) fn run(
    case: Case,
    url: &str,
    transport: &mut dyn Transport,
) -> Result<Outcome, TransportError> {
    let mut exchanges = Vec::new();
    let mut failed: Option<TransportError> = None;
    let (verdict, origin, credentials) = match &case.probe {
        Probe::Raw { method, headers } => {
            let (status, answer) = transport.send(method, url, headers)?;
            exchanges.push(Exchange {
                method: method.to_string(),
                preflight: false,
                request_headers: pairs(headers),
                status: status.as_u16(),
                headers: pairs(&answer),
            });
            let origin = headers
                .get(http::header::ORIGIN)
                .map(|o| String::from_utf8_lossy(o.as_bytes()).into_owned());
            (
                Verdict::Shown {
                    status: status.as_u16(),
                },
                origin,
                false,
            )
        }
        Probe::Script(request) => {
            let fetched = request.fetch(|method, headers| {
                if failed.is_some() {
                    return (StatusCode::INTERNAL_SERVER_ERROR, HeaderMap::new());
                }
                match transport.send(method, url, headers) {
                    Ok((status, answer)) => {
                        exchanges.push(Exchange {
                            method: method.to_string(),
                            preflight: *method == Method::OPTIONS
                                && headers
                                    .contains_key(http::header::ACCESS_CONTROL_REQUEST_METHOD),
                            request_headers: pairs(headers),
                            status: status.as_u16(),
                            headers: pairs(&answer),
                        });
                        (status, answer)
                    }
                    Err(error) => {
                        failed = Some(error);
                        (StatusCode::INTERNAL_SERVER_ERROR, HeaderMap::new())
                    }
                }
            });
            if let Some(error) = failed {
                return Err(error);
            }
            let verdict = match fetched {
                Ok(_) => Verdict::Readable {
                    status: exchanges.last().map_or(0, |e| e.status),
                },
                Err(failure) => Verdict::Blocked {
                    why: failure.to_string(),
                },
            };
            let origin = String::from_utf8_lossy(request.origin().as_bytes()).into_owned();
            let credentials =
                request.credentials_mode() == cors_axum_core::browser::CredentialsMode::Include;
            (verdict, Some(origin), credentials)
        }
    };
    Ok(Outcome {
        name: case.name,
        request: case.description,
        expectation: case.expectation,
        hostility: case.hostility.map(crate::cases::Hostility::name),
        verdict,
        exchanges,
        origin,
        credentials,
    })
}

/// The methods an `Allow` header lists.
pub(crate) fn allow_methods(headers: &HeaderMap) -> Vec<Method> {
    headers
        .get_all(http::header::ALLOW)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|m| Method::from_bytes(m.trim().as_bytes()).ok())
        .collect()
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} (allowed origins: {})",
            self.target,
            self.allowed_origins.join(", ")
        )?;
        let rows: Vec<[String; 4]> = self
            .outcomes
            .iter()
            .map(|o| {
                let (browser, why) = match &o.verdict {
                    Verdict::Readable { status } => (format!("reads {status}"), String::new()),
                    Verdict::Blocked { why } => ("blocked".to_owned(), why.clone()),
                    Verdict::Shown { status } => (format!("answer {status}"), shown(o)),
                };
                [o.name.clone(), o.request.clone(), browser, why]
            })
            .collect();
        let titles = ["CASE", "REQUEST", "BROWSER", "WHY"];
        let widths: Vec<usize> = (0..3)
            .map(|i| {
                rows.iter()
                    .map(|r| r[i].chars().count())
                    .max()
                    .unwrap_or(0)
                    .max(titles[i].len())
            })
            .collect();
        let line = |f: &mut fmt::Formatter<'_>, cells: [&str; 4]| {
            writeln!(
                f,
                "{:w0$}  {:w1$}  {:w2$}  {}",
                cells[0],
                cells[1],
                cells[2],
                cells[3],
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2]
            )
        };
        line(f, titles)?;
        for row in &rows {
            line(f, [&row[0], &row[1], &row[2], row[3].trim_end()])?;
        }
        writeln!(f)?;
        if self.findings.is_empty() {
            writeln!(f, "no misconfiguration found")
        } else {
            writeln!(f, "{} misconfiguration(s) found:", self.findings.len())?;
            for finding in &self.findings {
                writeln!(f, "  {finding}")?;
            }
            Ok(())
        }
    }
}

/// The CORS headers of a shown answer, briefly.
fn shown(outcome: &Outcome) -> String {
    let Some(exchange) = outcome.last() else {
        return String::new();
    };
    let mut parts = Vec::new();
    if let Some(origin) = exchange.header("access-control-allow-origin") {
        parts.push(format!("allow-origin: {origin}"));
    }
    if let Some(allow) = exchange.header("allow") {
        parts.push(format!("allow: {allow}"));
    }
    let vary = exchange.list("vary");
    if !vary.is_empty() {
        parts.push(format!("vary: {}", vary.join(", ")));
    }
    parts.join("; ")
}
