//! The example application (`examples/app`) in-process, configured by its own configuration
//! file: the bearer-token API behind CORS, the feature module under `/api/v1`, the readable
//! `404`, the session cookie, the OpenAPI document.

use crate::api;
use crate::common::wire;
use crate::openapi_spec;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use cors_axum::cors::CorsReload;
use http_body_util::BodyExt;
use tower::ServiceExt;

const PAGE: &str = "http://localhost:8080";

const CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/app/config.json");

fn config() -> api::Config {
    api::read_config(CONFIG).unwrap()
}

fn router() -> axum::Router {
    api::application(&config(), &CorsReload::new())
        .router()
        .unwrap()
        .with_state(api::AppState::default())
}

async fn send(
    router: &axum::Router,
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (StatusCode, http::HeaderMap, String) {
    let mut request = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = router
        .clone()
        .oneshot(request.body(Body::from(body.to_owned())).unwrap())
        .await
        .unwrap();
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    (
        parts.status,
        parts.headers,
        String::from_utf8_lossy(&bytes).into_owned(),
    )
}

#[tokio::test]
async fn the_users_api_answers_browsers_before_and_after_its_guard() {
    let router = router();
    let token = format!("Bearer {}", config().api_token);

    let (status, headers, _) = send(
        &router,
        "OPTIONS",
        "/api/v1/users",
        &[
            ("origin", PAGE),
            ("access-control-request-method", "POST"),
            (
                "access-control-request-headers",
                "authorization,content-type",
            ),
        ],
        "",
    )
    .await;
    assert_eq!(
        status,
        StatusCode::NO_CONTENT,
        "the preflight needs no token"
    );
    assert_eq!(headers["access-control-allow-origin"], PAGE);
    assert_eq!(headers["access-control-allow-credentials"], "true");

    let (status, headers, body) =
        send(&router, "GET", "/api/v1/users", &[("origin", PAGE)], "").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(headers["access-control-allow-origin"], PAGE);
    assert_eq!(body, "missing or wrong bearer token\n");

    let auth = [
        ("origin", PAGE),
        ("authorization", token.as_str()),
        ("content-type", "application/json"),
    ];
    let (status, headers, body) =
        send(&router, "POST", "/api/v1/users", &auth, r#"{"name":"ada"}"#).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(headers["location"], "/api/v1/users/1");
    assert_eq!(headers["access-control-expose-headers"], "location");
    assert_eq!(body, r#"{"id":1,"name":"ada"}"#);
    let (status, _, body) = send(&router, "GET", "/api/v1/users/1", &auth, "").await;
    assert_eq!(
        (status, body.as_str()),
        (StatusCode::OK, r#"{"id":1,"name":"ada"}"#)
    );
}

#[tokio::test]
async fn unknown_paths_and_disallowed_origins() {
    let router = router();
    let (status, headers, _) = send(&router, "GET", "/api/v1/userz", &[("origin", PAGE)], "").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(headers["access-control-allow-origin"], PAGE);

    let (status, headers, _) = send(
        &router,
        "GET",
        "/health",
        &[("origin", "https://evil.example")],
        "",
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers.get("access-control-allow-origin").is_none());
    assert_eq!(headers["vary"], "Origin");
}

#[tokio::test]
async fn signing_in_sets_a_cookie_on_a_credentialed_response() {
    let router = router();
    let (status, headers, _) = send(&router, "POST", "/session", &[("origin", PAGE)], "").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["access-control-allow-origin"], PAGE);
    assert_eq!(headers["access-control-allow-credentials"], "true");
    let cookie = headers["set-cookie"].to_str().unwrap();
    assert!(cookie.starts_with("session=example-session;"), "{cookie}");
}

#[test]
fn an_invalid_cors_configuration_is_refused_at_start_naming_the_option() {
    let mut config = config();
    config.cors = serde_json::from_str(r#"{"origin": "*", "credentials": true}"#).unwrap();
    let err = api::application(&config, &CorsReload::new())
        .build()
        .unwrap_err();
    let shown = err.to_string();
    assert!(
        shown.starts_with(
            "invalid CORS option `credentials` in `.provide(..)` of the application builder: "
        ),
        "{shown}"
    );
    let cause = std::error::Error::source(&err).unwrap().to_string();
    assert!(
        cause.starts_with("invalid CORS option `credentials`"),
        "{cause}"
    );
}

/// Waits, at most five seconds, until `done` holds.
async fn until(mut done: impl AsyncFnMut() -> bool) -> bool {
    for _ in 0..100 {
        if done().await {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test]
async fn the_cors_options_are_reloaded_from_the_file_and_a_bad_file_changes_nothing() {
    let dir = std::env::temp_dir().join(format!("example-app-reload-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("config.json");
    let path = path.to_str().unwrap();
    let write = |origin: &str| {
        let mut config: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(CONFIG).unwrap()).unwrap();
        config["cors"]["origin"] = serde_json::json!(origin);
        std::fs::write(path, config.to_string()).unwrap();
    };
    let allowed = |router: axum::Router, origin: &'static str| async move {
        let (_, headers, _) = send(&router, "GET", "/health", &[("origin", origin)], "").await;
        headers.get("access-control-allow-origin").is_some()
    };

    write(PAGE);
    let reload = CorsReload::new();
    let router = api::application(&config(), &reload)
        .router()
        .unwrap()
        .with_state(api::AppState::default());
    // As `main` watches it.
    let _watch = reload.watch_file(path, api::cors_of).unwrap();
    assert!(allowed(router.clone(), PAGE).await);
    assert!(!allowed(router.clone(), "https://new.example").await);

    write("https://new.example");
    assert!(until(async || allowed(router.clone(), "https://new.example").await).await);
    assert!(!allowed(router.clone(), PAGE).await);

    // An invalid origin, then a file that is not JSON: refused, and the options stay.
    assert!(api::cors_of(r#"{"listen": "", "api_token": "", "cors": {"origin": "x"}}"#).is_ok());
    assert!(api::cors_of("{").is_err());
    write("https://new.example/path");
    std::fs::write(path, "{").unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(allowed(router.clone(), "https://new.example").await);
    assert!(!allowed(router, PAGE).await);

    std::fs::remove_dir_all(&dir).unwrap();
}

/// Serves the example application on 127.0.0.1, on a port the system picks.
async fn serve() -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router()).await.unwrap() });
    addr
}

/// Sends `request` (raw HTTP/1.1, `Connection: close` unless it upgrades) and reads the answer's
/// head: its status and headers, lowercased.
async fn exchange(addr: std::net::SocketAddr, request: String) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    // Bounded: a head ends with a blank line, and the server answers within seconds.
    let read = async {
        while !head.ends_with(b"\r\n\r\n") && head.len() < 16 * 1024 {
            if stream.read(&mut byte).await.unwrap() == 0 {
                break;
            }
            head.push(byte[0]);
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), read)
        .await
        .unwrap();
    let head = String::from_utf8(head).unwrap().to_ascii_lowercase();
    let status = head[9..12].parse().unwrap();
    (status, head)
}

fn form_post(addr: std::net::SocketAddr, headers: &[&str]) -> String {
    let body = "user=a";
    let mut request = format!(
        "POST /session HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
        body.len()
    );
    for header in headers {
        request.push_str(&format!("{header}\r\n"));
    }
    request + "\r\n" + body
}

#[tokio::test]
async fn a_cross_site_form_post_gets_403_and_no_cookie_and_the_others_pass() {
    let addr = serve().await;
    let same_origin = format!("Origin: http://{addr}");
    let refused: [&[&str]; 2] = [
        &["Origin: https://evil.example", "Sec-Fetch-Site: cross-site"],
        &["Origin: https://evil.example"],
    ];
    for headers in refused {
        let (status, head) = exchange(addr, form_post(addr, headers)).await;
        assert_eq!(status, 403, "{headers:?}: {head}");
        assert!(!head.contains("set-cookie"), "{head}");
    }
    let passed: [&[&str]; 4] = [
        &[
            "Origin: http://localhost:8080",
            "Sec-Fetch-Site: cross-site",
        ],
        &[&same_origin, "Sec-Fetch-Site: same-origin"],
        &[&same_origin],
        &[],
    ];
    for headers in passed {
        let (status, head) = exchange(addr, form_post(addr, headers)).await;
        assert_eq!(status, 200, "{headers:?}: {head}");
        assert!(head.contains("set-cookie: session="), "{head}");
    }
}

#[tokio::test]
async fn a_websocket_upgrades_from_the_configured_origin_only() {
    let addr = serve().await;
    let handshake = |origin: &str| {
        format!(
            "GET /ws HTTP/1.1\r\nHost: {addr}\r\nOrigin: {origin}\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        )
    };
    let (status, head) = exchange(addr, handshake("https://evil.example")).await;
    assert_eq!(status, 403, "{head}");
    let (status, head) = exchange(addr, handshake(PAGE)).await;
    assert_eq!(status, 101, "{head}");
    assert!(head.contains("upgrade: websocket"), "{head}");
}

#[tokio::test]
async fn its_websocket_opens_over_http2_as_over_http1() {
    let addr = serve().await;
    for (origin, status) in [
        ("https://evil.example", StatusCode::FORBIDDEN),
        (PAGE, StatusCode::OK),
    ] {
        let answer = wire::http2_handshake(addr, "/ws", &[("origin", origin)]).await;
        assert_eq!(answer, status, "{origin}");
    }
}

/// The routes of the table `cargo run --example app` prints but the generated `OPTIONS` ones
/// and `CONNECT`, as `METHOD /path`, each with its controller.
fn printed_routes(printed: &str) -> Vec<(String, String)> {
    printed
        .lines()
        .skip(1)
        // The generated `OPTIONS` routes, and `CONNECT` (the HTTP/2 WebSocket handshake), which
        // has no place in an OpenAPI path item.
        .filter(|line| {
            !line.starts_with("warning: ")
                && !line.ends_with("CorsModule::options")
                && !line.starts_with("CONNECT ")
        })
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let controller = fields[fields.len() - 1].split("::").next().unwrap();
            (
                format!("{} {}", fields[0], fields[1]),
                controller.to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn its_openapi_document_lists_every_printed_route_with_parameters_tags_and_security() {
    let app = api::application(&config(), &CorsReload::new())
        .build()
        .unwrap();
    let printed = printed_routes(&app.routes().to_string());
    let router = app.into_router().with_state(api::AppState::default());
    let (status, headers, body) =
        send(&router, "GET", "/openapi.json", &[("origin", PAGE)], "").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["access-control-allow-origin"], PAGE);
    let document: serde_json::Value = serde_json::from_str(&body).unwrap();
    let mut listed = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let tag = operation["tags"][0].as_str().unwrap().to_owned();
            listed.push((format!("{} {path}", method.to_ascii_uppercase()), tag));
            let guarded = path.starts_with("/api/v1/");
            let security = &operation["security"];
            assert_eq!(
                *security == serde_json::json!([{ "bearerAuth": [] }]),
                guarded,
                "{method} {path}: {security}"
            );
        }
    }
    listed.sort();
    let mut printed = printed;
    printed.sort();
    assert_eq!(
        listed, printed,
        "every printed route, with its controller as tag"
    );
    let one = &document["paths"]["/api/v1/users/{id}"]["get"];
    assert_eq!(one["parameters"][0]["name"], "id");
    assert_eq!(one["parameters"][0]["in"], "path");
    assert_eq!(one["parameters"][0]["schema"]["type"], "integer");
    assert_eq!(
        one["responses"]["404"]["description"],
        "no user has this id"
    );
    let scheme = &document["components"]["securitySchemes"]["bearerAuth"];
    assert_eq!(
        (&scheme["type"], &scheme["scheme"]),
        (&"http".into(), &"bearer".into())
    );
    openapi_spec::validate(body.as_bytes());
}

#[tokio::test]
async fn its_documentation_page_points_at_the_document() {
    let (status, headers, body) = send(&router(), "GET", "/docs", &[], "").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "text/html; charset=utf-8");
    assert!(body.contains(r#"spec-url="/openapi.json""#), "{body}");
}
