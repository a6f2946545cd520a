//! WebSocket handshakes: recognised, and their origin decided as the CORS policy says.

use cors_axum_core::{AllowOrigin, CorsOptions, CorsPolicy, CorsRequest, OriginAnswer, Refusal};
use http::{HeaderMap, HeaderValue, Method};

fn headers(lines: &[(&'static str, &'static str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in lines {
        map.append(*name, HeaderValue::from_static(value));
    }
    map
}

const HANDSHAKE: [(&str, &str); 2] = [("upgrade", "websocket"), ("connection", "Upgrade")];

#[test]
fn recognises_http1_upgrades_only() {
    let upgrades: [&[(&str, &str)]; 11] = [
        &HANDSHAKE,
        &[
            ("upgrade", "WebSocket"),
            ("connection", "keep-alive, Upgrade"),
        ],
        &[("upgrade", "h2c, websocket"), ("connection", "upgrade")],
        &[
            ("upgrade", "websocket"),
            ("connection", "keep-alive"),
            ("connection", "UPGRADE"),
        ],
        &[
            ("upgrade", "foo"),
            ("upgrade", " websocket "),
            ("connection", "\tupgrade\t"),
        ],
        &[("upgrade", "websocket"), ("connection", "close,upgrade")],
        // axum's `WebSocketUpgrade` upgrades any `Connection` that contains `upgrade`: every
        // one of these opens a socket there, so each is a handshake to decide.
        &[("upgrade", "websocket"), ("connection", "upgradex")],
        &[
            ("upgrade", "websocket"),
            ("connection", "keep-alive-upgrade"),
        ],
        &[("upgrade", "websocket"), ("connection", "Upgrade;q=1")],
        &[("upgrade", "websocket"), ("connection", "upgrade-insecure")],
        &[("upgrade", "websocket"), ("connection", "xUPGRADEx")],
    ];
    for lines in upgrades {
        let map = headers(lines);
        assert!(
            CorsRequest::new(&Method::GET, &map).is_websocket_upgrade(),
            "{lines:?}"
        );
        assert!(
            !CorsRequest::new(&Method::POST, &map).is_websocket_upgrade(),
            "{lines:?}"
        );
        assert!(
            !CorsRequest::new(&Method::CONNECT, &map).is_websocket_upgrade(),
            "{lines:?}"
        );
    }
    let not_upgrades: [&[(&str, &str)]; 7] = [
        &[],
        &[("upgrade", "websocket")],
        &[("connection", "upgrade")],
        &[("upgrade", "h2c"), ("connection", "upgrade")],
        &[("upgrade", "websockets"), ("connection", "upgrade")],
        &[("upgrade", "websocket"), ("connection", "keep-alive")],
        &[("upgrade", "websocket"), ("connection", "upgrad")],
    ];
    for lines in not_upgrades {
        let map = headers(lines);
        assert!(
            !CorsRequest::new(&Method::GET, &map).is_websocket_upgrade(),
            "{lines:?}"
        );
    }
}

fn handshake(origins: &[&'static str]) -> HeaderMap {
    let mut map = headers(&HANDSHAKE);
    for origin in origins {
        map.append("origin", HeaderValue::from_static(origin));
    }
    map
}

fn policy(options: CorsOptions) -> CorsPolicy {
    CorsPolicy::from_options(&options).unwrap()
}

#[test]
fn origins_are_decided_as_the_policy_allows_them() {
    let list = policy(CorsOptions::new().origin(["https://app.example", "https://*.app.example"]));
    let decide = |policy: &CorsPolicy, origins: &[&'static str], host: Option<&[u8]>| {
        let map = handshake(origins);
        let request = CorsRequest::new(&Method::GET, &map);
        policy.websocket(&request, host).map_err(|r| r.to_string())
    };
    assert_eq!(decide(&list, &["https://app.example"], None), Ok(()));
    assert_eq!(decide(&list, &["https://chat.app.example"], None), Ok(()));
    assert_eq!(decide(&list, &["HTTPS://APP.EXAMPLE:443"], None), Ok(()));
    // Without `Origin`: not a browser, nothing to hijack.
    assert_eq!(decide(&list, &[], None), Ok(()));
    assert_eq!(
        decide(&list, &["https://evil.example"], None),
        Err("origin `https://evil.example` is not allowed".to_owned())
    );
    assert_eq!(
        decide(&list, &["null"], None),
        Err("origin `null` is not allowed without `allow_null_origin(true)`".to_owned())
    );
    assert_eq!(
        decide(&list, &["https://app.example/"], None),
        Err("malformed origin `https://app.example/`".to_owned())
    );
    assert_eq!(
        decide(&list, &["https://app.example", "https://app.example"], None),
        Err("several `Origin` headers".to_owned())
    );
    // The server's own pages: same origin, no hijacking.
    assert_eq!(
        decide(&list, &["https://api.example"], Some(b"api.example")),
        Ok(())
    );
    assert_eq!(
        decide(&list, &["http://api.example"], Some(b"api.example:80")),
        Ok(())
    );
    assert!(decide(&list, &["https://api.example"], None).is_err());
    assert!(decide(&list, &["https://api.example:8443"], Some(b"api.example")).is_err());

    // Any origin allows every handshake, as it allows every origin to read.
    let any = policy(CorsOptions::new());
    for origins in [&["https://evil.example"][..], &["null"], &["x", "y"], &[]] {
        assert_eq!(decide(&any, origins, None), Ok(()), "{origins:?}");
    }
    // Mirroring allows every well-formed origin; `null` only with the opt-in.
    let mirror = policy(CorsOptions::new().origin(AllowOrigin::mirror_request()));
    assert_eq!(decide(&mirror, &["https://evil.example"], None), Ok(()));
    assert!(decide(&mirror, &["null"], None).is_err());
    assert!(decide(&mirror, &["not an origin"], None).is_err());
    let mirror_null = policy(
        CorsOptions::new()
            .origin(AllowOrigin::mirror_request())
            .allow_null_origin(true),
    );
    assert_eq!(decide(&mirror_null, &["null"], None), Ok(()));
    let predicate = policy(
        CorsOptions::new().origin(AllowOrigin::predicate(|o| o.as_bytes().ends_with(b".test"))),
    );
    assert_eq!(decide(&predicate, &["https://a.test"], None), Ok(()));
    assert!(decide(&predicate, &["https://a.example"], None).is_err());
}

#[test]
fn a_request_that_is_not_a_handshake_is_not_decided_here() {
    let list = policy(CorsOptions::new().origin("https://app.example"));
    let map = headers(&[("origin", "https://evil.example")]);
    assert_eq!(
        list.websocket(&CorsRequest::new(&Method::GET, &map), None),
        Ok(())
    );
    // An HTTP/2 handshake (extended CONNECT) is recognised by the caller, then decided.
    let connect = CorsRequest::new(&Method::CONNECT, &map);
    assert!(!connect.is_websocket_upgrade());
    assert_eq!(list.websocket(&connect, None), Ok(()));
    assert_eq!(
        list.websocket_handshake(&connect, None),
        Err(Refusal::OriginNotAllowed {
            origin: &map["origin"]
        })
    );
}

#[test]
fn asynchronous_decisions_need_their_answer() {
    let database =
        policy(CorsOptions::new().origin(AllowOrigin::async_predicate(|_| async { Ok(true) })));
    let map = handshake(&["https://tenant.example"]);
    let request = CorsRequest::new(&Method::GET, &map);
    assert!(database.origin_lookup(&request).is_some());
    assert!(matches!(
        database.websocket(&request, None),
        Err(Refusal::OriginLookupFailed { .. })
    ));
    let allowed = request.with_origin_answer(OriginAnswer::Allowed);
    assert_eq!(database.websocket(&allowed, None), Ok(()));
    let refused = request.with_origin_answer(OriginAnswer::Refused);
    assert!(matches!(
        database.websocket(&refused, None),
        Err(Refusal::OriginNotAllowed { .. })
    ));
}
