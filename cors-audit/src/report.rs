//! The report: per route, the cases and the findings; a table for people, JSON for machines, a
//! one-line summary for CI logs.

use std::fmt;

use serde::Serialize;

use crate::findings::{Finding, Severity};
use crate::probe::{Outcome, Verdict};

/// The result of an audit.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The origins declared as meant to read the API.
    pub allowed_origins: Vec<String>,
    /// Each resource probed, in order.
    pub routes: Vec<RouteReport>,
    /// The counts.
    pub summary: Summary,
}

/// The audit of one route (or of the one URL given).
#[derive(Clone, Debug, Serialize)]
pub struct RouteReport {
    /// The route's method, when the audit was given routes.
    pub method: Option<String>,
    /// The route's path (`/items/{id}`), or the URL's.
    pub path: String,
    /// The URL probed.
    pub url: String,
    /// Where the route's CORS comes from, as the route table says; `None` when it has none.
    pub cors: Option<String>,
    /// The handler, when the route table names it.
    pub handler: Option<String>,
    /// The route's line in the printed route table, when it came from one.
    pub line: Option<usize>,
    /// The methods the resource lists in `Allow` (plain `OPTIONS`).
    pub allow: Vec<String>,
    /// Every case, in order.
    pub outcomes: Vec<Outcome>,
    /// Each origin the resource granted by name, in the order first probed, and whether with
    /// credentials: which origins get credentials.
    pub granted: Vec<GrantedOrigin>,
    /// The misconfigurations found, worst first.
    pub findings: Vec<Finding>,
    /// Why the route could not be probed (the server did not answer, or answered beyond the
    /// limits); its cases and findings are then incomplete.
    pub error: Option<String>,
}

/// An origin a resource granted by name (`Access-Control-Allow-Origin: <origin>`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GrantedOrigin {
    /// The origin, as the probes sent it.
    pub origin: String,
    /// Whether some answer to it said `Access-Control-Allow-Credentials: true`.
    pub credentials: bool,
}

/// Each origin the answers of `outcomes` grant by name, and whether with credentials.
pub(crate) fn granted_origins(outcomes: &[Outcome]) -> Vec<GrantedOrigin> {
    let mut granted: Vec<GrantedOrigin> = Vec::new();
    for outcome in outcomes {
        let Some(origin) = &outcome.origin else {
            continue;
        };
        for exchange in &outcome.exchanges {
            if exchange.header("access-control-allow-origin") != Some(origin.as_str()) {
                continue;
            }
            let credentials = exchange.header("access-control-allow-credentials") == Some("true");
            match granted.iter_mut().find(|g| g.origin == *origin) {
                Some(known) => known.credentials |= credentials,
                None => granted.push(GrantedOrigin {
                    origin: origin.clone(),
                    credentials,
                }),
            }
        }
    }
    granted
}

impl RouteReport {
    /// `GET /items/{id}`, or the URL when the audit was given one.
    pub fn label(&self) -> String {
        match &self.method {
            Some(method) => format!("{method} {}", self.path),
            None => self.url.clone(),
        }
    }
}

/// How many findings of each severity, on how many routes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Findings of severity high.
    pub high: usize,
    /// Findings of severity medium.
    pub medium: usize,
    /// Findings of severity low.
    pub low: usize,
    /// Routes audited.
    pub routes: usize,
    /// Routes that could not be probed.
    pub unprobed: usize,
}

impl Summary {
    pub(crate) fn of(routes: &[RouteReport]) -> Self {
        let mut summary = Summary {
            routes: routes.len(),
            ..Summary::default()
        };
        for route in routes {
            summary.unprobed += usize::from(route.error.is_some());
            for finding in &route.findings {
                match finding.severity {
                    Severity::High => summary.high += 1,
                    Severity::Medium => summary.medium += 1,
                    Severity::Low => summary.low += 1,
                }
            }
        }
        summary
    }

    /// Every finding.
    pub fn findings(&self) -> usize {
        self.high + self.medium + self.low
    }
}

impl fmt::Display for Summary {
    /// `cors-audit: 2 findings (1 high, 1 medium, 0 low) on 5 routes`, and the routes that could
    /// not be probed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |n: usize, word: &str| {
            if n == 1 {
                format!("{n} {word}")
            } else {
                format!("{n} {word}s")
            }
        };
        write!(
            f,
            "cors-audit: {} ({} high, {} medium, {} low) on {}",
            plural(self.findings(), "finding"),
            self.high,
            self.medium,
            self.low,
            plural(self.routes, "route")
        )?;
        if self.unprobed > 0 {
            write!(f, ", {} could not be probed", self.unprobed)?;
        }
        Ok(())
    }
}

impl Report {
    pub(crate) fn new(allowed_origins: Vec<String>, routes: Vec<RouteReport>) -> Self {
        let summary = Summary::of(&routes);
        Self {
            allowed_origins,
            routes,
            summary,
        }
    }

    /// Whether the audit found nothing.
    pub fn is_clean(&self) -> bool {
        self.summary.findings() == 0
    }

    /// Whether some route could not be probed.
    pub fn is_incomplete(&self) -> bool {
        self.summary.unprobed > 0
    }

    /// Every finding, with its route.
    pub fn findings(&self) -> impl Iterator<Item = (&RouteReport, &Finding)> {
        self.routes
            .iter()
            .flat_map(|r| r.findings.iter().map(move |f| (r, f)))
    }

    /// The exit status of the command-line tool: 0 when nothing is found, 1 when something
    /// is, 2 when a route could not be probed.
    pub fn exit_status(&self) -> u8 {
        if self.is_incomplete() {
            2
        } else if self.is_clean() {
            0
        } else {
            1
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "allowed origins: {}", self.allowed_origins.join(", "))?;
        for route in &self.routes {
            writeln!(f)?;
            write!(f, "{route}")?;
        }
        writeln!(f)?;
        writeln!(f, "{}", self.summary)
    }
}

impl fmt::Display for RouteReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "== {}", self.label())?;
        if self.method.is_some() {
            write!(f, " ({})", self.url)?;
        }
        match &self.cors {
            Some(cors) => write!(f, ", CORS: {cors}")?,
            None if self.method.is_some() => write!(f, ", no CORS")?,
            None => {}
        }
        writeln!(f)?;
        cases_table(f, &self.outcomes)?;
        if !self.granted.is_empty() {
            let origins: Vec<String> = self
                .granted
                .iter()
                .map(|g| {
                    let with = if g.credentials { "with" } else { "without" };
                    format!("{} ({with} credentials)", g.origin)
                })
                .collect();
            writeln!(f, "origins granted: {}", origins.join(", "))?;
        }
        if let Some(error) = &self.error {
            writeln!(f, "could not probe: {error}")?;
        }
        if self.findings.is_empty() {
            writeln!(f, "no misconfiguration found")
        } else {
            writeln!(f, "{} misconfiguration(s) found:", self.findings.len())?;
            for finding in &self.findings {
                writeln!(f, "  {finding}")?;
            }
            Ok(())
        }
    }
}

fn cases_table(f: &mut fmt::Formatter<'_>, outcomes: &[Outcome]) -> fmt::Result {
    let rows: Vec<[String; 4]> = outcomes
        .iter()
        .map(|o| {
            let (browser, why) = match &o.verdict {
                Verdict::Readable { status } => (format!("reads {status}"), String::new()),
                Verdict::Blocked { why } => ("blocked".to_owned(), why.clone()),
                Verdict::Shown { status } => (format!("answer {status}"), shown(o)),
            };
            [o.name.clone(), o.request.clone(), browser, why]
        })
        .collect();
    let titles = ["CASE", "REQUEST", "BROWSER", "WHY"];
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .max()
            .unwrap_or(0)
            .max(titles[i].len())
    };
    let (w0, w1, w2) = (width(0), width(1), width(2));
    let mut line = |cells: [&str; 4]| {
        writeln!(
            f,
            "{:w0$}  {:w1$}  {:w2$}  {}",
            cells[0], cells[1], cells[2], cells[3]
        )
    };
    line(titles)?;
    for row in &rows {
        line([&row[0], &row[1], &row[2], row[3].trim_end()])?;
    }
    Ok(())
}

/// The CORS headers of a shown answer, briefly.
fn shown(outcome: &Outcome) -> String {
    let Some(exchange) = outcome.last() else {
        return String::new();
    };
    let mut parts = Vec::new();
    if let Some(origin) = exchange.header("access-control-allow-origin") {
        parts.push(format!("allow-origin: {origin}"));
    }
    if let Some(allow) = exchange.header("allow") {
        parts.push(format!("allow: {allow}"));
    }
    let vary = exchange.list("vary");
    if !vary.is_empty() {
        parts.push(format!("vary: {}", vary.join(", ")));
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_line() {
        let summary = Summary {
            high: 1,
            medium: 1,
            low: 0,
            routes: 5,
            unprobed: 0,
        };
        assert_eq!(
            summary.to_string(),
            "cors-audit: 2 findings (1 high, 1 medium, 0 low) on 5 routes"
        );
        let summary = Summary {
            routes: 1,
            unprobed: 1,
            ..Summary::default()
        };
        assert_eq!(
            summary.to_string(),
            "cors-audit: 0 findings (0 high, 0 medium, 0 low) on 1 route, 1 could not be probed"
        );
    }
}
