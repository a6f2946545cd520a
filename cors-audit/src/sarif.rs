//! The report as [SARIF 2.1.0](https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html),
//! which code-scanning services read.

use serde_json::{Value, json};

use crate::findings::{FindingKind, Severity};
use crate::report::{Report, RouteReport};

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low => "note",
    }
}

/// GitHub's `security-severity` of a rule: the worst the finding can be.
fn security_severity(kind: FindingKind) -> &'static str {
    match kind {
        FindingKind::ArbitraryOriginReflected
        | FindingKind::LookAlikeOriginAllowed
        | FindingKind::NullAllowed
        | FindingKind::WebSocketFromHostileOrigin => "8.0",
        FindingKind::CrossSitePostReachesHandler => "6.5",
        FindingKind::MissingVaryOrigin | FindingKind::StarWithCredentials => "5.0",
        _ => "3.0",
    }
}

fn rules() -> Vec<Value> {
    FindingKind::ALL
        .iter()
        .map(|kind| {
            let help = kind.help();
            let short = help.split(". ").next().unwrap_or(help);
            json!({
                "id": kind.name(),
                "shortDescription": { "text": short },
                "fullDescription": { "text": help },
                "help": { "text": help },
                "properties": {
                    "tags": ["security", "cors"],
                    "security-severity": security_severity(*kind),
                },
            })
        })
        .collect()
}

/// Where a result is: the route's URL, or its line in `artifact`; the route as a logical
/// location either way.
fn location(route: &RouteReport, artifact: Option<&str>) -> Value {
    let physical = match artifact {
        Some(file) => match route.line {
            Some(line) => json!({
                "artifactLocation": { "uri": file },
                "region": { "startLine": line },
            }),
            None => json!({ "artifactLocation": { "uri": file } }),
        },
        None => json!({ "artifactLocation": { "uri": route.url } }),
    };
    json!({
        "physicalLocation": physical,
        "logicalLocations": [{
            "name": route.label(),
            "fullyQualifiedName": route.label(),
            "kind": "resource",
        }],
    })
}

impl Report {
    /// The report as a SARIF 2.1.0 log: one run of `cors-audit`, a rule per finding kind, a
    /// result per finding. A result is located at the route's URL, or, given `artifact` (the
    /// route table or OpenAPI file the routes came from, as a path of the repository), in that
    /// file, at the route's line when known: code-scanning services such as GitHub's accept
    /// only files of the repository. The route is its logical location, the URL a property.
    pub fn to_sarif(&self, artifact: Option<&str>) -> Value {
        let results: Vec<Value> = self
            .findings()
            .map(|(route, finding)| {
                let index = FindingKind::ALL
                    .iter()
                    .position(|k| *k == finding.kind)
                    .expect("ALL lists every kind");
                json!({
                    "ruleId": finding.kind.name(),
                    "ruleIndex": index,
                    "level": level(finding.severity),
                    "message": { "text": format!("{}: {}", route.label(), finding.message) },
                    "locations": [location(route, artifact)],
                    "partialFingerprints": {
                        "corsAuditFinding/v1": format!("{}|{}", finding.kind.name(), route.label()),
                    },
                    "properties": {
                        "severity": finding.severity.name(),
                        "url": route.url,
                        "evidence": finding.evidence,
                        "handler": route.handler,
                    },
                })
            })
            .collect();
        json!({
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [{
                "tool": {
                    "driver": {
                        "name": "cors-audit",
                        "version": env!("CARGO_PKG_VERSION"),
                        "informationUri": "https://docs.rs/cors-audit",
                        "rules": rules(),
                    },
                },
                "invocations": [{ "executionSuccessful": !self.is_incomplete() }],
                "results": results,
            }],
        })
    }
}
