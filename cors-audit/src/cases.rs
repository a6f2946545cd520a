//! The cases an audit probes: the requests of DESIGN.md from an allowed origin, and the same
//! from hostile origins made to look like it.

use cors_axum_core::browser::{CredentialsMode, ScriptRequest};
use http::{HeaderMap, HeaderValue, Method};

use crate::{AuditConfig, AuditError};

/// What a case should give the page, if the API is configured well.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expectation {
    /// The allowed origin reads the response.
    Readable,
    /// A hostile origin does not read the response (a public API answering `*` without
    /// credentials is fine too).
    NotReadable,
    /// Shown, not judged: what the server answers to a request that is not CORS.
    Shown,
}

/// How a hostile origin was made from the allowed one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hostility {
    /// An unrelated site.
    Arbitrary,
    /// The allowed origin followed by more labels: `https://app.example.evil.example`.
    AllowedAsPrefix,
    /// The allowed host at the end of another: `https://evilapp.example`.
    HostAsSuffix,
    /// `http://` where `https://` is allowed.
    SchemeDowngrade,
    /// Another port.
    OtherPort,
    /// `null`: sandboxed frames, `file:` pages, redirects.
    Null,
    /// Characters no browser sends in an origin, which naive parsers mishandle.
    SpecialCharacters,
}

/// The request of a case.
#[derive(Clone, Debug)]
pub enum Probe {
    /// A `fetch()` from a page, preflight included when the browser would send one.
    Script(ScriptRequest),
    /// A raw request, for what browsers do not send (no `Origin`, or a malformed one).
    Raw {
        /// The method.
        method: Method,
        /// The headers.
        headers: HeaderMap,
    },
}

/// One probe: a request, and what it should give.
#[derive(Clone, Debug)]
pub struct Case {
    /// A short name, such as `get` or `hostile-prefix credentialed`.
    pub name: String,
    /// The request, described for the table: `GET from https://app.example with credentials`.
    pub description: String,
    /// The request.
    pub probe: Probe,
    /// What it should give.
    pub expectation: Expectation,
    /// How its origin was made, for hostile cases.
    pub hostility: Option<Hostility>,
}

/// An origin split into its parts.
pub(crate) struct OriginParts<'a> {
    scheme: &'a str,
    host: &'a str,
    port: Option<&'a str>,
}

impl<'a> OriginParts<'a> {
    pub(crate) fn parse(origin: &'a str) -> Option<Self> {
        let (scheme, rest) = origin.split_once("://")?;
        if !matches!(scheme, "http" | "https") || rest.is_empty() || rest.contains(['/', '?', '#'])
        {
            return None;
        }
        let (host, port) = match rest.rsplit_once(':') {
            Some((host, port)) if !host.ends_with(']') || rest.starts_with('[') => {
                (host, Some(port))
            }
            _ => (rest, None),
        };
        if host.is_empty() || port.is_some_and(|p| p.parse::<u16>().is_err()) {
            return None;
        }
        Some(Self { scheme, host, port })
    }

    fn with(&self, scheme: &str, host: &str, port: Option<&str>) -> String {
        match port {
            Some(port) => format!("{scheme}://{host}:{port}"),
            None => format!("{scheme}://{host}"),
        }
    }

    /// The hostile origins made from this one.
    fn hostile(&self) -> Vec<(Hostility, String)> {
        let Self { scheme, host, port } = self;
        // The registrable part of the host, for the look-alike that ends with it.
        let bare = host.trim_start_matches("www.");
        let mut hostile = vec![
            (
                Hostility::Arbitrary,
                self.with(scheme, "evil.example", None),
            ),
            (
                Hostility::AllowedAsPrefix,
                self.with(scheme, &format!("{host}.evil.example"), None),
            ),
            (
                Hostility::HostAsSuffix,
                self.with(scheme, &format!("evil{bare}"), *port),
            ),
        ];
        if *scheme == "https" {
            hostile.push((Hostility::SchemeDowngrade, self.with("http", host, *port)));
        }
        let other_port = if *port == Some("8443") {
            "9443"
        } else {
            "8443"
        };
        hostile.push((
            Hostility::OtherPort,
            self.with(scheme, host, Some(other_port)),
        ));
        hostile.push((Hostility::Null, "null".to_owned()));
        hostile
    }

    /// Malformed look-alikes, sent raw: a browser never sends them, a naive server may still
    /// allow them.
    fn special(&self) -> Vec<String> {
        let Self { scheme, host, .. } = self;
        vec![
            format!("{scheme}://{host}`.evil.example"),
            format!("{scheme}://{host}_.evil.example"),
            format!("{scheme}://{host}%60.evil.example"),
        ]
    }
}

fn invalid(error: impl std::fmt::Display) -> AuditError {
    AuditError::InvalidRequest(error.to_string())
}

impl Case {
    /// Every case for `config`: from `allowed` (the first allowed origin), the requests of
    /// DESIGN.md for `methods`; then from hostile look-alikes of it, a simple request, a
    /// credentialed one and a preflighted one.
    pub fn all(
        config: &AuditConfig,
        allowed: &str,
        methods: &[Method],
    ) -> Result<Vec<Case>, AuditError> {
        let parts = OriginParts::parse(allowed)
            .ok_or_else(|| AuditError::InvalidOrigin(allowed.to_owned()))?;
        let script = |origin: &str, method: &Method, headers: bool, credentials: bool| {
            let mut request = ScriptRequest::new(origin, method.as_str()).map_err(invalid)?;
            if headers {
                for name in &config.headers {
                    let value = if name.eq_ignore_ascii_case("content-type") {
                        "application/json"
                    } else {
                        "1"
                    };
                    request = request.header(name, value).map_err(invalid)?;
                }
            }
            if credentials {
                request = request.credentials(CredentialsMode::Include);
            }
            Ok::<_, AuditError>(request)
        };
        let describe = |request: &ScriptRequest| {
            let mut text = format!(
                "{} from {}",
                request.method(),
                origin_text(request.origin())
            );
            let names = request.unsafe_header_names();
            if !names.is_empty() {
                let names: Vec<&str> = names.iter().map(http::HeaderName::as_str).collect();
                text.push_str(&format!(" with {}", names.join(", ")));
            }
            if request.credentials_mode() == CredentialsMode::Include {
                text.push_str(", credentials");
            }
            text
        };

        let mut cases = Vec::new();
        let raw = |name: &str, description: String, method: Method, origin: Option<&str>| {
            let mut headers = HeaderMap::new();
            if let Some(origin) = origin {
                let value = HeaderValue::from_str(origin).map_err(invalid)?;
                headers.insert(http::header::ORIGIN, value);
            }
            Ok::<_, AuditError>(Case {
                name: name.to_owned(),
                description,
                probe: Probe::Raw { method, headers },
                expectation: Expectation::Shown,
                hostility: None,
            })
        };
        cases.push(raw(
            "not-cors",
            "GET without Origin".to_owned(),
            Method::GET,
            None,
        )?);
        cases.push(raw(
            "options-with-origin",
            format!("OPTIONS from {allowed}, not a preflight"),
            Method::OPTIONS,
            Some(allowed),
        )?);

        let mut from_allowed = vec![script(allowed, &Method::GET, false, false)?];
        for method in methods {
            if *method == Method::OPTIONS || *method == Method::HEAD {
                continue;
            }
            from_allowed.push(script(allowed, method, true, false)?);
        }
        if config.credentials {
            from_allowed.push(script(allowed, &Method::GET, false, true)?);
            if let Some(method) = methods
                .iter()
                .find(|m| **m != Method::GET && **m != Method::HEAD && **m != Method::OPTIONS)
            {
                from_allowed.push(script(allowed, method, true, true)?);
            }
        }
        for request in from_allowed {
            let description = describe(&request);
            cases.push(Case {
                name: case_name("", &request),
                description,
                probe: Probe::Script(request),
                expectation: Expectation::Readable,
                hostility: None,
            });
        }

        let preflighted = methods
            .iter()
            .find(|m| !matches!(**m, Method::GET | Method::HEAD | Method::OPTIONS))
            .unwrap_or(&Method::GET);
        for (hostility, origin) in parts.hostile() {
            let requests = [
                script(&origin, &Method::GET, false, false)?,
                script(&origin, &Method::GET, false, true)?,
                script(&origin, preflighted, true, false)?,
            ];
            for request in requests {
                let description = describe(&request);
                cases.push(Case {
                    name: case_name(hostility.name(), &request),
                    description,
                    probe: Probe::Script(request),
                    expectation: Expectation::NotReadable,
                    hostility: Some(hostility),
                });
            }
        }
        for (label, origin) in ["backtick", "underscore", "percent"]
            .into_iter()
            .zip(parts.special())
        {
            let mut case = raw(
                &format!("special-characters {label}"),
                format!("GET from {origin} (malformed, sent raw)"),
                Method::GET,
                Some(&origin),
            )?;
            case.expectation = Expectation::NotReadable;
            case.hostility = Some(Hostility::SpecialCharacters);
            cases.push(case);
        }
        Ok(cases)
    }
}

impl Hostility {
    /// The name used in case names and findings.
    pub fn name(self) -> &'static str {
        match self {
            Hostility::Arbitrary => "arbitrary-origin",
            Hostility::AllowedAsPrefix => "allowed-origin-as-prefix",
            Hostility::HostAsSuffix => "allowed-host-as-suffix",
            Hostility::SchemeDowngrade => "scheme-downgrade",
            Hostility::OtherPort => "other-port",
            Hostility::Null => "null-origin",
            Hostility::SpecialCharacters => "special-characters",
        }
    }
}

fn case_name(prefix: &str, request: &ScriptRequest) -> String {
    let mut name = request.method().as_str().to_ascii_lowercase();
    if request.needs_preflight() {
        name.push_str("-preflighted");
    }
    if request.credentials_mode() == CredentialsMode::Include {
        name.push_str("-credentials");
    }
    if prefix.is_empty() {
        name
    } else {
        format!("{prefix} {name}")
    }
}

fn origin_text(origin: &HeaderValue) -> String {
    String::from_utf8_lossy(origin.as_bytes()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_of_an_origin() {
        let parts = OriginParts::parse("https://app.example").unwrap();
        let hostile: Vec<String> = parts.hostile().into_iter().map(|(_, o)| o).collect();
        assert_eq!(
            hostile,
            [
                "https://evil.example",
                "https://app.example.evil.example",
                "https://evilapp.example",
                "http://app.example",
                "https://app.example:8443",
                "null",
            ]
        );
        let parts = OriginParts::parse("http://localhost:8080").unwrap();
        let hostile: Vec<String> = parts.hostile().into_iter().map(|(_, o)| o).collect();
        assert!(
            hostile.contains(&"http://localhost:8443".to_owned()),
            "{hostile:?}"
        );
        assert!(
            hostile.contains(&"http://evillocalhost:8080".to_owned()),
            "{hostile:?}"
        );
        assert!(OriginParts::parse("app.example").is_none());
        assert!(OriginParts::parse("https://app.example/").is_none());
        assert!(OriginParts::parse("https://app.example:99999").is_none());
    }
}
