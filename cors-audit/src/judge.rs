//! Finding the misconfigurations in a resource's outcomes: each cause once, with the cases that
//! show it as evidence and the severity of the worst of them.

use http::Method;

use crate::cases::{COMPARE_CASE, Expectation};
use crate::findings::{Finding, FindingKind, Severity};
use crate::probe::{Exchange, Outcome};

/// What the judgement needs beside the outcomes.
pub(crate) struct Context<'a> {
    /// Whether the pages send credentials.
    pub(crate) credentials: bool,
    /// The methods the resource lists in `Allow`.
    pub(crate) allow: &'a [Method],
}

/// The findings of one resource, worst first.
pub(crate) fn find(outcomes: &[Outcome], cx: &Context<'_>) -> Vec<Finding> {
    let mut findings = Vec::new();
    let star = star(outcomes, cx);
    let attributed: Vec<String> = star
        .as_ref()
        .map(|f| f.evidence.clone())
        .unwrap_or_default();
    let unexplained: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| !attributed.contains(&o.name))
        .collect();
    findings.extend(star);
    findings.extend(hostile_reads(&unexplained));
    findings.extend(declared_refused(&unexplained));
    findings.extend(granted_without_cors(outcomes));
    findings.extend(wider_methods(outcomes, cx.allow));
    findings.extend(missing_vary_origin(outcomes));
    findings.extend(missing_vary_request_headers(outcomes));
    findings.extend(beyond_cors(outcomes, cx.credentials));
    findings.sort_by_key(|f| f.severity);
    findings
}

fn finding(
    kind: FindingKind,
    severity: Severity,
    message: String,
    evidence: Vec<String>,
) -> Finding {
    Finding {
        kind,
        severity,
        message,
        evidence,
    }
}

fn allow_origin(exchange: Option<&Exchange>) -> Option<&str> {
    exchange.and_then(|e| e.header("access-control-allow-origin"))
}

/// `a, b, c and 2 more`.
fn some_of(items: &[&str]) -> String {
    const SHOWN: usize = 3;
    let shown = items[..items.len().min(SHOWN)].join(", ");
    match items.len() {
        n if n > SHOWN => format!("{shown} and {} more", n - SHOWN),
        _ => shown,
    }
}

/// `*` where credentials are in play: with `Access-Control-Allow-Credentials: true`, or
/// while the pages send credentials (which then fail, and every site reads the other answers).
fn star(outcomes: &[Outcome], cx: &Context<'_>) -> Option<Finding> {
    let mut evidence = Vec::new();
    let mut with_true = false;
    for outcome in outcomes {
        let star_and_true = outcome.exchanges.iter().any(|e| {
            e.header("access-control-allow-origin") == Some("*")
                && e.header("access-control-allow-credentials") == Some("true")
        });
        with_true |= star_and_true;
        let star_last = allow_origin(outcome.last()) == Some("*");
        let refused_page = outcome.expectation == Expectation::Readable
            && outcome.credentials
            && !outcome.is_readable();
        let hostile_read = cx.credentials
            && outcome.expectation == Expectation::NotReadable
            && outcome.hostility.is_some()
            && outcome.is_readable();
        if star_and_true || (star_last && (refused_page || hostile_read)) {
            evidence.push(outcome.name.clone());
        }
    }
    if evidence.is_empty() {
        return None;
    }
    let message = if cx.credentials {
        "`Access-Control-Allow-Origin: *` while the pages send credentials: browsers refuse `*` on \
         credentialed requests, so those fail, and every site reads the other answers"
    } else if with_true {
        "`Access-Control-Allow-Origin: *` with `Access-Control-Allow-Credentials: true`, which \
         browsers refuse: credentialed requests fail"
    } else {
        "`Access-Control-Allow-Origin: *` on credentialed requests, which browsers refuse"
    };
    Some(finding(
        FindingKind::StarWithCredentials,
        Severity::Medium,
        message.to_owned(),
        evidence,
    ))
}

/// A hostile origin that reads, and whether it read with credentials.
fn hostile_read(outcome: &Outcome) -> Option<bool> {
    if outcome.expectation != Expectation::NotReadable || outcome.hostility.is_none() {
        return None;
    }
    let last = outcome.last();
    let allow_origin = allow_origin(last);
    if outcome.hostility == Some("special-characters") {
        // Sent raw: granted when the malformed origin comes back.
        let reflected = allow_origin.is_some() && allow_origin == outcome.origin.as_deref();
        let credentialed =
            last.and_then(|e| e.header("access-control-allow-credentials")) == Some("true");
        return reflected.then_some(credentialed);
    }
    // `*` without credentials is a public resource, by design (or the `*` finding's).
    (outcome.is_readable() && allow_origin != Some("*")).then_some(outcome.credentials)
}

/// Hostile origins that read: one finding for any origin (which explains the look-alikes and
/// `null` too), else one for look-alikes and one for `null`.
fn hostile_reads(outcomes: &[&Outcome]) -> Vec<Finding> {
    let reads: Vec<(&Outcome, bool)> = outcomes
        .iter()
        .filter_map(|o| hostile_read(o).map(|credentialed| (*o, credentialed)))
        .collect();
    let group = |pick: &dyn Fn(&str) -> bool| -> Vec<(&Outcome, bool)> {
        reads
            .iter()
            .filter(|(o, _)| o.hostility.is_some_and(pick))
            .copied()
            .collect()
    };
    let arbitrary = group(&|h| h == "arbitrary-origin");
    let groups = if arbitrary.is_empty() {
        vec![
            (
                FindingKind::LookAlikeOriginAllowed,
                group(&|h| h != "null-origin"),
            ),
            (FindingKind::NullAllowed, group(&|h| h == "null-origin")),
        ]
    } else {
        vec![(FindingKind::ArbitraryOriginReflected, reads.clone())]
    };
    let mut findings = Vec::new();
    for (kind, mut reads) in groups {
        if reads.is_empty() {
            continue;
        }
        // The worst first: credentialed reads are what the severity rests on.
        reads.sort_by_key(|(_, credentialed)| !credentialed);
        let credentialed = reads.iter().any(|(_, c)| *c);
        let mut origins: Vec<&str> = Vec::new();
        for (outcome, _) in &reads {
            let origin = outcome.origin.as_deref().unwrap_or("");
            if !origins.contains(&origin) {
                origins.push(origin);
            }
        }
        let what = match kind {
            FindingKind::ArbitraryOriginReflected => "any origin is allowed",
            FindingKind::NullAllowed => {
                "`Origin: null`, which any site can send from a sandboxed frame, is allowed"
            }
            _ => "look-alikes of the declared origins are allowed",
        };
        let how = if credentialed {
            "with credentials: they make requests as the user and read the answers"
        } else {
            "without credentials"
        };
        findings.push(finding(
            kind,
            if credentialed {
                Severity::High
            } else {
                Severity::Medium
            },
            format!("{what}, {how} ({})", some_of(&origins)),
            reads.iter().map(|(o, _)| o.name.clone()).collect(),
        ));
    }
    findings
}

/// The declared origin's requests that fail: at the preflight's status, or elsewhere.
fn declared_refused(outcomes: &[&Outcome]) -> Vec<Finding> {
    let refused: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| o.expectation == Expectation::Readable && !o.is_readable())
        .copied()
        .collect();
    let (not_ok, other): (Vec<&Outcome>, Vec<&Outcome>) = refused.into_iter().partition(|o| {
        o.preflight()
            .is_some_and(|p| !(200..300).contains(&p.status))
    });
    let mut findings = Vec::new();
    if let Some(first) = not_ok.first() {
        let status = first.preflight().map_or(0, |p| p.status);
        findings.push(finding(
            FindingKind::PreflightNotOk,
            Severity::Medium,
            format!(
                "the preflight of {} was answered {status}, so the browser never sends the request",
                first.request
            ),
            not_ok.iter().map(|o| o.name.clone()).collect(),
        ));
    }
    if let Some(first) = other.first() {
        let why = match &first.verdict {
            crate::probe::Verdict::Blocked { why } => why.as_str(),
            _ => "",
        };
        let more = match other.len() {
            1 => String::new(),
            n => format!(" ({n} requests in all)"),
        };
        findings.push(finding(
            FindingKind::AllowedOriginRefused,
            Severity::Medium,
            format!("{} is not readable: {why}{more}", first.request),
            other.iter().map(|o| o.name.clone()).collect(),
        ));
    }
    findings
}

/// A declared origin that reads a route the route table gives no CORS.
fn granted_without_cors(outcomes: &[Outcome]) -> Option<Finding> {
    let granted: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| {
            o.expectation == Expectation::NotReadable && o.hostility.is_none() && o.is_readable()
        })
        .collect();
    let first = granted.first()?;
    Some(finding(
        FindingKind::GrantedWithoutCors,
        Severity::Low,
        format!(
            "the route table gives this route no CORS, yet {} reads it",
            first.origin.as_deref().unwrap_or("?")
        ),
        granted.iter().map(|o| o.name.clone()).collect(),
    ))
}

/// Preflights of the declared origin that allow methods the resource does not list in `Allow`.
fn wider_methods(outcomes: &[Outcome], allow: &[Method]) -> Option<Finding> {
    if allow.is_empty() {
        return None;
    }
    let mut extra: Vec<&str> = Vec::new();
    let mut evidence = Vec::new();
    for outcome in outcomes {
        if outcome.expectation != Expectation::Readable || !outcome.is_readable() {
            continue;
        }
        let Some(preflight) = outcome.preflight() else {
            continue;
        };
        let mut wider = false;
        for method in preflight.list("access-control-allow-methods") {
            if method == "*" || !allow.iter().any(|a| a.as_str() == method) {
                wider = true;
                if !extra.contains(&method) {
                    extra.push(method);
                }
            }
        }
        if wider {
            evidence.push(outcome.name.clone());
        }
    }
    if extra.is_empty() {
        return None;
    }
    let answered: Vec<&str> = allow.iter().map(Method::as_str).collect();
    Some(finding(
        FindingKind::AllowMethodsWiderThanRoute,
        Severity::Low,
        format!(
            "the preflight allows {} beyond the methods the resource answers ({})",
            extra.join(", "),
            answered.join(", ")
        ),
        evidence,
    ))
}

/// The outcomes whose answers are the resource's own (not a form or a handshake).
fn resource_answers(outcomes: &[Outcome]) -> impl Iterator<Item = (&Outcome, &Exchange)> {
    outcomes
        .iter()
        .filter(|o| {
            matches!(
                o.expectation,
                Expectation::Readable | Expectation::NotReadable | Expectation::Shown
            )
        })
        .flat_map(|o| o.exchanges.iter().map(move |e| (o, e)))
}

/// What makes two requests alike but for `Origin`: the method, whether it is a preflight and
/// what it asks for, whether it carries a cookie.
fn shape(exchange: &Exchange) -> (String, bool, Option<String>, Option<String>, bool) {
    let sent = |name: &str| {
        exchange
            .request_headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.to_ascii_lowercase())
    };
    (
        exchange.method.clone(),
        exchange.preflight,
        sent("access-control-request-method"),
        sent("access-control-request-headers"),
        sent("cookie").is_some(),
    )
}

/// What an answer grants, for comparing answers: its own origin back, `*`, another value or
/// nothing; and `Access-Control-Allow-Credentials`.
fn grant(exchange: &Exchange) -> (&'static str, Option<&str>, Option<&str>) {
    let sent_origin = exchange
        .request_headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("origin"))
        .map(|(_, v)| v.as_str());
    let credentials = exchange.header("access-control-allow-credentials");
    match allow_origin(Some(exchange)) {
        None => ("none", None, credentials),
        Some("*") => ("any", None, credentials),
        Some(value) if Some(value) == sent_origin => ("reflected", None, credentials),
        Some(value) => ("fixed", Some(value), credentials),
    }
}

/// Answers that depend on the origin without `Vary: Origin`. An answer depends on it when
/// answers to alike requests from other origins differ from it, or when it reflects its own
/// origin; an answer to a request without `Origin` when the answers to its method with one do.
/// An answer no cache may store (`no-store`) needs no `Vary`.
fn missing_vary_origin(outcomes: &[Outcome]) -> Option<Finding> {
    let with_origin: Vec<&Exchange> = resource_answers(outcomes)
        .map(|(_, e)| e)
        .filter(|e| e.had_origin())
        .collect();
    let depends = |exchange: &Exchange| {
        let alike: Vec<&&Exchange> = with_origin
            .iter()
            .filter(|e| shape(e) == shape(exchange))
            .collect();
        alike.iter().any(|e| grant(e).0 == "reflected")
            || alike.iter().any(|e| grant(e) != grant(alike[0]))
    };
    let method_depends = |method: &str| {
        with_origin
            .iter()
            .any(|e| !e.preflight && e.method == method && depends(e))
    };
    let mut kinds: Vec<&str> = Vec::new();
    let mut evidence: Vec<String> = Vec::new();
    for (outcome, exchange) in resource_answers(outcomes) {
        let needs_vary = if exchange.had_origin() {
            depends(exchange)
        } else {
            method_depends(&exchange.method)
        };
        if !needs_vary || exchange.varies_on("origin") || exchange.is_no_store() {
            continue;
        }
        let granted = allow_origin(Some(exchange)).is_some();
        let kind = match (exchange.had_origin(), exchange.preflight, granted) {
            (false, _, _) => "answers without Origin",
            (true, true, true) => "granted preflights",
            (true, true, false) => "refused preflights",
            (true, false, true) => "granted requests",
            (true, false, false) => "refused requests",
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
        if !evidence.contains(&outcome.name) {
            evidence.push(outcome.name.clone());
        }
    }
    if evidence.is_empty() {
        return None;
    }
    Some(finding(
        FindingKind::MissingVaryOrigin,
        Severity::Medium,
        format!(
            "answers that depend on the origin lack `Vary: Origin` ({}): a cache may give them to \
             another origin",
            kinds.join(", ")
        ),
        evidence,
    ))
}

/// Preflight answers that change with `Access-Control-Request-Headers` without naming it in
/// `Vary`. The compare case asks for another header than the pages' preflight; answers that
/// differ depend on the list.
fn missing_vary_request_headers(outcomes: &[Outcome]) -> Option<Finding> {
    let shape = |e: &Exchange| {
        let mut headers: Vec<String> = e
            .list("access-control-allow-headers")
            .iter()
            .map(|h| h.to_ascii_lowercase())
            .collect();
        headers.sort();
        (allow_origin(Some(e)).is_some(), headers)
    };
    let compare = outcomes
        .iter()
        .find(|o| o.name == COMPARE_CASE)
        .and_then(Outcome::preflight)?;
    let pages = outcomes
        .iter()
        .filter(|o| {
            o.expectation == Expectation::Readable || o.expectation == Expectation::NotReadable
        })
        .filter(|o| o.hostility.is_none() && o.name != COMPARE_CASE)
        .find_map(Outcome::preflight)?;
    if shape(compare) == shape(pages) {
        return None;
    }
    let evidence: Vec<String> = outcomes
        .iter()
        .filter(|o| {
            o.preflight()
                .is_some_and(|p| !p.varies_on("access-control-request-headers") && !p.is_no_store())
        })
        .map(|o| o.name.clone())
        .collect();
    if evidence.is_empty() {
        return None;
    }
    Some(finding(
        FindingKind::MissingVaryRequestHeaders,
        Severity::Low,
        "preflight answers change with `Access-Control-Request-Headers` but lack it in `Vary`"
            .to_owned(),
        evidence,
    ))
}

/// A cross-site form `POST` that reaches the handler, and a WebSocket handshake from a hostile
/// origin that is accepted.
fn beyond_cors(outcomes: &[Outcome], credentials: bool) -> Vec<Finding> {
    let status = |o: &Outcome| o.last().map_or(0, |e| e.status);
    let reached: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| o.expectation == Expectation::NotHandled && (200..400).contains(&status(o)))
        .collect();
    let upgraded: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| o.expectation == Expectation::NotUpgraded && status(o) == 101)
        .collect();
    let mut findings = Vec::new();
    if let Some(first) = reached.first() {
        findings.push(finding(
            FindingKind::CrossSitePostReachesHandler,
            Severity::Medium,
            format!(
                "a cross-site form POST from {} with the user's cookie reached the handler \
                 (answered {}): any site can submit forms as the user",
                first.origin.as_deref().unwrap_or("?"),
                status(first)
            ),
            reached.iter().map(|o| o.name.clone()).collect(),
        ));
    }
    if let Some(first) = upgraded.first() {
        findings.push(finding(
            FindingKind::WebSocketFromHostileOrigin,
            if credentials {
                Severity::High
            } else {
                Severity::Medium
            },
            format!(
                "a WebSocket handshake from {} was accepted (101): its page talks to the socket{}",
                first.origin.as_deref().unwrap_or("?"),
                if credentials {
                    " as the user, whose cookies the browser sends with the handshake"
                } else {
                    ""
                }
            ),
            upgraded.iter().map(|o| o.name.clone()).collect(),
        ));
    }
    findings
}
