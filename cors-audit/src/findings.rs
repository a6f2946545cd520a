//! The misconfigurations an audit looks for in the answers.

use std::fmt;

use http::Method;
use serde::Serialize;

use crate::AuditConfig;
use crate::cases::Expectation;
use crate::report::{Exchange, Outcome};

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// Other sites can read what they must not.
    High,
    /// A weakness, or something that breaks the allowed pages.
    Medium,
    /// Wider than needed.
    Low,
}

/// What was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum FindingKind {
    /// Any origin's credentialed requests are readable: every site can act as the user.
    ReflectedWithCredentials,
    /// An unrelated origin is reflected in `Access-Control-Allow-Origin`.
    ArbitraryOriginReflected,
    /// A look-alike of an allowed origin (a suffix or prefix trick, another scheme or port,
    /// special characters) is allowed: the origin check is not exact.
    LookAlikeOriginAllowed,
    /// `Origin: null`, which any site can send from a sandboxed frame, is allowed.
    NullAllowed,
    /// A response names one origin but lacks `Vary: Origin`: a cache may give it to another.
    MissingVaryOrigin,
    /// `Access-Control-Allow-Origin: *` with `Access-Control-Allow-Credentials: true`: browsers
    /// refuse it, so credentialed requests fail.
    StarWithCredentials,
    /// A preflight from an allowed origin is not answered with a 2xx status: the browser never
    /// sends the actual request.
    PreflightNotOk,
    /// The preflight allows methods the resource does not answer (per its `Allow`).
    AllowMethodsWiderThanRoute,
    /// An allowed origin cannot read a response it should.
    AllowedOriginRefused,
}

impl FindingKind {
    /// The finding's name, as in the JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Self::ReflectedWithCredentials => "reflected-with-credentials",
            Self::ArbitraryOriginReflected => "arbitrary-origin-reflected",
            Self::LookAlikeOriginAllowed => "look-alike-origin-allowed",
            Self::NullAllowed => "null-allowed",
            Self::MissingVaryOrigin => "missing-vary-origin",
            Self::StarWithCredentials => "star-with-credentials",
            Self::PreflightNotOk => "preflight-not-ok",
            Self::AllowMethodsWiderThanRoute => "allow-methods-wider-than-route",
            Self::AllowedOriginRefused => "allowed-origin-refused",
        }
    }

    /// How bad it is.
    pub fn severity(self) -> Severity {
        match self {
            Self::ReflectedWithCredentials => Severity::High,
            Self::ArbitraryOriginReflected
            | Self::LookAlikeOriginAllowed
            | Self::NullAllowed
            | Self::MissingVaryOrigin
            | Self::StarWithCredentials
            | Self::PreflightNotOk
            | Self::AllowedOriginRefused => Severity::Medium,
            Self::AllowMethodsWiderThanRoute => Severity::Low,
        }
    }
}

/// One misconfiguration, with the case that showed it.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// What was found.
    pub kind: FindingKind,
    /// How bad it is.
    pub severity: Severity,
    /// The case that showed it.
    pub case: String,
    /// What was seen.
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity {
            Severity::High => "high  ",
            Severity::Medium => "medium",
            Severity::Low => "low   ",
        };
        write!(
            f,
            "{severity} {}: {} (case `{}`)",
            self.kind.name(),
            self.message,
            self.case
        )
    }
}

/// Looks at every outcome for the misconfigurations above.
pub(crate) fn find(
    outcomes: &[Outcome],
    config: &AuditConfig,
    allowed: &str,
    allow: &[Method],
) -> Vec<Finding> {
    let mut findings: Vec<Finding> = Vec::new();
    let mut add = |kind: FindingKind, case: &str, message: String| {
        if !findings
            .iter()
            .any(|f| f.kind == kind && f.message == message)
        {
            findings.push(Finding {
                kind,
                severity: kind.severity(),
                case: case.to_owned(),
                message,
            });
        }
    };
    let varies_by_origin = outcomes.iter().any(|o| {
        o.exchanges.iter().any(|e| {
            e.header("access-control-allow-origin")
                .is_some_and(|v| v != "*")
        })
    });

    for outcome in outcomes {
        let origin = outcome.origin.as_deref().unwrap_or("");
        for exchange in &outcome.exchanges {
            let allow_origin = exchange.header("access-control-allow-origin");
            let allow_credentials = exchange.header("access-control-allow-credentials");
            if allow_origin == Some("*") && allow_credentials == Some("true") {
                add(
                    FindingKind::StarWithCredentials,
                    &outcome.name,
                    "`Access-Control-Allow-Origin: *` with `Access-Control-Allow-Credentials: true`, \
                     which browsers refuse"
                        .to_owned(),
                );
            }
            let names_an_origin = allow_origin.is_some_and(|v| v != "*");
            let is_actual = !exchange.preflight;
            let has_vary_origin = exchange
                .list("vary")
                .iter()
                .any(|v| v.eq_ignore_ascii_case("origin") || *v == "*");
            if is_actual
                && !has_vary_origin
                && (names_an_origin || (varies_by_origin && outcome.origin.is_none()))
            {
                add(
                    FindingKind::MissingVaryOrigin,
                    &outcome.name,
                    format!(
                        "the answer to {} {} `Vary: Origin`, while the answer depends on the origin",
                        exchange.method,
                        if outcome.origin.is_some() {
                            "names an origin without"
                        } else {
                            "without `Origin` lacks"
                        }
                    ),
                );
            }
        }

        match outcome.expectation {
            Expectation::Shown => {}
            Expectation::Readable => {
                if outcome.is_readable() {
                    if let Some(preflight) = outcome.preflight() {
                        wider_methods(preflight, allow, &outcome.name, &mut add);
                    }
                } else if let Some(preflight) = outcome
                    .preflight()
                    .filter(|p| !(200..300).contains(&p.status))
                {
                    add(
                        FindingKind::PreflightNotOk,
                        &outcome.name,
                        format!(
                            "the preflight from {allowed} was answered {}, so the browser never sends {}",
                            preflight.status, outcome.request
                        ),
                    );
                } else {
                    let why = match &outcome.verdict {
                        crate::report::Verdict::Blocked { why } => why.as_str(),
                        _ => "",
                    };
                    add(
                        FindingKind::AllowedOriginRefused,
                        &outcome.name,
                        format!("{} is not readable: {why}", outcome.request),
                    );
                }
            }
            Expectation::NotReadable => {
                let last = outcome.last();
                let allow_origin = last.and_then(|e| e.header("access-control-allow-origin"));
                let reflected = outcome.is_readable()
                    || (outcome.hostility == Some("special-characters")
                        && allow_origin.is_some_and(|v| v == origin));
                if !reflected {
                    continue;
                }
                if outcome.credentials {
                    add(
                        FindingKind::ReflectedWithCredentials,
                        &outcome.name,
                        format!(
                            "{origin} reads credentialed responses: every site can make requests as the \
                             user and read the answers"
                        ),
                    );
                    continue;
                }
                if allow_origin == Some("*") && !config.credentials {
                    // A public resource: `*` lets every site read it, by design.
                    continue;
                }
                let kind = match outcome.hostility {
                    Some("arbitrary-origin") => FindingKind::ArbitraryOriginReflected,
                    Some("null-origin") => FindingKind::NullAllowed,
                    _ => FindingKind::LookAlikeOriginAllowed,
                };
                add(
                    kind,
                    &outcome.name,
                    format!(
                        "{origin} is allowed (`Access-Control-Allow-Origin: {}`)",
                        allow_origin.unwrap_or("?")
                    ),
                );
            }
        }
    }
    findings.sort_by_key(|f| f.severity);
    findings
}

/// A finding when the preflight allows methods the resource does not list in `Allow`.
fn wider_methods(
    preflight: &Exchange,
    allow: &[Method],
    case: &str,
    add: &mut impl FnMut(FindingKind, &str, String),
) {
    if allow.is_empty() {
        return;
    }
    let allowed = preflight.list("access-control-allow-methods");
    let extra: Vec<&str> = allowed
        .iter()
        .copied()
        .filter(|m| *m == "*" || !allow.iter().any(|a| a.as_str() == *m))
        .collect();
    if !extra.is_empty() {
        add(
            FindingKind::AllowMethodsWiderThanRoute,
            case,
            format!(
                "the preflight allows {} beyond the methods the resource answers ({})",
                extra.join(", "),
                allow
                    .iter()
                    .map(Method::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
}
