//! `cors-audit` against servers on 127.0.0.1: the project's example (no finding, exit 0), and
//! servers misconfigured on purpose, each with its finding and exit status 1.

#[path = "../../examples/cors.rs"]
#[allow(dead_code, unreachable_pub)]
mod example;

use std::process::Command;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::IntoResponse;
use axum::routing::get;
use cors_audit::{AuditConfig, FindingKind, Report, UreqTransport, audit};

const ALLOWED: &str = "https://app.example";

/// Serves `router` on 127.0.0.1, on a port the system picks; returns the base URL.
async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, router.into_make_service()).await });
    format!("http://127.0.0.1:{port}")
}

/// Runs the library's audit of `url` for `origin` (off the async runtime: it blocks).
async fn audit_of(url: String, origin: &'static str, credentials: bool) -> Report {
    tokio::task::spawn_blocking(move || {
        let mut config = AuditConfig::new(url, origin);
        config.credentials = credentials;
        let mut transport = UreqTransport::new(config.timeout);
        audit(&config, &mut transport, &mut |_, _, _| {}).expect("the audit runs")
    })
    .await
    .unwrap()
}

/// Runs the `cors-audit` binary; returns its exit code and standard output.
async fn run_binary(args: Vec<String>) -> (i32, String) {
    tokio::task::spawn_blocking(move || {
        let output = Command::new(env!("CARGO_BIN_EXE_cors-audit"))
            .args(&args)
            .output()
            .expect("cors-audit runs");
        (
            output.status.code().expect("an exit code"),
            String::from_utf8(output.stdout).unwrap(),
        )
    })
    .await
    .unwrap()
}

fn kinds(report: &Report) -> Vec<FindingKind> {
    report.findings.iter().map(|f| f.kind).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_example_server_has_no_finding() {
    let base = serve(example::AppModule::router().unwrap()).await;
    for (path, credentials) in [("/", false), ("/credentials", true)] {
        let report = audit_of(format!("{base}{path}"), "https://example.com", credentials).await;
        assert!(report.is_clean(), "{report}");
        assert!(
            report.outcomes.iter().any(|o| o.is_readable()),
            "the allowed origin reads: {report}"
        );
    }
    let (code, stdout) = run_binary(vec![
        format!("{base}/"),
        "--origin".to_owned(),
        "https://example.com".to_owned(),
    ])
    .await;
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.ends_with("no misconfiguration found\n"), "{stdout}");
}

/// What a misconfigured server adds to every answer, given the request's headers and whether
/// it is a preflight (which the server answers itself, with `preflight_status`).
type Headers = fn(&HeaderMap, bool) -> Vec<(&'static str, String)>;

fn misconfigured(headers: Headers, preflight_status: StatusCode) -> Router {
    let middleware = move |request: Request, next: Next| async move {
        let preflight = request.method() == Method::OPTIONS
            && request
                .headers()
                .contains_key("access-control-request-method");
        let add = headers(request.headers(), preflight);
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
    Router::new()
        .route(
            "/items",
            get(|| async { "items" }).post(|| async { "created" }),
        )
        .layer(axum::middleware::from_fn(middleware))
}

fn origin(request: &HeaderMap) -> String {
    request
        .get("origin")
        .map(|o| String::from_utf8_lossy(o.as_bytes()).into_owned())
        .unwrap_or_default()
}

/// The preflight headers a permissive server sends: every requested method and header.
fn mirror(
    request: &HeaderMap,
    preflight: bool,
    mut headers: Vec<(&'static str, String)>,
) -> Vec<(&'static str, String)> {
    if preflight {
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
    headers
}

/// Allows the origins `allowed` says yes to, reflecting them with `Vary: Origin`.
fn allowing(
    request: &HeaderMap,
    preflight: bool,
    allowed: impl Fn(&str) -> bool,
) -> Vec<(&'static str, String)> {
    let origin = origin(request);
    let mut headers = vec![("vary", "Origin".to_owned())];
    if !origin.is_empty() && allowed(&origin) {
        headers.push(("access-control-allow-origin", origin));
    }
    mirror(request, preflight, headers)
}

async fn findings_of(
    headers: Headers,
    preflight_status: StatusCode,
    credentials: bool,
) -> (Report, String) {
    let base = serve(misconfigured(headers, preflight_status)).await;
    let url = format!("{base}/items");
    let report = audit_of(url.clone(), ALLOWED, credentials).await;
    (report, url)
}

async fn assert_finding(
    headers: Headers,
    preflight_status: StatusCode,
    credentials: bool,
    kind: FindingKind,
) {
    let (report, url) = findings_of(headers, preflight_status, credentials).await;
    assert!(
        kinds(&report).contains(&kind),
        "expected {kind:?}:\n{report}"
    );
    let mut args = vec![
        url,
        "--origin".to_owned(),
        ALLOWED.to_owned(),
        "--json".to_owned(),
    ];
    if credentials {
        args.push("--credentials".to_owned());
    }
    let (code, stdout) = run_binary(args).await;
    assert_eq!(code, 1, "{stdout}");
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("--json prints JSON");
    assert!(
        json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["kind"] == kind.name()),
        "{stdout}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn reflecting_any_origin_with_credentials() {
    fn headers(request: &HeaderMap, preflight: bool) -> Vec<(&'static str, String)> {
        let mut headers = allowing(request, preflight, |_| true);
        headers.push(("access-control-allow-credentials", "true".to_owned()));
        headers
    }
    assert_finding(
        headers,
        StatusCode::NO_CONTENT,
        false,
        FindingKind::ReflectedWithCredentials,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_vary_origin() {
    fn headers(request: &HeaderMap, preflight: bool) -> Vec<(&'static str, String)> {
        let mut headers = allowing(request, preflight, |o| o == ALLOWED);
        headers.retain(|(name, _)| *name != "vary");
        headers
    }
    assert_finding(
        headers,
        StatusCode::NO_CONTENT,
        false,
        FindingKind::MissingVaryOrigin,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn allowing_null() {
    fn headers(request: &HeaderMap, preflight: bool) -> Vec<(&'static str, String)> {
        allowing(request, preflight, |o| o == ALLOWED || o == "null")
    }
    assert_finding(
        headers,
        StatusCode::NO_CONTENT,
        false,
        FindingKind::NullAllowed,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_suffix_matched_origin() {
    // "Ends with the allowed host": `https://evilapp.example` passes too.
    fn headers(request: &HeaderMap, preflight: bool) -> Vec<(&'static str, String)> {
        allowing(request, preflight, |o| o.ends_with("app.example"))
    }
    let (report, _) = findings_of(headers, StatusCode::NO_CONTENT, false).await;
    let finding = report
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::LookAlikeOriginAllowed)
        .unwrap_or_else(|| panic!("{report}"));
    assert!(
        finding.message.contains("https://evilapp.example"),
        "{finding}"
    );
    assert_finding(
        headers,
        StatusCode::NO_CONTENT,
        false,
        FindingKind::LookAlikeOriginAllowed,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prefix_matched_origin() {
    // "Starts with the allowed origin": `https://app.example.evil.example` passes too.
    fn headers(request: &HeaderMap, preflight: bool) -> Vec<(&'static str, String)> {
        allowing(request, preflight, |o| o.starts_with(ALLOWED))
    }
    assert_finding(
        headers,
        StatusCode::NO_CONTENT,
        false,
        FindingKind::LookAlikeOriginAllowed,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_preflight_answered_403() {
    fn headers(request: &HeaderMap, preflight: bool) -> Vec<(&'static str, String)> {
        allowing(request, preflight, |o| o == ALLOWED)
    }
    assert_finding(
        headers,
        StatusCode::FORBIDDEN,
        false,
        FindingKind::PreflightNotOk,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn star_with_credentials_and_methods_wider_than_the_route() {
    fn headers(request: &HeaderMap, preflight: bool) -> Vec<(&'static str, String)> {
        let mut headers = vec![
            ("access-control-allow-origin", "*".to_owned()),
            ("access-control-allow-credentials", "true".to_owned()),
        ];
        if preflight {
            headers.push((
                "access-control-allow-methods",
                "GET, POST, DELETE".to_owned(),
            ));
            headers.push(("access-control-allow-headers", "*".to_owned()));
        }
        let _ = request;
        headers
    }
    let (report, _) = findings_of(headers, StatusCode::NO_CONTENT, true).await;
    let found = kinds(&report);
    assert!(
        found.contains(&FindingKind::StarWithCredentials),
        "{report}"
    );
    assert!(
        found.contains(&FindingKind::AllowMethodsWiderThanRoute),
        "{report}"
    );
    assert!(
        found.contains(&FindingKind::AllowedOriginRefused),
        "credentialed requests fail: {report}"
    );
}

#[test]
fn a_server_that_does_not_answer_is_exit_status_2() {
    // A port nothing listens on: bind one, then close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let output = Command::new(env!("CARGO_BIN_EXE_cors-audit"))
        .args([
            format!("http://127.0.0.1:{port}/"),
            "--origin".to_owned(),
            ALLOWED.to_owned(),
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("cors-audit: OPTIONS http://127.0.0.1:"),
        "{stderr}"
    );

    let output = Command::new(env!("CARGO_BIN_EXE_cors-audit"))
        .args(["http://127.0.0.1:1/", "--origin", "app.example"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .contains("`app.example` is not an origin")
    );
}
