//! Cross-origin request protection, case by case, with Go 1.25's `http.CrossOriginProtection`
//! (`net/http/csrf.go`) as the reference: each row says whether Go decides the same, and why
//! not when it does not.

use cors_axum_core::{AllowOrigin, CorsOptions, CorsPolicy, CorsRequest, OriginAnswer, Refusal};
use http::{HeaderMap, HeaderValue, Method};

/// The API's own host, as the `Host` header (or HTTP/2 authority) names it.
const HOST: &str = "api.example.com";

/// How a case ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Pass,
    /// Refused by `Sec-Fetch-Site`.
    CrossSite,
    /// Refused by `Origin` (no `Sec-Fetch-Site`).
    CrossOrigin,
    SeveralOrigins,
}
use Outcome::*;

/// The policies of the table.
#[derive(Clone, Copy, Debug)]
enum Trust {
    /// `https://app.example.com`, `https://*.partner.example`.
    List,
    /// `AllowOrigin::any()`: trusts no origin.
    Any,
    /// `AllowOrigin::mirror_request()` with `allow_null_origin(true)`: trusts every origin.
    Mirror,
    /// CORS switched off, protection on: trusts no origin.
    NoCors,
}

fn policy(trust: Trust) -> Option<CorsPolicy> {
    let options = CorsOptions::new().protect_cross_origin(true);
    let options = match trust {
        Trust::List => options.origin(["https://app.example.com", "https://*.partner.example"]),
        Trust::Any => options,
        Trust::Mirror => options
            .origin(AllowOrigin::mirror_request())
            .allow_null_origin(true),
        Trust::NoCors => return None,
    };
    Some(CorsPolicy::from_options(&options).unwrap())
}

fn decide(trust: Trust, method: &Method, headers: &HeaderMap, host: Option<&str>) -> Outcome {
    let request = CorsRequest::new(method, headers);
    let host = host.map(str::as_bytes);
    let decision = match policy(trust) {
        Some(policy) => policy.cross_origin(&request, host),
        None => CorsPolicy::cross_origin_trusting_none(&request, host),
    };
    match decision {
        Ok(()) => Pass,
        Err(refusal) => {
            let line = refusal.to_string();
            assert!(!line.contains('\n'), "{line}");
            match refusal {
                Refusal::CrossSiteRequest { .. } => CrossSite,
                Refusal::CrossOriginRequest { .. } => CrossOrigin,
                Refusal::SeveralOrigins => SeveralOrigins,
                other => panic!("unexpected refusal {other:?}"),
            }
        }
    }
}

/// One row: method, `Sec-Fetch-Site` lines, `Origin` lines, `Host`, the policy, the outcome.
type Case = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    Option<&'static str>,
    Trust,
    Outcome,
);

#[rustfmt::skip]
const CASES: &[Case] = &[
    // Safe methods pass whatever they carry. Go: the same.
    ("GET", &["cross-site"], &["https://evil.example"], Some(HOST), Trust::List, Pass),
    ("HEAD", &["cross-site"], &["https://evil.example"], Some(HOST), Trust::Any, Pass),
    ("OPTIONS", &["cross-site"], &["https://evil.example"], Some(HOST), Trust::NoCors, Pass),
    // `CONNECT` is an HTTP/2 WebSocket handshake (RFC 8441), decided like the HTTP/1.1 `GET`
    // it stands for by the handshake's origin check. Go: refused as an unsafe method.
    ("CONNECT", &["cross-site"], &["https://evil.example"], Some(HOST), Trust::Any, Pass),
    ("CONNECT", &[], &["https://evil.example"], Some(HOST), Trust::NoCors, Pass),
    // Methods are case-sensitive: `get` is not `GET`. Go: the same (`req.Method` compared exactly).
    ("get", &["cross-site"], &["https://evil.example"], Some(HOST), Trust::List, CrossSite),
    // `same-origin` and `none` pass, whatever the origin. Go: the same.
    ("POST", &["same-origin"], &["https://evil.example"], Some(HOST), Trust::NoCors, Pass),
    ("DELETE", &["none"], &[], None, Trust::Any, Pass),
    // `cross-site` and `same-site` from an untrusted origin are refused. Go: the same.
    ("POST", &["cross-site"], &["https://evil.example"], Some(HOST), Trust::List, CrossSite),
    ("PUT", &["same-site"], &["https://www.example.com"], Some(HOST), Trust::List, CrossSite),
    ("POST", &["cross-site"], &[], Some(HOST), Trust::List, CrossSite),
    // ... unless the origin is trusted. Go: its own list of exact `Origin` strings
    // (`AddTrustedOrigin`); here the CORS policy's origins, patterns included.
    ("POST", &["cross-site"], &["https://app.example.com"], Some(HOST), Trust::List, Pass),
    ("PATCH", &["same-site"], &["https://a.partner.example"], Some(HOST), Trust::List, Pass),
    // Here, spellings of a trusted origin are the origin. Go: byte for byte only.
    ("POST", &["cross-site"], &["https://APP.example.com:443"], Some(HOST), Trust::List, Pass),
    // Any origin (`*`) trusts no one: it grants reading, not sending. Go: no equivalent.
    ("POST", &["cross-site"], &["https://app.example.com"], Some(HOST), Trust::Any, CrossSite),
    // Mirroring trusts every well-formed origin, and `null` with the opt-in. Go: `null` can
    // never be trusted (`AddTrustedOrigin` needs a scheme and a host).
    ("POST", &["cross-site"], &["https://evil.example"], Some(HOST), Trust::Mirror, Pass),
    ("POST", &["cross-site"], &["null"], Some(HOST), Trust::Mirror, Pass),
    ("POST", &["cross-site"], &["null"], Some(HOST), Trust::List, CrossSite),
    ("POST", &["cross-site"], &["https://evil.example/"], Some(HOST), Trust::Mirror, CrossSite),
    // Unknown values count as cross-site. Go: the same (`default:` of its switch); values
    // compare exactly, as browsers send them lowercase.
    ("POST", &["cross-origin"], &["https://evil.example"], Some(HOST), Trust::List, CrossSite),
    ("POST", &["Same-Origin"], &["https://evil.example"], Some(HOST), Trust::List, CrossSite),
    // Several lines are refused unless trusted. Go: the first line decides
    // (`Header.Get`), so `same-origin, cross-site` would pass there.
    ("POST", &["same-origin", "cross-site"], &["https://evil.example"], Some(HOST), Trust::List, CrossSite),
    ("POST", &["same-origin", "same-origin"], &["https://app.example.com"], Some(HOST), Trust::List, Pass),
    // An empty value is no value. Go: the same (`case ""`).
    ("POST", &[""], &[], Some(HOST), Trust::List, Pass),
    ("POST", &[""], &["https://evil.example"], Some(HOST), Trust::List, CrossOrigin),
    // Without `Sec-Fetch-Site`: no `Origin` passes (not a browser). Go: the same.
    ("POST", &[], &[], Some(HOST), Trust::NoCors, Pass),
    ("POST", &[], &[], None, Trust::List, Pass),
    // An `Origin` naming the request's host passes, the scheme ignored. Go: the same.
    ("POST", &[], &["https://api.example.com"], Some(HOST), Trust::NoCors, Pass),
    ("POST", &[], &["http://api.example.com"], Some(HOST), Trust::NoCors, Pass),
    ("POST", &[], &["http://localhost:3000"], Some("localhost:3000"), Trust::NoCors, Pass),
    // Here, host case and default ports are normalised. Go: byte for byte, so these three
    // are refused there.
    ("POST", &[], &["https://API.example.com"], Some(HOST), Trust::NoCors, Pass),
    ("POST", &[], &["https://api.example.com"], Some("api.example.com:443"), Trust::NoCors, Pass),
    ("POST", &[], &["https://api.example.com:443"], Some(HOST), Trust::NoCors, Pass),
    // Another port, host or no host is another origin. Go: the same.
    ("POST", &[], &["https://api.example.com:8443"], Some(HOST), Trust::NoCors, CrossOrigin),
    ("POST", &[], &["https://evil.example"], Some(HOST), Trust::List, CrossOrigin),
    ("POST", &[], &["https://api.example.com"], None, Trust::NoCors, CrossOrigin),
    ("POST", &[], &["null"], Some(HOST), Trust::NoCors, CrossOrigin),
    ("POST", &[], &["https://api.example.com/"], Some(HOST), Trust::NoCors, CrossOrigin),
    // ... unless trusted. Go: the same, with its own list.
    ("POST", &[], &["https://app.example.com"], Some(HOST), Trust::List, Pass),
    ("POST", &[], &["https://b.partner.example"], None, Trust::List, Pass),
    ("POST", &[], &["https://app.example.com"], Some(HOST), Trust::Any, CrossOrigin),
    // Several `Origin` lines are refused. Go: the first line decides.
    ("POST", &[], &["https://api.example.com", "https://evil.example"], Some(HOST), Trust::Mirror, SeveralOrigins),
];

#[test]
fn table_of_cases() {
    for &(method, sites, origins, host, trust, expected) in CASES {
        let method = Method::from_bytes(method.as_bytes()).unwrap();
        let mut headers = HeaderMap::new();
        for site in sites {
            headers.append("sec-fetch-site", HeaderValue::from_static(site));
        }
        for origin in origins {
            headers.append("origin", HeaderValue::from_static(origin));
        }
        let got = decide(trust, &method, &headers, host);
        assert_eq!(
            got, expected,
            "{method} sec-fetch-site={sites:?} origin={origins:?} host={host:?} {trust:?}"
        );
    }
}

#[test]
fn off_unless_switched_on_and_merged_field_by_field() {
    let mut headers = HeaderMap::new();
    headers.insert("sec-fetch-site", HeaderValue::from_static("cross-site"));
    headers.insert("origin", HeaderValue::from_static("https://evil.example"));
    let post = CorsRequest::new(&Method::POST, &headers);

    let off = CorsPolicy::from_options(&CorsOptions::new()).unwrap();
    assert!(!off.protects_cross_origin());
    assert_eq!(off.cross_origin(&post, Some(HOST.as_bytes())), Ok(()));

    let module = CorsOptions::new().protect_cross_origin(true);
    assert!(module.protects_cross_origin());
    let on = CorsPolicy::from_options(&module).unwrap();
    assert!(on.protects_cross_origin());
    assert!(on.cross_origin(&post, Some(HOST.as_bytes())).is_err());

    // A route opts out.
    let route = CorsOptions::new().protect_cross_origin(false);
    let merged = module.merge(&route);
    assert!(!merged.protects_cross_origin());
    let opted_out = CorsPolicy::from_options(&merged).unwrap();
    assert_eq!(opted_out.cross_origin(&post, Some(HOST.as_bytes())), Ok(()));
    // And a route that sets something else keeps the module's protection.
    let other = module.merge(&CorsOptions::new().max_age(600));
    assert!(other.protects_cross_origin());
}

#[test]
fn refusals_name_what_was_sent_in_one_line() {
    let mut headers = HeaderMap::new();
    headers.insert(
        "sec-fetch-site",
        HeaderValue::from_bytes(b"cross-site\t`x`").unwrap(),
    );
    let request = CorsRequest::new(&Method::POST, &headers);
    let refusal = CorsPolicy::cross_origin_trusting_none(&request, None).unwrap_err();
    assert_eq!(
        refusal.to_string(),
        "cross-origin protection: an unsafe request with `Sec-Fetch-Site` `cross-site\\t\\`x\\`` \
         from an origin the CORS policy does not allow"
    );
    let mut headers = HeaderMap::new();
    headers.insert("origin", HeaderValue::from_static("https://evil.example"));
    let request = CorsRequest::new(&Method::DELETE, &headers);
    let refusal =
        CorsPolicy::cross_origin_trusting_none(&request, Some(b"api.example.com")).unwrap_err();
    assert_eq!(
        refusal,
        Refusal::CrossOriginRequest {
            origin: &headers["origin"]
        }
    );
    assert_eq!(
        refusal.to_string(),
        "cross-origin protection: an unsafe request without `Sec-Fetch-Site` from origin \
         `https://evil.example`, which is neither the request's host nor allowed by the CORS policy"
    );
}

#[test]
fn request_aware_and_asynchronous_decisions_are_trusted_as_they_answer() {
    let tenant = AllowOrigin::request_predicate(|origin, request| {
        request
            .headers()
            .get("x-tenant")
            .is_some_and(|t| t == "acme")
            && origin == "https://acme.example"
    })
    .varying_on(["x-tenant"]);
    let policy =
        CorsPolicy::from_options(&CorsOptions::new().origin(tenant).protect_cross_origin(true))
            .unwrap();
    let mut headers = HeaderMap::new();
    headers.insert("sec-fetch-site", HeaderValue::from_static("cross-site"));
    headers.insert("origin", HeaderValue::from_static("https://acme.example"));
    let post = |headers: &HeaderMap| {
        policy
            .cross_origin(&CorsRequest::new(&Method::POST, headers), None)
            .is_ok()
    };
    assert!(!post(&headers));
    headers.insert("x-tenant", HeaderValue::from_static("acme"));
    assert!(post(&headers));

    // An asynchronous decision is trusted once answered `Allowed`, never before.
    let database = AllowOrigin::async_predicate(|_| async { Ok(true) });
    let policy = CorsPolicy::from_options(
        &CorsOptions::new()
            .origin(database)
            .credentials(true)
            .protect_cross_origin(true),
    )
    .unwrap();
    let request = CorsRequest::new(&Method::POST, &headers);
    assert!(policy.origin_lookup(&request).is_some());
    assert!(policy.cross_origin(&request, None).is_err());
    for (answer, passes) in [
        (OriginAnswer::Allowed, true),
        (OriginAnswer::Refused, false),
        (OriginAnswer::Failed("timeout"), false),
    ] {
        let answered = request.with_origin_answer(answer);
        assert_eq!(policy.cross_origin(&answered, None).is_ok(), passes);
        // The same answer as the CORS grant of that request.
        assert_eq!(policy.actual(&answered).is_allowed(), passes);
    }
}

#[test]
fn trusted_exactly_when_an_actual_request_would_be_granted() {
    // Over many origins: a cross-site unsafe request passes exactly when the policy grants
    // the origin on an actual request (any origin aside, which trusts none).
    let origins = [
        "https://app.example.com",
        "https://APP.example.com",
        "https://app.example.com:443",
        "https://app.example.com:8443",
        "http://app.example.com",
        "https://a.partner.example",
        "https://partner.example",
        "https://a.partner.example.evil.test",
        "null",
        "https://evil.example",
        "https://app.example.com/",
        "",
    ];
    for trust in [Trust::List, Trust::Mirror, Trust::Any] {
        let policy = policy(trust).unwrap();
        for origin in origins {
            let mut headers = HeaderMap::new();
            headers.insert("sec-fetch-site", HeaderValue::from_static("cross-site"));
            headers.insert("origin", HeaderValue::from_static(origin));
            let post = CorsRequest::new(&Method::POST, &headers);
            let granted = policy.actual(&post).is_allowed() && !policy.allows_any_origin();
            assert_eq!(
                policy.cross_origin(&post, Some(HOST.as_bytes())).is_ok(),
                granted,
                "{trust:?} {origin:?}"
            );
        }
    }
}
