//! Hostile origins against exact, list and pattern policies: only the genuine origin is granted.

use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest, ResponseCredentials};
use http::{HeaderMap, HeaderValue, Method};

fn policy() -> CorsPolicy {
    CorsPolicy::from_options(
        &CorsOptions::new()
            .origin([
                "https://example.com",
                "https://*.example.org",
                "http://localhost:3000",
            ])
            .credentials(true),
    )
    .unwrap()
}

fn granted(policy: &CorsPolicy, origins: &[&[u8]]) -> bool {
    let mut request = HeaderMap::new();
    for origin in origins {
        request.append("origin", HeaderValue::from_bytes(origin).unwrap());
    }
    let mut actual = HeaderMap::new();
    let decision = policy.actual(&CorsRequest::new(&Method::GET, &request));
    let refusal = decision.write(&mut actual, ResponseCredentials::Policy);
    assert_eq!(decision.is_allowed(), refusal.is_none());
    assert_eq!(
        decision.is_allowed(),
        actual.contains_key("access-control-allow-origin")
    );
    request.insert(
        "access-control-request-method",
        HeaderValue::from_static("GET"),
    );
    let mut preflight = HeaderMap::new();
    let preflight_decision = policy.preflight(&CorsRequest::new(&Method::OPTIONS, &request));
    let allowed = preflight_decision.is_allowed();
    // Refused for the same reason on both sides.
    assert_eq!(
        preflight_decision.refusal().map(|r| r.to_string()),
        refusal.map(|r| r.to_string()),
        "{origins:?}"
    );
    preflight_decision.write(&mut preflight);
    assert_eq!(allowed, decision.is_allowed(), "{origins:?}");
    if allowed {
        // The grant echoes the request's own value, byte for byte.
        assert_eq!(actual["access-control-allow-origin"].as_bytes(), origins[0]);
        assert_eq!(
            preflight["access-control-allow-origin"].as_bytes(),
            origins[0]
        );
    }
    // Every response of an origin-dependent policy carries `Vary: Origin`.
    assert_eq!(actual["vary"], "Origin");
    allowed
}

/// Spellings of the allowed origins, all granted.
const GENUINE: &[&str] = &[
    "https://example.com",
    "https://example.com:443",
    "HTTPS://EXAMPLE.COM",
    "https://Example.Com",
    "https://a.example.org",
    "https://a.b.example.org",
    "https://A.EXAMPLE.ORG:443",
    "http://localhost:3000",
];

/// Origins close to the allowed ones, all refused.
const HOSTILE: &[&str] = &[
    // Suffix and prefix tricks.
    "https://example.com.evil.net",
    "https://evil-example.com",
    "https://evilexample.com",
    "https://example.co",
    "https://example.comm",
    "https://xexample.com",
    "https://sub.example.com",
    "https://example.org",
    "https://example.org.evil.net",
    "https://evil-example.org",
    "https://a.example.org.evil.net",
    "https://aexample.org",
    // Scheme downgrade or change.
    "http://example.com",
    "http://a.example.org",
    "https://localhost:3000",
    "ws://example.com",
    // Ports.
    "https://example.com:8443",
    "https://example.com:80",
    "http://localhost",
    "http://localhost:80",
    "http://localhost:30000",
    "https://a.example.org:8443",
    // Not origins.
    "null",
    "",
    " ",
    "*",
    "example.com",
    "https://example.com/",
    "https://example.com/path",
    "https://example.com?",
    "https://example.com#",
    "https://user@example.com",
    "https://evil.com@example.com",
    "https://example.com@evil.com",
    "https://example.com:",
    "https://example.com.",
    "https://.example.org",
    "https://..example.org",
    "https://*.example.org",
    "https://example.com\t",
    " https://example.com",
    "https://example.com ",
    // Several values in one line.
    "https://example.com, https://evil.com",
    "https://example.com,https://evil.com",
    "https://evil.com https://example.com",
    "https://example.com https://example.com",
];

#[test]
fn genuine_origins_are_granted() {
    let policy = policy();
    for origin in GENUINE {
        assert!(granted(&policy, &[origin.as_bytes()]), "{origin}");
    }
}

#[test]
fn hostile_origins_are_refused() {
    let policy = policy();
    for origin in HOSTILE {
        assert!(!granted(&policy, &[origin.as_bytes()]), "{origin:?}");
    }
}

/// Short lists are compared one by one, long ones hashed: both answer the same.
#[test]
fn long_lists_answer_as_short_ones() {
    let extra: Vec<String> = (0..20)
        .map(|i| format!("https://app{i}.example.net"))
        .collect();
    let policy = CorsPolicy::from_options(
        &CorsOptions::new()
            .origin(
                [
                    "https://example.com",
                    "https://*.example.org",
                    "http://localhost:3000",
                ]
                .into_iter()
                .map(str::to_owned)
                .chain(extra.iter().cloned())
                .collect::<Vec<_>>(),
            )
            .credentials(true),
    )
    .unwrap();
    for origin in GENUINE {
        assert!(granted(&policy, &[origin.as_bytes()]), "{origin}");
    }
    for origin in HOSTILE {
        assert!(!granted(&policy, &[origin.as_bytes()]), "{origin:?}");
    }
    for origin in &extra {
        assert!(granted(&policy, &[origin.as_bytes()]), "{origin}");
        let upper = origin.to_ascii_uppercase();
        assert!(granted(&policy, &[upper.as_bytes()]), "{upper}");
        let other = origin.replace("example.net", "example.nets");
        assert!(!granted(&policy, &[other.as_bytes()]), "{other}");
    }
}

#[test]
fn several_origin_lines_are_refused() {
    let policy = policy();
    assert!(!granted(
        &policy,
        &[b"https://example.com", b"https://example.com"]
    ));
    assert!(!granted(
        &policy,
        &[b"https://example.com", b"https://evil.com"]
    ));
    assert!(!granted(
        &policy,
        &[b"https://evil.com", b"https://example.com"]
    ));
}

#[test]
fn non_ascii_bytes_are_refused() {
    let policy = policy();
    for origin in [
        &b"https://ex\xc3\xa4mple.com"[..],
        b"https://example.com\xff",
        b"https://\x80example.com",
        b"https://exam\x7fple.com",
    ] {
        if HeaderValue::from_bytes(origin).is_ok() {
            assert!(!granted(&policy, &[origin]), "{origin:?}");
        }
    }
}

#[test]
fn over_long_origins_are_refused() {
    let policy =
        CorsPolicy::from_options(&CorsOptions::new().origin("https://*.example.com")).unwrap();
    let long = format!("https://{}.example.com", "a.".repeat(200));
    let mut request = HeaderMap::new();
    request.insert("origin", HeaderValue::from_str(&long).unwrap());
    let decision = policy.actual(&CorsRequest::new(&Method::GET, &request));
    assert!(!decision.is_allowed());
    assert_eq!(
        decision.refusal().unwrap().to_string(),
        format!(
            "malformed origin `{}` (cut, {} bytes)",
            &long[..128],
            long.len()
        )
    );
}

#[test]
fn null_needs_opt_in_even_with_mirror() {
    let mirror = CorsPolicy::from_options(
        &CorsOptions::new().origin(cors_axum_core::AllowOrigin::mirror_request()),
    )
    .unwrap();
    assert!(!granted(&mirror, &[b"null"]));
    assert!(granted(&mirror, &[b"https://anything.example"]));
    assert!(!granted(
        &mirror,
        &[b"https://a.example, https://b.example"]
    ));
}

#[test]
fn port_wildcards_grant_only_explicit_ports_of_their_scheme_and_host() {
    let policy = CorsPolicy::from_options(
        &CorsOptions::new()
            .origin(["http://localhost:*", "https://*.example.net:*"])
            .credentials(true),
    )
    .unwrap();
    let genuine = [
        "http://localhost:5173",
        "http://localhost:3000",
        "http://LOCALHOST:8080",
        "http://localhost:443",
        "https://app.example.net:8443",
        "https://a.b.example.net:1",
    ];
    for origin in genuine {
        assert!(granted(&policy, &[origin.as_bytes()]), "{origin}");
    }
    let hostile = [
        // No port: what a browser sends for the default port, which the wildcard leaves out.
        "http://localhost",
        "http://localhost:80",
        "https://app.example.net",
        "https://app.example.net:443",
        // Another scheme.
        "https://localhost:5173",
        "ws://localhost:5173",
        "http://app.example.net:8443",
        // Another host.
        "http://localhost.evil.test:5173",
        "http://evil-localhost:5173",
        "http://sub.localhost:5173",
        "http://127.0.0.1:5173",
        "https://example.net:8443",
        "https://app.example.net.evil.test:8443",
        "https://appexample.net:8443",
        // Not a port.
        "http://localhost:*",
        "http://localhost:",
        "http://localhost:0",
        "http://localhost:65536",
        "http://localhost:5173/",
        "http://localhost:5173:5173",
    ];
    for origin in hostile {
        assert!(!granted(&policy, &[origin.as_bytes()]), "{origin}");
    }
}
