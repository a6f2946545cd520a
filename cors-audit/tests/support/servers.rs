//! Servers for the audit's tests, on 127.0.0.1 and a port the system picks: misconfigured on
//! purpose with hand-written CORS headers, and correct ones built with cors-axum.

#![allow(dead_code)]

use axum::Router;
use axum::extract::Request;
use axum::extract::ws::WebSocketUpgrade;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use cors_axum::CorsOptions;
use cors_axum::cors::CorsLayer;

/// The origin the pages of the tests are on.
pub(crate) const ALLOWED: &str = "https://app.example";

/// Serves `router` on 127.0.0.1, on a port the system picks; returns the base URL.
pub(crate) async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, router.into_make_service()).await });
    format!("http://127.0.0.1:{port}")
}

/// What a hand-written server adds to an answer, given the request's method and headers and
/// whether it is a preflight (which the server answers itself, 204).
pub(crate) type Headers = fn(&Method, &HeaderMap, bool) -> Vec<(&'static str, String)>;

/// `/items` (GET and POST) behind hand-written CORS headers.
pub(crate) fn hand_written(headers: Headers) -> Router {
    hand_written_with(headers, StatusCode::NO_CONTENT)
}

/// [`hand_written`], with preflights answered `preflight_status`.
pub(crate) fn hand_written_with(headers: Headers, preflight_status: StatusCode) -> Router {
    let items = Router::new().route(
        "/items",
        get(|| async { "items" }).post(|| async { "created" }),
    );
    hand_written_over(items, headers, preflight_status)
}

/// `routes` behind hand-written CORS headers, preflights answered `preflight_status`.
pub(crate) fn hand_written_over(
    routes: Router,
    headers: Headers,
    preflight_status: StatusCode,
) -> Router {
    let middleware = move |request: Request, next: Next| async move {
        let preflight = request.method() == Method::OPTIONS
            && request
                .headers()
                .contains_key("access-control-request-method");
        let add = headers(request.method(), request.headers(), preflight);
        let mut response = if preflight {
            preflight_status.into_response()
        } else {
            next.run(request).await
        };
        for (name, value) in add {
            response
                .headers_mut()
                .append(name, HeaderValue::from_str(&value).unwrap());
        }
        response
    };
    routes.layer(axum::middleware::from_fn(middleware))
}

/// The request's `Origin`, if any.
pub(crate) fn origin(request: &HeaderMap) -> Option<String> {
    request
        .get("origin")
        .map(|o| String::from_utf8_lossy(o.as_bytes()).into_owned())
}

/// The preflight headers of a permissive server: every requested method and header.
pub(crate) fn mirror(
    request: &HeaderMap,
    preflight: bool,
    headers: &mut Vec<(&'static str, String)>,
) {
    if !preflight {
        return;
    }
    for (from, to) in [
        (
            "access-control-request-method",
            "access-control-allow-methods",
        ),
        (
            "access-control-request-headers",
            "access-control-allow-headers",
        ),
    ] {
        if let Some(value) = request.get(from) {
            headers.push((to, value.to_str().unwrap().to_owned()));
        }
    }
}

/// Allows the origins `allowed` says yes to, reflecting them with `Vary: Origin` on every
/// answer.
pub(crate) fn allowing(
    request: &HeaderMap,
    preflight: bool,
    allowed: impl Fn(&str) -> bool,
) -> Vec<(&'static str, String)> {
    let mut headers = vec![("vary", "Origin".to_owned())];
    if let Some(origin) = origin(request).filter(|o| allowed(o)) {
        headers.push(("access-control-allow-origin", origin));
        mirror(request, preflight, &mut headers);
    }
    headers
}

/// Reflects any origin with credentials, but only to requests that carry a cookie; without
/// one, only the allowed origin is granted. Preflights carry no cookie.
pub(crate) fn cookie_gated(
    _: &Method,
    request: &HeaderMap,
    preflight: bool,
) -> Vec<(&'static str, String)> {
    if request.contains_key("cookie") {
        let mut headers = allowing(request, preflight, |_| true);
        headers.push(("access-control-allow-credentials", "true".to_owned()));
        headers
    } else {
        allowing(request, preflight, |o| o == ALLOWED)
    }
}

/// Reflects any origin; with credentials only on `POST` and on preflights.
pub(crate) fn credentials_on_post_and_preflight(
    method: &Method,
    request: &HeaderMap,
    preflight: bool,
) -> Vec<(&'static str, String)> {
    let mut headers = allowing(request, preflight, |_| true);
    if preflight || method == Method::POST {
        headers.push(("access-control-allow-credentials", "true".to_owned()));
    }
    headers
}

/// Allows the allowed origin, with `Vary: Origin` on actual answers but not on preflights.
pub(crate) fn preflight_without_vary(
    _: &Method,
    request: &HeaderMap,
    preflight: bool,
) -> Vec<(&'static str, String)> {
    let mut headers = allowing(request, preflight, |o| o == ALLOWED);
    if preflight {
        headers.retain(|(name, _)| *name != "vary");
    }
    headers
}

/// Allows the allowed origin, with `Vary: Origin` on every answer but those that refuse an
/// origin.
pub(crate) fn refusal_without_vary(
    _: &Method,
    request: &HeaderMap,
    preflight: bool,
) -> Vec<(&'static str, String)> {
    let mut headers = allowing(request, preflight, |o| o == ALLOWED);
    if origin(request).is_some_and(|o| o != ALLOWED) {
        headers.retain(|(name, _)| *name != "vary");
    }
    headers
}

/// The routes of the correct servers: GET and PUT on `/items` (no form can send a PUT), and a
/// `POST /session` when `with_post`.
fn items(with_post: bool) -> Router {
    let router = Router::new().route("/items", get(|| async { "items" }).put(|| async { "put" }));
    if with_post {
        router.route("/session", post(|| async { "signed in" }))
    } else {
        router
    }
}

/// cors-axum's layer with `options` over [`items`].
pub(crate) fn cors_axum(options: CorsOptions, with_post: bool) -> Router {
    items(with_post).layer(CorsLayer::new(options).expect("valid options"))
}

/// A correct policy for every subdomain of `example.com`, with credentials.
pub(crate) fn wildcard_pattern() -> Router {
    cors_axum(
        CorsOptions::new()
            .origin("https://*.example.com")
            .credentials(true),
        false,
    )
}

/// cors-axum's default: any origin, `Access-Control-Allow-Origin: *`.
pub(crate) fn any_origin() -> Router {
    cors_axum(CorsOptions::new(), false)
}

/// A correct policy for [`ALLOWED`] with credentials, and a `POST /session` that a
/// cross-site form reaches.
pub(crate) fn exact_with_form_target() -> Router {
    cors_axum(CorsOptions::new().origin(ALLOWED).credentials(true), true)
}

/// [`exact_with_form_target`] behind a cross-origin protection: unsafe requests that a
/// browser marks cross-site, or whose `Origin` is not the allowed one, get 403.
pub(crate) fn exact_protected() -> Router {
    async fn protect(request: Request, next: Next) -> Response {
        let unsafe_method = !matches!(
            *request.method(),
            Method::GET | Method::HEAD | Method::OPTIONS
        );
        let headers = request.headers();
        let cross_site = headers
            .get("sec-fetch-site")
            .is_some_and(|v| v == "cross-site" || v == "same-site");
        let foreign = origin(headers).is_some_and(|o| o != ALLOWED);
        if unsafe_method && (cross_site || foreign) {
            return StatusCode::FORBIDDEN.into_response();
        }
        next.run(request).await
    }
    items(true)
        .layer(axum::middleware::from_fn(protect))
        .layer(CorsLayer::new(CorsOptions::new().origin(ALLOWED).credentials(true)).unwrap())
}

/// `GET /ws`: a WebSocket endpoint that accepts an upgrade from any origin; `GET /ws-checked`:
/// one that refuses other origins than the allowed one with 403. Both under a correct CORS
/// policy for [`ALLOWED`].
pub(crate) fn websockets() -> Router {
    /// Upgrades any handshake, whatever its origin: the misconfiguration.
    async fn any(
        upgrade: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
    ) -> Response {
        match upgrade {
            Ok(upgrade) => upgrade.on_upgrade(|_socket| async {}),
            Err(_) => "not a handshake".into_response(),
        }
    }
    /// CORS written by hand, right for reading: the allowed origin, with credentials.
    fn allowed_with_credentials(
        _: &Method,
        request: &HeaderMap,
        preflight: bool,
    ) -> Vec<(&'static str, String)> {
        let mut headers = allowing(request, preflight, |o| o == ALLOWED);
        if origin(request).as_deref() == Some(ALLOWED) {
            headers.push(("access-control-allow-credentials", "true".to_owned()));
        }
        if preflight {
            let vary = "Access-Control-Request-Method, Access-Control-Request-Headers";
            headers.push(("vary", vary.to_owned()));
        }
        headers
    }
    async fn checked(upgrade: WebSocketUpgrade) -> Response {
        upgrade.on_upgrade(|_socket| async {})
    }
    let open = Router::new().route("/ws", get(any));
    // cors-axum's layer refuses handshakes from origins its policy does not allow.
    let checked = Router::new()
        .route("/ws-checked", get(checked))
        .layer(CorsLayer::new(CorsOptions::new().origin(ALLOWED).credentials(true)).unwrap());
    hand_written_over(open, allowed_with_credentials, StatusCode::NO_CONTENT).merge(checked)
}
