//! Instructions per request of the engine alone, with requests as a browser sends them (`Host`,
//! `User-Agent`, `Accept*`, `Sec-Fetch-*`, `Referer`, `Cookie` beside the CORS headers), for
//! counting under callgrind, which is steadier than wall-clock time on a shared machine:
//!
//! ```sh
//! cargo bench -p cors-axum-core --bench cost --no-run
//! valgrind --tool=callgrind --toggle-collect='cost::actual' --toggle-collect='cost::preflight' \
//!     target/release/deps/cost-<hash> <case> 2000
//! ```
//!
//! Cases: `preflight`, `preflight-refused`, `actual`, `refused`, `non-cors` (a list of three
//! origins), `actual20`, `refused20` (twenty), `set`, `set-refused`, `set-list` (one origin and
//! an `OriginSet` of a thousand), `tenant`, `tenant-refused` (one origin and a `TenantOrigins`
//! of a thousand, ten for each of a hundred hosts, the request's among them), `spelled` (a
//! listed origin spelled otherwise).

use cors_axum_core::{
    CorsOptions, CorsPolicy, CorsRequest, OriginSet, ResponseCredentials, TenantOrigins,
};
use http::{HeaderMap, HeaderValue, Method};
use std::hint::black_box;

fn browser_headers(
    origin: Option<&'static str>,
    extra: &[(&'static str, &'static str)],
) -> HeaderMap {
    let mut h = HeaderMap::new();
    for (n, v) in [
        ("host", "api.example"),
        (
            "user-agent",
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
        ),
        ("accept", "*/*"),
        ("accept-language", "en-US,en;q=0.9"),
        ("accept-encoding", "gzip, deflate, br"),
        ("sec-fetch-mode", "cors"),
        ("sec-fetch-site", "cross-site"),
        ("sec-fetch-dest", "empty"),
        ("referer", "https://example.com/page"),
        ("cookie", "session=abc123"),
    ] {
        h.insert(n, HeaderValue::from_static(v));
    }
    if let Some(o) = origin {
        h.insert("origin", HeaderValue::from_static(o));
    }
    for (n, v) in extra {
        h.insert(*n, HeaderValue::from_static(v));
    }
    h
}

#[inline(never)]
fn actual(policy: &CorsPolicy, method: &Method, headers: &HeaderMap) -> HeaderMap {
    let request = CorsRequest::new(method, headers);
    black_box(request.kind());
    let decision = policy.actual(&request);
    let mut response = HeaderMap::new();
    response.insert("content-type", HeaderValue::from_static("text/plain"));
    black_box(
        decision
            .write(&mut response, ResponseCredentials::Policy)
            .is_none(),
    );
    response
}

#[inline(never)]
fn preflight(policy: &CorsPolicy, method: &Method, headers: &HeaderMap) -> HeaderMap {
    let request = CorsRequest::new(method, headers);
    black_box(request.kind());
    let decision = policy.preflight(&request);
    black_box(decision.status());
    let mut response = HeaderMap::new();
    decision.write(&mut response);
    response
}

/// Runs `<case>` `[n]` times (10,000 unless given).
fn main() {
    let case = std::env::args().nth(1).expect("case");
    let n: usize = std::env::args()
        .nth(2)
        .map_or(10_000, |s| s.parse().unwrap());
    let three = [
        "https://a.example",
        "https://example.com",
        "https://b.example",
    ];
    let twenty: Vec<String> = (0..20)
        .map(|i| format!("https://site{i}.example"))
        .collect();
    let base = CorsOptions::new()
        .methods([Method::GET, Method::POST, Method::PUT])
        .allow_headers(["content-type", "x-requested-with"])
        .expose_headers(["x-request-id"])
        .max_age(600u64);
    let set = OriginSet::new("tenants");
    set.replace_all((0..1000).map(|i| format!("https://tenant{i}.example")));
    let p3 = CorsPolicy::from_options(&base.clone().origin(three)).unwrap();
    let p20 = CorsPolicy::from_options(&base.clone().origin(twenty)).unwrap();
    let pset = CorsPolicy::from_options(
        &base
            .clone()
            .origin(["https://example.com"])
            .origin_set(&set),
    )
    .unwrap();
    let tenants = TenantOrigins::new("tenant_hosts");
    tenants.replace_all((0..1000).map(|i| {
        let host = match i % 100 {
            17 => "api.example".to_owned(),
            h => format!("api{h}.example"),
        };
        (host, format!("https://tenant{i}.example"))
    }));
    let ptenants = CorsPolicy::from_options(
        &base
            .origin(["https://example.com"])
            .tenant_origins(&tenants),
    )
    .unwrap();
    let pre = [
        ("access-control-request-method", "POST"),
        (
            "access-control-request-headers",
            "content-type, x-requested-with",
        ),
    ];
    let (policy, method, headers, is_pre) = match case.as_str() {
        "preflight" => (
            &p3,
            Method::OPTIONS,
            browser_headers(Some("https://example.com"), &pre),
            true,
        ),
        "preflight-refused" => (
            &p3,
            Method::OPTIONS,
            browser_headers(Some("https://evil.example"), &pre),
            true,
        ),
        "actual" => (
            &p3,
            Method::GET,
            browser_headers(Some("https://example.com"), &[]),
            false,
        ),
        "refused" => (
            &p3,
            Method::GET,
            browser_headers(Some("https://evil.example"), &[]),
            false,
        ),
        "non-cors" => (&p3, Method::GET, browser_headers(None, &[]), false),
        "actual20" => (
            &p20,
            Method::GET,
            browser_headers(Some("https://site17.example"), &[]),
            false,
        ),
        "refused20" => (
            &p20,
            Method::GET,
            browser_headers(Some("https://evil.example"), &[]),
            false,
        ),
        "set" => (
            &pset,
            Method::GET,
            browser_headers(Some("https://tenant517.example"), &[]),
            false,
        ),
        "set-refused" => (
            &pset,
            Method::GET,
            browser_headers(Some("https://evil.example"), &[]),
            false,
        ),
        "set-list" => (
            &pset,
            Method::GET,
            browser_headers(Some("https://example.com"), &[]),
            false,
        ),
        "tenant" => (
            &ptenants,
            Method::GET,
            browser_headers(Some("https://tenant517.example"), &[]),
            false,
        ),
        "tenant-refused" => (
            &ptenants,
            Method::GET,
            browser_headers(Some("https://evil.example"), &[]),
            false,
        ),
        "spelled" => (
            &p3,
            Method::GET,
            browser_headers(Some("HTTPS://Example.com:443"), &[]),
            false,
        ),
        _ => panic!("case"),
    };
    for _ in 0..n {
        let r = if is_pre {
            preflight(policy, &method, black_box(&headers))
        } else {
            actual(policy, &method, black_box(&headers))
        };
        assert!(!r.is_empty());
        drop(black_box(r));
    }
}
