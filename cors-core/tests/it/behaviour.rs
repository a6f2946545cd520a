//! The Fetch rules the engine implements, request by request (DESIGN.md section 2).

use cors_axum_core::{
    AllowHeaders, AllowMethods, AllowOrigin, CorsOptions, CorsPolicy, CorsRequest, PreflightStatus,
    Refusal, RejectedPreflight, RequestKind, ResponseCredentials,
};
use http::{HeaderMap, HeaderValue, Method, StatusCode};

/// `Vary` of every preflight answer of a policy that depends on the origin.
const PREFLIGHT_VARY: &str = "Origin, Access-Control-Request-Method, \
     Access-Control-Request-Headers, Access-Control-Request-Private-Network";

/// `Vary` of every preflight answer under any origin.
const ANY_ORIGIN_PREFLIGHT_VARY: &str = "Access-Control-Request-Method, \
     Access-Control-Request-Headers, Access-Control-Request-Private-Network";

/// What a preflight answer is made of.
struct Preflight {
    allowed: bool,
    status: StatusCode,
    refusal: Option<String>,
}

/// Classify, decide and write a preflight (`OPTIONS`) into `response`.
fn preflight(policy: &CorsPolicy, headers: &HeaderMap, response: &mut HeaderMap) -> Preflight {
    let request = CorsRequest::new(&Method::OPTIONS, headers);
    let decision = policy.preflight(&request);
    let answer = Preflight {
        allowed: decision.is_allowed(),
        status: decision.status(),
        refusal: decision.refusal().map(|r| r.to_string()),
    };
    decision.write(response);
    answer
}

/// What an actual answer is made of.
struct Actual {
    allowed: bool,
    refusal: Option<String>,
}

/// Classify and decide a `GET`, then write its answer into `response`.
fn actual(
    policy: &CorsPolicy,
    headers: &HeaderMap,
    response: &mut HeaderMap,
    credentials: ResponseCredentials,
) -> Actual {
    let decision = policy.actual(&CorsRequest::new(&Method::GET, headers));
    let refusal = decision.write(response, credentials).map(|r| r.to_string());
    Actual {
        allowed: decision.is_allowed(),
        refusal,
    }
}

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
    let kind = |method: Method, headers: &HeaderMap| CorsRequest::new(&method, headers).kind();
    assert_eq!(kind(Method::OPTIONS, &none), RequestKind::NotCors);
    assert_eq!(kind(Method::GET, &none), RequestKind::NotCors);
    assert_eq!(kind(Method::OPTIONS, &origin), RequestKind::Actual);
    assert_eq!(kind(Method::GET, &origin), RequestKind::Actual);
    assert_eq!(kind(Method::OPTIONS, &preflight), RequestKind::Preflight);
    assert_eq!(kind(Method::POST, &preflight), RequestKind::Actual);
    let no_origin = request(&[("access-control-request-method", "POST")]);
    assert_eq!(kind(Method::OPTIONS, &no_origin), RequestKind::NotCors);
    // Several method lines still make a preflight, which is then refused.
    let several = request(&[
        ("origin", "https://example.com"),
        ("access-control-request-method", "GET"),
        ("access-control-request-method", "GET"),
    ]);
    assert_eq!(kind(Method::OPTIONS, &several), RequestKind::Preflight);
}

#[test]
fn a_request_that_is_not_a_preflight_is_refused_as_one() {
    let policy = example();
    for headers in [request(&[]), request(&[("origin", "https://example.com")])] {
        let mut response = HeaderMap::new();
        let answer = preflight(&policy, &headers, &mut response);
        assert!(!answer.allowed);
        assert_eq!(answer.refusal.as_deref(), Some("not a preflight request"));
        assert!(cors_headers(&response).is_empty());
    }
}

#[test]
fn row1_not_cors_only_vary() {
    let mut response = HeaderMap::new();
    let outcome = actual(
        &example(),
        &request(&[]),
        &mut response,
        ResponseCredentials::Policy,
    );
    assert!(!outcome.allowed);
    assert_eq!(outcome.refusal, None, "not CORS, so nothing refused");
    assert!(cors_headers(&response).is_empty());
    assert_eq!(get(&response, "vary"), Some("Origin"));
}

#[test]
fn row2_and_row3_actual_allowed() {
    let mut response = HeaderMap::new();
    let outcome = actual(
        &example(),
        &request(&[("origin", "https://example.com")]),
        &mut response,
        ResponseCredentials::Policy,
    );
    assert!(outcome.allowed);
    assert_eq!(outcome.refusal, None);
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
    let outcome = preflight(
        &example(),
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
    assert_eq!(get(&response, "vary"), Some(PREFLIGHT_VARY));
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
    let outcome = actual(
        &policy,
        &request(&[("origin", "https://example.com")]),
        &mut response,
        ResponseCredentials::Include,
    );
    assert!(outcome.allowed);
    assert_eq!(outcome.refusal, None);
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
    let outcome = actual(
        &policy,
        &request(&[("origin", "https://evil.com")]),
        &mut response,
        ResponseCredentials::Include,
    );
    assert!(!outcome.allowed);
    assert_eq!(
        outcome.refusal.as_deref(),
        Some("origin `https://evil.com` is not allowed")
    );
    assert!(cors_headers(&response).is_empty());
    assert_eq!(get(&response, "vary"), Some("Origin"));
}

#[test]
fn default_policy_is_star_without_vary() {
    let policy = CorsPolicy::from_options(&CorsOptions::new()).unwrap();
    assert!(policy.allows_any_origin());
    assert!(!policy.varies_by_origin());
    let mut response = HeaderMap::new();
    actual(
        &policy,
        &request(&[("origin", "https://a.com")]),
        &mut response,
        ResponseCredentials::Policy,
    );
    assert_eq!(get(&response, "access-control-allow-origin"), Some("*"));
    assert!(response.get("vary").is_none());
    // Not CORS: nothing at all.
    let mut response = HeaderMap::new();
    actual(
        &policy,
        &request(&[]),
        &mut response,
        ResponseCredentials::Policy,
    );
    assert!(response.is_empty());
    // A response made credentialed (a cookie) is answered `*` with credentials, which browsers
    // refuse to expose: the origin is never reflected, so no `Vary` either.
    for origin in ["https://a.com", "null", "https://a.com, https://b.com"] {
        let mut req = HeaderMap::new();
        req.insert("origin", HeaderValue::from_static(origin));
        let mut response = HeaderMap::new();
        let outcome = actual(&policy, &req, &mut response, ResponseCredentials::Include);
        assert!(outcome.allowed, "{origin}");
        assert_eq!(
            outcome.refusal.as_deref(),
            Some(
                "credentials requested under any-origin: answered `*` with credentials, which \
                 browsers refuse; allow explicit origins, or reflect every origin with \
                 `AllowOrigin::mirror_request()`"
            )
        );
        assert_eq!(get(&response, "access-control-allow-origin"), Some("*"));
        assert_eq!(
            get(&response, "access-control-allow-credentials"),
            Some("true")
        );
        assert!(response.get("vary").is_none(), "{origin}");
    }
    // Default preflight: `*` origin, mirrored method and headers.
    let mut response = HeaderMap::new();
    let outcome = preflight(
        &policy,
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
    assert_eq!(get(&response, "vary"), Some(ANY_ORIGIN_PREFLIGHT_VARY));
}

/// Reflecting any origin with credentials is possible, but only through the named opt-in.
#[test]
fn mirror_request_is_the_opt_in_for_credentials_from_any_origin() {
    let credentials = CorsOptions::new()
        .origin(AllowOrigin::mirror_request())
        .credentials(true);
    let forced = CorsOptions::new().origin(AllowOrigin::mirror_request());
    for (options, credentials) in [
        (credentials, ResponseCredentials::Policy),
        (forced, ResponseCredentials::Include),
    ] {
        let policy = CorsPolicy::from_options(&options).unwrap();
        let mut response = HeaderMap::new();
        let outcome = actual(
            &policy,
            &request(&[("origin", "https://anywhere.example")]),
            &mut response,
            credentials,
        );
        assert!(outcome.allowed);
        assert_eq!(outcome.refusal, None);
        assert_eq!(
            get(&response, "access-control-allow-origin"),
            Some("https://anywhere.example")
        );
        assert_eq!(
            get(&response, "access-control-allow-credentials"),
            Some("true")
        );
        assert_eq!(get(&response, "vary"), Some("Origin"));
    }
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
    let outcome = preflight(
        &policy,
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
    assert_eq!(get(&response, "vary"), Some(PREFLIGHT_VARY));
    assert!(response.get("access-control-expose-headers").is_none());

    let mut response = HeaderMap::new();
    actual(
        &policy,
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
fn refused_preflights_carry_only_vary_and_say_why() {
    let policy = CorsPolicy::for_route(
        &CorsOptions::new()
            .origin("https://example.com")
            .allow_headers(["content-type"])
            .credentials(true)
            .max_age(5u64),
        &[Method::GET, Method::POST],
    )
    .unwrap();
    let many = vec!["content-type"; 65].join(", ");
    let long = format!("x-{}", "a".repeat(5000));
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let refused: Vec<(Vec<(&'static str, &'static str)>, &str)> = vec![
        (
            vec![("origin", "https://evil.com")],
            "origin `https://evil.com` is not allowed",
        ),
        (
            vec![("origin", "null")],
            "origin `null` is not allowed without `allow_null_origin(true)`",
        ),
        (
            vec![("origin", "https://example.com/")],
            "malformed origin `https://example.com/`",
        ),
        (
            vec![
                ("origin", "https://example.com"),
                ("origin", "https://example.com"),
            ],
            "several `Origin` headers",
        ),
        (
            vec![("origin", "https://example.com")],
            "method `DELETE` is not allowed",
        ),
        (
            vec![("origin", "https://example.com")],
            "method `get` is not allowed",
        ),
        (
            vec![("origin", "https://example.com")],
            "malformed `Access-Control-Request-Method`: `GET, POST` is not a method",
        ),
        (
            vec![("origin", "https://example.com")],
            "several `Access-Control-Request-Method` headers",
        ),
        (
            vec![
                ("origin", "https://example.com"),
                ("access-control-request-headers", "content-type, x-other"),
            ],
            "request header `x-other` is not allowed",
        ),
        (
            vec![
                ("origin", "https://example.com"),
                ("access-control-request-headers", "content-type; x"),
            ],
            "malformed `Access-Control-Request-Headers`: `content-type; x` is not a header name",
        ),
        (
            vec![
                ("origin", "https://example.com"),
                ("access-control-request-headers", leak(many)),
            ],
            "`Access-Control-Request-Headers` lists more than 64 names",
        ),
        (
            vec![
                ("origin", "https://example.com"),
                ("access-control-request-headers", leak(long)),
            ],
            "`Access-Control-Request-Headers` is longer than 4096 bytes",
        ),
        (
            vec![
                ("origin", "https://example.com"),
                ("access-control-request-private-network", "true"),
            ],
            "private network access requested but not enabled (`private_network(true)`)",
        ),
    ];
    for (mut headers, reason) in refused {
        // The requested method, where the case does not test it.
        let method = match reason {
            r if r.starts_with("method `DELETE`") => vec!["DELETE"],
            r if r.starts_with("method `get`") => vec!["get"],
            r if r.starts_with("malformed `Access-Control-Request-Method`") => vec!["GET, POST"],
            r if r.starts_with("several `Access-Control-Request-Method`") => vec!["GET", "GET"],
            _ => vec!["GET"],
        };
        headers.extend(
            method
                .into_iter()
                .map(|m| ("access-control-request-method", m)),
        );
        let mut response = HeaderMap::new();
        let outcome = preflight(&policy, &request(&headers), &mut response);
        assert!(!outcome.allowed, "{headers:?}");
        assert_eq!(outcome.refusal.as_deref(), Some(reason), "{headers:?}");
        assert_eq!(outcome.status, StatusCode::NO_CONTENT);
        assert!(cors_headers(&response).is_empty(), "{headers:?}");
        assert_eq!(get(&response, "vary"), Some(PREFLIGHT_VARY));
    }
}

/// The reasons borrow from the request: no copy of the request's bytes.
#[test]
fn refusals_borrow_from_the_request() {
    let policy = example();
    let headers = request(&[
        ("origin", "https://example.com"),
        ("access-control-request-method", "PURGE"),
    ]);
    let request = CorsRequest::new(&Method::OPTIONS, &headers);
    let Some(Refusal::MethodNotAllowed { method }) = policy.preflight(&request).refusal() else {
        panic!("PURGE is not a method of the route");
    };
    assert!(std::ptr::eq(
        method,
        &headers["access-control-request-method"]
    ));
}

#[test]
fn forbidden_and_ok_statuses() {
    let policy = CorsPolicy::from_options(
        &CorsOptions::new()
            .origin("https://example.com")
            .preflight_status(PreflightStatus::OK)
            .rejected_preflight(RejectedPreflight::Forbidden),
    )
    .unwrap();
    let mut response = HeaderMap::new();
    let ok = preflight(
        &policy,
        &request(&[
            ("origin", "https://example.com"),
            ("access-control-request-method", "GET"),
        ]),
        &mut response,
    );
    assert_eq!((ok.allowed, ok.status), (true, StatusCode::OK));
    let mut response = HeaderMap::new();
    let no = preflight(
        &policy,
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
            preflight(&policy, &headers, &mut response).allowed,
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
    assert!(!preflight(&mirror, &headers, &mut HeaderMap::new()).allowed);
    let long = format!("x-{}", "a".repeat(5000));
    headers.insert(
        "access-control-request-headers",
        HeaderValue::from_str(&long).unwrap(),
    );
    assert!(!preflight(&mirror, &headers, &mut HeaderMap::new()).allowed);
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
    assert!(preflight(&policy, &headers, &mut response).allowed);
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
    assert!(preflight(&policy, &headers, &mut response).allowed);
    assert_eq!(get(&response, "access-control-allow-methods"), Some("*"));
    assert_eq!(
        get(&response, "access-control-allow-headers"),
        Some("*, authorization")
    );
    assert_eq!(get(&response, "vary"), Some(PREFLIGHT_VARY));
    let mut response = HeaderMap::new();
    actual(
        &policy,
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
    assert!(preflight(&policy, &headers, &mut response).allowed);
    assert_eq!(
        get(&response, "access-control-allow-methods"),
        Some("PURGE")
    );
    assert_eq!(get(&response, "vary"), Some(PREFLIGHT_VARY));
    // Not a token: rejected.
    let headers = request(&[
        ("origin", "https://a.com"),
        ("access-control-request-method", "GE T"),
    ]);
    assert!(!preflight(&policy, &headers, &mut HeaderMap::new()).allowed);
}

#[test]
fn from_options_mirrors_route_methods() {
    let policy = CorsPolicy::from_options(&CorsOptions::new().origin("https://a.com")).unwrap();
    let mut response = HeaderMap::new();
    let headers = request(&[
        ("origin", "https://a.com"),
        ("access-control-request-method", "PATCH"),
    ]);
    assert!(preflight(&policy, &headers, &mut response).allowed);
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
    let refused = preflight(&off, &headers, &mut response);
    assert!(!refused.allowed);
    assert_eq!(
        refused.refusal.as_deref(),
        Some("private network access requested but not enabled (`private_network(true)`)")
    );
    assert!(cors_headers(&response).is_empty());
    assert_eq!(get(&response, "vary"), Some(PREFLIGHT_VARY));
    // Only `true` asks for it.
    let mut other = headers.clone();
    other.insert(
        "access-control-request-private-network",
        HeaderValue::from_static("false"),
    );
    assert!(preflight(&off, &other, &mut HeaderMap::new()).allowed);

    let on = CorsPolicy::from_options(
        &CorsOptions::new()
            .origin("https://a.com")
            .private_network(true),
    )
    .unwrap();
    let mut response = HeaderMap::new();
    assert!(preflight(&on, &headers, &mut response).allowed);
    assert_eq!(
        get(&response, "access-control-allow-private-network"),
        Some("true")
    );
    assert_eq!(get(&response, "vary"), Some(PREFLIGHT_VARY));
    // Without the request header: no grant, same Vary.
    let mut response = HeaderMap::new();
    let plain = request(&[
        ("origin", "https://a.com"),
        ("access-control-request-method", "GET"),
    ]);
    assert!(preflight(&on, &plain, &mut response).allowed);
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
    actual(&policy, &origin, &mut response, ResponseCredentials::Policy);
    assert_eq!(get(&response, "vary"), Some("Accept-Encoding, Origin"));

    let mut response = HeaderMap::new();
    response.insert("vary", HeaderValue::from_static("origin, accept"));
    actual(&policy, &origin, &mut response, ResponseCredentials::Policy);
    assert_eq!(get(&response, "vary"), Some("origin, accept"));

    let mut response = HeaderMap::new();
    response.insert("vary", HeaderValue::from_static("*"));
    actual(&policy, &origin, &mut response, ResponseCredentials::Policy);
    assert_eq!(get(&response, "vary"), Some("*"));

    // Called twice (e.g. by nested layers): still no duplicate.
    let mut response = HeaderMap::new();
    actual(&policy, &origin, &mut response, ResponseCredentials::Policy);
    actual(&policy, &origin, &mut response, ResponseCredentials::Policy);
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
    let outcome = actual(&refused, &null, &mut response, ResponseCredentials::Policy);
    assert!(!outcome.allowed);
    assert_eq!(
        outcome.refusal.as_deref(),
        Some("origin `null` is not allowed without `allow_null_origin(true)`")
    );
    assert!(cors_headers(&response).is_empty());

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
        assert!(actual(&policy, &null, &mut response, ResponseCredentials::Policy).allowed);
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
    assert!(actual(&policy, &ok, &mut response, ResponseCredentials::Policy).allowed);
    assert_eq!(
        get(&response, "access-control-allow-origin"),
        Some("http://app.localhost:3000")
    );
    assert_eq!(get(&response, "vary"), Some("Origin"));
    let bad = request(&[("origin", "http://x.localhost:3000/")]);
    let outcome = actual(
        &policy,
        &bad,
        &mut HeaderMap::new(),
        ResponseCredentials::Policy,
    );
    assert!(!outcome.allowed);
    assert_eq!(
        outcome.refusal.as_deref(),
        Some("malformed origin `http://x.localhost:3000/`")
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
    assert!(preflight(&policy, &headers, &mut response).allowed);
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
            let request = CorsRequest::new(&Method::OPTIONS, headers);
            let decision = policy.preflight(&request);
            let outcome = (decision.is_allowed(), decision.status(), decision.refusal());
            let mut fresh = HeaderMap::new();
            decision.clone().write(&mut fresh);
            let mut reserved = HeaderMap::with_capacity(16);
            decision.clone().write(&mut reserved);
            assert_eq!(fresh, reserved, "{options:?} {headers:?}");
            let mut handler = request_with_handler_header();
            decision.write(&mut handler);
            handler.remove("x-handler");
            assert_eq!(fresh, handler, "{options:?} {headers:?}");
            assert!(fresh.values().all(|v| !v.is_empty()), "{fresh:?}");
            let again = policy.preflight(&request);
            assert_eq!(
                (again.is_allowed(), again.status(), again.refusal()),
                outcome
            );
            allowed += usize::from(outcome.0);
        }
    }
    // Per policy: 3 (not private network access), 2, 2 (not the unlisted headers), 4, 4,
    // 1 (no requested headers only).
    assert_eq!(allowed, 16);
}

fn request_with_handler_header() -> HeaderMap {
    request(&[("x-handler", "1")])
}

/// A fixed method or header list is checked, so the answer depends on the requested method and
/// headers: `Vary` names them on granted and refused preflights alike, merged into the handler's
/// `Vary` without duplicates.
#[test]
fn vary_names_what_fixed_lists_check() {
    let options = CorsOptions::new()
        .origin("https://example.com")
        .allow_headers(["content-type"]);
    let policies = [
        CorsPolicy::for_route(&options, &[Method::GET, Method::PUT]).unwrap(),
        CorsPolicy::from_options(&options.clone().methods(["GET", "PUT"])).unwrap(),
    ];
    for policy in &policies {
        for (method, headers, allowed) in [
            ("PUT", "content-type", true),
            ("DELETE", "content-type", false),
            ("PUT", "x-other", false),
        ] {
            let request = request(&[
                ("origin", "https://example.com"),
                ("access-control-request-method", method),
                ("access-control-request-headers", headers),
            ]);
            let mut response = HeaderMap::new();
            assert_eq!(preflight(policy, &request, &mut response).allowed, allowed);
            assert_eq!(get(&response, "vary"), Some(PREFLIGHT_VARY));

            let mut response = HeaderMap::new();
            response.insert(
                "vary",
                HeaderValue::from_static("accept-encoding, access-control-request-method"),
            );
            preflight(policy, &request, &mut response);
            assert_eq!(
                get(&response, "vary"),
                Some(
                    "accept-encoding, access-control-request-method, Origin, \
                     Access-Control-Request-Headers, Access-Control-Request-Private-Network"
                )
            );
        }
    }
}

#[test]
fn preflight_cache_control_on_granted_no_store_on_refused_same_vary() {
    let options = CorsOptions::new()
        .origin("https://example.com")
        .allow_headers(["content-type"])
        .preflight_cache_control("public, max-age=600");
    let policy = CorsPolicy::for_route(&options, &ROUTE).unwrap();
    let granted = request(&[
        ("origin", "https://example.com"),
        ("access-control-request-method", "PATCH"),
    ]);
    let refusals = [
        request(&[
            ("origin", "https://evil.example"),
            ("access-control-request-method", "PATCH"),
        ]),
        request(&[
            ("origin", "https://example.com"),
            ("access-control-request-method", "DELETE"),
        ]),
        request(&[
            ("origin", "https://example.com"),
            ("access-control-request-method", "PATCH"),
            ("access-control-request-headers", "x-other"),
        ]),
    ];
    // Into a fresh map (the prebuilt answer) and into one with room (header by header), and
    // over a `Cache-Control` the map already had.
    for mut response in [
        HeaderMap::new(),
        HeaderMap::with_capacity(16),
        request(&[("cache-control", "private")]),
    ] {
        let mut refused = response.clone();
        assert!(preflight(&policy, &granted, &mut response).allowed);
        assert_eq!(get(&response, "cache-control"), Some("public, max-age=600"));
        assert_eq!(response.get_all("cache-control").iter().count(), 1);
        assert_eq!(get(&response, "vary"), Some(PREFLIGHT_VARY));
        for headers in &refusals {
            let mut answer = refused.clone();
            assert!(!preflight(&policy, headers, &mut answer).allowed);
            assert_eq!(get(&answer, "cache-control"), Some("no-store"));
            assert_eq!(get(&answer, "vary"), Some(PREFLIGHT_VARY));
            assert!(cors_headers(&answer).is_empty());
        }
        refused.clear();
    }
    // Actual requests are the handler's to cache.
    let mut response = HeaderMap::new();
    let headers = request(&[("origin", "https://example.com")]);
    actual(
        &policy,
        &headers,
        &mut response,
        ResponseCredentials::Policy,
    );
    assert_eq!(get(&response, "cache-control"), None);

    // Seconds, and under any origin (whose preflights do not vary on `Origin`).
    let any =
        CorsPolicy::for_route(&CorsOptions::new().preflight_cache_control(86400), &ROUTE).unwrap();
    let mut response = HeaderMap::new();
    assert!(preflight(&any, &granted, &mut response).allowed);
    assert_eq!(get(&response, "cache-control"), Some("max-age=86400"));
    assert_eq!(get(&response, "vary"), Some(ANY_ORIGIN_PREFLIGHT_VARY));
    let mut response = HeaderMap::new();
    assert!(!preflight(&any, &refusals[1], &mut response).allowed);
    assert_eq!(get(&response, "cache-control"), Some("no-store"));
    assert_eq!(get(&response, "vary"), Some(ANY_ORIGIN_PREFLIGHT_VARY));

    // Without the option, no `Cache-Control` either way.
    let mut response = HeaderMap::new();
    preflight(&example(), &refusals[0], &mut response);
    assert_eq!(get(&response, "cache-control"), None);
}

#[test]
fn preflight_cache_control_is_checked_and_merged() {
    let err = CorsPolicy::from_options(&CorsOptions::new().preflight_cache_control("max-age 600"))
        .unwrap_err();
    assert_eq!(err.field(), "preflight_cache_control");
    assert_eq!(err.value(), Some("max-age 600"));
    let module = CorsOptions::new().preflight_cache_control(600);
    let route = CorsOptions::new().preflight_cache_control("no-cache");
    let policy = CorsPolicy::from_options(&module.merge(&route)).unwrap();
    let mut response = HeaderMap::new();
    let headers = request(&[
        ("origin", "https://a.example"),
        ("access-control-request-method", "PUT"),
    ]);
    preflight(&policy, &headers, &mut response);
    assert_eq!(get(&response, "cache-control"), Some("no-cache"));
}

#[cfg(feature = "serde")]
#[test]
fn preflight_cache_control_in_files() {
    for (json, expected) in [
        (r#"{"preflight_cache_control": 600}"#, "max-age=600"),
        (
            r#"{"preflight_cache_control": "public, s-maxage=3600"}"#,
            "public, s-maxage=3600",
        ),
    ] {
        let options: CorsOptions = serde_json::from_str(json).unwrap();
        let policy = CorsPolicy::from_options(&options).unwrap();
        let mut response = HeaderMap::new();
        let headers = request(&[
            ("origin", "https://a.example"),
            ("access-control-request-method", "PUT"),
        ]);
        preflight(&policy, &headers, &mut response);
        assert_eq!(get(&response, "cache-control"), Some(expected));
    }
    assert!(serde_json::from_str::<CorsOptions>(r#"{"preflight_cache_control": true}"#).is_err());
    let negative = serde_json::from_str::<CorsOptions>(r#"{"preflight_cache_control": -1}"#);
    assert!(
        negative
            .unwrap_err()
            .to_string()
            .contains("invalid value: integer `-1`"),
    );
    // An integer given as an `i64`, as TOML gives every integer.
    use serde::de::IntoDeserializer;
    let seconds = <cors_axum_core::PreflightCacheControl as serde::Deserialize>::deserialize(
        IntoDeserializer::<serde::de::value::Error>::into_deserializer(60i64),
    )
    .unwrap();
    assert_eq!(seconds, cors_axum_core::PreflightCacheControl::max_age(60));
}
