//! The cases an audit probes: the requests of DESIGN.md from a declared origin, the same from
//! hostile origins made to look like it (each simple, preflighted, with and without
//! credentials), and the requests that reach past CORS: a cross-site form `POST` and a
//! WebSocket handshake.

use http::{HeaderMap, HeaderName, HeaderValue, Method};

use crate::browser::{CredentialsMode, ScriptRequest};
use crate::config::{AuditConfig, AuditError};
use crate::declared::{Declared, Hostility};

/// What a case should give, if the API is configured well.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Expectation {
    /// The declared origin reads the response.
    Readable,
    /// The origin does not read the response: a hostile origin, or any origin on a route
    /// without CORS (a public API answering `*` without credentials is fine too).
    NotReadable,
    /// Shown, not judged by itself: what the server answers to a request that is not CORS, or
    /// to a request made to compare answers.
    Shown,
    /// A cross-site form `POST` is refused before its handler: not answered 2xx or 3xx.
    NotHandled,
    /// A WebSocket handshake from a hostile origin is refused: not answered 101.
    NotUpgraded,
}

impl Expectation {
    /// The name in the JSON report.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Expectation::Readable => "readable",
            Expectation::NotReadable => "not-readable",
            Expectation::Shown => "shown",
            Expectation::NotHandled => "not-handled",
            Expectation::NotUpgraded => "not-upgraded",
        }
    }
}

/// The request of a case.
#[derive(Clone, Debug)]
pub(crate) enum Probe {
    /// A `fetch()` from a page, preflight included when the browser would send one.
    Script(ScriptRequest),
    /// A raw request, for what `fetch()` does not send (no `Origin`, a malformed one, a form,
    /// a WebSocket handshake).
    Raw {
        /// The method.
        method: Method,
        /// The headers.
        headers: HeaderMap,
    },
}

/// One probe: a request, and what it should give.
#[derive(Clone, Debug)]
pub(crate) struct Case {
    /// A short name, such as `get` or `allowed-origin-as-prefix get-credentials`.
    pub(crate) name: String,
    /// The request, described for the table: `GET from https://app.example, credentials`.
    pub(crate) description: String,
    /// The request.
    pub(crate) probe: Probe,
    /// What it should give.
    pub(crate) expectation: Expectation,
    /// How its origin was made, for hostile cases.
    pub(crate) hostility: Option<Hostility>,
}

/// The resource probed, as the cases need it.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    /// The methods the resource answers: those of `Allow`, or the route's.
    pub(crate) methods: Vec<Method>,
    /// The method of the declared origin's simple requests (`GET`, or a route's `POST`), if
    /// the resource answers one.
    pub(crate) simple: Option<Method>,
    /// Whether the declared origins should read the answers (the route has CORS).
    pub(crate) expects_cors: bool,
}

/// The name of the header of the request made to see whether preflight answers depend on
/// `Access-Control-Request-Headers`.
pub(crate) const COMPARE_HEADER: &str = "x-cors-audit-compare";

/// The name of the case that preflights with [`COMPARE_HEADER`] alone.
pub(crate) const COMPARE_CASE: &str = "request-headers-compare";

fn invalid(error: impl std::fmt::Display) -> AuditError {
    AuditError::InvalidRequest(error.to_string())
}

/// Builds the cases of one target.
struct Builder<'a> {
    config: &'a AuditConfig,
    declared: &'a Declared,
    target: &'a Target,
    cases: Vec<Case>,
}

/// Every case for `target`.
pub(crate) fn cases(
    config: &AuditConfig,
    declared: &Declared,
    target: &Target,
) -> Result<Vec<Case>, AuditError> {
    let mut builder = Builder {
        config,
        declared,
        target,
        cases: Vec::new(),
    };
    builder.not_cors()?;
    builder.declared_requests()?;
    builder.hostile_requests()?;
    builder.special_characters()?;
    builder.beyond_cors()?;
    Ok(builder.cases)
}

impl Builder<'_> {
    /// The method of simple requests from hostile origins.
    fn simple(&self) -> Method {
        self.target.simple.clone().unwrap_or(Method::GET)
    }

    /// The method the preflighted requests use: the first the resource answers that is not
    /// `GET`, `HEAD` or `OPTIONS`, else `GET` (preflighted by the pages' headers).
    fn preflighted(&self) -> Method {
        self.target
            .methods
            .iter()
            .find(|m| !matches!(**m, Method::GET | Method::HEAD | Method::OPTIONS))
            .cloned()
            .unwrap_or(Method::GET)
    }

    fn script(
        &self,
        origin: &str,
        method: &Method,
        headers: bool,
        credentials: bool,
    ) -> Result<ScriptRequest, AuditError> {
        let mut request = ScriptRequest::new(origin, method.as_str()).map_err(invalid)?;
        if headers {
            for name in &self.config.headers {
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
        Ok(request)
    }

    fn push_script(
        &mut self,
        request: ScriptRequest,
        prefix: &str,
        expectation: Expectation,
        hostility: Option<Hostility>,
    ) {
        let name = case_name(prefix, &request);
        if self.cases.iter().any(|c| c.name == name) {
            return;
        }
        self.cases.push(Case {
            name,
            description: describe(&request),
            probe: Probe::Script(request),
            expectation,
            hostility,
        });
    }

    fn push_raw(
        &mut self,
        name: String,
        description: String,
        (method, headers): (Method, HeaderMap),
        expectation: Expectation,
        hostility: Option<Hostility>,
    ) {
        self.cases.push(Case {
            name,
            description,
            probe: Probe::Raw { method, headers },
            expectation,
            hostility,
        });
    }

    /// What the server answers without `Origin`, and to an `OPTIONS` that is not a preflight.
    fn not_cors(&mut self) -> Result<(), AuditError> {
        let method = self.simple();
        let model = self.declared.model().to_owned();
        self.push_raw(
            "not-cors".to_owned(),
            format!("{method} without Origin"),
            (method, HeaderMap::new()),
            Expectation::Shown,
            None,
        );
        let headers = raw_headers(&[("origin", &model)])?;
        self.push_raw(
            "options-with-origin".to_owned(),
            format!("OPTIONS from {model}, not a preflight"),
            (Method::OPTIONS, headers),
            Expectation::Shown,
            None,
        );
        Ok(())
    }

    /// The requests of the pages, from the declared origins.
    fn declared_requests(&mut self) -> Result<(), AuditError> {
        let expectation = if self.target.expects_cors {
            Expectation::Readable
        } else {
            Expectation::NotReadable
        };
        let model = self.declared.model().to_owned();
        let mut requests = Vec::new();
        if let Some(simple) = &self.target.simple {
            requests.push(self.script(&model, simple, false, false)?);
        }
        for method in &self.target.methods {
            if !matches!(*method, Method::OPTIONS | Method::HEAD) {
                requests.push(self.script(&model, method, true, false)?);
            }
        }
        if self.config.credentials {
            if let Some(simple) = &self.target.simple {
                requests.push(self.script(&model, simple, false, true)?);
            }
            // A credentialed preflight where the resource answers a method that needs one
            // anyway; a credentialed `GET` with made-up headers is not what pages send.
            let preflighted = self.preflighted();
            if preflighted != Method::GET {
                requests.push(self.script(&model, &preflighted, true, true)?);
            }
        }
        for request in requests {
            self.push_script(request, "", expectation, None);
        }
        for (i, other) in self.declared.others().to_vec().iter().enumerate() {
            let request = match &self.target.simple {
                Some(simple) => self.script(other, simple, false, false)?,
                None => self.script(other, &self.preflighted(), true, false)?,
            };
            self.push_script(request, &format!("declared-{}", i + 2), expectation, None);
        }
        // The same preflight with another header list: whether the answers depend on it.
        let compare = self
            .script(&model, &self.preflighted(), false, false)?
            .header(COMPARE_HEADER, "1")
            .map_err(invalid)?;
        let description = describe(&compare);
        self.cases.push(Case {
            name: COMPARE_CASE.to_owned(),
            description,
            probe: Probe::Script(compare),
            expectation: Expectation::Shown,
            hostility: None,
        });
        Ok(())
    }

    /// Every hostile origin, as a simple request and a preflighted one, each without and with
    /// credentials.
    fn hostile_requests(&mut self) -> Result<(), AuditError> {
        let (simple, preflighted) = (self.simple(), self.preflighted());
        for (hostility, origin) in self.declared.hostile().to_vec() {
            for credentials in [false, true] {
                let request = self.script(&origin, &simple, false, credentials)?;
                self.push_script(
                    request,
                    hostility.name(),
                    Expectation::NotReadable,
                    Some(hostility),
                );
                let request = self.script(&origin, &preflighted, true, credentials)?;
                if request.needs_preflight() {
                    self.push_script(
                        request,
                        hostility.name(),
                        Expectation::NotReadable,
                        Some(hostility),
                    );
                }
            }
        }
        Ok(())
    }

    /// Malformed look-alikes, sent raw with the cookie.
    fn special_characters(&mut self) -> Result<(), AuditError> {
        let method = self.simple();
        let labels = ["backtick", "underscore", "percent"];
        for (label, origin) in labels.into_iter().zip(self.declared.special().to_vec()) {
            let headers = raw_headers(&[("origin", &origin), ("cookie", &self.config.cookie)])?;
            self.push_raw(
                format!("special-characters {label}"),
                format!("{method} from {origin} (malformed, sent raw), cookie"),
                (method.clone(), headers),
                Expectation::NotReadable,
                Some(Hostility::SpecialCharacters),
            );
        }
        Ok(())
    }

    /// A cross-site form `POST` (when the pages send credentials, which make it a forgery)
    /// and a WebSocket handshake, from an unrelated site.
    fn beyond_cors(&mut self) -> Result<(), AuditError> {
        let Some((_, hostile)) = self
            .declared
            .hostile()
            .iter()
            .find(|(h, _)| *h == Hostility::Arbitrary)
            .cloned()
        else {
            return Ok(());
        };
        let cookie = self.config.cookie.clone();
        if self.config.credentials && self.target.methods.contains(&Method::POST) {
            let form = "application/x-www-form-urlencoded";
            let mut fields = vec![
                ("origin", hostile.as_str()),
                ("content-type", form),
                ("cookie", cookie.as_str()),
                ("sec-fetch-site", "cross-site"),
            ];
            self.push_raw(
                "cross-site-form-post".to_owned(),
                format!("form POST from {hostile}, Sec-Fetch-Site: cross-site, cookie"),
                (Method::POST, raw_headers(&fields)?),
                Expectation::NotHandled,
                Some(Hostility::Arbitrary),
            );
            fields.pop();
            self.push_raw(
                "cross-site-form-post without-sec-fetch-site".to_owned(),
                format!("form POST from {hostile}, no Sec-Fetch-Site (older browsers), cookie"),
                (Method::POST, raw_headers(&fields)?),
                Expectation::NotHandled,
                Some(Hostility::Arbitrary),
            );
        }
        if self.target.methods.contains(&Method::GET) || self.target.methods.is_empty() {
            let fields = [
                ("origin", hostile.as_str()),
                ("connection", "Upgrade"),
                ("upgrade", "websocket"),
                ("sec-websocket-version", "13"),
                ("sec-websocket-key", "Y29ycy1hdWRpdCBwcm9iZQ=="),
                ("cookie", cookie.as_str()),
            ];
            self.push_raw(
                "websocket-handshake".to_owned(),
                format!("WebSocket handshake from {hostile}, cookie"),
                (Method::GET, raw_headers(&fields)?),
                Expectation::NotUpgraded,
                Some(Hostility::Arbitrary),
            );
        }
        Ok(())
    }
}

/// Headers from names and values the audit writes itself or checked before.
fn raw_headers(fields: &[(&'static str, &str)]) -> Result<HeaderMap, AuditError> {
    let mut headers = HeaderMap::new();
    for (name, value) in fields {
        let value = HeaderValue::from_str(value).map_err(|_| {
            AuditError::InvalidRequest(format!("`{value}` cannot be sent as `{name}`"))
        })?;
        headers.insert(HeaderName::from_static(name), value);
    }
    Ok(headers)
}

fn describe(request: &ScriptRequest) -> String {
    let origin = String::from_utf8_lossy(request.origin().as_bytes());
    let mut text = format!("{} from {origin}", request.method());
    let names = request.unsafe_header_names();
    if !names.is_empty() {
        let names: Vec<&str> = names.iter().map(HeaderName::as_str).collect();
        text.push_str(&format!(" with {}", names.join(", ")));
    }
    if request.credentials_mode() == CredentialsMode::Include {
        text.push_str(", credentials");
    }
    text
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

#[cfg(test)]
mod tests {
    use super::*;

    fn names(config: &AuditConfig, target: &Target) -> Vec<String> {
        let declared = Declared::compile(&config.origins).unwrap();
        cases(config, &declared, target)
            .unwrap()
            .into_iter()
            .map(|c| c.name)
            .collect()
    }

    #[test]
    fn every_hostile_origin_is_simple_preflighted_and_credentialed() {
        let config = AuditConfig::new("http://127.0.0.1:1/items", "https://app.example");
        let target = Target {
            methods: vec![Method::GET, Method::POST],
            simple: Some(Method::GET),
            expects_cors: true,
        };
        let names = names(&config, &target);
        for kind in ["arbitrary-origin", "scheme-downgrade", "null-origin"] {
            for variant in [
                "get",
                "get-credentials",
                "post-preflighted",
                "post-preflighted-credentials",
            ] {
                let name = format!("{kind} {variant}");
                assert!(names.contains(&name), "{name} in {names:?}");
            }
        }
        assert!(names.contains(&"websocket-handshake".to_owned()));
        assert!(
            !names.iter().any(|n| n.starts_with("cross-site-form-post")),
            "no form without credentials: {names:?}"
        );
    }

    #[test]
    fn a_route_without_a_simple_method_gets_no_simple_request_from_the_declared_origin() {
        let mut config = AuditConfig::new("http://127.0.0.1:1", "https://app.example");
        config.credentials = true;
        let target = Target {
            methods: vec![Method::DELETE],
            simple: None,
            expects_cors: true,
        };
        let names = names(&config, &target);
        assert!(
            names.contains(&"delete-preflighted".to_owned()),
            "{names:?}"
        );
        assert!(
            names.contains(&"delete-preflighted-credentials".to_owned()),
            "{names:?}"
        );
        assert!(!names.contains(&"get".to_owned()), "{names:?}");
        // Hostile simple requests still go out, as GET: a reflection shows on any answer.
        assert!(
            names.contains(&"arbitrary-origin get".to_owned()),
            "{names:?}"
        );
        assert!(
            !names.contains(&"websocket-handshake".to_owned()),
            "{names:?}"
        );
    }
}
