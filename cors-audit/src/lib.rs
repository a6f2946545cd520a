#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod browser;
mod cases;
mod config;
mod declared;
mod findings;
mod judge;
mod probe;
mod report;
mod routes;
mod sarif;
mod transport;

use http::Method;

pub use cases::Expectation;
pub use config::{AuditConfig, AuditError};
pub use findings::{Finding, FindingKind, Severity};
pub use probe::{Exchange, Outcome, Verdict};
pub use report::{GrantedOrigin, Report, RouteReport, Summary};
pub use routes::{MAX_ROUTES, Route, parse_openapi, parse_route_table};
pub use transport::{MAX_BODY_BYTES, MAX_HEADER_BYTES, Transport, TransportError, UreqTransport};

use declared::Declared;

/// Guides.
pub mod guide {
    #[doc = include_str!("../docs/CI.md")]
    pub mod ci {}
}

/// Probes `config.url` with the cases of the audit through `transport`, judges every answer as
/// a browser would ([`browser`]), and returns the report with the
/// misconfigurations found. `progress` is told `(done, total, case)` before each case, and
/// `(total, total, "")` at the end.
pub fn audit(
    config: &AuditConfig,
    transport: &mut dyn Transport,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Report, AuditError> {
    let audit = Prepared::new(config)?;
    let mut route = route_report(&config.url, None);
    audit.probe(None, &mut route, transport, progress)?;
    Ok(Report::new(config.origins.clone(), vec![route]))
}

/// Audits every route of `routes` (from [`parse_route_table`] or [`parse_openapi`]), at
/// `config.url` joined with each path ([`Route::url`]): a route with CORS as [`audit`] does, a
/// route without expecting no origin to be granted. A route the server does not answer is
/// reported with its error and the audit goes on.
pub fn audit_routes(
    config: &AuditConfig,
    routes: &[Route],
    transport: &mut dyn Transport,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Report, AuditError> {
    let audit = Prepared::new(config)?;
    let mut reports = Vec::with_capacity(routes.len());
    for route in routes {
        let mut report = route_report(&route.url(&config.url), Some(route));
        let label = route.label();
        let mut progress = |done: usize, total: usize, case: &str| {
            if !case.is_empty() {
                progress(done, total, &format!("{label}: {case}"));
            }
        };
        let probed = audit.probe(Some(route), &mut report, transport, &mut progress);
        match probed {
            Ok(()) => {}
            Err(AuditError::Transport(error)) => {
                report.findings.clear();
                report.error = Some(error.to_string());
            }
            Err(error) => return Err(error),
        }
        reports.push(report);
    }
    progress(1, 1, "");
    Ok(Report::new(config.origins.clone(), reports))
}

fn route_report(url: &str, route: Option<&Route>) -> RouteReport {
    RouteReport {
        method: route.map(|r| r.method.to_string()),
        path: match route {
            Some(route) => route.path.clone(),
            None => url.to_owned(),
        },
        url: url.to_owned(),
        cors: route.and_then(|r| r.cors.clone()),
        handler: route.and_then(|r| r.handler.clone()),
        line: route.and_then(|r| r.line),
        allow: Vec::new(),
        outcomes: Vec::new(),
        granted: Vec::new(),
        findings: Vec::new(),
        error: None,
    }
}

/// The configuration, checked: the declared policy compiled, the cookie as sent.
struct Prepared<'a> {
    config: &'a AuditConfig,
    declared: Declared,
    cookie: http::HeaderValue,
}

impl<'a> Prepared<'a> {
    fn new(config: &'a AuditConfig) -> Result<Self, AuditError> {
        let cookie = config.check()?;
        let declared = Declared::compile(&config.origins)?;
        Ok(Self {
            config,
            declared,
            cookie,
        })
    }

    /// Probes one resource into `report`: what it says of itself, then every case, then the
    /// findings.
    fn probe(
        &self,
        route: Option<&Route>,
        report: &mut RouteReport,
        transport: &mut dyn Transport,
        progress: &mut dyn FnMut(usize, usize, &str),
    ) -> Result<(), AuditError> {
        let config = self.config;
        // What the resource says of itself: `OPTIONS` without `Origin`.
        let plain = transport.send(&Method::OPTIONS, &report.url, &http::HeaderMap::new())?;
        let allow = probe::allow_methods(&plain.1);
        report.allow = allow.iter().map(ToString::to_string).collect();
        let target = match route {
            Some(route) => cases::Target {
                methods: vec![route.method.clone()],
                simple: match route.method {
                    Method::GET | Method::HEAD => Some(Method::GET),
                    Method::POST => Some(Method::POST),
                    _ => None,
                },
                expects_cors: route.cors.is_some(),
            },
            None => cases::Target {
                methods: if !config.methods.is_empty() {
                    config.methods.clone()
                } else if !allow.is_empty() {
                    allow.clone()
                } else {
                    vec![Method::GET]
                },
                simple: Some(Method::GET),
                expects_cors: true,
            },
        };
        let all = cases::cases(config, &self.declared, &target)?;
        let total = all.len();
        for (done, case) in all.into_iter().enumerate() {
            progress(done, total, &case.name);
            let outcome = probe::run(case, &report.url, &self.cookie, transport)?;
            report.outcomes.push(outcome);
        }
        if route.is_none() {
            progress(total, total, "");
        }
        let context = judge::Context {
            credentials: config.credentials,
            allow: &allow,
        };
        report.findings = judge::find(&report.outcomes, &context);
        report.granted = report::granted_origins(&report.outcomes);
        Ok(())
    }
}
