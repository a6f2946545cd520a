//! Credentials by source: the first-party list with credentials and the tenants' set without,
//! or the reverse, on preflights and actual requests, with the checks made when compiling.

use cors_axum_core::{
    AllowOrigin, CorsOptions, CorsPolicy, CorsRequest, Credentials, OriginSet, ResponseCredentials,
};
use http::{HeaderMap, HeaderValue, Method};

const APP: &str = "https://app.example";
const TENANT: &str = "https://acme.example";

fn tenants() -> OriginSet {
    let set = OriginSet::new("tenants");
    set.insert(TENANT).unwrap();
    set
}

fn policy(set: &OriginSet, credentials: Credentials) -> CorsPolicy {
    CorsPolicy::from_options(
        &CorsOptions::new()
            .origin(APP)
            .origin_set(set)
            .credentials(credentials),
    )
    .unwrap()
}

/// The answer to a `GET` from `origin`, the handler making it credentialed or not.
fn actual(policy: &CorsPolicy, origin: &str, handler: ResponseCredentials) -> HeaderMap {
    let mut request = HeaderMap::new();
    request.insert("origin", HeaderValue::from_str(origin).unwrap());
    let mut response = HeaderMap::new();
    let decision = policy.actual(&CorsRequest::new(&Method::GET, &request));
    assert!(decision.is_allowed(), "{origin}");
    decision.write(&mut response, handler);
    response
}

/// The answer to a preflight from `origin`, into a fresh map (the prebuilt answer) and into one
/// with room (header by header): both must say the same.
fn preflight(policy: &CorsPolicy, origin: &str) -> HeaderMap {
    let mut request = HeaderMap::new();
    request.insert("origin", HeaderValue::from_str(origin).unwrap());
    request.insert(
        "access-control-request-method",
        HeaderValue::from_static("PUT"),
    );
    let request = CorsRequest::new(&Method::OPTIONS, &request);
    let decision = policy.preflight(&request);
    assert!(decision.is_allowed(), "{origin}");
    let mut fresh = HeaderMap::new();
    decision.clone().write(&mut fresh);
    let mut roomy = HeaderMap::with_capacity(16);
    decision.write(&mut roomy);
    assert_eq!(fresh, roomy, "{origin}");
    fresh
}

/// Whether the answers to `origin` grant credentials, checking what every answer says.
fn credentialed(policy: &CorsPolicy, origin: &str) -> bool {
    let answers = [
        actual(policy, origin, ResponseCredentials::Policy),
        preflight(policy, origin),
    ];
    let granted = answers
        .iter()
        .map(|answer| {
            assert_eq!(answer["access-control-allow-origin"], origin);
            assert!(answer["vary"].to_str().unwrap().starts_with("Origin"));
            match answer.get("access-control-allow-credentials") {
                Some(value) => {
                    assert_eq!(value, "true");
                    true
                }
                None => false,
            }
        })
        .collect::<Vec<_>>();
    assert_eq!(
        granted[0], granted[1],
        "{origin}: actual and preflight agree"
    );
    granted[0]
}

/// The answer to a `GET` from `origin` that the policy's lookup allowed.
fn granted_by_lookup(policy: &CorsPolicy, origin: &'static str) -> HeaderMap {
    let mut request = HeaderMap::new();
    request.insert("origin", HeaderValue::from_static(origin));
    let request = CorsRequest::new(&Method::GET, &request)
        .with_origin_answer(cors_axum_core::OriginAnswer::Allowed);
    let mut response = HeaderMap::new();
    policy
        .actual(&request)
        .write(&mut response, ResponseCredentials::Policy);
    response
}

#[test]
fn the_list_gets_credentials_and_the_set_does_not() {
    let set = tenants();
    let policy = policy(&set, Credentials::by_source().origin(true));
    assert!(policy.allows_credentials());
    assert!(credentialed(&policy, APP));
    assert!(!credentialed(&policy, TENANT));
    // Another spelling of a listed origin is the list's; a set entry is the set's however
    // spelled.
    assert!(credentialed(&policy, "HTTPS://App.example:443"));
    assert!(!credentialed(&policy, "HTTPS://ACME.example:443"));
    // A source named without credentials gets none even when the handler asks.
    let answer = actual(&policy, TENANT, ResponseCredentials::Include);
    assert!(answer.get("access-control-allow-credentials").is_none());
}

#[test]
fn the_set_gets_credentials_and_the_list_does_not() {
    let set = tenants();
    let policy = policy(&set, Credentials::by_source().origin_set(true));
    assert!(!credentialed(&policy, APP));
    assert!(credentialed(&policy, TENANT));
    set.insert("https://*.globex.example").unwrap();
    assert!(credentialed(&policy, "https://eu.globex.example"));
    let answer = actual(&policy, APP, ResponseCredentials::Include);
    assert!(answer.get("access-control-allow-credentials").is_none());
}

#[test]
fn an_origin_in_the_list_and_the_set_is_the_lists() {
    let set = tenants();
    set.insert(APP).unwrap();
    let policy = policy(&set, Credentials::by_source().origin_set(true));
    assert!(!credentialed(&policy, APP));
}

#[test]
fn a_bool_covers_every_source_and_false_yields_to_the_handler() {
    let set = tenants();
    let all = policy(&set, true.into());
    assert!(credentialed(&all, APP) && credentialed(&all, TENANT));
    let none = policy(&set, false.into());
    assert!(!credentialed(&none, APP) && !credentialed(&none, TENANT));
    for origin in [APP, TENANT] {
        let answer = actual(&none, origin, ResponseCredentials::Include);
        assert_eq!(answer["access-control-allow-credentials"], "true");
    }
}

#[test]
fn the_lookup_is_a_source_of_its_own() {
    let lookup = AllowOrigin::async_predicate(|_| async { Ok(true) });
    for options in [
        CorsOptions::new().origin(AllowOrigin::list([APP]).or_else(lookup.clone())),
        CorsOptions::new()
            .origin(APP)
            .origin_fallback(lookup.clone()),
    ] {
        let policy =
            CorsPolicy::from_options(&options.credentials(Credentials::by_source().origin(true)))
                .unwrap();
        assert!(credentialed(&policy, APP));
        let response = granted_by_lookup(&policy, TENANT);
        assert_eq!(response["access-control-allow-origin"], TENANT);
        assert!(response.get("access-control-allow-credentials").is_none());
    }
    // The fallback alone decides as the fallback; given as `origin`, as the origin.
    let fallback_only = CorsOptions::new()
        .origin_fallback(lookup.clone())
        .credentials(Credentials::by_source().origin_fallback(true));
    let as_origin = CorsOptions::new()
        .origin(lookup)
        .credentials(Credentials::by_source().origin(true));
    for options in [fallback_only, as_origin] {
        let policy = CorsPolicy::from_options(&options).unwrap();
        let response = granted_by_lookup(&policy, TENANT);
        assert_eq!(response["access-control-allow-credentials"], "true");
    }
}

#[test]
fn compiling_checks_each_source_by_its_own_credentials() {
    // Credentials for any origin (`*`): an error of `credentials`, in either form.
    for credentials in [
        Credentials::from(true),
        Credentials::by_source().origin(true),
    ] {
        let err =
            CorsPolicy::from_options(&CorsOptions::new().credentials(credentials)).unwrap_err();
        assert_eq!(err.field(), "credentials");
        assert!(err.to_string().contains("any origin (`*`)"), "{err}");
    }
    // Any origin without credentials for it, the others named: fine.
    assert!(
        CorsPolicy::from_options(
            &CorsOptions::new().credentials(Credentials::by_source().origin_fallback(true))
        )
        .is_ok()
    );
    // A plain-HTTP origin is refused only in a source that gets credentials.
    let set = tenants();
    set.insert("http://intranet.example").unwrap();
    let plain_list = CorsOptions::new()
        .origin("http://first.example")
        .origin_set(&set);
    let err = CorsPolicy::from_options(
        &plain_list
            .clone()
            .credentials(Credentials::by_source().origin(true)),
    )
    .unwrap_err();
    assert_eq!(err.field(), "origin");
    let set_only = CorsPolicy::from_options(
        &plain_list.credentials(Credentials::by_source().origin_set(true)),
    )
    .unwrap();
    let allowed = |origin: &'static str| {
        let mut request = HeaderMap::new();
        request.insert("origin", HeaderValue::from_static(origin));
        set_only
            .actual(&CorsRequest::new(&Method::GET, &request))
            .is_allowed()
    };
    assert!(
        allowed("http://first.example"),
        "the list has no credentials"
    );
    assert!(
        !allowed("http://intranet.example"),
        "the set has credentials"
    );
    // `*` for methods or headers is refused with credentials for any one source.
    let err = CorsPolicy::from_options(
        &CorsOptions::new()
            .origin(APP)
            .methods("*")
            .credentials(Credentials::by_source().origin_set(true)),
    )
    .unwrap_err();
    assert_eq!(err.field(), "methods");
}

#[cfg(feature = "serde")]
#[test]
fn options_files_choose_by_source() {
    let set = tenants();
    let provided: cors_axum_core::ProvidedValue = std::sync::Arc::new(set);
    for (file, app, tenant) in [
        (r#"{"origin": true, "origin_set": false}"#, true, false),
        (r#"{"origin_set": true}"#, false, true),
        ("true", true, true),
    ] {
        let options: CorsOptions = serde_json::from_str(&format!(
            r#"{{"origin": ["{APP}"], "origin_set": "tenants", "credentials": {file}}}"#
        ))
        .unwrap();
        let options = options.with_values(|_| Some(provided.clone())).unwrap();
        let policy = CorsPolicy::from_options(&options).unwrap();
        assert_eq!(credentialed(&policy, APP), app, "{file}");
        assert_eq!(credentialed(&policy, TENANT), tenant, "{file}");
    }
    let err =
        serde_json::from_str::<CorsOptions>(r#"{"credentials": {"tenants": true}}"#).unwrap_err();
    assert!(err.to_string().contains("credentials by source"), "{err}");
}
