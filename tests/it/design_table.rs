//! The five requests of DESIGN.md section 2, against the module of `examples/cors.rs`.

use crate::common;

use crate::example;

use common::{Answer, request, send};
use http::StatusCode;

const ORIGIN: &str = "https://example.com";

async fn ask(method: &str, uri: &str, headers: &[(&str, &str)]) -> Answer {
    let router = example::AppModule::router().expect("the example module builds");
    send(&router, request(method, uri, headers)).await
}

fn methods(list: &str) -> Vec<&str> {
    let mut methods: Vec<&str> = list.split(',').map(str::trim).collect();
    methods.sort_unstable();
    methods
}

#[tokio::test]
async fn row1_plain_options_lists_the_methods_of_the_path() {
    let answer = ask("OPTIONS", "/", &[]).await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT);
    assert_eq!(
        methods(answer.header("allow").unwrap()),
        ["GET", "HEAD", "OPTIONS", "PATCH", "POST"]
    );
    assert!(!answer.has_any_cors_header(), "{:?}", answer.headers);
    assert_eq!(
        answer.vary(),
        ["origin"],
        "the answer depends on the origin"
    );

    let answer = ask("OPTIONS", "/credentials", &[]).await;
    assert_eq!(
        methods(answer.header("allow").unwrap()),
        ["GET", "HEAD", "OPTIONS"]
    );
}

#[tokio::test]
async fn row2_options_with_an_allowed_origin() {
    let answer = ask("OPTIONS", "/", &[("origin", ORIGIN)]).await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT);
    assert!(answer.header("allow").is_some());
    assert_eq!(answer.header("access-control-allow-origin"), Some(ORIGIN));
    assert_eq!(answer.vary(), ["origin"]);
    assert_eq!(answer.header("access-control-allow-methods"), None);
    assert_eq!(answer.header("access-control-allow-headers"), None);
}

#[tokio::test]
async fn row3_get_with_an_allowed_origin() {
    let answer = ask("GET", "/", &[("origin", ORIGIN)]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body, "GET method\n");
    assert_eq!(answer.header("access-control-allow-origin"), Some(ORIGIN));
    assert_eq!(answer.vary(), ["origin"]);
    assert_eq!(answer.header("allow"), None);
    assert_eq!(answer.header("access-control-allow-methods"), None);
    assert_eq!(answer.header("access-control-allow-credentials"), None);
}

#[tokio::test]
async fn row4_preflight() {
    let answer = ask(
        "OPTIONS",
        "/",
        &[
            ("origin", ORIGIN),
            ("access-control-request-method", "POST"),
            (
                "access-control-request-headers",
                "X-PINGOTHER, Content-Type",
            ),
        ],
    )
    .await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT);
    assert_eq!(answer.header("access-control-allow-origin"), Some(ORIGIN));
    assert_eq!(
        methods(answer.header("access-control-allow-methods").unwrap()),
        ["GET", "HEAD", "OPTIONS", "PATCH", "POST"],
        "the methods of this path"
    );
    assert_eq!(
        answer.header("access-control-allow-headers"),
        Some("X-PINGOTHER, Content-Type"),
        "mirrors the request"
    );
    let vary = answer.vary();
    assert!(vary.contains(&"origin".to_owned()), "{vary:?}");
    assert!(
        vary.contains(&"access-control-request-headers".to_owned()),
        "{vary:?}"
    );
    assert_eq!(answer.header("allow"), None);
    assert_eq!(answer.body, "", "the handlers are not called");

    // The methods of `/credentials` differ from those of `/`.
    let answer = ask(
        "OPTIONS",
        "/credentials",
        &[("origin", ORIGIN), ("access-control-request-method", "GET")],
    )
    .await;
    assert_eq!(
        methods(answer.header("access-control-allow-methods").unwrap()),
        ["GET", "HEAD", "OPTIONS"]
    );
}

#[tokio::test]
async fn row4_preflight_for_a_method_the_path_lacks_is_refused() {
    let answer = ask(
        "OPTIONS",
        "/credentials",
        &[
            ("origin", ORIGIN),
            ("access-control-request-method", "DELETE"),
        ],
    )
    .await;
    assert!(!answer.has_any_cors_header(), "{:?}", answer.headers);
    assert!(answer.vary().contains(&"origin".to_owned()));
}

#[tokio::test]
async fn row5_credentialed_response_with_a_cookie() {
    let answer = ask("GET", "/credentials", &[("origin", ORIGIN)]).await;
    assert_eq!(answer.status, StatusCode::OK);
    let cookie = answer.header("set-cookie").unwrap();
    assert!(cookie.starts_with("one=value%20for%20one"), "{cookie}");
    assert_eq!(answer.header("access-control-allow-origin"), Some(ORIGIN));
    assert_eq!(
        answer.header("access-control-allow-credentials"),
        Some("true")
    );
    assert_eq!(answer.vary(), ["origin"]);
}

#[tokio::test]
async fn a_disallowed_origin_gets_the_handler_but_no_cors_headers() {
    let answer = ask("GET", "/credentials", &[("origin", "https://evil.example")]).await;
    assert_eq!(answer.status, StatusCode::OK, "the handler still runs");
    assert!(!answer.has_any_cors_header(), "{:?}", answer.headers);
    assert_eq!(answer.vary(), ["origin"]);

    let answer = ask(
        "OPTIONS",
        "/",
        &[
            ("origin", "https://example.com.evil.net"),
            ("access-control-request-method", "POST"),
        ],
    )
    .await;
    assert!(!answer.has_any_cors_header(), "{:?}", answer.headers);
}
