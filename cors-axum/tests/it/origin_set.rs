//! An `OriginSet` named by an options file (`"origin_set": "tenants"`) and provided to the
//! application: bound when the router is built, changed while it serves, over a real socket,
//! for CORS, cross-origin protection and WebSocket handshakes alike.

use axum::extract::ws::WebSocketUpgrade;
use cors_axum::CorsOptions;
use cors_axum::cors::OriginSet;
use cors_axum::prelude::*;

use crate::common::wire::{WireAnswer, http1, http1_handshake, pipelined, serve};

struct TenantsController;

#[controller]
impl TenantsController {
    #[route("GET")]
    async fn index() -> &'static str {
        "hello\n"
    }

    #[route("POST", "notes")]
    async fn note() -> &'static str {
        "noted\n"
    }

    #[route("GET", "ws")]
    async fn ws(upgrade: WebSocketUpgrade) -> Response {
        upgrade.on_upgrade(|_| async {})
    }
}

rest_root_module! {
    struct TenantsModule {
        imports: [CorsModule],
        controllers: [TenantsController],
    }
}

const FILE: &str = r#"{
    "origin": ["https://app.example"],
    "origin_set": "tenants",
    "protect_cross_origin": true
}"#;

async fn get(addr: std::net::SocketAddr, origin: &str) -> WireAnswer {
    pipelined(addr, &[http1("GET", "/", &[("origin", origin)], "")])
        .await
        .remove(0)
}

#[tokio::test]
async fn a_set_named_in_a_file_serves_cors_protection_and_handshakes() {
    let options: CorsOptions = serde_json::from_str(FILE).unwrap();
    let tenants = OriginSet::new("tenants");
    let router = TenantsModule::builder()
        .provide(options.clone())
        .provide(tenants.clone())
        .router()
        .unwrap();
    let addr = serve(router).await;
    let acme = "https://acme.example";
    let allowed = |answer: &WireAnswer, origin: &str| {
        answer.header("access-control-allow-origin") == Some(origin)
    };

    assert!(allowed(
        &get(addr, "https://app.example").await,
        "https://app.example"
    ));
    assert!(!allowed(&get(addr, acme).await, acme));
    let shake = [
        ("origin", acme),
        ("connection", "upgrade"),
        ("upgrade", "websocket"),
    ];
    assert_eq!(http1_handshake(addr, "/ws", &shake).await, 403);
    let post = http1(
        "POST",
        "/notes",
        &[("origin", acme), ("sec-fetch-site", "cross-site")],
        "",
    );
    assert_eq!(
        pipelined(addr, std::slice::from_ref(&post)).await[0].status,
        403
    );

    tenants.insert(acme).unwrap();
    let answer = get(addr, acme).await;
    assert!(allowed(&answer, acme), "{answer:?}");
    assert!(
        answer.header("vary").is_some_and(|v| v.contains("Origin")),
        "{answer:?}"
    );
    assert_eq!(http1_handshake(addr, "/ws", &shake).await, 101);
    assert_eq!(pipelined(addr, &[post]).await[0].status, 200);

    tenants.remove(acme);
    assert!(!allowed(&get(addr, acme).await, acme));

    // A set of another name is a build error naming the option.
    let error = TenantsModule::builder()
        .provide(options.clone())
        .provide(OriginSet::new("others"))
        .router()
        .unwrap_err();
    assert!(error.to_string().contains("origin_set"), "{error}");
    // No set at all, too.
    let error = TenantsModule::builder()
        .provide(options)
        .router()
        .unwrap_err();
    assert!(error.to_string().contains("`OriginSet`"), "{error}");
}

/// Options where the set alone decides origins, reloaded from options that leave the set out
/// (and name no other source): refused as widening, since nothing would decide origins and any
/// origin would get `*`. The set in force keeps deciding; a reload that names another source
/// is applied.
#[tokio::test]
async fn a_reload_that_leaves_the_set_out_is_refused_as_widening() {
    let in_force: CorsOptions =
        serde_json::from_str(r#"{"origin_set": "tenants", "protect_cross_origin": true}"#).unwrap();
    let tenants = OriginSet::new("tenants");
    let reload = cors_axum::cors::CorsReload::new();
    let router = TenantsModule::builder()
        .provide(in_force)
        .provide(tenants.clone())
        .cors_reload(&reload)
        .router()
        .unwrap();
    let addr = serve(router).await;
    let evil = "https://evil.example";

    let left_out: CorsOptions = serde_json::from_str(r#"{"protect_cross_origin": true}"#).unwrap();
    let err = reload.reload(left_out).unwrap_err();
    assert!(err.widens(), "{err}");
    assert_eq!(err.config_error().field(), "origin");
    let answer = get(addr, evil).await;
    assert_eq!(
        answer.header("access-control-allow-origin"),
        None,
        "{answer:?}"
    );

    tenants.insert("https://acme.example").unwrap();
    let answer = get(addr, "https://acme.example").await;
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("https://acme.example")
    );

    // Another source named: applied, and the set no longer decides.
    let listed: CorsOptions = serde_json::from_str(
        r#"{"origin": ["https://app.example"], "protect_cross_origin": true}"#,
    )
    .unwrap();
    reload.reload(listed).unwrap();
    let answer = get(addr, "https://acme.example").await;
    assert_eq!(answer.header("access-control-allow-origin"), None);
    let answer = get(addr, evil).await;
    assert_eq!(answer.header("access-control-allow-origin"), None);
}

/// Credentials by source, from an options file: the first-party list with credentials and the
/// tenants' set without, then the reverse, over a real socket, on actual requests and
/// preflights alike; every answer names its own origin and varies on `Origin`.
#[tokio::test]
async fn credentials_go_to_the_sources_the_file_names() {
    let acme = "https://acme.example";
    let app = "https://app.example";
    for (credentials, app_gets, acme_gets) in [
        (r#"{"origin": true, "origin_set": false}"#, true, false),
        (r#"{"origin": false, "origin_set": true}"#, false, true),
    ] {
        let options: CorsOptions = serde_json::from_str(&format!(
            r#"{{"origin": ["{app}"], "origin_set": "tenants", "credentials": {credentials}}}"#
        ))
        .unwrap();
        let tenants = OriginSet::new("tenants");
        tenants.insert(acme).unwrap();
        let router = TenantsModule::builder()
            .provide(options)
            .provide(tenants)
            .router()
            .unwrap();
        let addr = serve(router).await;
        for (origin, gets) in [(app, app_gets), (acme, acme_gets)] {
            let preflight = http1(
                "OPTIONS",
                "/notes",
                &[
                    ("origin", origin),
                    ("access-control-request-method", "POST"),
                ],
                "",
            );
            let get = http1("GET", "/", &[("origin", origin), ("cookie", "s=1")], "");
            for answer in pipelined(addr, &[preflight, get]).await {
                assert_eq!(
                    answer.header("access-control-allow-origin"),
                    Some(origin),
                    "{credentials}: {answer:?}"
                );
                let expected = gets.then_some("true");
                assert_eq!(
                    answer.header("access-control-allow-credentials"),
                    expected,
                    "{credentials}: {answer:?}"
                );
                assert!(
                    answer.header("vary").is_some_and(|v| v.contains("Origin")),
                    "{answer:?}"
                );
            }
        }
    }
}
