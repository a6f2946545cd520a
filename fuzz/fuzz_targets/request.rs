//! Feeds arbitrary methods and request headers through the engine's one path (classify, decide,
//! write) under several policies, checking the invariants that must hold for any input, and
//! checking the answers with the browser oracle: when the engine grants a request a browser
//! could have sent, the browser accepts the answer; when it refuses, the browser refuses too.
//! Cross-origin protection and WebSocket handshakes are decided on the same input: neither
//! lets a request from another origin through unless the policy grants that origin.
#![no_main]

use std::sync::OnceLock;

use cors_audit::browser::{CredentialsMode, ScriptRequest};
use cors_axum_core::header::SEC_FETCH_SITE;
use cors_axum_core::{
    AllowHeaders, AllowMethods, AllowOrigin, CorsOptions, CorsPolicy, CorsRequest, OriginAnswer,
    Refusal, RequestKind, ResponseCredentials,
};
use http::header::{
    ACCESS_CONTROL_ALLOW_CREDENTIALS, ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_REQUEST_HEADERS,
    ACCESS_CONTROL_REQUEST_METHOD, HOST, ORIGIN, VARY,
};
use http::{HeaderMap, HeaderName, HeaderValue, Method};
use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 11] = [
    "origin",
    "access-control-request-method",
    "access-control-request-headers",
    "access-control-request-private-network",
    "vary",
    "content-type",
    "authorization",
    "sec-fetch-site",
    "upgrade",
    "connection",
    "host",
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
                    "http://127.0.0.1:*",
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
            // Decided by the request, varying on the header it reads.
            CorsOptions::new()
                .origin(
                    AllowOrigin::request_predicate(|o, request| {
                        request.headers().contains_key("content-type")
                            && o.as_bytes().len() % 2 == 0
                    })
                    .varying_on(["content-type"]),
                )
                .credentials(true),
            // Decided asynchronously: the input chooses the lookup's answer.
            CorsOptions::new()
                .origin(AllowOrigin::async_predicate(|_| async { Ok(true) }))
                .credentials(true),
        ];
        // Every other policy protects against cross-origin requests.
        options
            .iter()
            .enumerate()
            .map(|(i, o)| o.clone().protect_cross_origin(i % 2 == 1))
            .map(|o| {
                CorsPolicy::for_route(&o, &[Method::GET, Method::POST]).expect("valid options")
            })
            .collect()
    })
}

/// The request a script would have made to cause this preflight, if a browser could have sent
/// it exactly so: one serialized origin, one method as `fetch()` sends it, one
/// `Access-Control-Request-Headers` line of names.
fn script_for_preflight(
    request: &HeaderMap,
    credentials: CredentialsMode,
) -> Option<ScriptRequest> {
    let mut origins = request.get_all(ORIGIN).iter();
    let (Some(origin), None) = (origins.next(), origins.next()) else {
        return None;
    };
    let mut methods = request.get_all(ACCESS_CONTROL_REQUEST_METHOD).iter();
    let (Some(method), None) = (methods.next(), methods.next()) else {
        return None;
    };
    let mut script = ScriptRequest::new(origin.to_str().ok()?, method.to_str().ok()?).ok()?;
    if script.method().as_str().as_bytes() != method.as_bytes() {
        // `fetch()` would have sent it uppercase.
        return None;
    }
    let mut lines = request.get_all(ACCESS_CONTROL_REQUEST_HEADERS).iter();
    match (lines.next(), lines.next()) {
        (_, Some(_)) => return None,
        (Some(line), None) => {
            for name in line.to_str().ok()?.split(',') {
                let name = name.trim_matches([' ', '\t']);
                if !name.is_empty() {
                    script = script.header(name, "1").ok()?;
                }
            }
        }
        (None, None) => {}
    }
    let mut private_network = request
        .get_all("access-control-request-private-network")
        .iter();
    let private_network = match (private_network.next(), private_network.next()) {
        (_, Some(_)) => return None,
        (value, None) => value.is_some_and(|v| v == "true"),
    };
    Some(
        script
            .private_network(private_network)
            .credentials(credentials),
    )
}

/// Whether the request's `Sec-Fetch-Site` says it comes from another origin: present, not one
/// `same-origin` or `none` line, not one empty line.
fn site_says_cross_origin(request: &HeaderMap) -> bool {
    let mut sites = request.get_all(SEC_FETCH_SITE).iter();
    match (sites.next(), sites.next()) {
        (None, _) => false,
        (Some(site), None) => !(site.is_empty() || site == "same-origin" || site == "none"),
        (Some(_), Some(_)) => true,
    }
}

/// Cross-origin protection and the WebSocket decision: a request from another origin passes
/// only from an origin the policy grants (not by `*` for protection), a refusal is one line.
fn check_protection(policy: &CorsPolicy, request: &HeaderMap, cors_request: &CorsRequest<'_>) {
    let method = cors_request.method();
    let host = request.get(HOST).map(HeaderValue::as_bytes);
    let granted = policy.actual(cors_request).is_allowed();
    // `CONNECT` is an HTTP/2 WebSocket handshake to protection, decided by the handshake's check.
    let safe = matches!(
        *method,
        Method::GET | Method::HEAD | Method::OPTIONS | Method::CONNECT
    );
    match policy.cross_origin(cors_request, host) {
        Ok(()) => {
            if policy.protects_cross_origin() && !safe && site_says_cross_origin(request) {
                assert!(granted && !policy.allows_any_origin());
            }
        }
        Err(refusal) => {
            assert!(policy.protects_cross_origin() && !safe);
            assert!(!granted || policy.allows_any_origin(), "{refusal}");
            assert!(!refusal.to_string().contains('\n'));
            // Trusting no origin refuses at least as much.
            assert!(CorsPolicy::cross_origin_trusting_none(cors_request, host).is_err());
        }
    }
    let upgrade = cors_request.is_websocket_upgrade();
    match policy.websocket(cors_request, host) {
        Ok(()) => {
            if upgrade && host.is_none() && cors_request.origin().is_some() {
                assert!(granted);
            }
        }
        Err(refusal) => {
            assert!(upgrade && !granted, "{refusal}");
            assert!(!refusal.to_string().contains('\n'));
        }
    }
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

    let mut cors_request = CorsRequest::new(&method, &request);
    if policy.origin_lookup(&cors_request).is_some() {
        let answer = match (selector >> 4) & 3 {
            0 => OriginAnswer::Allowed,
            1 => OriginAnswer::Refused,
            _ => OriginAnswer::Failed("the lookup failed"),
        };
        cors_request = cors_request.with_origin_answer(answer);
    }
    check_protection(policy, &request, &cors_request);
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
            let status = decision.status();
            decision.write(&mut response);
            assert_eq!(allowed, response.contains_key(ACCESS_CONTROL_ALLOW_ORIGIN));

            // The browser agrees, for the request it would have made.
            let modes = if policy.allows_credentials() {
                &[CredentialsMode::Omit, CredentialsMode::Include][..]
            } else {
                &[CredentialsMode::Omit][..]
            };
            for &mode in modes {
                if let Some(script) = script_for_preflight(&request, mode) {
                    let accepted = script.check_preflight(status, &response);
                    assert_eq!(accepted.is_ok(), allowed, "{script:?}: {accepted:?}");
                }
            }
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

            // A browser with this origin reads the answer exactly when it is granted, and
            // with credentials exactly when it is granted without a refusal.
            if let Some(script) = decision
                .origin()
                .and_then(|o| o.to_str().ok())
                .and_then(|o| ScriptRequest::new(o, "GET").ok())
            {
                let omit = script.clone().check_response(&response);
                assert_eq!(omit.is_ok(), decision.is_allowed(), "{omit:?}");
                let credentialed =
                    policy.allows_credentials() || credentials == ResponseCredentials::Include;
                let include = script
                    .credentials(CredentialsMode::Include)
                    .check_response(&response);
                assert_eq!(
                    include.is_ok(),
                    refusal.is_none() && credentialed,
                    "{include:?}"
                );
            }
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
