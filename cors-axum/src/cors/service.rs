//! `CorsService`: cookies that browsers accept in a CORS response.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Once, PoisonError};

use axum::extract::FromRequestParts;
use axum::response::{IntoResponse, Response};
use cors_axum_core::ActualDecision;
use http::request::Parts;
use http::{HeaderMap, HeaderValue, StatusCode, header};

/// What the CORS handling keeps of a request whose handler may set cookies, until its response:
/// the CORS decision on its origin and what the handler asked for. Shared with `CorsService`
/// through the request's extensions.
#[derive(Debug)]
pub(crate) struct ResponseState {
    /// The CORS decision on the request, to write into its response.
    pub(super) decision: ActualDecision,
    /// The `Set-Cookie` values handlers asked for.
    cookies: Mutex<Vec<HeaderValue>>,
    credentialed: AtomicBool,
}

impl ResponseState {
    /// The state of a request with this decision.
    pub(crate) fn new(decision: ActualDecision) -> Self {
        Self {
            decision,
            cookies: Mutex::new(Vec::new()),
            credentialed: AtomicBool::new(false),
        }
    }

    /// The cookies handlers set. A handler that panicked while holding the lock left a valid
    /// list behind (a push either happened or not), so a poisoned lock is used as it is.
    fn cookies(&self) -> MutexGuard<'_, Vec<HeaderValue>> {
        self.cookies.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends the cookies set by handlers; whether the response is credentialed.
    pub(crate) fn write_cookies(&self, headers: &mut HeaderMap) -> bool {
        let cookies = std::mem::take(&mut *self.cookies());
        let credentialed = !cookies.is_empty();
        for cookie in cookies {
            headers.append(header::SET_COOKIE, cookie);
        }
        credentialed || self.credentialed.load(Ordering::Relaxed)
    }
}

/// Whether a request with this decision comes from its own host (another port is the same
/// site, so `SameSite=Lax` cookies are sent back), or is not CORS.
fn is_same_host(decision: &ActualDecision, parts: &Parts) -> bool {
    if !decision.is_cors() {
        return true;
    }
    let Some(origin_host) = decision.origin_host() else {
        return false;
    };
    // HTTP/1.1 names the host in `Host`, HTTP/2 in the `:authority` of the URI.
    let authority = parts
        .headers
        .get(header::HOST)
        .and_then(|host| host.to_str().ok())
        .and_then(|host| host.parse::<http::uri::Authority>().ok())
        .or_else(|| parts.uri.authority().cloned());
    authority.is_some_and(|authority| authority.host().eq_ignore_ascii_case(origin_host))
}

/// Sets cookies on a CORS response so that browsers accept them.
///
/// An extractor (and an injectable controller field) on routes of a module that imports
/// [`CorsModule`](crate::CorsModule), or behind a [`CorsLayer`](crate::cors::CorsLayer). Setting a
/// cookie makes the response credentialed: `Access-Control-Allow-Credentials: true` and
/// `Access-Control-Allow-Origin` the request's own origin, provided the origin is allowed. Under
/// the default any-origin policy the answer stays `*`, which browsers refuse with credentials:
/// configure the origins (or `AllowOrigin::mirror_request()`) to share credentialed responses.
///
/// Default attributes of [`set_cookie`](Self::set_cookie): `Path=/`, `HttpOnly`, and
/// - `SameSite=Lax` when the request comes from the same host (another port is the same site) or
///   has no `Origin`;
/// - `SameSite=None; Secure; Partitioned` for any other origin. Browsers drop a cookie set by a
///   cross-site response unless it is `SameSite=None`, which requires `Secure` (Chromium accepts
///   `Secure` over HTTPS and from `http://localhost` and `http://127.0.0.1`). Where third-party
///   cookies are blocked (the Chromium tested with a new profile, or by the user's choice),
///   Chromium keeps only `Partitioned` ones
///   ([CHIPS](https://developer.mozilla.org/en-US/docs/Web/Privacy/Guides/Privacy_sandbox/Partitioned_cookies)).
///   A partitioned cookie comes back only on requests made under the same top-level site as the
///   page that received it, which is the CORS case at hand; browsers without CHIPS ignore the
///   attribute and keep an ordinary `SameSite=None` cookie.
///
/// Headless Chromium, Firefox and WebKit prove these defaults same-site and cross-site, over HTTP
/// and HTTPS (`tests/it/browser/`). WebKit keeps no `Secure` cookie over plain HTTP and, by
/// default, no cookie from a cross-site response; the findings per engine and attribute are in
/// `docs/COOKIES.md`.
///
/// For other attributes (`Max-Age`, `Domain`, ...), enable the `cookie` feature and give a
/// `cookie::Cookie` to `set_cookie_with`.
///
/// ```
/// use cors_axum::prelude::*;
///
/// pub struct SecondController;
///
/// #[controller]
/// impl SecondController {
///     #[route("GET", "credentials")]
///     async fn credentials(ctx: RequestContext, cors: CorsService) -> Response {
///         cors.set_cookie("one", "value for one");
///         ctx.send("Here GET request with \"Access-Control-Allow-Credentials: true\" header.\n")
///     }
/// }
/// ```
#[derive(Debug, Clone)]
pub struct CorsService {
    request: Arc<ResponseState>,
    /// Whether the request comes from its own host, decided when the service is extracted.
    same_site: bool,
}

impl CorsService {
    /// Adds a cookie named `name` with `value` and the default attributes described above, and
    /// makes the response credentialed. The name and value are percent-encoded where they hold
    /// bytes a cookie may not (spaces, `;`, `,`, `=`, quotes, controls, non-ASCII), as the
    /// `cookie` crate's `Cookie::encoded` does, so that `Cookie::parse_encoded` reads them back.
    ///
    /// ```
    /// # use cors_axum::CorsService;
    /// # fn handler(cors: CorsService) {
    /// cors.set_cookie("one", "value for one"); // Set-Cookie: one=value%20for%20one; Path=/; ...
    /// # }
    /// ```
    pub fn set_cookie(&self, name: impl AsRef<str>, value: impl AsRef<str>) {
        let attributes = if self.same_site {
            "; Path=/; HttpOnly; SameSite=Lax"
        } else {
            "; Path=/; HttpOnly; SameSite=None; Secure; Partitioned"
        };
        let cookie = format!(
            "{}={}{attributes}",
            Encoded(name.as_ref()),
            Encoded(value.as_ref())
        );
        let cookie = HeaderValue::try_from(cookie).expect("an encoded cookie is a header value");
        self.request.cookies().push(cookie);
    }

    /// Adds `cookie` as it is, and makes the response credentialed (feature `cookie`).
    #[cfg(feature = "cookie")]
    #[cfg_attr(docsrs, doc(cfg(feature = "cookie")))]
    pub fn set_cookie_with(&self, cookie: cookie::Cookie<'_>) {
        match HeaderValue::try_from(cookie.encoded().to_string()) {
            Ok(value) => self.request.cookies().push(value),
            Err(_) => tracing::error!(
                cookie = cookie.name(),
                "cookie dropped: its attributes are not a valid header value"
            ),
        }
    }

    /// Makes the response credentialed without setting a cookie (for example when it depends
    /// on cookies the browser sent).
    pub fn allow_credentials(&self) {
        self.request.credentialed.store(true, Ordering::Relaxed);
    }
}

impl<S: Send + Sync> FromRequestParts<S> for CorsService {
    type Rejection = CorsServiceRejection;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let request = parts
            .extensions
            .get::<Arc<ResponseState>>()
            .ok_or(CorsServiceRejection)?;
        Ok(CorsService {
            same_site: is_same_host(&request.decision, parts),
            request: request.clone(),
        })
    }
}

/// The rejection of [`CorsService`] on a route without CORS handling.
#[derive(Debug, Clone, Copy)]
pub struct CorsServiceRejection;

impl std::fmt::Display for CorsServiceRejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "`CorsService` is used on a route without CORS handling: import `CorsModule` into \
             the route's module, or put a `CorsLayer` on the router",
        )
    }
}

impl std::error::Error for CorsServiceRejection {}

impl IntoResponse for CorsServiceRejection {
    fn into_response(self) -> Response {
        tracing::error!("{self}");
        (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error\n").into_response()
    }
}

/// Logs, once per process, that the any-origin policy answers a credentialed response.
pub(crate) fn warn_any_origin_with_credentials() {
    static WARNED: Once = Once::new();
    WARNED.call_once(|| {
        tracing::warn!(
            "a credentialed response (CorsService::set_cookie) was sent under the default \
             any-origin CORS policy: it is answered `Access-Control-Allow-Origin: *`, which \
             browsers refuse to expose with credentials; configure explicit origins with \
             CorsModule::with_opts(CorsOptions::new().origin(..))"
        );
    });
}

/// A cookie name or value, percent-encoded where it holds a byte outside what the `cookie`
/// crate leaves as it is: controls, non-ASCII, and ``space " # % ( ) , / : ; < = > ? @ [ \ ] ^ ` { | }``.
struct Encoded<'a>(&'a str);

impl std::fmt::Display for Encoded<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for &byte in self.0.as_bytes() {
            let kept = byte.is_ascii_graphic() && !b"\"#%(),/:;<=>?@[\\]^`{|}".contains(&byte);
            if kept {
                write!(f, "{}", byte as char)?;
            } else {
                write!(f, "%{byte:02X}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Encoded;

    #[test]
    fn names_and_values_are_encoded_as_the_cookie_crate_encodes_them() {
        let cases = [
            ("value for one", "value%20for%20one"),
            ("this; value%?", "this%3B%20value%25%3F"),
            ("a=b,c(d)\"e\"", "a%3Db%2Cc%28d%29%22e%22"),
            ("plain-token_1.2~*!$&'+", "plain-token_1.2~*!$&'+"),
            ("é\u{7f}\n", "%C3%A9%7F%0A"),
        ];
        for (raw, encoded) in cases {
            assert_eq!(Encoded(raw).to_string(), encoded, "{raw:?}");
        }
    }
}
