//! Running the audit in the tests: the library off the async runtime, and the binary.

#![allow(dead_code)]

use std::process::Command;

use cors_audit::{AuditConfig, Finding, FindingKind, Report, UreqTransport, audit};

/// Runs the library's audit of `url` for the declared `origins` (off the async runtime: it
/// blocks).
pub(crate) async fn audit_of(url: String, origins: &[&str], credentials: bool) -> Report {
    let origins: Vec<String> = origins.iter().map(|o| (*o).to_owned()).collect();
    tokio::task::spawn_blocking(move || {
        let mut config = AuditConfig::new(url, "");
        config.origins = origins;
        config.credentials = credentials;
        let mut transport = UreqTransport::new(config.timeout);
        audit(&config, &mut transport, &mut |_, _, _| {}).expect("the audit runs")
    })
    .await
    .unwrap()
}

/// What the binary did.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Runs the `cors-audit` binary with `args`.
pub(crate) async fn run_binary<S: AsRef<str>>(args: &[S]) -> Run {
    let args: Vec<String> = args.iter().map(|a| a.as_ref().to_owned()).collect();
    tokio::task::spawn_blocking(move || run_binary_blocking(&args))
        .await
        .unwrap()
}

/// [`run_binary`], from a thread that may block.
pub(crate) fn run_binary_blocking(args: &[String]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_cors-audit"))
        .args(args)
        .output()
        .expect("cors-audit runs");
    Run {
        code: output.status.code().expect("an exit code"),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// The kinds of the findings, in order.
pub(crate) fn kinds(report: &Report) -> Vec<FindingKind> {
    report.findings().map(|(_, f)| f.kind).collect()
}

/// The one finding of `kind`; fails the test, with the report, when there is none or several.
pub(crate) fn the_finding(report: &Report, kind: FindingKind) -> &Finding {
    let found: Vec<&Finding> = report
        .findings()
        .map(|(_, f)| f)
        .filter(|f| f.kind == kind)
        .collect();
    assert_eq!(found.len(), 1, "one {kind:?} expected:\n{report}");
    found[0]
}
