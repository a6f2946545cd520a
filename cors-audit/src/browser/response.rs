//! What a browser checks in the answers: the CORS check, the checks of a CORS-preflight fetch,
//! and which response headers a script sees.

use std::fmt;
use std::time::Duration;

use cors_axum_core::header::ACCESS_CONTROL_ALLOW_PRIVATE_NETWORK;
use http::header::{
    ACCESS_CONTROL_ALLOW_CREDENTIALS, ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS,
    ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE,
    AUTHORIZATION,
};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};

use super::safelist;

/// What the checks read of the request a script made: its origin, method, the headers it set,
/// whether it includes credentials and whether Private Network Access applies.
#[derive(Clone, Copy, Debug)]
pub(super) struct Asked<'a> {
    pub(super) origin: &'a HeaderValue,
    pub(super) method: &'a Method,
    pub(super) headers: &'a HeaderMap,
    pub(super) credentials: bool,
    pub(super) private_network: bool,
}

/// Why a response fails the CORS check: the script may not read it.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CorsCheckFailure {
    /// No `Access-Control-Allow-Origin`.
    MissingAllowOrigin,
    /// More than one `Access-Control-Allow-Origin` line (read together they match nothing).
    SeveralAllowOrigins,
    /// `Access-Control-Allow-Origin: *` on a request with credentials.
    WildcardWithCredentials,
    /// `Access-Control-Allow-Origin` is not the request's origin, byte for byte.
    AllowOriginMismatch {
        /// The response's value.
        allowed: HeaderValue,
        /// The request's origin.
        origin: HeaderValue,
    },
    /// A request with credentials, and `Access-Control-Allow-Credentials` is not exactly
    /// `true` (case-sensitive, one line).
    AllowCredentialsNotTrue {
        /// The response's value, its lines joined by `, `; `None` when absent.
        found: Option<String>,
    },
}

impl fmt::Display for CorsCheckFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CorsCheckFailure::MissingAllowOrigin => {
                f.write_str("no `Access-Control-Allow-Origin` header")
            }
            CorsCheckFailure::SeveralAllowOrigins => {
                f.write_str("several `Access-Control-Allow-Origin` headers")
            }
            CorsCheckFailure::WildcardWithCredentials => {
                f.write_str("`Access-Control-Allow-Origin: *` on a request with credentials")
            }
            CorsCheckFailure::AllowOriginMismatch { allowed, origin } => write!(
                f,
                "`Access-Control-Allow-Origin: {}` is not the origin `{}`",
                allowed.as_bytes().escape_ascii(),
                origin.as_bytes().escape_ascii()
            ),
            CorsCheckFailure::AllowCredentialsNotTrue { found: None } => f.write_str(
                "no `Access-Control-Allow-Credentials: true` on a request with credentials",
            ),
            CorsCheckFailure::AllowCredentialsNotTrue { found: Some(found) } => write!(
                f,
                "`Access-Control-Allow-Credentials: {}` is not `true` on a request with credentials",
                found.escape_debug()
            ),
        }
    }
}

impl std::error::Error for CorsCheckFailure {}

/// Why a browser refuses a preflight's answer (and does not send the actual request).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreflightFailure {
    /// The answer fails the CORS check.
    Cors(CorsCheckFailure),
    /// The status is not an ok status (200 to 299).
    NotOkStatus(StatusCode),
    /// `Access-Control-Allow-Methods` is not a comma-separated list of methods.
    MalformedAllowMethods,
    /// `Access-Control-Allow-Headers` is not a comma-separated list of header names.
    MalformedAllowHeaders,
    /// The request's method is not CORS-safelisted and the answer does not allow it.
    MethodNotAllowed {
        /// The request's method.
        method: Method,
        /// Whether the answer has `*`, which counts only without credentials.
        wildcard_with_credentials: bool,
    },
    /// A header the script set is not allowed by the answer.
    HeaderNotAllowed {
        /// The header's name.
        name: HeaderName,
        /// Whether the answer has `*`, which covers neither `Authorization` nor any name on a
        /// request with credentials.
        wildcard_ignored: bool,
    },
    /// Private Network Access applies and the answer lacks
    /// `Access-Control-Allow-Private-Network: true`.
    PrivateNetworkNotAllowed,
}

impl fmt::Display for PreflightFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PreflightFailure::Cors(failure) => failure.fmt(f),
            PreflightFailure::NotOkStatus(status) => {
                write!(
                    f,
                    "the preflight answer's status {status} is not an ok status"
                )
            }
            PreflightFailure::MalformedAllowMethods => {
                f.write_str("`Access-Control-Allow-Methods` is not a list of methods")
            }
            PreflightFailure::MalformedAllowHeaders => {
                f.write_str("`Access-Control-Allow-Headers` is not a list of header names")
            }
            PreflightFailure::MethodNotAllowed {
                method,
                wildcard_with_credentials,
            } => {
                write!(
                    f,
                    "the preflight answer does not allow the method `{method}`"
                )?;
                if *wildcard_with_credentials {
                    f.write_str(" (`*` counts only without credentials)")?;
                }
                Ok(())
            }
            PreflightFailure::HeaderNotAllowed {
                name,
                wildcard_ignored,
            } => {
                write!(f, "the preflight answer does not allow the header `{name}`")?;
                if *wildcard_ignored {
                    if *name == AUTHORIZATION {
                        f.write_str(" (`*` does not cover `authorization`)")?;
                    } else {
                        f.write_str(" (`*` counts only without credentials)")?;
                    }
                }
                Ok(())
            }
            PreflightFailure::PrivateNetworkNotAllowed => f.write_str(
                "no `Access-Control-Allow-Private-Network: true` on a private network preflight",
            ),
        }
    }
}

impl std::error::Error for PreflightFailure {}

/// A preflight answer the browser accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PreflightAccepted {
    max_age: u64,
}

impl PreflightAccepted {
    /// How long the browser may reuse the answer: `Access-Control-Max-Age`, or 5 seconds when
    /// it is absent or not one number (before the browser's own cap, 2 hours in Chromium).
    pub fn max_age(&self) -> Duration {
        Duration::from_secs(self.max_age)
    }
}

/// A response the script may read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadableResponse {
    exposed: Vec<HeaderName>,
}

impl ReadableResponse {
    /// The names of the response's headers the script sees (`response.headers`): the
    /// CORS-safelisted response headers (`Cache-Control`, `Content-Language`, `Content-Length`,
    /// `Content-Type`, `Expires`, `Last-Modified`, `Pragma`) and those
    /// `Access-Control-Expose-Headers` lists (every name for `*` without credentials), never
    /// `Set-Cookie`; sorted, each once.
    pub fn exposed_headers(&self) -> &[HeaderName] {
        &self.exposed
    }

    /// Whether the script sees the header `name` (case-insensitive), if the response has it.
    pub fn is_exposed(&self, name: &str) -> bool {
        self.exposed
            .iter()
            .any(|n| n.as_str().eq_ignore_ascii_case(name))
    }
}

/// The value of a header that may appear once, as Fetch "gets" it: `None` when absent, its
/// lines joined by `, ` otherwise.
fn get(headers: &HeaderMap, name: &HeaderName) -> Option<Vec<u8>> {
    let mut joined: Option<Vec<u8>> = None;
    for value in headers.get_all(name) {
        let joined = joined.get_or_insert_with(Vec::new);
        if !joined.is_empty() {
            joined.extend_from_slice(b", ");
        }
        joined.extend_from_slice(value.as_bytes());
    }
    joined
}

/// The CORS check of a response (preflight or actual) for `request`.
pub(super) fn cors_check(request: Asked<'_>, headers: &HeaderMap) -> Result<(), CorsCheckFailure> {
    let mut lines = headers.get_all(ACCESS_CONTROL_ALLOW_ORIGIN).iter();
    let allowed = match (lines.next(), lines.next()) {
        (None, _) => return Err(CorsCheckFailure::MissingAllowOrigin),
        (Some(_), Some(_)) => return Err(CorsCheckFailure::SeveralAllowOrigins),
        (Some(allowed), None) => allowed,
    };
    let credentials = request.credentials;
    if allowed == "*" {
        return if credentials {
            Err(CorsCheckFailure::WildcardWithCredentials)
        } else {
            Ok(())
        };
    }
    if allowed.as_bytes() != request.origin.as_bytes() {
        return Err(CorsCheckFailure::AllowOriginMismatch {
            allowed: allowed.clone(),
            origin: request.origin.clone(),
        });
    }
    if !credentials {
        return Ok(());
    }
    match get(headers, &ACCESS_CONTROL_ALLOW_CREDENTIALS) {
        Some(value) if value == b"true" => Ok(()),
        found => Err(CorsCheckFailure::AllowCredentialsNotTrue {
            found: found.map(|v| String::from_utf8_lossy(&v).into_owned()),
        }),
    }
}

/// The elements of a `#token` list across all lines of `name` (empty elements skipped), or
/// `None` when an element is not a token.
fn token_list<'a>(headers: &'a HeaderMap, name: &HeaderName) -> Option<Vec<&'a [u8]>> {
    let mut elements = Vec::new();
    for line in headers.get_all(name) {
        for element in line.as_bytes().split(|&b| b == b',') {
            let element = element.trim_ascii();
            if element.is_empty() {
                continue;
            }
            if !safelist::is_token(element) {
                return None;
            }
            elements.push(element);
        }
    }
    Some(elements)
}

/// The checks of a CORS-preflight fetch on its answer.
pub(super) fn check_preflight(
    request: Asked<'_>,
    status: StatusCode,
    headers: &HeaderMap,
) -> Result<PreflightAccepted, PreflightFailure> {
    cors_check(request, headers).map_err(PreflightFailure::Cors)?;
    if !status.is_success() {
        return Err(PreflightFailure::NotOkStatus(status));
    }
    let methods = token_list(headers, &ACCESS_CONTROL_ALLOW_METHODS)
        .ok_or(PreflightFailure::MalformedAllowMethods)?;
    let names = token_list(headers, &ACCESS_CONTROL_ALLOW_HEADERS)
        .ok_or(PreflightFailure::MalformedAllowHeaders)?;
    let credentials = request.credentials;

    let method = request.method.as_str().as_bytes();
    let methods_star = methods.contains(&&b"*"[..]);
    if !methods.contains(&method)
        && !safelist::is_safelisted_method(request.method)
        && (credentials || !methods_star)
    {
        return Err(PreflightFailure::MethodNotAllowed {
            method: request.method.clone(),
            wildcard_with_credentials: methods_star,
        });
    }

    let names_star = names.contains(&&b"*"[..]);
    let listed = |name: &HeaderName| names.iter().any(|n| n.eq_ignore_ascii_case(name.as_ref()));
    if request.headers.contains_key(AUTHORIZATION) && !listed(&AUTHORIZATION) {
        return Err(PreflightFailure::HeaderNotAllowed {
            name: AUTHORIZATION,
            wildcard_ignored: names_star,
        });
    }
    for name in safelist::unsafe_names(request.headers) {
        if !listed(&name) && (credentials || !names_star) {
            return Err(PreflightFailure::HeaderNotAllowed {
                name,
                wildcard_ignored: names_star,
            });
        }
    }

    if request.private_network
        && get(headers, &ACCESS_CONTROL_ALLOW_PRIVATE_NETWORK).as_deref() != Some(b"true")
    {
        return Err(PreflightFailure::PrivateNetworkNotAllowed);
    }

    let mut max_age = headers.get_all(ACCESS_CONTROL_MAX_AGE).iter();
    let max_age = match (max_age.next(), max_age.next()) {
        (Some(value), None)
            if !value.is_empty() && value.as_bytes().iter().all(u8::is_ascii_digit) =>
        {
            value.as_bytes().iter().fold(0u64, |n, &d| {
                n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
            })
        }
        _ => 5,
    };
    Ok(PreflightAccepted { max_age })
}

/// The headers of a response that passed the CORS check that the script sees.
pub(super) fn readable(request: Asked<'_>, headers: &HeaderMap) -> ReadableResponse {
    const SAFELISTED: [&str; 7] = [
        "cache-control",
        "content-language",
        "content-length",
        "content-type",
        "expires",
        "last-modified",
        "pragma",
    ];
    // A list that is not a list of names exposes nothing beyond the safelisted headers.
    let listed = token_list(headers, &ACCESS_CONTROL_EXPOSE_HEADERS).unwrap_or_default();
    let all = !request.credentials && listed.contains(&&b"*"[..]);
    let mut exposed: Vec<HeaderName> = headers
        .keys()
        .filter(|name| {
            let forbidden = *name == "set-cookie" || *name == "set-cookie2";
            SAFELISTED.contains(&name.as_str())
                || (!forbidden
                    && (all || listed.iter().any(|l| l.eq_ignore_ascii_case(name.as_ref()))))
        })
        .cloned()
        .collect();
    exposed.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    ReadableResponse { exposed }
}
