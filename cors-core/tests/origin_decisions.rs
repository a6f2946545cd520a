//! The engine's side of origins decided from the whole request and asynchronously: which
//! requests ask for a lookup, what the lookup sees, and how its answer decides.

use std::time::Duration;

use cors_axum_core::{
    AllowOrigin, CorsOptions, CorsPolicy, CorsRequest, OriginAnswer, Refusal, RequestKind,
};
use http::{HeaderMap, HeaderValue, Method, Uri};

fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        map.append(*name, HeaderValue::from_static(value));
    }
    map
}

/// A policy whose origins a database decides; the lookup allows `https://allowed.example`.
fn database() -> CorsPolicy {
    let origin = AllowOrigin::async_predicate(|query| async move {
        Ok(query.origin == "https://allowed.example")
    })
    .lookup_timeout(Duration::from_millis(250));
    CorsPolicy::from_options(&CorsOptions::new().origin(origin)).unwrap()
}

#[test]
fn only_requests_with_one_well_formed_origin_ask_for_a_lookup() {
    let policy = database();
    let cases = [
        (headers(&[]), false),
        (headers(&[("origin", "null")]), false),
        (headers(&[("origin", "https://a.example/path")]), false),
        (
            headers(&[
                ("origin", "https://a.example"),
                ("origin", "https://b.example"),
            ]),
            false,
        ),
        (headers(&[("origin", "https://a.example")]), true),
    ];
    for (headers, asks) in &cases {
        let request = CorsRequest::new(&Method::GET, headers);
        assert_eq!(
            policy.origin_lookup(&request).is_some(),
            *asks,
            "{headers:?}"
        );
    }

    // Once answered, it asks no more.
    let headers = headers(&[("origin", "https://a.example")]);
    let answered =
        CorsRequest::new(&Method::GET, &headers).with_origin_answer(OriginAnswer::Refused);
    assert!(policy.origin_lookup(&answered).is_none());

    // A synchronous origin option never asks.
    let sync = CorsPolicy::from_options(&CorsOptions::new().origin("https://a.example")).unwrap();
    assert!(
        sync.origin_lookup(&CorsRequest::new(&Method::GET, &headers))
            .is_none()
    );
}

#[tokio::test]
async fn the_lookup_sees_the_request_and_its_timeout() {
    let origin = AllowOrigin::async_predicate(|query| async move {
        Ok(query.method == Method::OPTIONS
            && query.uri.as_ref().map(Uri::path) == Some("/tenants/7")
            && query.headers.get("x-tenant").is_some_and(|t| t == "7")
            && query.origin == "https://seven.example")
    })
    .lookup_timeout(Duration::from_millis(1500));
    let policy = CorsPolicy::from_options(&CorsOptions::new().origin(origin)).unwrap();
    let headers = headers(&[
        ("origin", "https://seven.example"),
        ("access-control-request-method", "PUT"),
        ("x-tenant", "7"),
    ]);
    let uri: Uri = "/tenants/7".parse().unwrap();
    let request = CorsRequest::new(&Method::OPTIONS, &headers).with_uri(&uri);
    assert_eq!(request.kind(), RequestKind::Preflight);
    let lookup = policy.origin_lookup(&request).unwrap();
    assert_eq!(lookup.timeout, Duration::from_millis(1500));
    assert!(lookup.future.await.unwrap());
}

#[tokio::test]
async fn the_answer_decides_preflights_and_actual_requests_alike() {
    let policy = database();
    for (origin, allowed) in [
        ("https://allowed.example", true),
        ("https://other.example", false),
    ] {
        let preflight = headers(&[("origin", origin), ("access-control-request-method", "PUT")]);
        let request = CorsRequest::new(&Method::OPTIONS, &preflight);
        let answer = if policy
            .origin_lookup(&request)
            .unwrap()
            .future
            .await
            .unwrap()
        {
            OriginAnswer::Allowed
        } else {
            OriginAnswer::Refused
        };
        let request = request.with_origin_answer(answer);
        assert_eq!(policy.preflight(&request).is_allowed(), allowed, "{origin}");

        let actual = headers(&[("origin", origin)]);
        let request = CorsRequest::new(&Method::PUT, &actual).with_origin_answer(answer);
        let decision = policy.actual(&request);
        assert_eq!(decision.is_allowed(), allowed, "{origin}");
        let mut response = HeaderMap::new();
        decision.write(&mut response, Default::default());
        assert_eq!(response["vary"], "Origin", "{origin}");
        assert_eq!(
            response.get("access-control-allow-origin").is_some(),
            allowed,
            "{origin}"
        );
    }
}

#[test]
fn a_failed_or_missing_answer_refuses_with_the_reason() {
    let policy = database();
    let headers = headers(&[("origin", "https://allowed.example")]);

    let failed = CorsRequest::new(&Method::GET, &headers)
        .with_origin_answer(OriginAnswer::Failed("connection refused"));
    let decision = policy.actual(&failed);
    assert!(!decision.is_allowed());
    let refusal = decision.refusal().unwrap();
    assert_eq!(
        refusal,
        Refusal::OriginLookupFailed {
            reason: "connection refused"
        }
    );
    assert_eq!(
        refusal.to_string(),
        "the origin could not be decided: `connection refused`"
    );

    // A caller that did not await the lookup gets a refusal, never a grant.
    let decision = policy.actual(&CorsRequest::new(&Method::GET, &headers));
    assert!(!decision.is_allowed());
    assert!(matches!(
        decision.refusal(),
        Some(Refusal::OriginLookupFailed { .. })
    ));
    assert_eq!(
        decision.refusal().unwrap().to_string(),
        "the origin could not be decided: `the lookup was not made`"
    );
}
