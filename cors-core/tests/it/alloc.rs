//! Deciding and writing CORS headers allocates nothing for static policies, given a response
//! `HeaderMap` with room for the headers.
//!
//! The counter is global, so everything runs in one `#[test]`, in a process of its own: no
//! other test thread allocates while it counts.

use std::alloc::System;

use cors_axum_core::{
    AllowHeaders, CorsOptions, CorsPolicy, CorsRequest, RequestKind, ResponseCredentials,
};
use http::{HeaderMap, HeaderValue, Method};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

use crate::alone;

/// The allocator of the whole test binary, counting.
#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Heap allocations (and reallocations) made while `f` runs.
fn allocations(f: impl FnOnce()) -> usize {
    let region = Region::new(GLOBAL);
    f();
    let stats = region.change();
    stats.allocations + stats.reallocations
}

fn static_policies() -> Vec<(&'static str, CorsPolicy)> {
    let route = [
        Method::GET,
        Method::HEAD,
        Method::POST,
        Method::PATCH,
        Method::OPTIONS,
    ];
    let base = CorsOptions::new()
        .allow_headers(["content-type", "x-requested-with"])
        .expose_headers(["x-request-id"])
        .max_age(600u64)
        .preflight_cache_control("public, max-age=600")
        .protect_cross_origin(true)
        .credentials(true)
        .private_network(true);
    vec![
        (
            "exact",
            CorsPolicy::for_route(&base.clone().origin("https://example.com"), &route).unwrap(),
        ),
        (
            "list",
            CorsPolicy::for_route(
                &base.clone().origin([
                    "https://a.example",
                    "https://example.com",
                    "https://b.example",
                ]),
                &route,
            )
            .unwrap(),
        ),
        (
            "pattern",
            CorsPolicy::for_route(&base.clone().origin("https://*.example.com"), &route).unwrap(),
        ),
        (
            "list methods, mirror headers",
            CorsPolicy::from_options(
                &base
                    .origin("https://example.com")
                    .methods(["GET", "POST"])
                    .allow_headers(AllowHeaders::mirror_request()),
            )
            .unwrap(),
        ),
        (
            "any origin",
            CorsPolicy::for_route(
                &CorsOptions::new()
                    .allow_headers(["content-type", "x-requested-with"])
                    .preflight_cache_control(600)
                    .protect_cross_origin(true)
                    .private_network(true),
                &route,
            )
            .unwrap(),
        ),
    ]
}

fn origin_for(name: &str) -> HeaderValue {
    if name == "pattern" {
        HeaderValue::from_static("https://app.example.com")
    } else {
        HeaderValue::from_static("https://example.com")
    }
}

/// An allowed preflight for the policy called `name`, asking for headers (in a case browsers do
/// not send) and for private network access.
fn preflight_request(name: &str) -> HeaderMap {
    let mut request = HeaderMap::new();
    request.insert("origin", origin_for(name));
    request.insert(
        "access-control-request-method",
        HeaderValue::from_static("POST"),
    );
    request.insert(
        "access-control-request-headers",
        HeaderValue::from_static("Content-Type, X-Requested-With"),
    );
    request.insert(
        "access-control-request-private-network",
        HeaderValue::from_static("true"),
    );
    request
}

fn preflight_allocates_nothing() {
    for (name, policy) in static_policies() {
        let request = preflight_request(name);
        let mut response = HeaderMap::with_capacity(16);
        let count = allocations(|| {
            let request = CorsRequest::new(&Method::OPTIONS, &request);
            assert_eq!(request.kind(), RequestKind::Preflight);
            let decision = policy.preflight(&request);
            assert!(decision.is_allowed(), "{name}");
            decision.write(&mut response);
        });
        assert_eq!(
            count, 0,
            "{name}: {count} allocations; response {response:?}"
        );
        assert!(
            response.contains_key("access-control-allow-headers"),
            "{name}"
        );
        assert!(response.contains_key("cache-control"), "{name}");
        assert!(
            response.contains_key("vary") || !policy.varies_by_origin(),
            "{name}"
        );
    }
}

/// Into a fresh map (as in a new `Response`), which must allocate its storage anyway, a preflight
/// answer allocates no more than copying its headers into a fresh map does.
fn fresh_preflight_allocates_only_the_map() {
    for (name, policy) in static_policies() {
        let request = preflight_request(name);
        let mut response = HeaderMap::new();
        let count = allocations(|| {
            let request = CorsRequest::new(&Method::OPTIONS, &request);
            let decision = policy.preflight(&request);
            assert!(decision.is_allowed());
            decision.write(&mut response);
        });
        let mut copy = HeaderMap::new();
        let copy_count = allocations(|| {
            for (name, value) in &response {
                copy.insert(name.clone(), value.clone());
            }
        });
        assert_eq!(copy, response);
        assert!(
            (1..=copy_count).contains(&count),
            "{name}: {count} allocations, a fresh map takes {copy_count}"
        );
    }
}

/// Refused preflights, each for another reason, allocate nothing to decide, to name the reason,
/// or to write.
fn refused_preflight_allocates_nothing() {
    let refusals: [&[(&str, &'static str)]; 6] = [
        &[("origin", "https://evil.example")],
        &[("origin", "null")],
        &[("origin", "https://example.com/")],
        &[
            ("origin", "https://example.com"),
            ("access-control-request-method", "DELETE"),
        ],
        &[
            ("origin", "https://example.com"),
            ("access-control-request-headers", "content-type, x-other"),
        ],
        &[
            ("origin", "https://example.com"),
            ("access-control-request-headers", "content-type, x other"),
        ],
    ];
    for (name, policy) in static_policies() {
        if name == "pattern" {
            continue;
        }
        for (case, headers) in refusals.iter().enumerate() {
            let mut request = HeaderMap::new();
            for (name, value) in headers.iter() {
                request.append(*name, HeaderValue::from_static(value));
            }
            if !request.contains_key("access-control-request-method") {
                request.insert(
                    "access-control-request-method",
                    HeaderValue::from_static("POST"),
                );
            }
            let mut response = HeaderMap::with_capacity(16);
            let mut refused = false;
            let count = allocations(|| {
                let request = CorsRequest::new(&Method::OPTIONS, &request);
                let decision = policy.preflight(&request);
                refused = decision.refusal().is_some();
                decision.write(&mut response);
            });
            assert_eq!(count, 0, "{name} {headers:?}");
            // Any origin is not refused for its origin (the first three cases), mirrored
            // headers not for an unlisted one (the fifth).
            let expected = !matches!(
                (name, case),
                ("any origin", 0..=2) | ("list methods, mirror headers", 4)
            );
            assert_eq!(refused, expected, "{name} {headers:?}");
        }
    }
}

fn actual_allocates_nothing() {
    for (name, policy) in static_policies() {
        let mut request = HeaderMap::new();
        request.insert("origin", origin_for(name));
        for credentials in [ResponseCredentials::Policy, ResponseCredentials::Include] {
            let mut response = HeaderMap::with_capacity(16);
            let count = allocations(|| {
                let cors_request = CorsRequest::new(&Method::GET, &request);
                assert_eq!(cors_request.kind(), RequestKind::Actual);
                let decision = policy.actual(&cors_request);
                assert!(decision.is_allowed(), "{name}");
                // The handler runs here; the decision writes into its response.
                let refusal = decision.write(&mut response, credentials);
                assert_eq!(
                    refusal.is_some(),
                    name == "any origin" && credentials == ResponseCredentials::Include
                );
            });
            assert_eq!(count, 0, "{name} {credentials:?}: {count} allocations");
            assert!(
                response.contains_key("access-control-allow-origin"),
                "{name}"
            );
        }
        // A refused origin, and its reason.
        let mut request = HeaderMap::new();
        request.insert("origin", HeaderValue::from_static("https://evil.example"));
        let mut response = HeaderMap::with_capacity(16);
        let count = allocations(|| {
            let decision = policy.actual(&CorsRequest::new(&Method::GET, &request));
            let refusal = decision.write(&mut response, ResponseCredentials::Policy);
            assert_eq!(refusal.is_some(), name != "any origin");
        });
        assert_eq!(count, 0, "{name} refused: {count} allocations");
    }
}

fn non_cors_allocates_nothing() {
    for (name, policy) in static_policies() {
        let request = HeaderMap::new();
        let mut response = HeaderMap::with_capacity(16);
        let count = allocations(|| {
            let request = CorsRequest::new(&Method::GET, &request);
            assert_eq!(request.kind(), RequestKind::NotCors);
            let decision = policy.actual(&request);
            assert!(!decision.is_allowed());
            assert!(
                decision
                    .write(&mut response, ResponseCredentials::Policy)
                    .is_none()
            );
        });
        assert_eq!(count, 0, "{name}");
        assert_eq!(
            response.contains_key("vary"),
            policy.varies_by_origin(),
            "{name}"
        );
    }
}

/// A request's method and headers, and whether cross-origin protection lets it through.
type ProtectionCase<'a> = (Method, &'a [(&'static str, HeaderValue)], bool);

/// Cross-origin protection decides without allocating: safe methods, a trusted origin, a
/// same-host origin, and refusals by `Sec-Fetch-Site` and by `Origin`.
fn cross_origin_allocates_nothing() {
    for (name, policy) in static_policies() {
        assert!(policy.protects_cross_origin(), "{name}");
        let cases: [ProtectionCase<'_>; 5] = [
            (
                Method::GET,
                &[("sec-fetch-site", HeaderValue::from_static("cross-site"))],
                true,
            ),
            (
                Method::POST,
                &[
                    ("sec-fetch-site", HeaderValue::from_static("cross-site")),
                    ("origin", origin_for(name)),
                ],
                name != "any origin",
            ),
            (
                Method::POST,
                &[
                    ("sec-fetch-site", HeaderValue::from_static("cross-site")),
                    ("origin", HeaderValue::from_static("https://evil.example")),
                ],
                false,
            ),
            (
                Method::DELETE,
                &[(
                    "origin",
                    HeaderValue::from_static("https://api.example:8443"),
                )],
                true,
            ),
            (
                Method::PATCH,
                &[("origin", HeaderValue::from_static("https://evil.example"))],
                false,
            ),
        ];
        for (method, headers, passes) in cases {
            let mut request = HeaderMap::new();
            for (header, value) in headers {
                request.insert(*header, value.clone());
            }
            let mut passed = false;
            let count = allocations(|| {
                let request = CorsRequest::new(&method, &request);
                passed = policy
                    .cross_origin(&request, Some(b"api.example:8443"))
                    .is_ok();
            });
            assert_eq!(count, 0, "{name} {method} {headers:?}");
            assert_eq!(passed, passes, "{name} {method} {headers:?}");
        }
    }
}

/// WebSocket handshakes are recognised and decided without allocating.
fn websocket_allocates_nothing() {
    for (name, policy) in static_policies() {
        for (origin, allowed) in [
            (origin_for(name), true),
            (
                HeaderValue::from_static("https://evil.example"),
                name == "any origin",
            ),
        ] {
            let mut request = HeaderMap::new();
            request.insert("upgrade", HeaderValue::from_static("websocket"));
            request.insert(
                "connection",
                HeaderValue::from_static("keep-alive, Upgrade"),
            );
            request.insert("origin", origin);
            let mut decided = None;
            let count = allocations(|| {
                let request = CorsRequest::new(&Method::GET, &request);
                decided = Some(policy.websocket(&request, Some(b"api.example")).is_ok());
            });
            assert_eq!(count, 0, "{name}");
            assert_eq!(decided, Some(allowed), "{name}");
        }
    }
}

#[test]
fn static_policies_allocate_nothing_per_request() {
    if !alone::in_own_process(
        module_path!(),
        "static_policies_allocate_nothing_per_request",
    ) {
        return;
    }
    assert!(
        allocations(|| drop(std::hint::black_box(vec![1u8; 16]))) >= 1,
        "the counter counts"
    );
    preflight_allocates_nothing();
    fresh_preflight_allocates_only_the_map();
    refused_preflight_allocates_nothing();
    actual_allocates_nothing();
    non_cors_allocates_nothing();
    cross_origin_allocates_nothing();
    websocket_allocates_nothing();
}
