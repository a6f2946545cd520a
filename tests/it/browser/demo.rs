//! The browser demo (`examples/browser_demo.rs`) in each engine, with a screenshot.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::browser::cookies::{column_named, expected};
use crate::browser::engine::{Browser, Engine, Profile, Running, Settings};
use crate::browser::scenario::REPORT_TIMEOUT;
use crate::browser::webdriver;

/// The demo, same-site and cross-site (`?api_host=127.0.0.1` on a `localhost` page): the page
/// passes all five cases, except case 5's last check ("cookie sent back") where the engine's
/// cookie table says it drops `set_cookie`'s cross-site cookie over plain HTTP (WebKit). Each
/// screenshot goes to `CARGO_TARGET_TMPDIR`, and the same-site one also to
/// `docs/browser_demo_<engine>.png` with `UPDATE_SCREENSHOT=1`.
pub(crate) async fn browser_demo(engine: Engine) {
    let Some(browser) = engine.browser() else {
        return;
    };
    let driver = match engine {
        Engine::WebKit => match webdriver_or_skip() {
            Some(driver) => Some(driver),
            None => return,
        },
        Engine::Chromium | Engine::Firefox => None,
    };
    let _turn = engine.turn().lock().await;
    let demo = crate::browser::browser_demo::start("127.0.0.1", 0, 0)
        .await
        .expect("start the demo");
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let slug = engine.slug();
    let same_site = Page {
        url: demo.page_url.clone(),
        screenshot: tmp.join(format!("browser_demo_{slug}.png")),
        column: "same_site_ip",
    };
    let cross_site = Page {
        url: format!(
            "{}?api_host=127.0.0.1",
            demo.page_url.replacen("127.0.0.1", "localhost", 1)
        ),
        screenshot: tmp.join(format!("browser_demo_{slug}_cross_site.png")),
        column: "cross_site_localhost_page",
    };

    for page in [&same_site, &cross_site] {
        screenshot_page(browser, driver.as_deref(), &page.url, &page.screenshot).await;
        let results = wait_for(|| demo.take_results())
            .await
            .unwrap_or_else(|| panic!("the demo page {} did not report its results", page.url));
        let cookie_kept = expected(engine, &column_named(page.column), "default");
        let expected_failures: Vec<(u64, Vec<&str>)> = (1..=5)
            .map(|n| {
                let failing = if n == 5 && !cookie_kept {
                    vec!["cookie sent back"]
                } else {
                    Vec::new()
                };
                (n, failing)
            })
            .collect();
        assert_eq!(
            failed_checks(&results),
            expected_failures,
            "{}, {}: {results:#}",
            browser.version,
            page.url
        );
    }

    if std::env::var("UPDATE_SCREENSHOT").is_ok_and(|v| v == "1") {
        let docs =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("docs/browser_demo_{slug}.png"));
        publish(&same_site.screenshot, &docs);
    }
}

/// One page of the demo, its screenshot, and the cookie column it stands in.
struct Page {
    url: String,
    screenshot: PathBuf,
    column: &'static str,
}

/// Per case, the labels of the checks that failed.
fn failed_checks(results: &Value) -> Vec<(u64, Vec<&str>)> {
    results
        .as_array()
        .expect("a list of cases")
        .iter()
        .map(|case| {
            let failing = case["checks"]
                .as_array()
                .expect("a list of checks")
                .iter()
                .filter(|check| check[1] != true)
                .map(|check| check[0].as_str().unwrap_or("?"))
                .collect();
            (case["n"].as_u64().unwrap_or(0), failing)
        })
        .collect()
}

/// `WPEWebDriver`, which WebKit's screenshot needs; `None` (after saying why) outside CI.
fn webdriver_or_skip() -> Option<PathBuf> {
    let driver = webdriver::find_driver();
    if driver.is_none() {
        let why = "WPEWebDriver not found (install it with apt-get install -y wpewebkit-driver, \
                   or set WPE_WEBDRIVER=/path/to/it)";
        let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(!ci, "{why}; with CI=true the WebKit demo must run");
        let _ = writeln!(std::io::stderr(), "WebKit demo skipped: {why}");
    }
    driver
}

/// Loads `url` and writes a screenshot once the page is complete: Chromium's virtual time and
/// Firefox's `--screenshot` wait for the load event, which the demo holds until its results are
/// in; WebKit's goes through WebDriver.
async fn screenshot_page(browser: &Browser, driver: Option<&Path>, url: &str, screenshot: &Path) {
    let _ = std::fs::remove_file(screenshot);
    let profile = Profile::new(browser.engine, "demo");
    match (browser.engine, driver) {
        (Engine::WebKit, Some(driver)) => {
            webdriver::screenshot(driver, browser, &profile, url, screenshot).await;
        }
        (engine, _) => {
            let mut command = browser.command(&profile, Settings::DEFAULT, None);
            match engine {
                Engine::Chromium => command
                    .arg(format!("--screenshot={}", screenshot.display()))
                    .arg("--window-size=1100,960")
                    .arg("--hide-scrollbars")
                    .arg("--virtual-time-budget=15000"),
                Engine::Firefox | Engine::WebKit => command
                    .arg("--screenshot")
                    .arg(screenshot)
                    .arg("--window-size=1100,960"),
            };
            command.arg(url);
            let mut running = Running::spawn(command, engine.name());
            let status = tokio::time::timeout(REPORT_TIMEOUT, running.child().wait()).await;
            match status {
                Ok(Ok(status)) if status.success() => {}
                other => panic!(
                    "{} did not take the screenshot of {url} ({other:?}); its output ends with:\n{}",
                    browser.version,
                    profile.log_tail()
                ),
            }
        }
    }
    let size = std::fs::metadata(screenshot)
        .unwrap_or_else(|e| panic!("{} wrote no screenshot of {url}: {e}", browser.version))
        .len();
    assert!(
        size > 10_000,
        "a {size}-byte screenshot of {url} is too small"
    );
}

/// Copies `screenshot` to `docs`, reduced to 128 colours by `pngquant` when it is installed
/// (about 100 KB instead of 300).
fn publish(screenshot: &Path, docs: &Path) {
    let quantized = std::process::Command::new("pngquant")
        .args(["--force", "--strip", "--output"])
        .arg(docs)
        .args(["128", "--"])
        .arg(screenshot)
        .status()
        .is_ok_and(|status| status.success());
    if !quantized {
        std::fs::copy(screenshot, docs).expect("copy the screenshot to docs/");
    }
    eprintln!(
        "wrote {}{}",
        docs.display(),
        if quantized {
            " (pngquant, 128 colours)"
        } else {
            ""
        }
    );
}

/// Polls `f` every 50 ms for up to 2 s.
async fn wait_for<T>(mut f: impl FnMut() -> Option<T>) -> Option<T> {
    for _ in 0..40 {
        if let Some(value) = f() {
            return Some(value);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    f()
}
