//! Running a case: what was sent, what came back, and what a browser makes of it.

use http::{HeaderMap, HeaderValue, Method, StatusCode};
use serde::Serialize;

use crate::browser::CredentialsMode;
use crate::cases::{Case, Expectation, Probe};
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

    /// Whether the request carried `Origin`.
    pub fn had_origin(&self) -> bool {
        self.request_headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("origin"))
    }

    /// Whether no cache may store the answer (`Cache-Control: no-store`), so that it needs no
    /// `Vary`.
    pub fn is_no_store(&self) -> bool {
        self.list("cache-control")
            .iter()
            .any(|d| d.eq_ignore_ascii_case("no-store"))
    }

    /// Whether the answer's `Vary` names `name` (or is `*`).
    pub fn varies_on(&self, name: &str) -> bool {
        self.list("vary")
            .iter()
            .any(|v| v.eq_ignore_ascii_case(name) || *v == "*")
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
    /// Not a `fetch()`: the answer is shown as it is.
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
    /// Whether the case sent credentials (the cookie).
    pub credentials: bool,
    /// Whether a browser preflights the case's request.
    pub preflighted: bool,
}

fn expectation_name<S: serde::Serializer>(e: &Expectation, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(e.name())
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

fn exchange(method: &Method, sent: &HeaderMap, status: StatusCode, answer: &HeaderMap) -> Exchange {
    Exchange {
        method: method.to_string(),
        preflight: *method == Method::OPTIONS
            && sent.contains_key(http::header::ACCESS_CONTROL_REQUEST_METHOD),
        request_headers: pairs(sent),
        status: status.as_u16(),
        headers: pairs(answer),
    }
}

/// Sends `case` to `url` and judges the answers as a browser; a credentialed request carries
/// `cookie`, as the browser adds the user's cookies to it (never to its preflight).
pub(crate) fn run(
    case: Case,
    url: &str,
    cookie: &HeaderValue,
    transport: &mut dyn Transport,
) -> Result<Outcome, TransportError> {
    let mut exchanges = Vec::new();
    let (verdict, origin, credentials, preflighted) = match &case.probe {
        Probe::Raw { method, headers } => {
            let (status, answer) = transport.send(method, url, headers)?;
            exchanges.push(exchange(method, headers, status, &answer));
            let origin = headers
                .get(http::header::ORIGIN)
                .map(|o| String::from_utf8_lossy(o.as_bytes()).into_owned());
            let status = status.as_u16();
            let cookie = headers.contains_key(http::header::COOKIE);
            (Verdict::Shown { status }, origin, cookie, false)
        }
        Probe::Script(request) => {
            let credentials = request.credentials_mode() == CredentialsMode::Include;
            let mut failed: Option<TransportError> = None;
            let fetched = request.fetch(|method, headers| {
                if failed.is_some() {
                    return (StatusCode::INTERNAL_SERVER_ERROR, HeaderMap::new());
                }
                let is_preflight = *method == Method::OPTIONS
                    && headers.contains_key(http::header::ACCESS_CONTROL_REQUEST_METHOD);
                let mut sent = headers.clone();
                if credentials && !is_preflight {
                    sent.insert(http::header::COOKIE, cookie.clone());
                }
                match transport.send(method, url, &sent) {
                    Ok((status, answer)) => {
                        exchanges.push(exchange(method, &sent, status, &answer));
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
            (
                verdict,
                Some(origin),
                credentials,
                request.needs_preflight(),
            )
        }
    };
    Ok(Outcome {
        name: case.name,
        request: case.description,
        expectation: case.expectation,
        hostility: case.hostility.map(crate::declared::Hostility::name),
        verdict,
        exchanges,
        origin,
        credentials,
        preflighted,
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
