//! Feeds arbitrary methods and request headers through the engine's one path (classify, decide,
//! write) under several policies, checking the invariants that must hold for any input.
#![no_main]

use std::sync::OnceLock;

use cors_axum_core::{
    AllowHeaders, AllowMethods, AllowOrigin, CorsOptions, CorsPolicy, CorsRequest, Refusal,
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
    let mut response = HeaderMap::with_capacity(16);
    if selector & 0x40 != 0 {
        response.insert(VARY, HeaderValue::from_static("accept-encoding"));
    }
    let mut refusal_under_any_origin = false;
    match kind {
        RequestKind::Preflight => {
            let decision = policy.preflight(&cors_request);
            assert_eq!(decision.is_allowed(), decision.refusal().is_none());
            // Every reason has a one-line message.
            if let Some(refusal) = decision.refusal() {
                assert!(!refusal.to_string().contains('\n'));
            }
            // A fresh map starts from the prebuilt answer; one with capacity gets inserts.
            let mut fresh = HeaderMap::new();
            decision.clone().write(&mut fresh);
            let mut reserved = HeaderMap::with_capacity(16);
            decision.clone().write(&mut reserved);
            assert_eq!(fresh, reserved);
            let allowed = decision.is_allowed();
            decision.write(&mut response);
            assert_eq!(allowed, response.contains_key(ACCESS_CONTROL_ALLOW_ORIGIN));
        }
        RequestKind::Actual | RequestKind::NotCors => {
            let decision = policy.actual(&cors_request);
            assert_eq!(decision.is_cors(), kind == RequestKind::Actual);
            let refusal = decision.write(&mut response, credentials);
            if let Some(refusal) = refusal {
                assert!(!refusal.to_string().contains('\n'));
                refusal_under_any_origin = refusal == Refusal::CredentialsUnderAnyOrigin;
            }
            assert_eq!(
                decision.is_allowed(),
                response.contains_key(ACCESS_CONTROL_ALLOW_ORIGIN)
            );
            // Granted without a refusal, unless credentials were forced under any origin.
            assert_eq!(
                refusal.is_none(),
                (decision.is_allowed() && !refusal_under_any_origin) || !decision.is_cors()
            );
        }
    }
    if let Some(acao) = response.get(ACCESS_CONTROL_ALLOW_ORIGIN) {
        // `*` with credentials only when credentials were forced under any origin.
        if response.contains_key(ACCESS_CONTROL_ALLOW_CREDENTIALS) {
            assert!(acao != "*" || refusal_under_any_origin);
        }
        if acao != "*" {
            // A reflected origin is always the request's single `Origin` value.
            let mut origins = request.get_all("origin").iter();
            assert_eq!(origins.next(), Some(acao));
            assert!(origins.next().is_none());
        }
    }
    if policy.varies_by_origin() {
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
