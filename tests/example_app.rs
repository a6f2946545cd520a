//! The example application (`examples/app`) in-process, configured by its own configuration
//! file: the bearer-token API behind CORS, the feature module under `/api/v1`, the readable
//! `404`, the session cookie.

#[path = "../examples/app/api.rs"]
#[allow(dead_code)]
mod api;

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
    assert_eq!(
        err.to_string(),
        "invalid CORS options in `.provide(..)` of the application builder"
    );
    let cause = std::error::Error::source(&err).unwrap().to_string();
    assert!(
        cause.starts_with("invalid CORS option `credentials`"),
        "{cause}"
    );
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

    let reload = CorsReload::new();
    let router = api::application(&config(), &reload)
        .router()
        .unwrap()
        .with_state(api::AppState::default());
    assert!(allowed(router.clone(), PAGE).await);
    assert!(!allowed(router.clone(), "https://new.example").await);

    write("https://new.example");
    api::reload_cors(path, &reload).unwrap();
    assert!(!allowed(router.clone(), PAGE).await);
    assert!(allowed(router.clone(), "https://new.example").await);

    // An invalid origin, then a file that is not JSON: errors, and the options stay.
    write("https://new.example/path");
    let error = format!("{:#}", api::reload_cors(path, &reload).unwrap_err());
    assert!(error.contains("origin"), "{error}");
    std::fs::write(path, "{").unwrap();
    assert!(api::reload_cors(path, &reload).is_err());
    assert!(allowed(router.clone(), "https://new.example").await);

    std::fs::remove_dir_all(&dir).unwrap();
}
