//! `CorsService`: cookies that browsers accept in a CORS response.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Once, PoisonError};

use axum::extract::FromRequestParts;
use axum::response::{IntoResponse, Response};
use cookie::{Cookie, SameSite};
use cors_axum_core::ActualDecision;
use http::request::Parts;
use http::{HeaderMap, HeaderValue, StatusCode, header};

/// What the CORS handling keeps of a request whose handler may set cookies, until its response:
/// the CORS decision on its origin and what the handler asked for. Shared with `CorsService`
/// through the request's extensions.
#[derive(Debug)]
pub(crate) struct ResponseState {
    decision: ActualDecision,
    cookies: Mutex<Vec<Cookie<'static>>>,
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

    /// The CORS decision on the request, to write into its response.
    pub(crate) fn decision(&self) -> &ActualDecision {
        &self.decision
    }

    /// The cookies handlers set. A handler that panicked while holding the lock left a valid
    /// list behind (a push either happened or not), so a poisoned lock is used as it is.
    fn cookies(&self) -> MutexGuard<'_, Vec<Cookie<'static>>> {
        self.cookies.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends the cookies set by handlers; whether the response is credentialed.
    pub(crate) fn write_cookies(&self, headers: &mut HeaderMap) -> bool {
        let cookies = std::mem::take(&mut *self.cookies());
        for cookie in &cookies {
            match HeaderValue::try_from(cookie.encoded().to_string()) {
                Ok(value) => {
                    headers.append(header::SET_COOKIE, value);
                }
                Err(_) => tracing::error!(
                    cookie = cookie.name(),
                    "cookie dropped: its attributes are not a valid header value"
                ),
            }
        }
        !cookies.is_empty() || self.credentialed.load(Ordering::Relaxed)
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
/// Use [`set_cookie_with`](Self::set_cookie_with) for full control.
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
    /// Adds a cookie named `name` with `value` (percent-encoded as needed) and the default
    /// attributes described above, and makes the response credentialed.
    pub fn set_cookie(&self, name: impl Into<String>, value: impl Into<String>) {
        let mut cookie = Cookie::new(name.into(), value.into());
        cookie.set_path("/");
        cookie.set_http_only(true);
        if self.same_site {
            cookie.set_same_site(SameSite::Lax);
        } else {
            cookie.set_same_site(SameSite::None);
            cookie.set_secure(true);
            cookie.set_partitioned(true);
        }
        self.set_cookie_with(cookie);
    }

    /// Adds `cookie` as it is, and makes the response credentialed.
    pub fn set_cookie_with(&self, cookie: Cookie<'static>) {
        self.request.cookies().push(cookie);
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
            same_site: is_same_host(request.decision(), parts),
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
