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

/// A list answered at once, then a lookup for the rest: `https://listed.example` and subdomains
/// of `partner.example` are listed; the lookup allows `https://tenant.example`.
fn listed_then_looked_up(options: CorsOptions) -> CorsPolicy {
    CorsPolicy::from_options(&options).unwrap()
}

fn lookup() -> AllowOrigin {
    AllowOrigin::async_predicate(
        |query| async move { Ok(query.origin == "https://tenant.example") },
    )
}

#[test]
fn listed_origins_are_answered_without_the_lookup_and_the_rest_by_it() {
    let list = ["https://listed.example", "https://*.partner.example"];
    let in_one = AllowOrigin::list(list).or_else(lookup());
    let from_file = CorsOptions::new().origin(list).origin_fallback(lookup());
    for policy in [
        listed_then_looked_up(CorsOptions::new().origin(in_one)),
        listed_then_looked_up(from_file),
    ] {
        assert!(policy.decides_origins_asynchronously());
        for listed in ["https://listed.example", "https://a.partner.example"] {
            let request_headers = headers(&[("origin", listed)]);
            let request = CorsRequest::new(&Method::GET, &request_headers);
            assert!(
                policy.origin_lookup(&request).is_none(),
                "{listed}: no lookup"
            );
            assert!(policy.actual(&request).is_allowed(), "{listed}");
        }
        let request_headers = headers(&[("origin", "https://tenant.example")]);
        let request = CorsRequest::new(&Method::GET, &request_headers);
        assert!(policy.origin_lookup(&request).is_some());
        let allowed = request.with_origin_answer(OriginAnswer::Allowed);
        assert!(policy.actual(&allowed).is_allowed());
        let refused = request.with_origin_answer(OriginAnswer::Refused);
        assert!(!policy.actual(&refused).is_allowed());
        let failed = request.with_origin_answer(OriginAnswer::Failed("down"));
        assert_eq!(
            policy.actual(&failed).refusal(),
            Some(Refusal::OriginLookupFailed { reason: "down" })
        );
    }
}

#[test]
fn a_fallback_without_a_list_decides_alone_and_with_anything_else_is_an_error() {
    let policy = listed_then_looked_up(CorsOptions::new().origin_fallback(lookup()));
    let request_headers = headers(&[("origin", "https://listed.example")]);
    assert!(
        policy
            .origin_lookup(&CorsRequest::new(&Method::GET, &request_headers))
            .is_some()
    );

    for options in [
        CorsOptions::new().origin("*").origin_fallback(lookup()),
        CorsOptions::new()
            .origin(AllowOrigin::mirror_request())
            .origin_fallback(lookup()),
        CorsOptions::new()
            .origin(AllowOrigin::list(["https://a.example"]).or_else(AllowOrigin::any())),
        CorsOptions::new().origin(lookup().or_else(lookup())),
    ] {
        let err = CorsPolicy::from_options(&options).unwrap_err();
        assert_eq!(err.field(), "origin", "{err}");
    }
}

#[derive(Clone)]
struct Tenants(&'static str);

#[test]
fn a_decision_takes_a_provided_value_once_bound() {
    let origin = AllowOrigin::async_predicate_with(|tenants: Tenants, query| async move {
        Ok(query.origin == tenants.0)
    });
    let options = CorsOptions::new()
        .origin(["https://listed.example"])
        .origin_fallback(origin);
    assert_eq!(options.needed_values().len(), 1);
    assert!(options.needed_values()[0].1.ends_with("Tenants"));
    let err = CorsPolicy::from_options(&options).unwrap_err();
    assert!(err.to_string().contains("Tenants"), "{err}");
    let err = options.with_values(|_| None).unwrap_err();
    assert!(err.to_string().contains("Tenants"), "{err}");

    let tenants: cors_axum_core::ProvidedValue = std::sync::Arc::new(Tenants("https://t.example"));
    let bound = options.with_values(|_| Some(tenants.clone())).unwrap();
    assert!(bound.needed_values().is_empty());
    let policy = CorsPolicy::from_options(&bound).unwrap();
    let request_headers = headers(&[("origin", "https://t.example")]);
    let request = CorsRequest::new(&Method::GET, &request_headers);
    let lookup = policy
        .origin_lookup(&request)
        .expect("not listed: looked up");
    let allowed = futures_ready(lookup.future).expect("the lookup answers");
    assert!(allowed, "the decision saw the provided value");
}

/// Polls a future that is ready at once.
fn futures_ready<T>(future: std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>>) -> T {
    let mut future = future;
    match future
        .as_mut()
        .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
    {
        std::task::Poll::Ready(value) => value,
        std::task::Poll::Pending => panic!("the lookup is ready at once"),
    }
}
