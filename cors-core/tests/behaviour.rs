//! The Fetch rules the engine implements, request by request (DESIGN.md section 2).

use cors_axum_core::{
    AllowHeaders, AllowMethods, AllowOrigin, CorsOptions, CorsPolicy, PreflightStatus,
    RejectedPreflight, RequestKind, ResponseCredentials,
};
use http::{HeaderMap, HeaderValue, Method, StatusCode};

const ROUTE: [Method; 5] = [
    Method::GET,
    Method::HEAD,
    Method::POST,
    Method::PATCH,
    Method::OPTIONS,
];

fn request(headers: &[(&'static str, &'static str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        map.append(*name, HeaderValue::from_static(value));
    }
    map
}

fn get<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).map(|v| v.to_str().unwrap())
}

fn cors_headers(headers: &HeaderMap) -> Vec<&str> {
    headers
        .keys()
        .map(http::HeaderName::as_str)
        .filter(|n| n.starts_with("access-control-"))
        .collect()
}

fn example() -> CorsPolicy {
    CorsPolicy::for_route(&CorsOptions::new().origin("https://example.com"), &ROUTE).unwrap()
}

#[test]
fn classify() {
    let none = request(&[]);
    let origin = request(&[("origin", "https://example.com")]);
    let preflight = request(&[
        ("origin", "https://example.com"),
        ("access-control-request-method", "POST"),
    ]);
    assert_eq!(
        CorsPolicy::classify(&Method::OPTIONS, &none),
        RequestKind::NotCors
    );
    assert_eq!(
        CorsPolicy::classify(&Method::GET, &none),
        RequestKind::NotCors
    );
    assert_eq!(
        CorsPolicy::classify(&Method::OPTIONS, &origin),
        RequestKind::Actual
    );
    assert_eq!(
        CorsPolicy::classify(&Method::GET, &origin),
        RequestKind::Actual
    );
    assert_eq!(
        CorsPolicy::classify(&Method::OPTIONS, &preflight),
        RequestKind::Preflight
    );
    assert_eq!(
        CorsPolicy::classify(&Method::POST, &preflight),
        RequestKind::Actual
    );
    let no_origin = request(&[("access-control-request-method", "POST")]);
    assert_eq!(
        CorsPolicy::classify(&Method::OPTIONS, &no_origin),
        RequestKind::NotCors
    );
}

#[test]
fn row1_not_cors_only_vary() {
    let mut response = HeaderMap::new();
    let outcome = example().actual(&request(&[]), &mut response, ResponseCredentials::Policy);
    assert!(!outcome.origin_allowed);
    assert!(cors_headers(&response).is_empty());
    assert_eq!(get(&response, "vary"), Some("Origin"));
}

#[test]
fn row2_and_row3_actual_allowed() {
    let mut response = HeaderMap::new();
    let outcome = example().actual(
        &request(&[("origin", "https://example.com")]),
        &mut response,
        ResponseCredentials::Policy,
    );
    assert!(outcome.origin_allowed);
    assert!(!outcome.reflected_any_origin_with_credentials);
    assert_eq!(
        get(&response, "access-control-allow-origin"),
        Some("https://example.com")
    );
    assert_eq!(get(&response, "vary"), Some("Origin"));
    assert_eq!(cors_headers(&response), ["access-control-allow-origin"]);
}

#[test]
fn row4_preflight() {
    let mut response = HeaderMap::new();
    let outcome = example().preflight(
        &request(&[
            ("origin", "https://example.com"),
            ("access-control-request-method", "POST"),
            (
                "access-control-request-headers",
                "X-PINGOTHER, Content-Type",
            ),
        ]),
        &mut response,
    );
    assert!(outcome.allowed);
    assert_eq!(outcome.status, StatusCode::NO_CONTENT);
    assert_eq!(
        get(&response, "access-control-allow-origin"),
        Some("https://example.com")
    );
    assert_eq!(
        get(&response, "access-control-allow-methods"),
        Some("GET, HEAD, POST, PATCH, OPTIONS")
    );
    assert_eq!(
        get(&response, "access-control-allow-headers"),
        Some("X-PINGOTHER, Content-Type")
    );
    assert_eq!(
        get(&response, "vary"),
        Some("Origin, Access-Control-Request-Headers")
    );
    assert!(response.get("access-control-allow-credentials").is_none());
    assert!(response.get("access-control-max-age").is_none());
    assert!(response.get("access-control-expose-headers").is_none());
}

#[test]
fn row5_forced_credentials() {
    let policy = CorsPolicy::for_route(
        &CorsOptions::new().origin("https://example.com"),
        &[Method::GET],
    )
    .unwrap();
    let mut response = HeaderMap::new();
    response.insert("set-cookie", HeaderValue::from_static("one=1"));
    let outcome = policy.actual(
        &request(&[("origin", "https://example.com")]),
        &mut response,
        ResponseCredentials::Include,
    );
    assert!(outcome.origin_allowed);
    assert!(!outcome.reflected_any_origin_with_credentials);
    assert_eq!(
        get(&response, "access-control-allow-origin"),
        Some("https://example.com")
    );
    assert_eq!(
        get(&response, "access-control-allow-credentials"),
        Some("true")
    );
    assert_eq!(get(&response, "vary"), Some("Origin"));

    // A disallowed origin still gets nothing.
    let mut response = HeaderMap::new();
    let outcome = policy.actual(
        &request(&[("origin", "https://evil.com")]),
        &mut response,
        ResponseCredentials::Include,
    );
    assert!(!outcome.origin_allowed);
    assert!(cors_headers(&response).is_empty());
    assert_eq!(get(&response, "vary"), Some("Origin"));
}

#[test]
fn default_policy_is_star_without_vary() {
    let policy = CorsPolicy::from_options(&CorsOptions::new()).unwrap();
    assert!(policy.allows_any_origin());
    assert!(!policy.varies_by_origin());
    let mut response = HeaderMap::new();
    policy.actual(
        &request(&[("origin", "https://a.com")]),
        &mut response,
        ResponseCredentials::Policy,
    );
    assert_eq!(get(&response, "access-control-allow-origin"), Some("*"));
    assert!(response.get("vary").is_none());
    // Not CORS: nothing at all.
    let mut response = HeaderMap::new();
    policy.actual(&request(&[]), &mut response, ResponseCredentials::Policy);
    assert!(response.is_empty());
    // Forced credentials reflect the origin and vary.
    let mut response = HeaderMap::new();
    let outcome = policy.actual(
        &request(&[("origin", "https://a.com")]),
        &mut response,
        ResponseCredentials::Include,
    );
    assert!(outcome.reflected_any_origin_with_credentials);
    assert_eq!(
        get(&response, "access-control-allow-origin"),
        Some("https://a.com")
    );
    assert_eq!(
        get(&response, "access-control-allow-credentials"),
        Some("true")
    );
    assert_eq!(get(&response, "vary"), Some("Origin"));
    // ... but never for `null` without the opt-in, nor for malformed origins.
    for origin in ["null", "https://a.com, https://b.com"] {
        let mut req = HeaderMap::new();
        req.insert("origin", HeaderValue::from_static(origin));
        let mut response = HeaderMap::new();
        let outcome = policy.actual(&req, &mut response, ResponseCredentials::Include);
        assert!(!outcome.origin_allowed, "{origin}");
        assert!(
            response.get("access-control-allow-origin").is_none(),
            "{origin}"
        );
    }
    // Default preflight: `*` origin, mirrored method and headers.
    let mut response = HeaderMap::new();
    let outcome = policy.preflight(
        &request(&[
            ("origin", "https://a.com"),
            ("access-control-request-method", "DELETE"),
            ("access-control-request-headers", "x-a"),
        ]),
        &mut response,
    );
    assert!(outcome.allowed);
    assert_eq!(get(&response, "access-control-allow-origin"), Some("*"));
    assert_eq!(
        get(&response, "access-control-allow-methods"),
        Some("DELETE")
    );
    assert_eq!(get(&response, "access-control-allow-headers"), Some("x-a"));
    assert_eq!(
        get(&response, "vary"),
        Some("Access-Control-Request-Method, Access-Control-Request-Headers")
    );
}

#[test]
fn credentials_on_preflight_and_actual() {
    let policy = CorsPolicy::from_options(
        &CorsOptions::new()
            .origin("https://example.com")
            .credentials(true)
            .methods(["GET", "PUT"])
            .allow_headers(["content-type"])
            .expose_headers(["x-request-id", "x-total"])
            .max_age(600u64),
    )
    .unwrap();
    let mut response = HeaderMap::new();
    let outcome = policy.preflight(
        &request(&[
            ("origin", "https://example.com"),
            ("access-control-request-method", "PUT"),
            ("access-control-request-headers", "Content-Type"),
        ]),
        &mut response,
    );
    assert!(outcome.allowed);
    assert_eq!(
        get(&response, "access-control-allow-credentials"),
        Some("true")
    );
    assert_eq!(
        get(&response, "access-control-allow-methods"),
        Some("GET, PUT")
    );
    assert_eq!(
        get(&response, "access-control-allow-headers"),
        Some("content-type")
    );
    assert_eq!(get(&response, "access-control-max-age"), Some("600"));
    assert_eq!(get(&response, "vary"), Some("Origin"));
    assert!(response.get("access-control-expose-headers").is_none());

    let mut response = HeaderMap::new();
    policy.actual(
        &request(&[("origin", "https://example.com")]),
        &mut response,
        ResponseCredentials::Policy,
    );
    assert_eq!(
        get(&response, "access-control-allow-credentials"),
        Some("true")
    );
    assert_eq!(
        get(&response, "access-control-expose-headers"),
        Some("x-request-id, x-total")
    );
    assert!(response.get("access-control-max-age").is_none());
}

#[test]
fn rejected_preflights_carry_only_vary() {
    let policy = CorsPolicy::for_route(
        &CorsOptions::new()
            .origin("https://example.com")
            .allow_headers(["content-type"])
            .credentials(true)
            .max_age(5u64),
        &[Method::GET, Method::POST],
    )
    .unwrap();
    let rejected: [&[(&'static str, &'static str)]; 7] = [
        &[
            ("origin", "https://evil.com"),
            ("access-control-request-method", "GET"),
        ],
        &[
            ("origin", "https://example.com"),
            ("access-control-request-method", "DELETE"),
        ],
        &[
            ("origin", "https://example.com"),
            ("access-control-request-method", "get"),
        ],
        &[
            ("origin", "https://example.com"),
            ("access-control-request-method", "GET, POST"),
        ],
        &[
            ("origin", "https://example.com"),
            ("access-control-request-method", "GET"),
            ("access-control-request-method", "GET"),
        ],
        &[
            ("origin", "https://example.com"),
            ("access-control-request-method", "GET"),
            ("access-control-request-headers", "content-type, x-other"),
        ],
        &[
            ("origin", "https://example.com"),
            ("access-control-request-method", "GET"),
            ("access-control-request-headers", "content-type; x"),
        ],
    ];
    for headers in rejected {
        let mut response = HeaderMap::new();
        let outcome = policy.preflight(&request(headers), &mut response);
        assert!(!outcome.allowed, "{headers:?}");
        assert_eq!(outcome.status, StatusCode::NO_CONTENT);
        assert!(cors_headers(&response).is_empty(), "{headers:?}");
        assert_eq!(get(&response, "vary"), Some("Origin"));
    }
    let mut response = HeaderMap::new();
    let outcome = policy.preflight(
        &request(&[("origin", "https://example.com")]),
        &mut response,
    );
    assert!(!outcome.allowed, "a preflight without a method is rejected");
}

#[test]
fn forbidden_and_ok_statuses() {
    let policy = CorsPolicy::from_options(
        &CorsOptions::new()
            .origin("https://example.com")
            .preflight_status(PreflightStatus::Ok)
            .rejected_preflight(RejectedPreflight::Forbidden),
    )
    .unwrap();
    let mut response = HeaderMap::new();
    let ok = policy.preflight(
        &request(&[
            ("origin", "https://example.com"),
            ("access-control-request-method", "GET"),
        ]),
        &mut response,
    );
    assert_eq!((ok.allowed, ok.status), (true, StatusCode::OK));
    let mut response = HeaderMap::new();
    let no = policy.preflight(
        &request(&[
            ("origin", "https://evil.com"),
            ("access-control-request-method", "GET"),
        ]),
        &mut response,
    );
    assert_eq!((no.allowed, no.status), (false, StatusCode::FORBIDDEN));
    assert!(cors_headers(&response).is_empty());
}

#[test]
fn requested_headers_parsing() {
    let policy = CorsPolicy::from_options(
        &CorsOptions::new()
            .origin("https://example.com")
            .allow_headers(["Content-Type", "X-PingOther", "authorization"]),
    )
    .unwrap();
    let allowed: [&[(&'static str, &'static str)]; 4] = [
        &[("access-control-request-headers", "content-type,x-pingother")],
        &[(
            "access-control-request-headers",
            " CONTENT-TYPE ,\tX-PINGOTHER ",
        )],
        &[
            ("access-control-request-headers", "content-type"),
            ("access-control-request-headers", "authorization"),
        ],
        &[("access-control-request-headers", "content-type,,")],
    ];
    for extra in allowed {
        let mut headers = request(&[
            ("origin", "https://example.com"),
            ("access-control-request-method", "GET"),
        ]);
        for (n, v) in extra {
            headers.append(*n, HeaderValue::from_static(v));
        }
        let mut response = HeaderMap::new();
        assert!(
            policy.preflight(&headers, &mut response).allowed,
            "{extra:?}"
        );
        assert_eq!(
            get(&response, "access-control-allow-headers"),
            Some("content-type, x-pingother, authorization")
        );
    }
    // Over the bounds: rejected cleanly.
    let many = (0..65)
        .map(|i| format!("x-h{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut headers = request(&[
        ("origin", "https://example.com"),
        ("access-control-request-method", "GET"),
    ]);
    headers.insert(
        "access-control-request-headers",
        HeaderValue::from_str(&many).unwrap(),
    );
    let mirror = CorsPolicy::from_options(&CorsOptions::new()).unwrap();
    assert!(!mirror.preflight(&headers, &mut HeaderMap::new()).allowed);
    let long = format!("x-{}", "a".repeat(5000));
    headers.insert(
        "access-control-request-headers",
        HeaderValue::from_str(&long).unwrap(),
    );
    assert!(!mirror.preflight(&headers, &mut HeaderMap::new()).allowed);
}

#[test]
fn mirror_headers_joins_several_lines() {
    let policy = CorsPolicy::from_options(&CorsOptions::new()).unwrap();
    let headers = request(&[
        ("origin", "https://a.com"),
        ("access-control-request-method", "GET"),
        ("access-control-request-headers", "x-a, x-b"),
        ("access-control-request-headers", "x-c"),
    ]);
    let mut response = HeaderMap::new();
    assert!(policy.preflight(&headers, &mut response).allowed);
    assert_eq!(
        get(&response, "access-control-allow-headers"),
        Some("x-a, x-b, x-c")
    );
}

#[test]
fn any_headers_and_methods() {
    let policy = CorsPolicy::from_options(
        &CorsOptions::new()
            .origin(["https://a.com"])
            .methods(AllowMethods::any())
            .allow_headers(AllowHeaders::any())
            .expose_headers("*"),
    )
    .unwrap();
    let mut response = HeaderMap::new();
    let headers = request(&[
        ("origin", "https://a.com"),
        ("access-control-request-method", "PURGE"),
        ("access-control-request-headers", "x-a, Authorization"),
    ]);
    assert!(policy.preflight(&headers, &mut response).allowed);
    assert_eq!(get(&response, "access-control-allow-methods"), Some("*"));
    assert_eq!(
        get(&response, "access-control-allow-headers"),
        Some("*, authorization")
    );
    assert_eq!(
        get(&response, "vary"),
        Some("Origin, Access-Control-Request-Headers")
    );
    let mut response = HeaderMap::new();
    policy.actual(
        &request(&[("origin", "https://a.com")]),
        &mut response,
        ResponseCredentials::Policy,
    );
    assert_eq!(get(&response, "access-control-expose-headers"), Some("*"));
}

#[test]
fn mirror_methods() {
    let policy = CorsPolicy::for_route(
        &CorsOptions::new()
            .origin("https://a.com")
            .methods(AllowMethods::mirror_request()),
        &[Method::GET],
    )
    .unwrap();
    let mut response = HeaderMap::new();
    let headers = request(&[
        ("origin", "https://a.com"),
        ("access-control-request-method", "PURGE"),
    ]);
    assert!(policy.preflight(&headers, &mut response).allowed);
    assert_eq!(
        get(&response, "access-control-allow-methods"),
        Some("PURGE")
    );
    assert_eq!(
        get(&response, "vary"),
        Some("Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
    );
    // Not a token: rejected.
    let headers = request(&[
        ("origin", "https://a.com"),
        ("access-control-request-method", "GE T"),
    ]);
    assert!(!policy.preflight(&headers, &mut HeaderMap::new()).allowed);
}

#[test]
fn from_options_mirrors_route_methods() {
    let policy = CorsPolicy::from_options(&CorsOptions::new().origin("https://a.com")).unwrap();
    let mut response = HeaderMap::new();
    let headers = request(&[
        ("origin", "https://a.com"),
        ("access-control-request-method", "PATCH"),
    ]);
    assert!(policy.preflight(&headers, &mut response).allowed);
    assert_eq!(
        get(&response, "access-control-allow-methods"),
        Some("PATCH")
    );
}

#[test]
fn private_network_is_opt_in() {
    let headers = request(&[
        ("origin", "https://a.com"),
        ("access-control-request-method", "GET"),
        ("access-control-request-private-network", "true"),
    ]);
    let off = CorsPolicy::from_options(&CorsOptions::new().origin("https://a.com")).unwrap();
    let mut response = HeaderMap::new();
    assert!(off.preflight(&headers, &mut response).allowed);
    assert!(
        response
            .get("access-control-allow-private-network")
            .is_none()
    );

    let on = CorsPolicy::from_options(
        &CorsOptions::new()
            .origin("https://a.com")
            .private_network(true),
    )
    .unwrap();
    let mut response = HeaderMap::new();
    assert!(on.preflight(&headers, &mut response).allowed);
    assert_eq!(
        get(&response, "access-control-allow-private-network"),
        Some("true")
    );
    assert_eq!(
        get(&response, "vary"),
        Some(
            "Origin, Access-Control-Request-Method, Access-Control-Request-Headers, \
             Access-Control-Request-Private-Network"
        )
    );
    // Without the request header: no grant, same Vary.
    let mut response = HeaderMap::new();
    let plain = request(&[
        ("origin", "https://a.com"),
        ("access-control-request-method", "GET"),
    ]);
    assert!(on.preflight(&plain, &mut response).allowed);
    assert!(
        response
            .get("access-control-allow-private-network")
            .is_none()
    );
}

#[test]
fn vary_merges_with_handler_vary() {
    let policy = example();
    let origin = request(&[("origin", "https://example.com")]);
    let mut response = HeaderMap::new();
    response.insert("vary", HeaderValue::from_static("Accept-Encoding"));
    policy.actual(&origin, &mut response, ResponseCredentials::Policy);
    assert_eq!(get(&response, "vary"), Some("Accept-Encoding, Origin"));

    let mut response = HeaderMap::new();
    response.insert("vary", HeaderValue::from_static("origin, accept"));
    policy.actual(&origin, &mut response, ResponseCredentials::Policy);
    assert_eq!(get(&response, "vary"), Some("origin, accept"));

    let mut response = HeaderMap::new();
    response.insert("vary", HeaderValue::from_static("*"));
    policy.actual(&origin, &mut response, ResponseCredentials::Policy);
    assert_eq!(get(&response, "vary"), Some("*"));

    // Called twice (e.g. by nested layers): still no duplicate.
    let mut response = HeaderMap::new();
    policy.actual(&origin, &mut response, ResponseCredentials::Policy);
    policy.actual(&origin, &mut response, ResponseCredentials::Policy);
    assert_eq!(response.get_all("vary").iter().count(), 1);
    assert_eq!(get(&response, "vary"), Some("Origin"));
}

#[test]
fn null_origin_opt_in() {
    let null = request(&[("origin", "null")]);
    let refused =
        CorsPolicy::from_options(&CorsOptions::new().origin(AllowOrigin::mirror_request()))
            .unwrap();
    let mut response = HeaderMap::new();
    assert!(
        !refused
            .actual(&null, &mut response, ResponseCredentials::Policy)
            .origin_allowed
    );

    for options in [
        CorsOptions::new()
            .origin(["https://a.com", "null"])
            .allow_null_origin(true),
        CorsOptions::new()
            .origin("https://a.com")
            .allow_null_origin(true),
        CorsOptions::new()
            .origin(AllowOrigin::mirror_request())
            .allow_null_origin(true),
    ] {
        let policy = CorsPolicy::from_options(&options.credentials(true)).unwrap();
        let mut response = HeaderMap::new();
        assert!(
            policy
                .actual(&null, &mut response, ResponseCredentials::Policy)
                .origin_allowed
        );
        assert_eq!(get(&response, "access-control-allow-origin"), Some("null"));
    }
}

#[test]
fn predicate_sees_well_formed_origins() {
    let policy =
        CorsPolicy::from_options(&CorsOptions::new().origin(AllowOrigin::predicate(|o| {
            o.as_bytes().ends_with(b".localhost:3000")
        })))
        .unwrap();
    let mut response = HeaderMap::new();
    let ok = request(&[("origin", "http://app.localhost:3000")]);
    assert!(
        policy
            .actual(&ok, &mut response, ResponseCredentials::Policy)
            .origin_allowed
    );
    assert_eq!(
        get(&response, "access-control-allow-origin"),
        Some("http://app.localhost:3000")
    );
    assert_eq!(get(&response, "vary"), Some("Origin"));
    let bad = request(&[("origin", "http://x.localhost:3000/")]);
    assert!(
        !policy
            .actual(&bad, &mut HeaderMap::new(), ResponseCredentials::Policy)
            .origin_allowed
    );
}

#[test]
fn merge_then_compile() {
    let module = CorsOptions::new()
        .origin("https://example.com")
        .max_age(600u64);
    let route = CorsOptions::new().allow_headers(["content-type"]);
    let policy = CorsPolicy::for_route(&module.merge(&route), &[Method::GET]).unwrap();
    let mut response = HeaderMap::new();
    let headers = request(&[
        ("origin", "https://example.com"),
        ("access-control-request-method", "GET"),
    ]);
    assert!(policy.preflight(&headers, &mut response).allowed);
    assert_eq!(get(&response, "access-control-max-age"), Some("600"));
    assert_eq!(
        get(&response, "access-control-allow-headers"),
        Some("content-type")
    );
    assert_eq!(get(&response, "access-control-allow-methods"), Some("GET"));
}

/// A fresh response map starts from the prebuilt preflight answer; a map with capacity, or with
/// a handler's headers, gets one insert per header. Every option that changes the answer gives
/// the same headers both ways.
#[test]
fn prebuilt_and_inserted_preflights_agree() {
    let policies = [
        CorsOptions::new(),
        CorsOptions::new()
            .origin("https://example.com")
            .max_age(600u64),
        CorsOptions::new()
            .origin(["https://example.com", "https://*.example.org"])
            .credentials(true)
            .allow_headers(["content-type", "x-requested-with"])
            .methods(["GET", "PATCH"]),
        CorsOptions::new()
            .origin(AllowOrigin::mirror_request())
            .methods(AllowMethods::mirror_request())
            .allow_headers(AllowHeaders::mirror_request())
            .credentials(true)
            .private_network(true),
        CorsOptions::new()
            .methods("*")
            .allow_headers("*")
            .private_network(true),
        CorsOptions::new()
            .origin("https://example.com")
            .allow_headers(Vec::<String>::new()),
    ];
    let requests = [
        request(&[
            ("origin", "https://example.com"),
            ("access-control-request-method", "PATCH"),
        ]),
        request(&[
            ("origin", "https://example.com"),
            ("access-control-request-method", "PATCH"),
            (
                "access-control-request-headers",
                "content-type,x-requested-with",
            ),
        ]),
        request(&[
            ("origin", "https://a.example.org"),
            ("access-control-request-method", "GET"),
            ("access-control-request-headers", "authorization, x-custom"),
            ("access-control-request-private-network", "true"),
        ]),
        request(&[
            ("origin", "https://evil.example"),
            ("access-control-request-method", "GET"),
        ]),
    ];
    let mut allowed = 0;
    for options in &policies {
        let policy = CorsPolicy::for_route(options, &ROUTE).unwrap();
        for headers in &requests {
            let request = cors_axum_core::CorsRequest::new(&Method::OPTIONS, headers);
            let mut fresh = HeaderMap::new();
            let outcome = policy.answer_preflight(&request, &mut fresh);
            let mut reserved = HeaderMap::with_capacity(16);
            assert_eq!(policy.answer_preflight(&request, &mut reserved), outcome);
            assert_eq!(fresh, reserved, "{options:?} {headers:?}");
            let mut handler = request_with_handler_header();
            assert_eq!(policy.answer_preflight(&request, &mut handler), outcome);
            handler.remove("x-handler");
            assert_eq!(fresh, handler, "{options:?} {headers:?}");
            assert!(fresh.values().all(|v| !v.is_empty()), "{fresh:?}");
            allowed += usize::from(outcome.allowed);
        }
    }
    // Per policy: 4, 2, 2 (not the unlisted headers), 4, 4, 1 (no requested headers only).
    assert_eq!(allowed, 17);
}

fn request_with_handler_header() -> HeaderMap {
    request(&[("x-handler", "1")])
}
