//! [`Refusal`]: why a request gets no CORS grant, in one log line.

use std::fmt;

use http::HeaderValue;

/// Most names accepted in one `Access-Control-Request-Headers` list. Browsers send only the
/// non-safelisted headers a script set, a handful in practice.
pub(crate) const MAX_NAMES: usize = 64;

/// Most bytes accepted across all `Access-Control-Request-Headers` lines.
pub(crate) const MAX_TOTAL_LEN: usize = 4096;

/// Why the engine refuses a request, or why a browser will not let the script read its answer.
///
/// Carried by a refused [`PreflightDecision`](crate::PreflightDecision) and
/// [`ActualDecision`](crate::ActualDecision). Values borrow from the request (or from the
/// decision), so a refusal costs no allocation; its [`Display`](fmt::Display) is one line for
/// logs, with request bytes escaped and shortened:
///
/// ```
/// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest, Refusal};
/// use http::{HeaderMap, HeaderValue, Method};
///
/// let policy = CorsPolicy::for_route(
///     &CorsOptions::new().origin("https://example.com"),
///     &[Method::GET, Method::POST],
/// )?;
/// let mut headers = HeaderMap::new();
/// headers.insert("origin", HeaderValue::from_static("https://example.com"));
/// headers.insert("access-control-request-method", HeaderValue::from_static("DELETE"));
/// let request = CorsRequest::new(&Method::OPTIONS, &headers);
/// let decision = policy.preflight(&request);
/// let refusal = decision.refusal().unwrap();
/// assert!(matches!(refusal, Refusal::MethodNotAllowed { method } if method == "DELETE"));
/// assert_eq!(refusal.to_string(), "method `DELETE` is not allowed");
/// # Ok::<(), cors_axum_core::CorsConfigError>(())
/// ```
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal<'a> {
    /// [`CorsPolicy::preflight`](crate::CorsPolicy::preflight) was asked about a request that
    /// is not a preflight ([`RequestKind::Preflight`](crate::RequestKind::Preflight)).
    NotPreflight,
    /// A well-formed origin that the policy does not allow.
    OriginNotAllowed {
        /// The request's `Origin`.
        origin: &'a HeaderValue,
    },
    /// `Origin: null` (sandboxed frames, `file:` pages, redirects) without
    /// [`CorsOptions::allow_null_origin(true)`](crate::CorsOptions::allow_null_origin).
    NullOriginNotEnabled,
    /// More than one `Origin` header line; browsers send one.
    SeveralOrigins,
    /// An `Origin` that is not `scheme://host[:port]` (nor `null`).
    MalformedOrigin {
        /// The request's `Origin`.
        origin: &'a HeaderValue,
    },
    /// The requested method is not among the allowed methods.
    MethodNotAllowed {
        /// The preflight's `Access-Control-Request-Method`.
        method: &'a HeaderValue,
    },
    /// More than one `Access-Control-Request-Method` header line.
    SeveralRequestMethods,
    /// An `Access-Control-Request-Method` that is not a method (an HTTP token).
    MalformedRequestMethod {
        /// The preflight's `Access-Control-Request-Method`.
        method: &'a HeaderValue,
    },
    /// A requested header is not among the allowed headers.
    HeaderNotAllowed {
        /// The first refused name, as the request spells it.
        name: &'a str,
    },
    /// `Access-Control-Request-Headers` lists more names than the engine reads (64).
    TooManyRequestHeaders,
    /// `Access-Control-Request-Headers` is longer than the engine reads (4096 bytes, all
    /// lines together).
    RequestHeadersTooLong,
    /// An element of `Access-Control-Request-Headers` is not a header name.
    MalformedRequestHeaders {
        /// The first malformed element.
        element: &'a [u8],
    },
    /// The origin could not be decided: the asynchronous decision
    /// ([`AllowOrigin::async_predicate`](crate::AllowOrigin::async_predicate)) failed, took too
    /// long, panicked or was not made, or a predicate panicked. Answered as a refusal.
    OriginLookupFailed {
        /// What happened: the lookup's error text, which may repeat request bytes (the origin,
        /// a tenant name), so it is displayed escaped and cut like them.
        reason: &'a str,
    },
    /// `Access-Control-Request-Private-Network: true` without
    /// [`CorsOptions::private_network(true)`](crate::CorsOptions::private_network).
    PrivateNetworkNotEnabled,
    /// The response was made credentialed (a cookie was set) under
    /// [`AllowOrigin::any()`](crate::AllowOrigin::any): it is answered
    /// `Access-Control-Allow-Origin: *` with `Access-Control-Allow-Credentials: true`, which
    /// browsers refuse to expose. Allow the origins explicitly, or opt in to reflecting every
    /// origin with [`AllowOrigin::mirror_request()`](crate::AllowOrigin::mirror_request).
    CredentialsUnderAnyOrigin,
    /// Cross-origin protection ([`CorsPolicy::cross_origin`](crate::CorsPolicy::cross_origin)):
    /// an unsafe request (not `GET`, `HEAD`, `OPTIONS`) whose `Sec-Fetch-Site` says it comes
    /// from another origin (`cross-site`, `same-site`, or any value but `same-origin` and
    /// `none`), from an origin the CORS policy does not allow.
    CrossSiteRequest {
        /// The request's `Sec-Fetch-Site` (the first, if several).
        site: &'a HeaderValue,
    },
    /// Cross-origin protection ([`CorsPolicy::cross_origin`](crate::CorsPolicy::cross_origin)):
    /// an unsafe request without `Sec-Fetch-Site` (an old browser) whose `Origin` is neither
    /// the request's own host nor an origin the CORS policy allows.
    CrossOriginRequest {
        /// The request's `Origin`.
        origin: &'a HeaderValue,
    },
}

/// Request bytes shown in a log line: quoted in backticks, escaped (no control bytes, no line
/// breaks, no backtick) and cut after [`Escaped::MAX`] bytes.
struct Escaped<'a>(&'a [u8]);

impl Escaped<'_> {
    const MAX: usize = 128;
}

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (shown, cut) = match self.0.get(..Self::MAX) {
            Some(head) if self.0.len() > Self::MAX => (head, true),
            _ => (self.0, false),
        };
        // Backticks quote the bytes, so one inside is escaped too: the value cannot seem to end
        // early and be followed by words of its own.
        f.write_str("`")?;
        for (i, part) in shown.split(|&b| b == b'`').enumerate() {
            if i > 0 {
                f.write_str("\\`")?;
            }
            write!(f, "{}", part.escape_ascii())?;
        }
        f.write_str("`")?;
        if cut {
            write!(f, " (cut, {} bytes)", self.0.len())?;
        }
        Ok(())
    }
}

impl fmt::Display for Refusal<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Refusal::NotPreflight => f.write_str("not a preflight request"),
            Refusal::OriginNotAllowed { origin } => {
                write!(f, "origin {} is not allowed", Escaped(origin.as_bytes()))
            }
            Refusal::NullOriginNotEnabled => {
                f.write_str("origin `null` is not allowed without `allow_null_origin(true)`")
            }
            Refusal::SeveralOrigins => f.write_str("several `Origin` headers"),
            Refusal::MalformedOrigin { origin } => {
                write!(f, "malformed origin {}", Escaped(origin.as_bytes()))
            }
            Refusal::MethodNotAllowed { method } => {
                write!(f, "method {} is not allowed", Escaped(method.as_bytes()))
            }
            Refusal::SeveralRequestMethods => {
                f.write_str("several `Access-Control-Request-Method` headers")
            }
            Refusal::MalformedRequestMethod { method } => write!(
                f,
                "malformed `Access-Control-Request-Method`: {} is not a method",
                Escaped(method.as_bytes())
            ),
            Refusal::HeaderNotAllowed { name } => {
                write!(
                    f,
                    "request header {} is not allowed",
                    Escaped(name.as_bytes())
                )
            }
            Refusal::TooManyRequestHeaders => write!(
                f,
                "`Access-Control-Request-Headers` lists more than {MAX_NAMES} names"
            ),
            Refusal::RequestHeadersTooLong => write!(
                f,
                "`Access-Control-Request-Headers` is longer than {MAX_TOTAL_LEN} bytes"
            ),
            Refusal::MalformedRequestHeaders { element } => write!(
                f,
                "malformed `Access-Control-Request-Headers`: {} is not a header name",
                Escaped(element)
            ),
            Refusal::OriginLookupFailed { reason } => write!(
                f,
                "the origin could not be decided: {}",
                Escaped(reason.as_bytes())
            ),
            Refusal::PrivateNetworkNotEnabled => f.write_str(
                "private network access requested but not enabled (`private_network(true)`)",
            ),
            Refusal::CredentialsUnderAnyOrigin => f.write_str(
                "credentials requested under any-origin: answered `*` with credentials, which \
                 browsers refuse; allow explicit origins, or reflect every origin with \
                 `AllowOrigin::mirror_request()`",
            ),
            Refusal::CrossSiteRequest { site } => write!(
                f,
                "cross-origin protection: an unsafe request with `Sec-Fetch-Site` {} from an origin \
                 the CORS policy does not allow",
                Escaped(site.as_bytes())
            ),
            Refusal::CrossOriginRequest { origin } => write!(
                f,
                "cross-origin protection: an unsafe request without `Sec-Fetch-Site` from origin {}, \
                 which is neither the request's host nor allowed by the CORS policy",
                Escaped(origin.as_bytes())
            ),
        }
    }
}

impl std::error::Error for Refusal<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_escapes_and_cuts() {
        let value = HeaderValue::from_bytes(b"https://a.example\t\"x\xff").unwrap();
        assert_eq!(
            Refusal::OriginNotAllowed { origin: &value }.to_string(),
            "origin `https://a.example\\t\\\"x\\xff` is not allowed"
        );
        let long = "a".repeat(300);
        let long = HeaderValue::from_str(&long).unwrap();
        let line = Refusal::MalformedOrigin { origin: &long }.to_string();
        assert_eq!(
            line,
            format!("malformed origin `{}` (cut, 300 bytes)", "a".repeat(128))
        );
    }

    #[test]
    fn every_reason_is_one_line() {
        let value = HeaderValue::from_static("x");
        // A lookup error that repeats what a client sent, with line breaks and no end.
        let reason = format!("no tenant\tfor\r\n`x`\n{}", "y".repeat(500));
        let all = [
            Refusal::NotPreflight,
            Refusal::OriginNotAllowed { origin: &value },
            Refusal::NullOriginNotEnabled,
            Refusal::SeveralOrigins,
            Refusal::MalformedOrigin { origin: &value },
            Refusal::MethodNotAllowed { method: &value },
            Refusal::SeveralRequestMethods,
            Refusal::MalformedRequestMethod { method: &value },
            Refusal::HeaderNotAllowed { name: "x-a" },
            Refusal::TooManyRequestHeaders,
            Refusal::RequestHeadersTooLong,
            Refusal::MalformedRequestHeaders { element: b"a\nb" },
            Refusal::OriginLookupFailed { reason: &reason },
            Refusal::PrivateNetworkNotEnabled,
            Refusal::CredentialsUnderAnyOrigin,
            Refusal::CrossSiteRequest { site: &value },
            Refusal::CrossOriginRequest { origin: &value },
        ];
        let mut lines: Vec<String> = all.iter().map(ToString::to_string).collect();
        for line in &lines {
            assert!(!line.is_empty(), "{line:?}");
            assert!(!line.chars().any(char::is_control), "{line:?}");
            assert!(line.len() < 400, "{} bytes: {line:?}", line.len());
        }
        lines.sort();
        lines.dedup();
        assert_eq!(lines.len(), all.len(), "each reason reads differently");
        assert_eq!(
            Refusal::TooManyRequestHeaders.to_string(),
            "`Access-Control-Request-Headers` lists more than 64 names"
        );
        assert_eq!(
            Refusal::OriginLookupFailed { reason: &reason }.to_string(),
            format!(
                "the origin could not be decided: `no tenant\\tfor\\r\\n\\`x\\`\\n{}` (cut, 519 bytes)",
                "y".repeat(128 - 19)
            )
        );
    }
}
