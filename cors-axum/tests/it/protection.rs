//! Protection beyond CORS from the same policy: unsafe cross-origin requests refused before
//! their guards and handler (cross-site request forgery), and WebSocket handshakes from origins
//! the policy does not allow (cross-site WebSocket hijacking), decided by each path's plan.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};

use axum::extract::FromRequestParts;
use axum::extract::ws::WebSocketUpgrade;
use common::wire::{http1, http1_handshake, http2, http2_handshake, pipelined, serve};
use common::{Answer, request, send};
use cors_axum::AllowOrigin;
use cors_axum::prelude::*;
use http::StatusCode;
use http::request::Parts;

const APP: &str = "https://app.example";
const EVIL: &str = "https://evil.example";

static HANDLED: AtomicUsize = AtomicUsize::new(0);

/// A guard that counts the requests it sees and lets them through.
struct Counted;

static GUARDED: AtomicUsize = AtomicUsize::new(0);

impl<S: Send + Sync> FromRequestParts<S> for Counted {
    type Rejection = StatusCode;

    async fn from_request_parts(_: &mut Parts, _: &S) -> Result<Self, StatusCode> {
        GUARDED.fetch_add(1, Ordering::SeqCst);
        Ok(Counted)
    }
}

struct Session;

#[controller]
impl Session {
    #[route("POST", "session")]
    async fn sign_in(cors: CorsService) -> &'static str {
        cors.set_cookie("session", "s");
        "signed in\n"
    }

    /// Counts the requests that reach its guard and itself; only one test sends to it.
    #[route("POST", "counted", guards = [Counted])]
    async fn counted() -> &'static str {
        HANDLED.fetch_add(1, Ordering::SeqCst);
        "counted\n"
    }

    #[route("GET", "session")]
    async fn show() -> &'static str {
        "session\n"
    }

    #[route("POST", "webhooks/github")]
    async fn github() -> &'static str {
        "hook\n"
    }

    #[route("POST", "open", cors = CorsOptions::new().protect_cross_origin(false))]
    async fn open() -> &'static str {
        "open\n"
    }

    #[route("POST", "closed", cors = false)]
    async fn closed() -> &'static str {
        "closed\n"
    }

    /// Stands for a WebSocket route: the handshake's answer is not this test's matter.
    #[route("GET", "ws")]
    async fn ws() -> &'static str {
        "would upgrade\n"
    }
}

rest_root_module! {
    struct Protected { imports: [CorsModule], controllers: [Session] }
}

fn router() -> axum::Router {
    Protected::builder()
        .provide(
            CorsOptions::new()
                .origin(APP)
                .credentials(true)
                .protect_cross_origin(true)
                .cross_origin_bypass(["/webhooks/*"]),
        )
        .router()
        .unwrap()
}

fn form_post(
    path: &str,
    headers: &[(&'static str, &'static str)],
) -> http::Request<axum::body::Body> {
    let mut all = vec![
        ("host", "api.example"),
        ("content-type", "application/x-www-form-urlencoded"),
    ];
    all.extend_from_slice(headers);
    let mut request = request("POST", path, &all);
    *request.body_mut() = axum::body::Body::from("user=a");
    request
}

async fn post(path: &str, headers: &[(&'static str, &'static str)]) -> Answer {
    send(&router(), form_post(path, headers)).await
}

#[tokio::test]
async fn a_cross_site_form_post_is_refused_before_its_guards_and_handler() {
    let before = (
        HANDLED.load(Ordering::SeqCst),
        GUARDED.load(Ordering::SeqCst),
    );
    for headers in [
        vec![("origin", EVIL), ("sec-fetch-site", "cross-site")],
        vec![
            ("origin", "https://other.app.example"),
            ("sec-fetch-site", "same-site"),
        ],
        // An older browser without Fetch Metadata: `Origin` names another host.
        vec![("origin", EVIL)],
    ] {
        let answer = post("/session", &headers).await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{headers:?}");
        assert!(answer.headers.get("set-cookie").is_none());
        assert!(
            !answer.has_any_cors_header(),
            "the 403 grants nothing: {:?}",
            answer.headers
        );
    }
    assert_eq!(
        (
            HANDLED.load(Ordering::SeqCst),
            GUARDED.load(Ordering::SeqCst)
        ),
        before,
        "neither the guard nor the handler ran"
    );
}

#[tokio::test]
async fn trusted_same_origin_and_non_browser_requests_pass() {
    for headers in [
        // The origin the policy allows.
        vec![("origin", APP), ("sec-fetch-site", "cross-site")],
        vec![("origin", APP)],
        // Same origin: by Fetch Metadata, or by `Origin` naming the request's own host (scheme
        // ignored: TLS often ends at a proxy in front of the application).
        vec![
            ("origin", "http://api.example"),
            ("sec-fetch-site", "same-origin"),
        ],
        vec![("origin", "http://api.example")],
        // A navigation typed by the user, and a client that is no browser.
        vec![("sec-fetch-site", "none")],
        vec![],
    ] {
        let answer = post("/session", &headers).await;
        assert_eq!(answer.status, StatusCode::OK, "{headers:?}");
        assert_eq!(answer.body, "signed in\n");
    }
    // Safe methods are never refused.
    let answer = send(
        &router(),
        request(
            "GET",
            "/session",
            &[("origin", EVIL), ("sec-fetch-site", "cross-site")],
        ),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
}

#[tokio::test]
async fn webhooks_and_routes_that_opt_out_pass_and_cors_off_still_protects() {
    let cross_site = [("origin", EVIL), ("sec-fetch-site", "cross-site")];
    assert_eq!(
        post("/webhooks/github", &cross_site).await.status,
        StatusCode::OK
    );
    assert_eq!(post("/open", &cross_site).await.status, StatusCode::OK);
    // CORS switched off for the route: no origin is trusted, the protection stays.
    assert_eq!(
        post("/closed", &cross_site).await.status,
        StatusCode::FORBIDDEN
    );
    let same_origin = [
        ("origin", "https://api.example"),
        ("sec-fetch-site", "same-origin"),
    ];
    assert_eq!(post("/closed", &same_origin).await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_websocket_handshake_from_an_origin_the_policy_refuses_is_refused() {
    let handshake = |origin: &'static str| {
        vec![
            ("host", "api.example"),
            ("origin", origin),
            ("upgrade", "websocket"),
            ("connection", "Upgrade"),
            ("sec-websocket-version", "13"),
            ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ]
    };
    let answer = send(&router(), request("GET", "/ws", &handshake(EVIL))).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert!(!answer.has_any_cors_header());
    let answer = send(&router(), request("GET", "/ws", &handshake(APP))).await;
    assert_eq!(answer.body, "would upgrade\n");
    // Same origin, though the policy does not list it.
    let answer = send(
        &router(),
        request("GET", "/ws", &handshake("https://api.example")),
    )
    .await;
    assert_eq!(answer.body, "would upgrade\n");
    // An ordinary GET from the same origin is answered, without a grant.
    let answer = send(&router(), request("GET", "/ws", &[("origin", EVIL)])).await;
    assert_eq!(answer.body, "would upgrade\n");
    assert!(!answer.has_any_cors_header());
}

#[tokio::test]
async fn protection_answers_over_the_wire() {
    let addr = serve(router()).await;
    let form = |origin: &str, site: &str| {
        let mut headers = vec![
            ("content-type", "application/x-www-form-urlencoded"),
            ("origin", origin),
        ];
        if !site.is_empty() {
            headers.push(("sec-fetch-site", site));
        }
        http1("POST", "/session", &headers, "user=a")
    };
    let answers = pipelined(
        addr,
        &[
            form(EVIL, "cross-site"),
            form(APP, "cross-site"),
            form(EVIL, ""),
            http1("GET", "/session", &[], ""),
        ],
    )
    .await;
    assert_eq!(answers[0].status, StatusCode::FORBIDDEN);
    assert_eq!(answers[0].text(), "Forbidden\n");
    assert_eq!(answers[1].status, StatusCode::OK);
    assert!(answers[1].header("set-cookie").is_some());
    assert_eq!(answers[2].status, StatusCode::FORBIDDEN);
    assert_eq!(answers[3].text(), "session\n");
}

/// Another origin, allowed by one route's own options only.
const PARTNER: &str = "https://partner.example";

/// Opens the socket and closes it at once: whether a handshake opens is this test's matter.
fn open(upgrade: WebSocketUpgrade) -> Response {
    upgrade.on_upgrade(|_socket| async {})
}

struct Sockets;

/// WebSocket routes as an application declares them to serve HTTP/1.1 (`GET`) and HTTP/2
/// (extended `CONNECT`), with CORS on, off, off without the origin check, and with a `GET`
/// route's own origin; callbacks without CORS under a bypass path.
#[controller]
impl Sockets {
    #[route("GET", "ws")]
    #[route("CONNECT", "ws")]
    async fn ws(upgrade: WebSocketUpgrade) -> Response {
        open(upgrade)
    }

    #[route("GET", "ws/off", cors = false)]
    #[route("CONNECT", "ws/off", cors = false)]
    async fn ws_off(upgrade: WebSocketUpgrade) -> Response {
        open(upgrade)
    }

    #[route("GET", "ws/public", cors = CorsOptions::new().enabled(false).check_websocket_origin(false))]
    #[route("CONNECT", "ws/public", cors = CorsOptions::new().enabled(false).check_websocket_origin(false))]
    async fn ws_public(upgrade: WebSocketUpgrade) -> Response {
        open(upgrade)
    }

    #[route("GET", "ws/partner", cors = CorsOptions::new().origin(PARTNER))]
    #[route("CONNECT", "ws/partner")]
    async fn ws_partner(upgrade: WebSocketUpgrade) -> Response {
        open(upgrade)
    }

    #[route("POST", "callbacks/oidc", cors = false)]
    async fn oidc() -> &'static str {
        "signed in\n"
    }

    #[route("POST", "callbacks/saml")]
    async fn saml() -> &'static str {
        "signed in\n"
    }
}

rest_root_module! {
    struct SocketApp { imports: [CorsModule], controllers: [Sockets] }
}

fn sockets(options: CorsOptions) -> axum::Router {
    SocketApp::builder()
        .provide(options.protect_cross_origin(true))
        .router()
        .unwrap()
}

/// Whether a handshake from `origin` to `path` opens, over HTTP/1.1 then over HTTP/2.
async fn opens(addr: std::net::SocketAddr, path: &str, origin: &str) -> [bool; 2] {
    let h1 = http1_handshake(
        addr,
        path,
        &[
            ("origin", origin),
            ("upgrade", "websocket"),
            ("connection", "Upgrade"),
        ],
    )
    .await;
    let h2 = http2_handshake(addr, path, &[("origin", origin)]).await;
    assert!(
        [StatusCode::SWITCHING_PROTOCOLS, StatusCode::FORBIDDEN].contains(&h1)
            && [StatusCode::OK, StatusCode::FORBIDDEN].contains(&h2),
        "{path} from {origin}: {h1} over HTTP/1.1, {h2} over HTTP/2"
    );
    [h1 == StatusCode::SWITCHING_PROTOCOLS, h2 == StatusCode::OK]
}

#[tokio::test]
async fn every_connection_header_axum_upgrades_is_decided() {
    let addr = serve(sockets(CorsOptions::new().origin(APP))).await;
    for connection in [
        "Upgrade",
        "upgradex",
        "keep-alive-upgrade",
        "Upgrade;q=1",
        "keep-alive, UPGRADE",
    ] {
        let handshake = |origin| {
            [
                ("origin", origin),
                ("upgrade", "websocket"),
                ("connection", connection),
            ]
        };
        let refused = http1_handshake(addr, "/ws", &handshake(EVIL)).await;
        assert_eq!(refused, StatusCode::FORBIDDEN, "Connection: {connection}");
        let allowed = http1_handshake(addr, "/ws", &handshake(APP)).await;
        assert_eq!(
            allowed,
            StatusCode::SWITCHING_PROTOCOLS,
            "Connection: {connection}"
        );
    }
}

#[tokio::test]
async fn a_websocket_route_without_cors_keeps_the_origin_check_unless_opted_out() {
    let addr = serve(sockets(CorsOptions::new().origin(APP))).await;
    assert_eq!(opens(addr, "/ws/off", EVIL).await, [false, false]);
    assert_eq!(opens(addr, "/ws/off", APP).await, [true, true]);
    // The explicit opt-out.
    assert_eq!(opens(addr, "/ws/public", EVIL).await, [true, true]);
    // The same origin, though the options do not list it: the `Host` of HTTP/1.1 (which the
    // helper sends without the port), the authority of HTTP/2.
    assert_eq!(
        opens(addr, "/ws/off", "http://127.0.0.1").await,
        [true, false]
    );
    assert_eq!(
        opens(addr, "/ws/off", &format!("http://{addr}")).await,
        [false, true]
    );
}

#[tokio::test]
async fn the_check_without_cors_needs_no_protection_and_awaits_an_asynchronous_decision() {
    let listed = SocketApp::builder()
        .provide(CorsOptions::new().origin(APP))
        .router()
        .unwrap();
    let addr = serve(listed).await;
    assert_eq!(opens(addr, "/ws/off", EVIL).await, [false, false]);
    assert_eq!(opens(addr, "/ws/off", APP).await, [true, true]);
    let looked_up = SocketApp::builder()
        .provide(
            CorsOptions::new().origin(AllowOrigin::async_predicate(|query| async move {
                Ok(query.origin == APP)
            })),
        )
        .router()
        .unwrap();
    let addr = serve(looked_up).await;
    assert_eq!(opens(addr, "/ws/off", EVIL).await, [false, false]);
    assert_eq!(opens(addr, "/ws/off", APP).await, [true, true]);
}

#[tokio::test]
async fn a_handshake_is_decided_the_same_over_http1_and_http2() {
    // Any origin with protection on: the `CONNECT` of HTTP/2 is no unsafe request to refuse
    // when the `GET` of HTTP/1.1 opens.
    let addr = serve(sockets(CorsOptions::new())).await;
    assert_eq!(opens(addr, "/ws", EVIL).await, [true, true]);
    let addr = serve(sockets(CorsOptions::new().origin(APP))).await;
    assert_eq!(opens(addr, "/ws", EVIL).await, [false, false]);
    assert_eq!(opens(addr, "/ws", APP).await, [true, true]);
    // The `GET` route's own origin decides the `CONNECT` of the same socket, not the module's.
    assert_eq!(opens(addr, "/ws/partner", APP).await, [false, false]);
    assert_eq!(opens(addr, "/ws/partner", PARTNER).await, [true, true]);
}

#[tokio::test]
async fn bypass_paths_apply_to_routes_without_cors() {
    let addr = serve(sockets(
        CorsOptions::new()
            .origin(APP)
            .cross_origin_bypass(["/callbacks/*"]),
    ))
    .await;
    let form = |path| {
        http1(
            "POST",
            path,
            &[
                ("content-type", "application/x-www-form-urlencoded"),
                ("origin", "https://idp.example"),
                ("sec-fetch-site", "cross-site"),
            ],
            "code=a",
        )
    };
    let answers = pipelined(addr, &[form("/callbacks/oidc"), form("/callbacks/saml")]).await;
    for answer in &answers {
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(answer.text(), "signed in\n");
    }
    let form = |path: &str| {
        let mut request = request(
            "POST",
            path,
            &[
                ("content-type", "application/x-www-form-urlencoded"),
                ("origin", "https://idp.example"),
                ("sec-fetch-site", "cross-site"),
            ],
        );
        *request.body_mut() = axum::body::Body::from("code=a");
        request
    };
    for path in ["/callbacks/oidc", "/callbacks/saml"] {
        let answer = http2(addr, form(path)).await;
        assert_eq!(answer.status, StatusCode::OK, "{path} over HTTP/2");
    }
}

#[tokio::test]
async fn bypass_paths_of_a_nested_layer_are_the_paths_the_client_sent() {
    let layer = cors_axum::cors::CorsLayer::new(
        CorsOptions::new()
            .origin(APP)
            .protect_cross_origin(true)
            .cross_origin_bypass(["/api/webhooks/*"]),
    )
    .unwrap();
    let api = axum::Router::new()
        .route(
            "/webhooks/github",
            axum::routing::post(|| async { "hook\n" }),
        )
        .route("/session", axum::routing::post(|| async { "signed in\n" }))
        .layer(layer);
    let addr = serve(axum::Router::new().nest("/api", api)).await;
    let form = |path| {
        http1(
            "POST",
            path,
            &[("origin", EVIL), ("sec-fetch-site", "cross-site")],
            "x",
        )
    };
    let answers = pipelined(addr, &[form("/api/webhooks/github"), form("/api/session")]).await;
    assert_eq!(answers[0].status, StatusCode::OK);
    assert_eq!(answers[0].text(), "hook\n");
    assert_eq!(answers[1].status, StatusCode::FORBIDDEN);
    let form = |path: &str| {
        let mut request = request(
            "POST",
            path,
            &[("origin", EVIL), ("sec-fetch-site", "cross-site")],
        );
        *request.body_mut() = axum::body::Body::from("x");
        request
    };
    assert_eq!(
        http2(addr, form("/api/webhooks/github")).await.status,
        StatusCode::OK
    );
    assert_eq!(
        http2(addr, form("/api/session")).await.status,
        StatusCode::FORBIDDEN
    );
}

/// Decided and documented (SECURITY.md, "Behind a proxy"): the `Host` a request arrives with is
/// the one compared with `Origin`, as sent, and nothing a proxy adds is trusted.
#[tokio::test]
async fn behind_a_proxy_that_rewrites_host_same_origin_needs_fetch_metadata() {
    let victim = "https://victim.example";
    let post = |host: &'static str, headers: &[(&'static str, &'static str)]| {
        let mut all = vec![("host", host), ("origin", victim)];
        all.extend_from_slice(headers);
        let mut request = request("POST", "/session", &all);
        *request.body_mut() = axum::body::Body::from("user=a");
        request
    };
    // The proxy forwarded `Host: backend:8080`: the browser's same-origin form post, without
    // `Sec-Fetch-Site` (WebKit, older browsers), names another host than the request's.
    let forwarded = [
        ("x-forwarded-host", "victim.example"),
        ("forwarded", "host=victim.example;proto=https"),
    ];
    let answer = send(&router(), post("backend:8080", &forwarded)).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    // A trailing dot is another host to the comparison, refused the same way.
    let answer = send(&router(), post("victim.example.", &[])).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    // Browsers that send Fetch Metadata pass, whatever the proxy did to `Host`; so does the
    // `Host` the browser sent.
    let same_origin = [("sec-fetch-site", "same-origin")];
    let answer = send(&router(), post("backend:8080", &same_origin)).await;
    assert_eq!(answer.status, StatusCode::OK);
    let answer = send(&router(), post("victim.example", &[])).await;
    assert_eq!(answer.status, StatusCode::OK);
}
