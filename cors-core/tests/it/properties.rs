//! Properties that must hold for every request.

use cors_axum_core::{
    AllowHeaders, AllowMethods, AllowOrigin, CorsOptions, CorsPolicy, CorsRequest, RequestKind,
    ResponseCredentials,
};
use http::{HeaderMap, HeaderName, HeaderValue, Method};
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 512,
        ..ProptestConfig::default()
    }
}

fn list_policy() -> CorsPolicy {
    CorsPolicy::from_options(
        &CorsOptions::new()
            .origin([
                "https://example.com",
                "https://*.example.org",
                "http://localhost:3000",
            ])
            .allow_headers(["content-type", "x-requested-with"])
            .methods(["GET", "POST"])
            .expose_headers(["x-request-id"])
            .credentials(true),
    )
    .unwrap()
}

fn policies() -> Vec<CorsPolicy> {
    let route = [Method::GET, Method::POST, Method::PATCH];
    vec![
        list_policy(),
        CorsPolicy::for_route(&CorsOptions::new(), &route).unwrap(),
        CorsPolicy::for_route(
            &CorsOptions::new()
                .methods("*")
                .allow_headers("*")
                .expose_headers("*")
                .private_network(true),
            &route,
        )
        .unwrap(),
        CorsPolicy::for_route(
            &CorsOptions::new()
                .origin(AllowOrigin::mirror_request())
                .methods(AllowMethods::mirror_request())
                .allow_headers(AllowHeaders::mirror_request())
                .allow_null_origin(true)
                .credentials(true),
            &route,
        )
        .unwrap(),
        CorsPolicy::for_route(
            &CorsOptions::new().origin(AllowOrigin::predicate(|o| o.as_bytes().len() % 3 == 0)),
            &route,
        )
        .unwrap(),
    ]
}

/// Origins built from parts close to the allowed ones, with the expected answer computed
/// independently of the engine.
fn origin_parts() -> impl Strategy<Value = (String, bool)> {
    let scheme = prop::sample::select(vec![
        "https", "http", "HTTPS", "Http", "ws", "https:", "htps",
    ]);
    let label = prop::sample::select(vec![
        "example",
        "EXAMPLE",
        "com",
        "org",
        "evil",
        "a",
        "localhost",
        "example-com",
        "net",
        "",
    ]);
    let labels = prop::collection::vec(label, 1..5);
    let port = prop::sample::select(vec![
        None,
        Some("80"),
        Some("443"),
        Some("3000"),
        Some("8443"),
        Some(""),
        Some("0443"),
    ]);
    let tail = prop::sample::select(vec!["", "", "", "/", "/x", "?", "#", " ", ","]);
    (scheme, labels, port, tail).prop_map(|(scheme, labels, port, tail)| {
        let host = labels.join(".");
        let mut origin = format!("{scheme}://{host}");
        if let Some(port) = port {
            origin.push(':');
            origin.push_str(port);
        }
        origin.push_str(tail);
        let well_formed = tail.is_empty()
            && labels.iter().all(|l| !l.is_empty())
            && port != Some("")
            && matches!(
                scheme.to_ascii_lowercase().as_str(),
                "https" | "http" | "ws"
            );
        let scheme = scheme.to_ascii_lowercase();
        let host = host.to_ascii_lowercase();
        let port = match (scheme.as_str(), port) {
            ("https", Some("443" | "0443")) | ("http", Some("80")) => None,
            (_, port) => port,
        };
        let allowed = well_formed
            && match (scheme.as_str(), host.as_str(), port) {
                ("https", "example.com", None) => true,
                ("https", h, None) => h.len() > ".example.org".len() && h.ends_with(".example.org"),
                ("http", "localhost", Some("3000")) => true,
                _ => false,
            };
        (origin, allowed)
    })
}

fn header_name(selector: u8) -> HeaderName {
    const NAMES: [&str; 6] = [
        "origin",
        "access-control-request-method",
        "access-control-request-headers",
        "access-control-request-private-network",
        "content-type",
        "authorization",
    ];
    HeaderName::from_static(NAMES[usize::from(selector) % NAMES.len()])
}

fn has_vary_origin(headers: &HeaderMap) -> bool {
    headers.get_all("vary").iter().any(|v| {
        v.as_bytes()
            .split(|&b| b == b',')
            .any(|n| n.trim_ascii().eq_ignore_ascii_case(b"origin"))
    })
}

fn check_invariants(
    policy: &CorsPolicy,
    request: &HeaderMap,
    response: &HeaderMap,
    forced: bool,
    preflight: bool,
) {
    if let Some(acao) = response.get("access-control-allow-origin") {
        // `*` with credentials only for a response made credentialed under any origin, which
        // browsers refuse to expose.
        if response.contains_key("access-control-allow-credentials") && !forced {
            assert_ne!(acao, "*", "`*` with credentials");
        }
        if acao != "*" {
            let mut origins = request.get_all("origin").iter();
            assert_eq!(origins.next(), Some(acao));
            assert!(origins.next().is_none());
        }
    }
    if policy.varies_by_origin() {
        assert!(has_vary_origin(response), "missing `Vary: Origin`");
    }
    if preflight {
        assert!(!response.contains_key("access-control-expose-headers"));
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn only_allowed_origins_are_granted((origin, allowed) in origin_parts(), forced in any::<bool>()) {
        let policy = list_policy();
        let Ok(value) = HeaderValue::from_str(&origin) else { return Ok(()) };
        let mut request = HeaderMap::new();
        request.insert("origin", value);
        let credentials = if forced { ResponseCredentials::Include } else { ResponseCredentials::Policy };
        let mut response = HeaderMap::new();
        let decision = policy.actual(&CorsRequest::new(&Method::GET, &request));
        let refusal = decision.write(&mut response, credentials);
        prop_assert_eq!(decision.is_allowed(), allowed, "{}", origin);
        prop_assert_eq!(refusal.is_none(), allowed, "{}", origin);
        prop_assert_eq!(response.contains_key("access-control-allow-origin"), allowed);
        check_invariants(&policy, &request, &response, forced, false);

        request.insert("access-control-request-method", HeaderValue::from_static("POST"));
        let mut response = HeaderMap::new();
        let decision = policy.preflight(&CorsRequest::new(&Method::OPTIONS, &request));
        prop_assert_eq!(decision.is_allowed(), allowed, "{}", origin);
        decision.write(&mut response);
        check_invariants(&policy, &request, &response, false, true);
    }

    #[test]
    fn random_headers_never_panic_and_keep_invariants(
        policy_index in 0usize..5,
        method in prop::sample::select(vec![Method::OPTIONS, Method::GET, Method::POST]),
        headers in prop::collection::vec((any::<u8>(), prop::collection::vec(any::<u8>(), 0..40)), 0..8),
        forced in any::<bool>(),
        existing_vary in prop::option::of(prop::sample::select(vec!["*", "accept", "Origin, accept", ""])),
    ) {
        let policy = &policies()[policy_index];
        let mut request = HeaderMap::new();
        for (selector, bytes) in headers {
            if let Ok(value) = HeaderValue::from_bytes(&bytes) {
                request.append(header_name(selector), value);
            }
        }
        let mut response = HeaderMap::new();
        if let Some(vary) = existing_vary {
            response.insert("vary", HeaderValue::from_static(vary));
        }
        let star_vary = existing_vary == Some("*");
        let credentials = if forced { ResponseCredentials::Include } else { ResponseCredentials::Policy };
        let cors_request = CorsRequest::new(&method, &request);
        match cors_request.kind() {
            RequestKind::Preflight => {
                // A fresh map starts from the prebuilt answer, one with capacity gets inserts:
                // both give the same headers.
                let decision = policy.preflight(&cors_request);
                let mut fresh = HeaderMap::new();
                decision.clone().write(&mut fresh);
                let mut reserved = HeaderMap::with_capacity(16);
                decision.clone().write(&mut reserved);
                prop_assert_eq!(&fresh, &reserved);
                prop_assert!(fresh.iter().all(|(_, value)| !value.is_empty()), "{:?}", fresh);

                let allowed = decision.is_allowed();
                prop_assert_eq!(allowed, decision.refusal().is_none());
                decision.write(&mut response);
                prop_assert_eq!(allowed, response.contains_key("access-control-allow-origin"));
                if !allowed {
                    prop_assert!(response.keys().all(|n| !n.as_str().starts_with("access-control-")));
                }
                if !star_vary {
                    check_invariants(policy, &request, &response, false, true);
                }
            }
            kind => {
                let decision = policy.actual(&cors_request);
                // The decision owns what it needs: it answers the same once the request is gone.
                let mut early_response = response.clone();
                let early = decision.write(&mut early_response, credentials).map(|r| r.to_string());
                let moved = request.clone();
                drop(request);
                let late = decision.write(&mut response, credentials).map(|r| r.to_string());
                prop_assert_eq!(&early, &late);
                prop_assert_eq!(&response, &early_response);
                prop_assert_eq!(decision.is_allowed(), response.contains_key("access-control-allow-origin"));
                prop_assert_eq!(decision.is_cors(), kind == RequestKind::Actual);
                if kind == RequestKind::NotCors {
                    prop_assert!(!decision.is_allowed());
                    prop_assert!(late.is_none());
                }
                if !star_vary {
                    check_invariants(policy, &moved, &response, forced, false);
                }
            }
        }
        // `Vary` never holds a name twice.
        let vary: Vec<String> = response
            .get_all("vary")
            .iter()
            .flat_map(|v| v.to_str().unwrap().split(',').map(|n| n.trim().to_ascii_lowercase()).collect::<Vec<_>>())
            .filter(|n| !n.is_empty())
            .collect();
        let mut unique = vary.clone();
        unique.sort();
        unique.dedup();
        prop_assert_eq!(unique.len(), vary.len(), "{:?}", vary);
    }

    #[test]
    fn requested_headers_in_the_list_are_allowed(
        names in prop::collection::vec(prop::sample::select(vec!["content-type", "Content-Type", "X-REQUESTED-WITH", "x-other"]), 0..6),
        separators in prop::collection::vec(prop::sample::select(vec![",", ", ", " ,\t", ",,"]), 6),
    ) {
        let policy = list_policy();
        let mut value = String::new();
        for (i, name) in names.iter().enumerate() {
            if i > 0 {
                value.push_str(separators[i]);
            }
            value.push_str(name);
        }
        let mut request = HeaderMap::new();
        request.insert("origin", HeaderValue::from_static("https://example.com"));
        request.insert("access-control-request-method", HeaderValue::from_static("GET"));
        request.insert("access-control-request-headers", HeaderValue::from_str(&value).unwrap());
        let expected = names.iter().all(|n| *n != "x-other");
        let decision = policy.preflight(&CorsRequest::new(&Method::OPTIONS, &request));
        prop_assert_eq!(decision.is_allowed(), expected, "{}", value);
    }
}

/// A policy whose origin decision reads the request: the origins of [`origin_parts`] that
/// are allowed, for tenant `acme` only (header `x-tenant`).
fn tenant_policy() -> CorsPolicy {
    let list = CorsPolicy::from_options(&CorsOptions::new().origin([
        "https://example.com",
        "https://*.example.org",
        "http://localhost:3000",
    ]))
    .unwrap();
    let origin = AllowOrigin::request_predicate(move |origin, request| {
        let mut only_origin = HeaderMap::new();
        only_origin.insert("origin", origin.clone());
        request
            .headers()
            .get("x-tenant")
            .is_some_and(|t| t == "acme")
            && list
                .actual(&CorsRequest::new(&Method::GET, &only_origin))
                .is_allowed()
    })
    .varying_on(["x-tenant"]);
    CorsPolicy::from_options(&CorsOptions::new().origin(origin).credentials(true)).unwrap()
}

fn vary_names(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all("vary")
        .iter()
        .flat_map(|v| v.to_str().unwrap().split(','))
        .map(|n| n.trim().to_ascii_lowercase())
        .collect()
}

proptest! {
    #![proptest_config(config())]

    /// A request-aware decision grants exactly the origins it allows for the request, on
    /// preflights and actual requests alike, and every answer varies on what it read.
    #[test]
    fn request_aware_decisions_agree_and_vary_on_what_they_read(
        (origin, allowed) in origin_parts(),
        tenant in prop::sample::select(vec![None, Some("acme"), Some("globex"), Some("ACME")]),
        with_origin in any::<bool>(),
    ) {
        let policy = tenant_policy();
        let mut request = HeaderMap::new();
        if with_origin {
            request.insert("origin", HeaderValue::from_str(&origin).unwrap());
        }
        if let Some(tenant) = tenant {
            request.insert("x-tenant", HeaderValue::from_static(tenant));
        }
        let expected = with_origin && allowed && tenant == Some("acme");

        let decision = policy.actual(&CorsRequest::new(&Method::GET, &request));
        prop_assert_eq!(decision.is_allowed(), expected);
        let mut response = HeaderMap::new();
        decision.write(&mut response, ResponseCredentials::Policy);
        prop_assert_eq!(vary_names(&response), ["origin", "x-tenant"]);
        check_invariants(&policy, &request, &response, false, false);

        request.insert("access-control-request-method", HeaderValue::from_static("GET"));
        let preflight = CorsRequest::new(&Method::OPTIONS, &request);
        if with_origin {
            prop_assert_eq!(preflight.kind(), RequestKind::Preflight);
            let decision = policy.preflight(&preflight);
            prop_assert_eq!(decision.is_allowed(), expected);
            let mut response = HeaderMap::new();
            decision.write(&mut response);
            prop_assert!(vary_names(&response).contains(&"x-tenant".to_owned()));
            check_invariants(&policy, &request, &response, false, true);
        }
    }

    /// An asynchronous decision is asked only about one well-formed origin, and its answer
    /// alone decides: allowed grants, refused or failed refuses, the same on preflights.
    #[test]
    fn async_decisions_grant_exactly_what_they_answer(
        (origin, _) in origin_parts(),
        answer in prop::sample::select(vec![0u8, 1, 2]),
    ) {
        let policy = CorsPolicy::from_options(
            &CorsOptions::new().origin(AllowOrigin::async_predicate(|_| async { Ok(true) })),
        )
        .unwrap();
        let answer = match answer {
            0 => cors_axum_core::OriginAnswer::Allowed,
            1 => cors_axum_core::OriginAnswer::Refused,
            _ => cors_axum_core::OriginAnswer::Failed("down"),
        };
        let mut request = HeaderMap::new();
        request.insert("origin", HeaderValue::from_str(&origin).unwrap());
        let asks = policy.origin_lookup(&CorsRequest::new(&Method::GET, &request)).is_some();
        let expected = asks && answer == cors_axum_core::OriginAnswer::Allowed;

        let actual = CorsRequest::new(&Method::GET, &request).with_origin_answer(answer);
        prop_assert_eq!(policy.actual(&actual).is_allowed(), expected);
        request.insert("access-control-request-method", HeaderValue::from_static("GET"));
        let preflight = CorsRequest::new(&Method::OPTIONS, &request).with_origin_answer(answer);
        prop_assert_eq!(policy.preflight(&preflight).is_allowed(), expected);
    }
}

/// A method, safe or not, as a request sends it.
fn any_method() -> impl Strategy<Value = Method> {
    prop::sample::select(vec![
        Method::GET,
        Method::HEAD,
        Method::OPTIONS,
        Method::POST,
        Method::PUT,
        Method::PATCH,
        Method::DELETE,
        Method::from_bytes(b"get").unwrap(),
    ])
}

/// `Sec-Fetch-Site` lines: none, one of the four values, an unknown or empty one, or two.
fn sec_fetch_site() -> impl Strategy<Value = Vec<&'static str>> {
    let value = prop::sample::select(vec![
        "same-origin",
        "none",
        "same-site",
        "cross-site",
        "Cross-Site",
        "",
        "cross-origin",
    ]);
    prop::collection::vec(value, 0..3)
}

/// Whether `origin` names `host` (written lowercase, without a default port), computed apart
/// from the engine: its authority, lowercase, a port equal to its scheme's default dropped.
fn names_host(origin: &str, host: &str) -> bool {
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    let authority = authority.to_ascii_lowercase();
    let default = match scheme.to_ascii_lowercase().as_str() {
        "https" => Some(443),
        "http" => Some(80),
        _ => None,
    };
    let normalized = match authority.rsplit_once(':') {
        Some((name, port)) => match port.parse::<u16>() {
            Ok(port) if Some(port) == default => name.to_owned(),
            Ok(port) => format!("{name}:{port}"),
            Err(_) => authority.clone(),
        },
        None => authority.clone(),
    };
    normalized == host
}

/// Policies with cross-origin protection on, over several origin rules.
fn protected_policies() -> Vec<CorsPolicy> {
    let list = CorsOptions::new().origin([
        "https://example.com",
        "https://*.example.org",
        "http://localhost:*",
    ]);
    [
        list.clone().credentials(true),
        list.allow_null_origin(true),
        CorsOptions::new(),
        CorsOptions::new()
            .origin(AllowOrigin::mirror_request())
            .allow_null_origin(true),
        CorsOptions::new().origin(AllowOrigin::predicate(|o| o.as_bytes().len() % 3 == 0)),
    ]
    .iter()
    .map(|options| CorsPolicy::from_options(&options.clone().protect_cross_origin(true)).unwrap())
    .collect()
}

proptest! {
    #![proptest_config(config())]

    /// Cross-origin protection never lets an unsafe request from another origin through
    /// unless its origin is one the policy grants for reading (and not by `*`); it never
    /// refuses a safe method, a `same-origin` or `none` request, or one without `Origin` nor
    /// `Sec-Fetch-Site`; and it refuses only origins the policy does not grant.
    #[test]
    fn protection_passes_cross_origin_unsafe_requests_only_from_granted_origins(
        policy_index in 0usize..5,
        method in any_method(),
        sites in sec_fetch_site(),
        origins in prop::collection::vec(
            prop_oneof![
                origin_parts().prop_map(|(o, _)| o),
                Just("null".to_owned()),
                // Close to the hosts below.
                prop::sample::select(vec![
                    "http://localhost:3000", "https://localhost:3000", "http://LOCALHOST:3000",
                    "http://localhost:8443", "http://localhost", "https://example.com:443",
                    "http://example.com", "https://example.com:8443", "https://api.example.net",
                ]).prop_map(str::to_owned),
            ],
            0..3,
        ),
        host in prop::sample::select(vec![None, Some("example.com"), Some("api.example.net"), Some("localhost:3000")]),
    ) {
        let policy = &protected_policies()[policy_index];
        let mut request = HeaderMap::new();
        for site in &sites {
            request.append("sec-fetch-site", HeaderValue::from_static(site));
        }
        for origin in &origins {
            request.append("origin", HeaderValue::from_str(origin).unwrap());
        }
        let cors = CorsRequest::new(&method, &request);
        let decision = policy.cross_origin(&cors, host.map(str::as_bytes));
        let granted = policy.actual(&cors).is_allowed() && !policy.allows_any_origin();
        let safe = matches!(method, Method::GET | Method::HEAD | Method::OPTIONS);
        let same_origin_site = matches!(sites.as_slice(), ["same-origin" | "none"]);
        let site_says_cross = !same_origin_site && sites.first().is_some_and(|s| !s.is_empty() || sites.len() > 1);
        if safe || same_origin_site || (sites.iter().all(|s| s.is_empty()) && sites.len() < 2 && origins.is_empty()) {
            prop_assert_eq!(decision, Ok(()));
        }
        // Another origin, by `Sec-Fetch-Site`, or by an `Origin` that is not the host's.
        let names_the_host = origins.len() == 1 && host.is_some_and(|host| names_host(&origins[0], host));
        let from_elsewhere = site_says_cross || (!same_origin_site && origins.len() == 1 && !names_the_host);
        if !safe && from_elsewhere && decision.is_ok() {
            prop_assert!(granted, "{:?} {:?} {:?} {:?}", method, sites, origins, host);
        }
        if let Err(refusal) = decision {
            prop_assert!(!safe);
            prop_assert!(!granted || origins.len() > 1, "{}", refusal);
            prop_assert!(!refusal.to_string().contains('\n'));
            if matches!(refusal, cors_axum_core::Refusal::CrossOriginRequest { .. }) {
                prop_assert!(!names_the_host, "{}", refusal);
            }
        }
    }

    /// A port wildcard matches only its own scheme and host, with a port written in the
    /// origin; a subdomain pattern with a port wildcard only subdomains, with a port.
    #[test]
    fn port_wildcards_never_match_another_scheme_or_host(
        scheme in prop::sample::select(vec!["http", "https", "HTTP", "ws"]),
        host in prop::sample::select(vec![
            "localhost", "LOCALHOST", "localhost.evil.test", "a.localhost", "evil-localhost",
            "example.org", "a.example.org", "a.b.example.org", "example.org.evil.test", "aexample.org",
        ]),
        port in prop::sample::select(vec![None, Some("80"), Some("443"), Some("3000"), Some("5173"), Some("08080")]),
    ) {
        let policy = CorsPolicy::from_options(
            &CorsOptions::new().origin(["http://localhost:*", "https://*.example.org:*"]),
        )
        .unwrap();
        let origin = match port {
            Some(port) => format!("{scheme}://{host}:{port}"),
            None => format!("{scheme}://{host}"),
        };
        let scheme = scheme.to_ascii_lowercase();
        let host = host.to_ascii_lowercase();
        // A port equal to the scheme's default is no port: browsers leave it out.
        let explicit = !matches!(
            (scheme.as_str(), port),
            (_, None) | ("http", Some("80")) | ("https", Some("443"))
        );
        let expected = explicit
            && ((scheme == "http" && host == "localhost")
                || (scheme == "https"
                    && host.len() > ".example.org".len()
                    && host.ends_with(".example.org")));
        let mut request = HeaderMap::new();
        request.insert("origin", HeaderValue::from_str(&origin).unwrap());
        let granted = policy.actual(&CorsRequest::new(&Method::GET, &request)).is_allowed();
        prop_assert_eq!(granted, expected, "{}", origin);
    }

    /// A WebSocket handshake is refused exactly when it has an `Origin` the policy would not
    /// grant (nor `*`), that does not name the request's host.
    #[test]
    fn websocket_handshakes_follow_the_policy(
        policy_index in 0usize..5,
        origins in prop::collection::vec(
            prop_oneof![origin_parts().prop_map(|(o, _)| o), Just("null".to_owned())],
            0..3,
        ),
        upgrade in any::<bool>(),
    ) {
        let policy = &protected_policies()[policy_index];
        let mut request = HeaderMap::new();
        if upgrade {
            request.insert("upgrade", HeaderValue::from_static("websocket"));
            request.insert("connection", HeaderValue::from_static("Upgrade"));
        }
        for origin in &origins {
            request.append("origin", HeaderValue::from_str(origin).unwrap());
        }
        let cors = CorsRequest::new(&Method::GET, &request);
        prop_assert_eq!(cors.is_websocket_upgrade(), upgrade);
        // No origin of `origin_parts` names this host (no label `api`).
        let decision = policy.websocket(&cors, Some(b"api.example.net"));
        let granted = policy.actual(&cors).is_allowed();
        let expected = !upgrade || origins.is_empty() || granted;
        prop_assert_eq!(decision.is_ok(), expected, "{:?}", origins);
    }
}
