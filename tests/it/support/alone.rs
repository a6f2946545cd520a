//! A test of what is global to a process (the allocator's counts, the global log subscriber, a
//! warning logged once per process, the resident memory) run in a process of its own, so that
//! the crate's other tests can share one test binary with it.

use std::process::Command;

/// Set, to the test's name, in the process started for that test alone.
const ALONE: &str = "CORS_AXUM_TEST_ALONE";

/// Whether the calling test runs its body here. In the process started for it, `true`;
/// elsewhere, runs this binary again for `test` alone (in `module`, as `module_path!()` gives
/// it), asserts that it passed, and returns `false`.
pub(crate) fn in_own_process(module: &str, test: &str) -> bool {
    let name = match module.split_once("::") {
        Some((_, path)) => format!("{path}::{test}"),
        None => test.to_owned(),
    };
    if std::env::var_os(ALONE).is_some_and(|alone| alone == name.as_str()) {
        return true;
    }
    let exe = std::env::current_exe().expect("the test binary's own path");
    let output = Command::new(exe)
        .args([name.as_str(), "--exact", "--test-threads=1", "--nocapture"])
        .env(ALONE, &name)
        .output()
        .expect("the test binary starts again");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "`{name}`, run in a process of its own, failed:\n{stdout}\n{stderr}"
    );
    print!("{stdout}{stderr}");
    false
}
