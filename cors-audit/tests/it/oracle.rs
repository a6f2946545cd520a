//! The engine against the browser: for random policies, routes and requests, the engine answers
//! (classify, decide, write) and the browser oracle (`cors_audit::browser`) reads the
//! answers. The script may read the response exactly when the policy allows the request, as a
//! simple model below defines it, independently of both. With cross-origin protection on, the
//! handler runs exactly when the model says an unsafe request from the page may be sent.

use std::cell::RefCell;

use cors_audit::browser::{CredentialsMode, ScriptRequest};
use cors_axum_core::{
    AllowHeaders, AllowMethods, AllowOrigin, CorsOptions, CorsPolicy, CorsRequest, ExposeHeaders,
    RequestKind, ResponseCredentials,
};
use http::{HeaderMap, HeaderValue, Method, StatusCode};
use proptest::prelude::*;
use proptest::sample::{select, subsequence};

// ---- The model --------------------------------------------------------------------------------

const EXACT: [&str; 2] = ["https://app.example", "http://localhost:3000"];
const PATTERN: &str = "https://*.example.com";
const PORT_PATTERN: &str = "http://localhost:*";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origins {
    Exact,
    Pattern,
    ExactAndPattern,
    /// [`PORT_PATTERN`]: any port of `http://localhost`.
    AnyPort,
    Any,
    Mirror,
}

#[derive(Clone, Debug)]
enum Methods {
    Route,
    List(Vec<&'static str>),
    Any,
}

#[derive(Clone, Debug)]
enum Headers {
    Mirror,
    List(Vec<&'static str>),
    Any,
}

#[derive(Clone, Debug)]
enum Expose {
    Nothing,
    List(Vec<&'static str>),
    Any,
}

#[derive(Clone, Debug)]
struct Policy {
    origins: Origins,
    allow_null: bool,
    methods: Methods,
    headers: Headers,
    expose: Expose,
    credentials: bool,
    max_age: Option<u64>,
    private_network: bool,
    /// Cross-origin request protection.
    protect: bool,
    route: Vec<&'static str>,
}

/// A header a script may set: name, value, and whether the Fetch standard safelists it (so it
/// needs no preflight), written down here rather than computed.
type ScriptHeader = (&'static str, &'static str, bool);

#[derive(Clone, Debug)]
struct Request {
    origin: &'static str,
    method: &'static str,
    headers: Vec<ScriptHeader>,
    credentials: CredentialsMode,
    private_network: bool,
    /// Whether the handler makes its response credentialed (sets a cookie).
    cookie: bool,
    /// Whether the browser predates `Sec-Fetch-Site` (then `Origin` tells the page's origin).
    old_browser: bool,
}

impl Policy {
    fn origin_allowed(&self, origin: &str) -> bool {
        let exact = EXACT.contains(&origin);
        let subdomain = origin
            .strip_prefix("https://")
            .and_then(|host| host.strip_suffix(".example.com"))
            .is_some_and(|label| !label.is_empty() && !label.contains(':'));
        let any_port = origin
            .strip_prefix("http://localhost:")
            .is_some_and(|port| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()));
        match self.origins {
            // `*` answers every origin, `null` included.
            Origins::Any => true,
            _ if origin == "null" => self.allow_null,
            Origins::Exact => exact,
            Origins::Pattern => subdomain,
            Origins::ExactAndPattern => exact || subdomain,
            Origins::AnyPort => any_port,
            Origins::Mirror => true,
        }
    }

    /// Whether the handler runs for the actual request, every page being of another origin
    /// than the server: with protection on, only a safe method, or a page whose origin the
    /// policy allows (`*` trusts none).
    fn handler_runs(&self, request: &Request) -> bool {
        !self.protect
            || matches!(request.method_sent(), "GET" | "HEAD" | "OPTIONS")
            || (self.origins != Origins::Any && self.origin_allowed(request.origin))
    }

    fn method_allowed(&self, method: &str) -> bool {
        match &self.methods {
            Methods::Route => self.route.contains(&method),
            Methods::List(list) => list.contains(&method),
            Methods::Any => true,
        }
    }

    fn header_allowed(&self, name: &str) -> bool {
        match &self.headers {
            Headers::Mirror | Headers::Any => true,
            Headers::List(list) => list.contains(&name),
        }
    }

    /// What the server's preflight answer grants, whatever the credentials.
    fn grants_preflight(&self, request: &Request) -> bool {
        self.origin_allowed(request.origin)
            && self.method_allowed(request.method_sent())
            && request
                .unsafe_headers()
                .all(|(name, _, _)| self.header_allowed(name))
            && (!request.private_network || self.private_network)
    }

    /// Whether the script may read the response.
    fn allows(&self, request: &Request) -> bool {
        let preflight = request.needs_preflight();
        if preflight && !self.grants_preflight(request) {
            return false;
        }
        if !self.origin_allowed(request.origin) {
            return false;
        }
        if request.credentials != CredentialsMode::Include {
            return true;
        }
        // With credentials: never `*`, and `Access-Control-Allow-Credentials: true` on the
        // preflight (the policy's) and on the response (the policy's, or forced by a cookie).
        self.origins != Origins::Any && (self.credentials || (!preflight && request.cookie))
    }
}

impl Request {
    /// The method `fetch()` sends: a few standard methods are uppercased, others kept as
    /// written.
    fn method_sent(&self) -> &'static str {
        match self.method {
            "get" => "GET",
            "put" => "PUT",
            other => other,
        }
    }

    fn unsafe_headers(&self) -> impl Iterator<Item = &ScriptHeader> {
        self.headers.iter().filter(|(_, _, safe)| !safe)
    }

    fn needs_preflight(&self) -> bool {
        !matches!(self.method_sent(), "GET" | "HEAD" | "POST")
            || self.unsafe_headers().next().is_some()
            || self.private_network
    }

    fn script(&self) -> ScriptRequest {
        let mut script = ScriptRequest::new(self.origin, self.method)
            .expect("a request a script can make")
            .credentials(self.credentials)
            .private_network(self.private_network);
        for (name, value, _) in &self.headers {
            script = script.header(name, value).expect("a valid header");
        }
        script
    }
}

impl Policy {
    fn options(&self) -> CorsOptions {
        let origin = match self.origins {
            Origins::Exact => AllowOrigin::list(EXACT),
            Origins::Pattern => AllowOrigin::exact(PATTERN),
            Origins::ExactAndPattern => AllowOrigin::list([EXACT[0], EXACT[1], PATTERN]),
            Origins::AnyPort => AllowOrigin::exact(PORT_PATTERN),
            Origins::Any => AllowOrigin::any(),
            Origins::Mirror => AllowOrigin::mirror_request(),
        };
        let methods = match &self.methods {
            Methods::Route => AllowMethods::route(),
            Methods::List(list) => AllowMethods::list(list),
            Methods::Any => AllowMethods::any(),
        };
        let headers = match &self.headers {
            Headers::Mirror => AllowHeaders::mirror_request(),
            Headers::List(list) => AllowHeaders::list(list),
            Headers::Any => AllowHeaders::any(),
        };
        let expose = match &self.expose {
            Expose::Nothing => ExposeHeaders::none(),
            Expose::List(list) => ExposeHeaders::list(list),
            Expose::Any => ExposeHeaders::any(),
        };
        let mut options = CorsOptions::new()
            .origin(origin)
            .allow_null_origin(self.allow_null)
            .methods(methods)
            .allow_headers(headers)
            .expose_headers(expose)
            .credentials(self.credentials)
            .private_network(self.private_network)
            .protect_cross_origin(self.protect);
        if let Some(max_age) = self.max_age {
            options = options.max_age(max_age);
        }
        options
    }

    fn compile(&self) -> CorsPolicy {
        let route: Vec<Method> = self
            .route
            .iter()
            .map(|m| Method::from_bytes(m.as_bytes()).unwrap())
            .collect();
        CorsPolicy::for_route(&self.options(), &route).expect("the strategy builds valid policies")
    }
}

// ---- Strategies -------------------------------------------------------------------------------

const METHODS: [&str; 7] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "PURGE"];
const ALLOWABLE_HEADERS: [&str; 4] = [
    "content-type",
    "x-requested-with",
    "authorization",
    "x-custom",
];

fn policy() -> impl Strategy<Value = Policy> {
    let origins = select(vec![
        Origins::Exact,
        Origins::Pattern,
        Origins::ExactAndPattern,
        Origins::AnyPort,
        Origins::Any,
        Origins::Mirror,
    ]);
    let methods = prop_oneof![
        Just(Methods::Route),
        subsequence(METHODS.to_vec(), 0..=METHODS.len()).prop_map(Methods::List),
        Just(Methods::Any),
    ];
    let headers = prop_oneof![
        Just(Headers::Mirror),
        subsequence(ALLOWABLE_HEADERS.to_vec(), 0..=ALLOWABLE_HEADERS.len())
            .prop_map(Headers::List),
        Just(Headers::Any),
    ];
    let expose = prop_oneof![
        Just(Expose::Nothing),
        subsequence(vec!["x-request-id", "x-total", "set-cookie"], 1..=3).prop_map(Expose::List),
        Just(Expose::Any),
    ];
    let mut route_methods = METHODS[..6].to_vec();
    route_methods.push("OPTIONS");
    let route = subsequence(route_methods, 0..=7);
    (
        (origins, any::<bool>(), methods, headers, expose),
        (
            any::<bool>(),
            prop::option::of(select(vec![0u64, 600, 86400])),
            any::<bool>(),
            any::<bool>(),
            route,
        ),
    )
        .prop_map(
            |(
                (origins, allow_null, methods, headers, expose),
                (credentials, max_age, private_network, protect, route),
            )| {
                // Credentials only where the options allow them: not with `*` anywhere.
                let credentials = credentials
                    && origins != Origins::Any
                    && !matches!(methods, Methods::Any)
                    && !matches!(headers, Headers::Any)
                    && !matches!(expose, Expose::Any);
                Policy {
                    origins,
                    allow_null,
                    methods,
                    headers,
                    expose,
                    credentials,
                    max_age,
                    private_network,
                    protect,
                    route,
                }
            },
        )
}

fn request() -> impl Strategy<Value = Request> {
    let origin = select(vec![
        "https://app.example",
        "http://localhost:3000",
        "https://a.example.com",
        "https://a.b.example.com",
        // Close to allowed ones.
        "https://example.com",
        "https://example.com.evil.net",
        "https://evilexample.com",
        "http://app.example",
        "https://app.example:8443",
        "http://localhost:3001",
        "http://localhost",
        "https://localhost:3000",
        "http://localhost.example.com:3000",
        "https://a.example.com:8443",
        "https://evil.example",
        "null",
    ]);
    let method = select(vec![
        "GET", "get", "HEAD", "POST", "PUT", "put", "PATCH", "patch", "DELETE", "OPTIONS", "PURGE",
    ]);
    let content_type = select(vec![
        None,
        Some(("content-type", "text/plain;charset=UTF-8", true)),
        Some(("content-type", "application/json", false)),
    ]);
    let others = subsequence(
        vec![
            ("accept", "application/json", true),
            ("range", "bytes=0-99", true),
            ("x-requested-with", "XMLHttpRequest", false),
            ("authorization", "Bearer token", false),
            ("x-custom", "1", false),
            ("x-unlisted", "1", false),
        ],
        0..=3,
    );
    let credentials = select(vec![
        CredentialsMode::Omit,
        CredentialsMode::SameOrigin,
        CredentialsMode::Include,
    ]);
    (
        origin,
        method,
        content_type,
        others,
        credentials,
        prop::bool::weighted(0.15),
        any::<bool>(),
        prop::bool::weighted(0.2),
    )
        .prop_map(
            |(origin, method, content_type, others, credentials, private_network, cookie, old)| {
                Request {
                    origin,
                    method,
                    headers: content_type.into_iter().chain(others).collect(),
                    credentials,
                    private_network,
                    cookie,
                    old_browser: old,
                }
            },
        )
}

// ---- The engine as a server -------------------------------------------------------------------

/// What the server saw and decided, for the properties beyond readability.
#[derive(Default)]
struct Log {
    preflight: Option<(bool, Option<String>, HeaderMap)>,
    actual: Option<HeaderMap>,
    /// Whether the handler ran for the actual request.
    handled: bool,
}

/// The server's own host: no page of the model is of its origin.
const API_HOST: &[u8] = b"api.test:8443";

/// The engine in front of a handler that answers 200 with a body type and two headers, and sets
/// a cookie (forcing credentials) when asked to. Cross-origin protection, when on, answers a
/// refused request `403` with its CORS headers, without the handler. The browser adds
/// `Sec-Fetch-Site: cross-site` (every page is of another site) unless it is an old one.
fn serve(
    policy: &CorsPolicy,
    request_of: &Request,
    method: &Method,
    request: &HeaderMap,
    log: &RefCell<Log>,
) -> (StatusCode, HeaderMap) {
    let mut request = request.clone();
    if !request_of.old_browser {
        request.insert("sec-fetch-site", HeaderValue::from_static("cross-site"));
    }
    let cookie = request_of.cookie;
    let cors = CorsRequest::new(method, &request);
    if cors.kind() == RequestKind::Preflight {
        let decision = policy.preflight(&cors);
        let (allowed, refusal) = (
            decision.is_allowed(),
            decision.refusal().map(|r| r.to_string()),
        );
        let status = decision.status();
        let mut headers = HeaderMap::new();
        decision.write(&mut headers);
        log.borrow_mut().preflight = Some((allowed, refusal, headers.clone()));
        return (status, headers);
    }
    let decision = policy.actual(&cors);
    let mut headers = HeaderMap::new();
    if policy.cross_origin(&cors, Some(API_HOST)).is_err() {
        decision.write(&mut headers, ResponseCredentials::Policy);
        log.borrow_mut().actual = Some(headers.clone());
        return (StatusCode::FORBIDDEN, headers);
    }
    log.borrow_mut().handled = true;
    headers.insert("content-type", HeaderValue::from_static("text/plain"));
    headers.insert("x-request-id", HeaderValue::from_static("1"));
    headers.insert("x-total", HeaderValue::from_static("2"));
    let credentials = if cookie {
        headers.insert("set-cookie", HeaderValue::from_static("session=1"));
        ResponseCredentials::Include
    } else {
        ResponseCredentials::Policy
    };
    decision.write(&mut headers, credentials);
    log.borrow_mut().actual = Some(headers.clone());
    (StatusCode::OK, headers)
}

fn vary(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all("vary")
        .iter()
        .flat_map(|v| {
            v.to_str()
                .unwrap()
                .split(',')
                .map(|n| n.trim().to_ascii_lowercase())
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn the_browser_reads_exactly_what_the_policy_allows(policy in policy(), request in request()) {
        let engine = policy.compile();
        let script = request.script();
        prop_assert_eq!(script.needs_preflight(), request.needs_preflight());
        let log = RefCell::new(Log::default());
        let outcome = script.fetch(|method, headers| serve(&engine, &request, method, headers, &log));
        let allowed = policy.allows(&request);
        prop_assert_eq!(outcome.is_ok(), allowed, "{:?}", outcome);

        let log = log.into_inner();
        if let Some((granted, refusal, headers)) = &log.preflight {
            // The engine grants a preflight exactly when the policy allows what it asks for,
            // and says why not otherwise.
            prop_assert_eq!(*granted, policy.grants_preflight(&request), "{:?}", refusal);
            prop_assert_eq!(refusal.is_none(), *granted);
            // Every preflight answer varies on the preflight's request headers, and on the
            // origin unless any origin is allowed.
            let vary = vary(headers);
            for name in [
                "access-control-request-method",
                "access-control-request-headers",
                "access-control-request-private-network",
            ] {
                prop_assert!(vary.iter().any(|v| v == name), "{:?}", vary);
            }
            prop_assert_eq!(vary.iter().any(|v| v == "origin"), policy.origins != Origins::Any);
            if *granted && outcome.is_ok() {
                let accepted = script.check_preflight(StatusCode::NO_CONTENT, headers).unwrap();
                prop_assert_eq!(accepted.max_age().as_secs(), policy.max_age.unwrap_or(5));
            }
        }
        prop_assert_eq!(log.preflight.is_some(), request.needs_preflight());
        // The handler runs for an actual request the browser sent exactly when the model lets
        // it: cross-origin protection stops the others, whatever CORS lets the page read.
        let sent = log.actual.is_some();
        prop_assert_eq!(log.handled, sent && policy.handler_runs(&request));

        // The script sees the safelisted headers and those the policy exposes.
        if let (Ok(readable), Some(response)) = (&outcome, &log.actual) {
            let credentials = request.credentials == CredentialsMode::Include;
            let expected: Vec<&str> = {
                let mut names: Vec<&str> = response
                    .keys()
                    .map(|n| n.as_str())
                    .filter(|name| match &policy.expose {
                        _ if *name == "set-cookie" => false,
                        _ if *name == "content-type" => true,
                        Expose::Any if !credentials => true,
                        Expose::List(list) => list.contains(name),
                        Expose::Any | Expose::Nothing => false,
                    })
                    .collect();
                names.sort_unstable();
                names
            };
            let exposed: Vec<&str> = readable.exposed_headers().iter().map(|n| n.as_str()).collect();
            prop_assert_eq!(exposed, expected);
        }
        // Whatever the outcome, an answer that depends on the origin says so.
        if let Some(response) = &log.actual {
            prop_assert_eq!(vary(response).contains(&"origin".to_owned()), policy.origins != Origins::Any);
        }
    }
}

/// The exception of secure credentials: any origin, a cookie, and a request with credentials.
/// The policy does not allow it, and the browser refuses it, though the handler answered.
#[test]
fn a_cookie_under_any_origin_is_not_readable_with_credentials() {
    let policy = Policy {
        origins: Origins::Any,
        allow_null: false,
        methods: Methods::Route,
        headers: Headers::Mirror,
        expose: Expose::Nothing,
        credentials: false,
        max_age: None,
        private_network: false,
        protect: false,
        route: vec!["GET"],
    };
    let mut request = Request {
        origin: "https://anywhere.example",
        method: "GET",
        headers: Vec::new(),
        credentials: CredentialsMode::Include,
        private_network: false,
        cookie: true,
        old_browser: false,
    };
    let engine = policy.compile();
    let log = RefCell::new(Log::default());
    let outcome = request
        .script()
        .fetch(|method, headers| serve(&engine, &request, method, headers, &log));
    assert!(!policy.allows(&request));
    assert_eq!(
        outcome.unwrap_err().to_string(),
        "response: `Access-Control-Allow-Origin: *` on a request with credentials"
    );
    let response = log.into_inner().actual.expect("the handler ran");
    assert_eq!(response["access-control-allow-credentials"], "true");

    // Without credentials the same answer is readable: `*` is meant for that.
    request.credentials = CredentialsMode::Omit;
    assert!(policy.allows(&request));
    let log = RefCell::new(Log::default());
    assert!(
        request
            .script()
            .fetch(|method, headers| serve(&engine, &request, method, headers, &log))
            .is_ok()
    );
}
