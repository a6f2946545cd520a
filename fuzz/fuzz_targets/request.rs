//! Feeds arbitrary methods and request headers through `classify`, `preflight` and `actual`
//! under several policies, checking the invariants that must hold for any input.
#![no_main]

use std::sync::OnceLock;

use cors_axum_core::{
    AllowHeaders, AllowMethods, AllowOrigin, CapturedOrigin, CorsOptions, CorsPolicy, CorsRequest,
    RequestKind, ResponseCredentials,
};
use http::header::{ACCESS_CONTROL_ALLOW_CREDENTIALS, ACCESS_CONTROL_ALLOW_ORIGIN, VARY};
use http::{HeaderMap, HeaderName, HeaderValue, Method};
use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 7] = [
    "origin",
    "access-control-request-method",
    "access-control-request-headers",
    "access-control-request-private-network",
    "vary",
    "content-type",
    "authorization",
];

fn policies() -> &'static [CorsPolicy] {
    static POLICIES: OnceLock<Vec<CorsPolicy>> = OnceLock::new();
    POLICIES.get_or_init(|| {
        let options = [
            CorsOptions::new(),
            CorsOptions::new()
                .origin([
                    "https://example.com",
                    "https://*.example.com",
                    "http://localhost:3000",
                ])
                .methods(["GET", "POST"])
                .allow_headers(["content-type", "x-requested-with"])
                .expose_headers(["x-request-id"])
                .credentials(true)
                .max_age(600u64)
                .private_network(true),
            CorsOptions::new()
                .origin(AllowOrigin::mirror_request())
                .methods(AllowMethods::mirror_request())
                .allow_headers(AllowHeaders::mirror_request())
                .credentials(true)
                .allow_null_origin(true),
            CorsOptions::new()
                .methods("*")
                .allow_headers("*")
                .expose_headers("*"),
            CorsOptions::new().origin(AllowOrigin::predicate(|o| o.as_bytes().len() % 2 == 0)),
        ];
        options
            .iter()
            .map(|o| CorsPolicy::for_route(o, &[Method::GET, Method::POST]).expect("valid options"))
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let mut parts = rest.split(|&b| b == 0xff);
    let method = parts
        .next()
        .and_then(|m| Method::from_bytes(m).ok())
        .unwrap_or(Method::OPTIONS);
    let mut request = HeaderMap::new();
    for part in parts {
        let Some((&name, value)) = part.split_first() else {
            continue;
        };
        let name = HeaderName::from_static(NAMES[usize::from(name) % NAMES.len()]);
        if let Ok(value) = HeaderValue::from_bytes(value) {
            request.append(name, value);
        }
    }
    let policy = &policies()[usize::from(selector) % policies().len()];
    let credentials = if selector & 0x80 == 0 {
        ResponseCredentials::Policy
    } else {
        ResponseCredentials::Include
    };

    let cors_request = CorsRequest::new(&method, &request);
    let kind = cors_request.kind();
    assert_eq!(kind, CorsPolicy::classify(&method, &request));
    let mut response = HeaderMap::with_capacity(16);
    if selector & 0x40 != 0 {
        response.insert(VARY, HeaderValue::from_static("accept-encoding"));
    }
    match kind {
        RequestKind::Preflight => {
            // A fresh map starts from the prebuilt answer; one with capacity gets inserts.
            let mut fresh = HeaderMap::new();
            let fresh_outcome = policy.answer_preflight(&cors_request, &mut fresh);
            let mut reserved = HeaderMap::with_capacity(16);
            assert_eq!(
                policy.answer_preflight(&cors_request, &mut reserved),
                fresh_outcome
            );
            assert_eq!(fresh, reserved);
            let outcome = policy.preflight(&request, &mut response);
            assert_eq!(outcome, fresh_outcome);
            assert!(outcome.allowed || response.get(ACCESS_CONTROL_ALLOW_ORIGIN).is_none());
        }
        RequestKind::Actual | RequestKind::NotCors => {
            let mut captured_response = response.clone();
            let captured = CapturedOrigin::from_headers(&request);
            let captured_outcome =
                policy.actual_captured(&captured, &mut captured_response, credentials);
            let outcome = policy.actual(&request, &mut response, credentials);
            assert_eq!(outcome, captured_outcome);
            assert_eq!(response, captured_response);
            assert_eq!(
                outcome.origin_allowed,
                response.contains_key(ACCESS_CONTROL_ALLOW_ORIGIN)
            );
            if kind == RequestKind::NotCors {
                assert!(!outcome.origin_allowed);
            }
        }
    }
    if let Some(acao) = response.get(ACCESS_CONTROL_ALLOW_ORIGIN) {
        if response.contains_key(ACCESS_CONTROL_ALLOW_CREDENTIALS) {
            assert_ne!(acao, "*");
        }
        if acao != "*" {
            // A reflected origin is always the request's single `Origin` value.
            let mut origins = request.get_all("origin").iter();
            assert_eq!(origins.next(), Some(acao));
            assert!(origins.next().is_none());
        }
    }
    if policy.varies_by_origin()
        || credentials == ResponseCredentials::Include && kind != RequestKind::Preflight
    {
        let vary: Vec<&[u8]> = response
            .get_all(VARY)
            .iter()
            .map(HeaderValue::as_bytes)
            .collect();
        assert!(
            vary.iter()
                .any(|v| v.windows(6).any(|w| w.eq_ignore_ascii_case(b"origin")))
        );
    }
});
