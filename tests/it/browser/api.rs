//! The API under test, and the log of what its server received.

use std::sync::{Arc, Mutex};

use axum::Extension;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use cookie::{Cookie, SameSite};
use cors_axum::prelude::*;

/// The API's CORS options: pages served from `127.0.0.1` or `localhost`, over HTTP or HTTPS, on any
/// port (the tests pick ports at run time), two allowed request headers, one exposed response
/// header. Credentials are not allowed by default: `CorsService` turns them on per response.
pub(crate) fn api_cors() -> CorsOptions {
    CorsOptions::new()
        .origin(AllowOrigin::predicate(is_loopback_page))
        .allow_headers(["content-type", "x-pingother"])
        .expose_headers(["x-request-id"])
}

/// `http://127.0.0.1:<port>` or `http://localhost:<port>`, or the same with `https://`.
pub(crate) fn is_loopback_page(origin: &HeaderValue) -> bool {
    let Some(rest) = origin.to_str().ok().and_then(|o| {
        o.strip_prefix("http://")
            .or_else(|| o.strip_prefix("https://"))
    }) else {
        return false;
    };
    let Some((host, port)) = rest.rsplit_once(':') else {
        return false;
    };
    matches!(host, "127.0.0.1" | "localhost") && port.parse::<u16>().is_ok()
}

/// `/items`: every method, echoing the body.
pub(crate) struct ItemsController;

#[controller("items")]
impl ItemsController {
    #[route("GET")]
    async fn list(ctx: RequestContext) -> Response {
        ctx.send("items")
    }

    #[route("POST")]
    async fn create(ctx: RequestContext, body: String) -> Response {
        ctx.send(format!("created {body}"))
    }

    #[route("PUT")]
    async fn replace(ctx: RequestContext, body: String) -> Response {
        ctx.send(format!("replaced {body}"))
    }

    #[route("PATCH")]
    async fn update(ctx: RequestContext, body: String) -> Response {
        ctx.send(format!("patched {body}"))
    }

    #[route("DELETE")]
    async fn remove(ctx: RequestContext) -> Response {
        ctx.send("deleted")
    }
}

/// `/headers`: one exposed and one unexposed response header; `/cached` and `/uncached`: a
/// non-simple method under a long and a zero preflight max-age.
pub(crate) struct MiscController;

#[controller]
impl MiscController {
    #[route("GET", "headers")]
    async fn headers() -> Response {
        (
            [("x-request-id", "req-42"), ("x-internal", "secret")],
            "headers",
        )
            .into_response()
    }

    #[route("PUT", "cached", cors = CorsOptions::new().max_age(600))]
    async fn cached() -> &'static str {
        "cached"
    }

    #[route("PUT", "uncached", cors = CorsOptions::new().max_age(0))]
    async fn uncached() -> &'static str {
        "uncached"
    }
}

/// `/session`: a cookie with `set_cookie`'s defaults; `/session/check`: what came back.
pub(crate) struct SessionController;

#[controller("session")]
impl SessionController {
    #[route("GET")]
    async fn start(ctx: RequestContext, cors: CorsService) -> Response {
        cors.set_cookie("session", "abc 123");
        ctx.send("session started")
    }

    #[route("GET", "check")]
    async fn check(
        ctx: RequestContext,
        headers: HeaderMap,
        cors: CorsService,
        Extension(wire): Extension<Arc<Wire>>,
    ) -> Response {
        cookies_seen(&ctx, &headers, &cors, &wire, "/session/check")
    }
}

/// `/cookies/set/{variant}`: one cookie per attribute combination; `/cookies/check`: which of
/// them came back.
pub(crate) struct CookieLabController;

#[controller("cookies")]
impl CookieLabController {
    #[route("GET", "set/{variant}")]
    async fn set(ctx: RequestContext, cors: CorsService) -> Response {
        let variant = ctx.param("variant").unwrap_or_default();
        if variant == "default" {
            cors.set_cookie("lab_default", "1");
        } else if let Some(cookie) = lab_cookie(variant) {
            cors.set_cookie_with(cookie);
        } else {
            return (StatusCode::NOT_FOUND, "unknown variant").into_response();
        }
        ctx.send(format!("set {variant}"))
    }

    #[route("GET", "check")]
    async fn check(
        ctx: RequestContext,
        headers: HeaderMap,
        cors: CorsService,
        Extension(wire): Extension<Arc<Wire>>,
    ) -> Response {
        cookies_seen(&ctx, &headers, &cors, &wire, "/cookies/check")
    }
}

rest_root_module! {
    /// The API of the browser tests.
    pub(crate) struct ApiModule {
        imports: [CorsModule::with_opts(api_cors())],
        controllers: [ItemsController, MiscController, SessionController, CookieLabController],
    }
}

/// The answer of a cookie check at `path`: the `Cookie` header the handler received, recorded
/// on the wire and sent back in a credentialed response.
fn cookies_seen(
    ctx: &RequestContext,
    headers: &HeaderMap,
    cors: &CorsService,
    wire: &Wire,
    path: &'static str,
) -> Response {
    let cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join("; ");
    wire.handler_saw(path, &cookie);
    cors.allow_credentials();
    ctx.send(format!("cookie: {cookie}"))
}

/// The attribute combinations of the cookie cases, as in `docs/COOKIES.md`. `default` is
/// `CorsService::set_cookie`; all the others also have `Path=/; HttpOnly`.
pub(crate) const COOKIE_VARIANTS: &[(&str, &str)] = &[
    (
        "default",
        "**`set_cookie` defaults** (same host: `SameSite=Lax`; other host: `SameSite=None; Secure; Partitioned`)",
    ),
    ("unspecified", "no `SameSite`"),
    ("lax", "`SameSite=Lax`"),
    ("strict", "`SameSite=Strict`"),
    ("none", "`SameSite=None` without `Secure`"),
    ("none_secure", "`SameSite=None; Secure`"),
    ("lax_secure", "`SameSite=Lax; Secure`"),
    (
        "none_secure_partitioned",
        "`SameSite=None; Secure; Partitioned`",
    ),
];

fn lab_cookie(variant: &str) -> Option<Cookie<'static>> {
    let mut cookie = Cookie::new(format!("lab_{variant}"), "1");
    cookie.set_path("/");
    cookie.set_http_only(true);
    match variant {
        "unspecified" => {}
        "lax" => cookie.set_same_site(SameSite::Lax),
        "strict" => cookie.set_same_site(SameSite::Strict),
        "none" => {
            cookie.set_same_site(SameSite::None);
            // The `cookie` crate adds `Secure` to `SameSite=None` unless told not to.
            cookie.set_secure(false);
        }
        "none_secure" => {
            cookie.set_same_site(SameSite::None);
            cookie.set_secure(true);
        }
        "lax_secure" => {
            cookie.set_same_site(SameSite::Lax);
            cookie.set_secure(true);
        }
        "none_secure_partitioned" => {
            cookie.set_same_site(SameSite::None);
            cookie.set_secure(true);
            cookie.set_partitioned(true);
        }
        _ => return None,
    }
    Some(cookie)
}

// ---------------------------------------------------------------------------------------------
// What the API server received.
// ---------------------------------------------------------------------------------------------

/// The API server's log: every request as it arrived, with the status of its answer, and what
/// the handlers that record themselves saw.
#[derive(Debug, Default)]
pub(crate) struct Wire {
    requests: Mutex<Vec<Received>>,
    handlers: Mutex<Vec<(&'static str, String)>>,
}

/// One request as the API server received it.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    pub(crate) method: String,
    pub(crate) target: String,
    pub(crate) origin: Option<String>,
    pub(crate) preflight: bool,
    pub(crate) cookie: Option<String>,
    /// `Sec-Fetch-Site`: what the browser says of the page's relation to the API.
    pub(crate) sec_fetch_site: Option<String>,
    /// The status of the answer, once it was given (`101` for a WebSocket that upgraded).
    pub(crate) status: Option<u16>,
}

impl Wire {
    /// Records that `handler` ran and what it saw (a `Cookie` header, a query).
    pub(crate) fn handler_saw(&self, handler: &'static str, what: &str) {
        lock(&self.handlers).push((handler, what.to_owned()));
    }

    /// What `handler` saw, each time it ran, in order.
    pub(crate) fn seen_by(&self, handler: &str) -> Vec<String> {
        lock(&self.handlers)
            .iter()
            .filter(|(h, _)| *h == handler)
            .map(|(_, what)| what.clone())
            .collect()
    }

    /// The requests with `method` to `target` (path and query), preflights aside.
    pub(crate) fn received(&self, method: &str, target: &str) -> Vec<Received> {
        self.requests()
            .into_iter()
            .filter(|r| !r.preflight && r.method == method && r.target == target)
            .collect()
    }

    pub(crate) fn requests(&self) -> Vec<Received> {
        lock(&self.requests).clone()
    }

    /// Actual (non-preflight) requests with `method` to `target` (path and query).
    pub(crate) fn actual(&self, method: &str, target: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| !r.preflight && r.method == method && r.target == target)
            .count()
    }

    /// Preflights for `target`.
    pub(crate) fn preflights(&self, target: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.preflight && r.target == target)
            .count()
    }

    /// The `Cookie` headers `handler` saw, in order.
    pub(crate) fn cookies_seen_by(&self, handler: &str) -> Vec<String> {
        self.seen_by(handler)
    }

    pub(crate) fn dump(&self) -> String {
        self.requests()
            .iter()
            .map(|r| {
                format!(
                    "  {}{} {} origin={:?} cookie={:?} sec-fetch-site={:?} -> {}\n",
                    if r.preflight { "preflight " } else { "" },
                    r.method,
                    r.target,
                    r.origin,
                    r.cookie,
                    r.sec_fetch_site,
                    r.status
                        .map_or_else(|| "no answer".to_owned(), |s| s.to_string())
                )
            })
            .collect()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(crate) async fn record(
    State(wire): State<Arc<Wire>>,
    request: Request,
    next: Next,
) -> Response {
    let index = {
        let mut requests = lock(&wire.requests);
        requests.push(Received::from(&request));
        requests.len() - 1
    };
    let response = next.run(request).await;
    lock(&wire.requests)[index].status = Some(response.status().as_u16());
    response
}

impl From<&Request> for Received {
    fn from(request: &Request) -> Self {
        let text = |name: header::HeaderName| {
            request
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        Received {
            method: request.method().to_string(),
            target: request
                .uri()
                .path_and_query()
                .map_or_else(|| "/".to_owned(), ToString::to_string),
            origin: text(header::ORIGIN),
            preflight: request.method() == Method::OPTIONS
                && request
                    .headers()
                    .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD),
            cookie: text(header::COOKIE),
            sec_fetch_site: text(header::HeaderName::from_static("sec-fetch-site")),
            status: None,
        }
    }
}
