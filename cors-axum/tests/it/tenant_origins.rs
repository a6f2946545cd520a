//! `TenantOrigins` named by an options file (`"tenant_origins": "tenant_hosts"`) and provided to
//! the application: a tenant's origin granted on its own host only, over a real socket, for
//! CORS, cross-origin protection and WebSocket handshakes alike, in HTTP/1.1 and HTTP/2.

use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::ws::WebSocketUpgrade;
use cors_axum::CorsOptions;
use cors_axum::cors::TenantOrigins;
use cors_axum::prelude::*;
use http::{Request, StatusCode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::wire::{
    WireAnswer, http1, http1_handshake, http2, http2_handshake, pipelined, serve,
};

struct HostsController;

#[controller]
impl HostsController {
    #[route("GET")]
    async fn index() -> &'static str {
        "hello\n"
    }

    #[route("POST", "notes")]
    async fn note() -> &'static str {
        "noted\n"
    }

    #[route("GET", "ws")]
    #[route("CONNECT", "ws")]
    async fn ws(upgrade: WebSocketUpgrade) -> Response {
        upgrade.on_upgrade(|_| async {})
    }
}

rest_root_module! {
    struct HostsModule {
        imports: [CorsModule],
        controllers: [HostsController],
    }
}

const FILE: &str = r#"{
    "origin": ["https://console.example"],
    "tenant_origins": "tenant_hosts",
    "credentials": {"origin": true},
    "protect_cross_origin": true
}"#;

const ACME: &str = "acme.api.example";
const ACME_APP: &str = "https://app.acme.example";

/// What a request for `host` from `origin` gets, in HTTP/1.1: the `GET`'s
/// `Access-Control-Allow-Origin` and `-Credentials`, and whether a preflight, an unsafe
/// cross-site `POST` and a WebSocket handshake are granted; all four must agree.
async fn over_http1(addr: SocketAddr, host: &str, origin: &str) -> (bool, bool) {
    let get = http1("GET", "/", &[("host", host), ("origin", origin)], "");
    let preflight = http1(
        "OPTIONS",
        "/notes",
        &[
            ("host", host),
            ("origin", origin),
            ("access-control-request-method", "POST"),
        ],
        "",
    );
    let post = http1(
        "POST",
        "/notes",
        &[
            ("host", host),
            ("origin", origin),
            ("sec-fetch-site", "cross-site"),
        ],
        "",
    );
    let answers = pipelined(addr, &[get, preflight, post]).await;
    let allows = |answer: &WireAnswer| answer.header("access-control-allow-origin") == Some(origin);
    let get = allows(&answers[0]);
    assert_eq!(answers[0].header("vary"), Some("Origin"), "{answers:?}");
    let credentials = answers[0].header("access-control-allow-credentials") == Some("true");
    assert_eq!(allows(&answers[1]), get, "preflight: {answers:?}");
    let posted = answers[2].status == StatusCode::OK;
    assert_eq!(posted, get, "post: {answers:?}");
    let shake = [
        ("host", host),
        ("origin", origin),
        ("connection", "upgrade"),
        ("upgrade", "websocket"),
    ];
    let handshake = http1_handshake(addr, "/ws", &shake).await;
    assert_eq!(
        handshake == StatusCode::SWITCHING_PROTOCOLS,
        get,
        "{handshake}"
    );
    (get, credentials)
}

/// The same in HTTP/2 (h2c), the tenant's host being the URI's authority.
async fn over_http2(addr: SocketAddr, authority: &str, origin: &str) -> bool {
    let get = Request::get(format!("http://{authority}/"))
        .header("origin", origin)
        .body(Body::empty())
        .unwrap();
    let get = http2(addr, get).await.header("access-control-allow-origin") == Some(origin);
    let uri = format!("http://{authority}/ws");
    let handshake = http2_handshake(addr, &uri, &[("origin", origin)]).await;
    assert_eq!(handshake == StatusCode::OK, get, "{handshake}");
    get
}

/// Raw bytes in, the answer's status and whether it grants `ACME_APP`.
async fn raw(addr: SocketAddr, request: &[u8]) -> (u16, bool) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut received = Vec::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(10),
        stream.read_to_end(&mut received),
    )
    .await
    .expect("an answer in time")
    .unwrap();
    let text = String::from_utf8_lossy(&received).to_ascii_lowercase();
    let status = text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    (
        status,
        text.contains(&format!("access-control-allow-origin: {ACME_APP}")),
    )
}

#[tokio::test]
async fn a_tenants_origin_is_granted_on_its_host_only() {
    let options: CorsOptions = serde_json::from_str(FILE).unwrap();
    let tenants = TenantOrigins::new("tenant_hosts");
    let router = HostsModule::builder()
        .provide(options.clone())
        .provide(tenants.clone())
        .router()
        .unwrap();
    let addr = serve(router).await;
    let ip = addr.to_string();

    assert_eq!(over_http1(addr, ACME, ACME_APP).await, (false, false));
    tenants.insert(ACME, ACME_APP).unwrap();
    assert_eq!(
        over_http1(addr, ACME, ACME_APP).await,
        (true, false),
        "no credentials"
    );
    assert!(over_http1(addr, "ACME.api.example:8080", ACME_APP).await.0);
    for host in [
        "globex.api.example",
        "127.0.0.1",
        ip.as_str(),
        "api.example",
    ] {
        assert!(!over_http1(addr, host, ACME_APP).await.0, "{host}");
    }
    // The list applies to every host, with its credentials.
    assert_eq!(
        over_http1(addr, "globex.api.example", "https://console.example").await,
        (true, true)
    );
    assert!(over_http2(addr, ACME, ACME_APP).await);
    assert!(!over_http2(addr, "globex.api.example", ACME_APP).await);
    assert!(!over_http2(addr, &ip, ACME_APP).await);

    // A `Host` that is not UTF-8, too long, or none: a clean refusal.
    let not_utf8 = b"GET / HTTP/1.1\r\nHost: acme.api.\xffexample\r\norigin: https://app.acme.example\r\nconnection: close\r\n\r\n";
    let long = format!(
        "GET / HTTP/1.1\r\nHost: {}.{ACME}\r\norigin: {ACME_APP}\r\nconnection: close\r\n\r\n",
        "a".repeat(300)
    );
    let none = format!("GET / HTTP/1.1\r\norigin: {ACME_APP}\r\nconnection: close\r\n\r\n");
    for request in [&not_utf8[..], long.as_bytes(), none.as_bytes()] {
        let (status, granted) = raw(addr, request).await;
        assert!(!granted && (200..500).contains(&status), "{status}");
    }

    tenants.remove(ACME, ACME_APP);
    assert!(!over_http1(addr, ACME, ACME_APP).await.0);

    // A set of another name, or none, is a build error naming the option.
    let error = HostsModule::builder()
        .provide(options.clone())
        .provide(TenantOrigins::new("others"))
        .router()
        .unwrap_err();
    assert!(error.to_string().contains("tenant_origins"), "{error}");
    let error = HostsModule::builder()
        .provide(options)
        .router()
        .unwrap_err();
    assert!(error.to_string().contains("`TenantOrigins`"), "{error}");
}
