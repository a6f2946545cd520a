//! Cross-origin request protection: refusing unsafe requests that a browser sends from another
//! origin, unless the CORS policy allows that origin (a defence against cross-site request
//! forgery, after Go 1.25's `http.CrossOriginProtection`).

use http::{HeaderValue, Method};

use crate::error::CorsConfigError;

use crate::header::SEC_FETCH_SITE;
use crate::origin::names_host;
use crate::refusal::Refusal;
use crate::request::{CorsRequest, Lines};

/// Decides on `request` as [`CorsPolicy::cross_origin`](crate::CorsPolicy::cross_origin)
/// describes, the paths of `bypass` let through, `trusted` saying whether the CORS policy
/// allows an origin (asked only about a cross-origin unsafe request's single `Origin`), `host`
/// giving the request's host (asked only when `Origin` is compared with it).
pub(crate) fn check<'a, 'h>(
    request: &CorsRequest<'a>,
    host: impl FnOnce() -> Option<&'h [u8]>,
    bypass: &Bypass,
    trusted: impl FnOnce(&'a HeaderValue) -> bool,
) -> Result<(), Refusal<'a>> {
    // Safe methods change nothing (as long as handlers keep them so): the common case, so the
    // first check and the cheapest. `CONNECT` is a WebSocket handshake over HTTP/2 (RFC 8441;
    // browsers send it for nothing else, and no form or `fetch()` can): decided like the `GET`
    // of HTTP/1.1 it stands for, by the handshake's origin check.
    if matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS | Method::CONNECT
    ) {
        return Ok(());
    }
    if bypass.lets_through(request) {
        return Ok(());
    }
    let origin = request.origin_lines();
    let mut sites = request.headers().get_all(SEC_FETCH_SITE).iter();
    match (sites.next(), sites.next()) {
        // No answer (an empty one too, as in Go): decided by `Origin` below.
        (None, _) => {}
        (Some(site), None) if site.is_empty() => {}
        (Some(site), None) if matches!(site.as_bytes(), b"same-origin" | b"none") => {
            return Ok(());
        }
        // `same-site`, `cross-site`, any other value, or several lines: from another origin.
        (Some(site), _) => {
            return match origin {
                Lines::One(origin) if trusted(origin) => Ok(()),
                _ => Err(Refusal::CrossSiteRequest { site }),
            };
        }
    }
    match origin {
        // Neither header: a client that is not a browser, or a browser's same-origin request
        // of a kind that sends no `Origin`.
        Lines::Absent => Ok(()),
        Lines::Several => Err(Refusal::SeveralOrigins),
        Lines::One(origin) if host().is_some_and(|host| names_host(origin.as_bytes(), host)) => {
            Ok(())
        }
        Lines::One(origin) if trusted(origin) => Ok(()),
        Lines::One(origin) => Err(Refusal::CrossOriginRequest { origin }),
    }
}

/// The paths cross-origin protection lets through
/// ([`CorsOptions::cross_origin_bypass`](crate::CorsOptions::cross_origin_bypass)).
#[derive(Clone, Debug, Default)]
pub(crate) struct Bypass {
    exact: Vec<Box<str>>,
    /// Prefixes with their final `/`: `/webhooks/` for `/webhooks/*`.
    prefixes: Vec<Box<str>>,
}

impl Bypass {
    pub(crate) fn compile(paths: &[String]) -> Result<Self, CorsConfigError> {
        let mut bypass = Bypass::default();
        for path in paths {
            let invalid = |why: &str| {
                CorsConfigError::new(
                    "cross_origin_bypass",
                    Some(path),
                    format!(
                        "`{path}` {why}; write a path such as `/hooks/stripe`, or a prefix ending \
                         in `/*` such as `/webhooks/*`"
                    ),
                )
            };
            if !path.starts_with('/') {
                return Err(invalid("does not start with `/`"));
            }
            if path.contains(['?', '#']) {
                return Err(invalid("has a query or a fragment"));
            }
            match path.strip_suffix('*') {
                Some(prefix) if prefix.ends_with('/') && !prefix.contains('*') => {
                    bypass.prefixes.push(prefix.into());
                }
                None if !path.contains('*') => bypass.exact.push(path.as_str().into()),
                _ => return Err(invalid("has a `*` that is not a final `/*`")),
            }
        }
        Ok(bypass)
    }

    /// No path let through: protection where CORS is off.
    pub(crate) const NONE: Bypass = Bypass {
        exact: Vec::new(),
        prefixes: Vec::new(),
    };

    /// Whether no path is let through.
    pub(crate) fn is_empty(&self) -> bool {
        self.exact.is_empty() && self.prefixes.is_empty()
    }

    /// Whether `request` is let through by its path (a request without its URI is not).
    fn lets_through(&self, request: &CorsRequest<'_>) -> bool {
        if self.is_empty() {
            return false;
        }
        let Some(path) = request.path_as_sent() else {
            return false;
        };
        self.exact.iter().any(|p| **p == *path)
            || self.prefixes.iter().any(|p| path.starts_with(&**p))
    }
}
