//! Reloading 10,000 times with new values keeps memory flat: policies compiled for reloading
//! free their header values with them, where static policies keep theirs for the life of the
//! process. In a process of its own, so that no other test allocates while it measures.

use cors_axum::cors::CorsReload;
use cors_axum::prelude::*;

struct Items;

#[controller("items")]
impl Items {
    #[route("GET")]
    async fn list() -> &'static str {
        "items"
    }

    #[route("PUT", "{id}")]
    async fn put() -> &'static str {
        "put"
    }
}

rest_root_module! {
    struct App { imports: [CorsModule], controllers: [Items] }
}

/// Options whose header values are new at each `i`: about 1 KB of names and numbers.
fn options(i: usize) -> CorsOptions {
    let exposed: Vec<String> = (0..24).map(|k| format!("x-exposed-{i}-{k}")).collect();
    let allowed: Vec<String> = (0..24).map(|k| format!("x-allowed-{i}-{k}")).collect();
    CorsOptions::new()
        .origin("https://app.example")
        .expose_headers(exposed)
        .allow_headers(allowed)
        .max_age(u64::try_from(i % 86_000).unwrap())
}

/// The resident memory of this process, in KiB (Linux).
#[cfg(target_os = "linux")]
fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
}

// Resident memory is read from `/proc`.
#[cfg(target_os = "linux")]
#[test]
fn ten_thousand_reloads_with_new_values_keep_memory_flat() {
    if !crate::alone::in_own_process(
        module_path!(),
        "ten_thousand_reloads_with_new_values_keep_memory_flat",
    ) {
        return;
    }
    let reload = CorsReload::new();
    let router = App::builder()
        .provide(options(0))
        .cors_reload(&reload)
        .router()
        .unwrap();
    // Warm up: the allocator's pools and the process's first pages.
    for i in 1..=500 {
        reload.reload(options(i)).unwrap();
    }
    let before = resident_kib().expect("VmRSS in /proc/self/status");
    for i in 501..=10_500 {
        reload.reload(options(i)).unwrap();
    }
    let after = resident_kib().unwrap();
    let growth = after.saturating_sub(before);
    eprintln!(
        "10,000 reloads: resident memory {before} KiB before, {after} KiB after (+{growth} KiB)"
    );
    // Stored for the life of the process, the values of 10,000 reloads would take about
    // 10,000 × 3 paths' worth of ~1 KB lists, tens of MiB.
    assert!(growth < 2_048, "{before} KiB -> {after} KiB");
    drop(router);
}
