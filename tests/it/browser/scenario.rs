//! One scenario: start the API and the page, open the page in a browser, collect the report.

use std::sync::Arc;
use std::time::Duration;

use axum::{Extension, Router};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::browser::api::{Wire, record};
use crate::browser::cookies::Column;
use crate::browser::engine::{
    Browser, Profile, Running, Scheme, Settings, ThirdPartyCookies, Trust,
};
use crate::browser::page::{Report, page_server, serve};
use crate::browser::tls::certificate;

/// How long a page may take to report. A scenario takes one to five seconds; Firefox sharing the
/// two cores with another browser is the slowest.
pub(crate) const REPORT_TIMEOUT: Duration = Duration::from_secs(60);

/// Where a scenario's page and API are reached, and how the browser runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scenario {
    pub(crate) name: &'static str,
    pub(crate) page_host: &'static str,
    pub(crate) api_host: &'static str,
    pub(crate) settings: Settings,
}

impl Scenario {
    /// Over plain HTTP, with the engine's default settings.
    pub(crate) const fn new(
        name: &'static str,
        page_host: &'static str,
        api_host: &'static str,
    ) -> Self {
        Self {
            name,
            page_host,
            api_host,
            settings: Settings::DEFAULT,
        }
    }
}

impl From<Column> for Scenario {
    fn from(column: Column) -> Self {
        Self {
            name: column.name,
            page_host: column.page_host,
            api_host: column.api_host,
            settings: column.settings,
        }
    }
}

/// The outcome of a scenario: the page's report and the API server's log.
pub(crate) struct Outcome {
    pub(crate) report: Report,
    pub(crate) wire: Arc<Wire>,
    /// The browser's version, for messages.
    pub(crate) version: String,
}

/// Runs `cases` in `browser` from the scenario's page origin against `api` on its API origin.
pub(crate) async fn run_scenario(
    browser: &Browser,
    scenario: &Scenario,
    cases: &[String],
    api: Router,
) -> Outcome {
    let _turn = browser.engine.turn().lock().await;
    let wire = Arc::new(Wire::default());
    let api = api
        .layer(axum::middleware::from_fn_with_state(wire.clone(), record))
        .layer(Extension(wire.clone()));
    let scheme = scenario.settings.scheme;
    let api_port = serve(api, scheme).await;
    let api_url = format!("{}://{}:{api_port}", scheme.as_str(), scenario.api_host);

    let (reports_tx, mut reports) = mpsc::channel(1);
    let page_port = page_server(&api_url, cases, scheme, reports_tx).await;
    let page_url = format!("{}://{}:{page_port}/", scheme.as_str(), scenario.page_host);

    let profile = Profile::new(browser.engine, scenario.name);
    let ports = [api_port, page_port];
    let trust = (scheme == Scheme::Https).then(|| Trust {
        fingerprint: &certificate().fingerprint,
        ports: &ports,
    });
    let mut command = browser.command(&profile, scenario.settings, trust.as_ref());
    command.arg(&page_url);
    let mut running = Running::spawn(command, browser.engine.name());
    let report = tokio::select! {
        report = reports.recv() => report,
        status = running.child().wait() => panic!(
            "{} exited ({status:?}) before {page_url} reported; its output ends with:\n{}",
            browser.version,
            profile.log_tail()
        ),
        () = tokio::time::sleep(REPORT_TIMEOUT) => panic!(
            "{page_url} did not report within {REPORT_TIMEOUT:?} in {}; its output ends with:\n{}",
            browser.version,
            profile.log_tail()
        ),
    };
    drop(running);
    let report = report.expect("the page server is running");
    let report: Value = serde_json::from_str(&report).expect("the report is JSON");
    assert!(
        report["error"].is_null(),
        "the page's script failed in {}: {}",
        browser.version,
        report["error"]
    );
    let setting = match scenario.settings.third_party_cookies {
        ThirdPartyCookies::Default => "",
        ThirdPartyCookies::Allowed => browser.engine.third_party_cookie_setting(),
    };
    eprintln!(
        "{} {setting}, scenario {}: page {page_url}, API {api_url}\nthe API received:\n{}",
        browser.version,
        scenario.name,
        wire.dump()
    );
    Outcome {
        report: Report(report),
        wire,
        version: browser.version.clone(),
    }
}

/// Case names, as the page takes them.
pub(crate) fn cases(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

/// The cookie cases: one `cookie_set_<variant>` per variant, then `cookie_check`.
pub(crate) fn cookie_cases() -> Vec<String> {
    crate::browser::api::COOKIE_VARIANTS
        .iter()
        .map(|(variant, _)| format!("cookie_set_{variant}"))
        .chain(["cookie_check".to_owned()])
        .collect()
}
