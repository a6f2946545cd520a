//! [`OriginSet`]: origins changed while a policy serves, decided like a list's, and the memory
//! of a million of them.

use std::time::Instant;

use cors_axum_core::{AllowOrigin, CorsOptions, CorsPolicy, CorsRequest, OriginSet};
use http::{HeaderMap, HeaderValue, Method};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region};

use crate::alone;

fn allowed(policy: &CorsPolicy, origin: &str) -> bool {
    let mut headers = HeaderMap::new();
    headers.insert("origin", HeaderValue::from_str(origin).unwrap());
    policy
        .actual(&CorsRequest::new(&Method::GET, &headers))
        .is_allowed()
}

#[test]
fn a_set_is_decided_like_a_list_and_changes_at_once() {
    let set = OriginSet::new("tenants");
    let policy = CorsPolicy::from_options(
        &CorsOptions::new()
            .origin(["https://app.example"])
            .origin_set(&set),
    )
    .unwrap();
    assert!(allowed(&policy, "https://app.example"));
    assert!(!allowed(&policy, "https://acme.example"));
    assert!(
        set.patch(
            ["https://acme.example", "https://*.globex.example"],
            [""; 0]
        )
        .is_empty()
    );
    for origin in [
        "https://acme.example",
        "HTTPS://ACME.example:443",
        "https://eu.globex.example",
    ] {
        assert!(allowed(&policy, origin), "{origin}");
    }
    for origin in [
        "https://globex.example",
        "https://acme.example.evil",
        "http://acme.example",
        "null",
        "https://acme.example/",
    ] {
        assert!(!allowed(&policy, origin), "{origin}");
    }
    assert!(set.remove("https://ACME.example"));
    assert!(!allowed(&policy, "https://acme.example"));
    set.replace_all(["https://initech.example"]);
    assert!(allowed(&policy, "https://initech.example"));
    assert!(!allowed(&policy, "https://eu.globex.example"));
}

#[test]
fn credentials_refuse_the_sets_plain_http_entries() {
    let set = OriginSet::new("tenants");
    set.patch(
        ["http://intranet.example", "http://localhost:5173"],
        [""; 0],
    );
    let options = CorsOptions::new().origin_set(&set).credentials(true);
    let policy = CorsPolicy::from_options(&options).unwrap();
    assert!(!allowed(&policy, "http://intranet.example"));
    assert!(allowed(&policy, "http://localhost:5173"), "loopback");
    let tolerated = options.dangerously_allow_insecure_origins(true);
    assert!(allowed(
        &CorsPolicy::from_options(&tolerated).unwrap(),
        "http://intranet.example"
    ));
}

#[test]
fn a_set_goes_with_a_list_only() {
    let set = OriginSet::new("tenants");
    let with_any = CorsOptions::new().origin("*").origin_set(&set);
    assert_eq!(
        CorsPolicy::from_options(&with_any).unwrap_err().field(),
        "origin_set"
    );
    let predicate = AllowOrigin::predicate(|_| true).and_set(&set);
    let err = CorsPolicy::from_options(&CorsOptions::new().origin(predicate)).unwrap_err();
    assert_eq!(err.field(), "origin_set");
}

#[cfg(feature = "serde")]
#[test]
fn a_set_named_in_a_file_must_be_bound_to_a_set_of_that_name() {
    let named: CorsOptions = serde_json::from_str(r#"{"origin_set": "tenants"}"#).unwrap();
    let err = CorsPolicy::from_options(&named).unwrap_err();
    assert_eq!(err.field(), "origin_set");
    assert!(err.to_string().contains("tenants"), "{err}");
    let other: cors_axum_core::ProvidedValue = std::sync::Arc::new(OriginSet::new("other"));
    let err = named.with_values(|_| Some(other.clone())).unwrap_err();
    assert_eq!(err.field(), "origin_set");
}

/// The set's heap for 1,000,000 origins: under 100 MB (the issue's goal), and a lookup in it.
#[test]
fn a_million_origins_fit_in_under_100_mb() {
    if !alone::in_own_process(module_path!(), "a_million_origins_fit_in_under_100_mb") {
        return;
    }
    const N: usize = 1_000_000;
    let origin = |i: usize| format!("https://tenant-{i:07}.customers.example");
    let region = Region::new(&INSTRUMENTED_SYSTEM);
    let start = Instant::now();
    let set = OriginSet::new("tenants");
    assert!(set.replace_all((0..N).map(origin)).is_empty());
    let built = start.elapsed();
    let stats = region.change();
    // A reallocation's growth or shrinking is in `bytes_allocated` or `bytes_deallocated`.
    let bytes = stats
        .bytes_allocated
        .saturating_sub(stats.bytes_deallocated);
    let per_origin = bytes as f64 / N as f64;
    println!(
        "{N} origins of {} bytes: {:.1} MB on the heap, {per_origin:.1} bytes per origin, built in {built:?}",
        origin(0).len(),
        bytes as f64 / 1e6
    );
    assert!(bytes < 100_000_000, "{bytes} bytes");
    assert_eq!(set.len(), N);
    let policy = CorsPolicy::from_options(&CorsOptions::new().origin_set(&set)).unwrap();
    assert!(allowed(&policy, &origin(123_456)));
    assert!(!allowed(&policy, &origin(N + 1)));
    set.insert(&origin(N + 1)).unwrap();
    assert!(allowed(&policy, &origin(N + 1)));
}
