//! The three engines: where each one is found, how it starts with a fresh profile, how it stops.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::process::{Child, Command};

/// A browser engine, as the tests drive it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Engine {
    /// Headless Chromium (Blink).
    Chromium,
    /// Headless Firefox ESR (Gecko).
    Firefox,
    /// WPE WebKit through its reference browser, `cog`, on its headless platform.
    WebKit,
}

/// Whether a cross-site response may set cookies: each engine's own setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ThirdPartyCookies {
    /// What a new profile does.
    Default,
    /// Chromium's "Allow third-party cookies", Firefox's "accept all cookies", cog's
    /// `--cookie-store=always`.
    Allowed,
}

/// How the page and the API are served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scheme {
    /// Plain `http://`.
    Http,
    /// `https://` with a certificate made by the test, which each engine is told to accept.
    Https,
}

impl Scheme {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }
}

/// How a browser is started for one page load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Settings {
    pub(crate) third_party_cookies: ThirdPartyCookies,
    pub(crate) scheme: Scheme,
}

impl Settings {
    pub(crate) const DEFAULT: Settings = Settings {
        third_party_cookies: ThirdPartyCookies::Default,
        scheme: Scheme::Http,
    };
}

/// The certificate an HTTPS scenario's servers present, and where they listen.
pub(crate) struct Trust<'a> {
    /// SHA-256 of the certificate (DER), as `AB:CD:..`.
    pub(crate) fingerprint: &'a str,
    /// The servers' ports; each is reached as `127.0.0.1` and as `localhost`.
    pub(crate) ports: &'a [u16],
}

/// Chromium's flags: headless, no sandbox (containers), nothing that talks to the network on its
/// own, no HTTP/3.
const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--mute-audio",
];

/// Firefox's `user.js` for a new profile: no first-run or what's-new pages, no session restore,
/// and none of the services that would reach the network by themselves (updates, telemetry and
/// Glean, studies, safe browsing, captive-portal and connectivity checks, DNS prefetch and
/// speculative connections, DNS over HTTPS, push). `services.settings.server` only takes effect
/// with `MOZ_REMOTE_SETTINGS_DEVTOOLS=1` in the environment, which [`Browser::command`] sets.
const FIREFOX_USER_JS: &str = r#"user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("browser.startup.page", 0);
user_pref("browser.aboutwelcome.enabled", false);
user_pref("startup.homepage_welcome_url", "");
user_pref("startup.homepage_welcome_url.additional", "");
user_pref("browser.newtabpage.enabled", false);
user_pref("browser.newtabpage.activity-stream.feeds.section.topstories", false);
user_pref("browser.newtabpage.activity-stream.feeds.topsites", false);
user_pref("browser.newtabpage.activity-stream.showSponsored", false);
user_pref("browser.newtabpage.activity-stream.showSponsoredTopSites", false);
user_pref("browser.topsites.contile.enabled", false);
user_pref("browser.tabs.warnOnClose", false);
user_pref("browser.sessionstore.resume_from_crash", false);
user_pref("browser.sessionstore.max_resumed_crashes", 0);
user_pref("browser.warnOnQuit", false);
user_pref("app.update.enabled", false);
user_pref("app.update.auto", false);
user_pref("app.update.checkInstallTime", false);
user_pref("app.normandy.enabled", false);
user_pref("app.normandy.api_url", "");
user_pref("app.shield.optoutstudies.enabled", false);
user_pref("toolkit.telemetry.enabled", false);
user_pref("toolkit.telemetry.unified", false);
user_pref("toolkit.telemetry.archive.enabled", false);
user_pref("toolkit.telemetry.server", "");
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("datareporting.healthreport.uploadEnabled", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("datareporting.policy.firstRunURL", "");
user_pref("telemetry.fog.test.localhost_port", -1);
user_pref("browser.crashReports.unsubmittedCheck.autoSubmit2", false);
user_pref("browser.ping-centre.telemetry", false);
user_pref("browser.safebrowsing.malware.enabled", false);
user_pref("browser.safebrowsing.phishing.enabled", false);
user_pref("browser.safebrowsing.downloads.enabled", false);
user_pref("browser.safebrowsing.blockedURIs.enabled", false);
user_pref("browser.safebrowsing.provider.google4.updateURL", "");
user_pref("browser.safebrowsing.provider.google.updateURL", "");
user_pref("browser.safebrowsing.provider.mozilla.updateURL", "");
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
user_pref("captivedetect.canonicalURL", "");
user_pref("network.dns.disableIPv6", true);
user_pref("network.dns.disablePrefetch", true);
user_pref("network.prefetch-next", false);
user_pref("network.predictor.enabled", false);
user_pref("network.http.speculative-parallel-limit", 0);
user_pref("network.proxy.type", 0);
user_pref("network.trr.mode", 5);
user_pref("extensions.update.enabled", false);
user_pref("extensions.getAddons.cache.enabled", false);
user_pref("extensions.blocklist.enabled", false);
user_pref("extensions.systemAddon.update.enabled", false);
user_pref("services.settings.server", "http://127.0.0.1:9/");
user_pref("browser.region.network.url", "");
user_pref("browser.region.update.enabled", false);
user_pref("browser.search.geoip.url", "");
user_pref("browser.search.update", false);
user_pref("geo.provider.network.url", "");
user_pref("media.gmp-manager.url", "");
user_pref("media.gmp-manager.updateEnabled", false);
user_pref("media.gmp-gmpopenh264.enabled", false);
user_pref("media.gmp-widevinecdm.enabled", false);
user_pref("browser.contentblocking.report.lockwise.enabled", false);
user_pref("identity.fxaccounts.enabled", false);
user_pref("dom.push.enabled", false);
user_pref("dom.push.connection.enabled", false);
user_pref("devtools.console.stdout.content", true);
"#;

impl Engine {
    /// The engine's name in messages and tables.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Engine::Chromium => "Chromium",
            Engine::Firefox => "Firefox",
            Engine::WebKit => "WebKit",
        }
    }

    /// The engine's name in file names.
    pub(crate) fn slug(self) -> &'static str {
        match self {
            Engine::Chromium => "chromium",
            Engine::Firefox => "firefox",
            Engine::WebKit => "webkit",
        }
    }

    fn index(self) -> usize {
        match self {
            Engine::Chromium => 0,
            Engine::Firefox => 1,
            Engine::WebKit => 2,
        }
    }

    /// The environment variable that names the program, and the programs looked for on `PATH`.
    fn programs(self) -> (&'static str, &'static [&'static str]) {
        match self {
            Engine::Chromium => (
                "CHROMIUM",
                &[
                    "chromium",
                    "chromium-browser",
                    "google-chrome",
                    "google-chrome-stable",
                ],
            ),
            Engine::Firefox => ("FIREFOX", &["firefox-esr", "firefox"]),
            Engine::WebKit => ("COG", &["cog"]),
        }
    }

    /// The Debian package that brings the engine.
    fn package(self) -> &'static str {
        match self {
            Engine::Chromium => "chromium",
            Engine::Firefox => "firefox-esr",
            Engine::WebKit => "cog",
        }
    }

    /// The engine's setting that [`ThirdPartyCookies::Allowed`] stands for.
    pub(crate) fn third_party_cookie_setting(self) -> &'static str {
        match self {
            Engine::Chromium => {
                "\"Allow third-party cookies\" (`profile.cookie_controls_mode = 0`)"
            }
            Engine::Firefox => "accept all cookies (`network.cookie.cookieBehavior = 0`)",
            Engine::WebKit => "`cog --cookie-store=always`",
        }
    }

    /// Scenarios of one engine take turns: one browser of each engine at a time, so at most
    /// three run at once, and with the test harness's two threads on two cores, at most two.
    pub(crate) fn turn(self) -> &'static tokio::sync::Mutex<()> {
        static TURNS: [tokio::sync::Mutex<()>; 3] = [
            tokio::sync::Mutex::const_new(()),
            tokio::sync::Mutex::const_new(()),
            tokio::sync::Mutex::const_new(()),
        ];
        &TURNS[self.index()]
    }

    /// The engine's browser; `None` (after saying why, once) when it is not installed, outside
    /// CI. With `CI=true`, a missing engine fails the test.
    pub(crate) fn browser(self) -> Option<&'static Browser> {
        static FOUND: [OnceLock<Option<Browser>>; 3] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let found = FOUND[self.index()].get_or_init(|| {
            let program = self.find()?;
            let version = self.version_of(&program);
            Some(Browser {
                engine: self,
                program,
                version,
            })
        });
        if found.is_none() {
            let (variable, names) = self.programs();
            let why = format!(
                "{} not found: {variable} names no file, or no {} on PATH (install it with \
                 apt-get install -y {}, or set {variable}=/path/to/it)",
                self.name(),
                names.join(" or "),
                self.package()
            );
            let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
            assert!(!ci, "{why}; with CI=true every engine must run");
            // Straight to stderr, past the test harness's capture, once per engine.
            static SAID: [OnceLock<()>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
            SAID[self.index()].get_or_init(|| {
                let _ = writeln!(std::io::stderr(), "browser tests skipped: {why}");
            });
        }
        found.as_ref()
    }

    /// `PROGRAM --version`: Chromium's and Firefox's name and version, cog's version and the WPE
    /// WebKit it was built with.
    fn version_of(self, program: &Path) -> String {
        let output = std::process::Command::new(program)
            .arg("--version")
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output();
        let version = match output {
            Ok(output) => String::from_utf8_lossy(&output.stdout).trim().to_owned(),
            Err(error) => format!("unknown version ({error})"),
        };
        match self {
            Engine::WebKit => format!("cog {version}"),
            Engine::Chromium | Engine::Firefox => version,
        }
    }

    fn find(self) -> Option<PathBuf> {
        let (variable, names) = self.programs();
        if let Some(path) = std::env::var_os(variable).filter(|p| !p.is_empty()) {
            // A variable that names no file is an engine that is not there.
            return Some(PathBuf::from(path)).filter(|path| path.is_file());
        }
        let path = std::env::var_os("PATH")?;
        names
            .iter()
            .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
            .find(|candidate| candidate.is_file())
    }
}

/// An engine found on this machine.
#[derive(Debug)]
pub(crate) struct Browser {
    pub(crate) engine: Engine,
    program: PathBuf,
    /// What `--version` printed.
    pub(crate) version: String,
}

impl Browser {
    /// The program that starts the engine.
    pub(crate) fn program(&self) -> &Path {
        &self.program
    }

    /// The command that opens a page with `profile`, without the page's URL. Engine by engine:
    ///
    /// - Chromium: [`CHROMIUM_FLAGS`], the profile in `--user-data-dir`, its `Preferences` file
    ///   for the third-party cookie setting, `--ignore-certificate-errors` over HTTPS;
    /// - Firefox: `--headless --no-remote --profile`, with [`FIREFOX_USER_JS`] (and
    ///   `network.cookie.cookieBehavior`) in the profile's `user.js`, the certificate in its
    ///   `cert_override.txt` (the file "Accept the risk and continue" writes), and
    ///   `MOZ_REMOTE_SETTINGS_DEVTOOLS=1` and `XDG_CONFIG_HOME` in the environment so that it
    ///   stays off the network and writes nothing outside the profile;
    /// - WebKit: `cog -P headless --webprocess-failure=exit` (a crashed web process ends cog at
    ///   once instead of leaving a page that never reports), `--cookie-store=always` for the
    ///   third-party cookie setting, `--ignore-tls-errors` over HTTPS, and the `XDG_*`
    ///   directories inside the profile.
    ///
    /// Every browser runs in a process group of its own, which [`Running`] ends.
    pub(crate) fn command(
        &self,
        profile: &Profile,
        settings: Settings,
        trust: Option<&Trust<'_>>,
    ) -> Command {
        let dir = &profile.dir;
        let mut command = Command::new(&self.program);
        match self.engine {
            Engine::Chromium => {
                let data = dir.join("profile");
                std::fs::create_dir_all(data.join("Default")).expect("create the Chromium profile");
                if settings.third_party_cookies == ThirdPartyCookies::Allowed {
                    std::fs::write(
                        data.join("Default/Preferences"),
                        r#"{"profile":{"cookie_controls_mode":0}}"#,
                    )
                    .expect("write the Chromium preferences");
                }
                command
                    .args(CHROMIUM_FLAGS)
                    .arg(format!("--user-data-dir={}", data.display()));
                if trust.is_some() {
                    command.arg("--ignore-certificate-errors");
                }
            }
            Engine::Firefox => {
                let data = dir.join("profile");
                std::fs::create_dir_all(&data).expect("create the Firefox profile");
                let mut prefs = FIREFOX_USER_JS.to_owned();
                if settings.third_party_cookies == ThirdPartyCookies::Allowed {
                    prefs.push_str("user_pref(\"network.cookie.cookieBehavior\", 0);\n");
                }
                std::fs::write(data.join("user.js"), prefs).expect("write the Firefox user.js");
                if let Some(trust) = trust {
                    let mut overrides = String::from("# PSM Certificate Override Settings file\n");
                    for host in ["127.0.0.1", "localhost"] {
                        for port in trust.ports {
                            overrides.push_str(&format!(
                                "{host}:{port}:\tOID.2.16.840.1.101.3.4.2.1\t{}\t\n",
                                trust.fingerprint
                            ));
                        }
                    }
                    std::fs::write(data.join("cert_override.txt"), overrides)
                        .expect("write the Firefox certificate override");
                }
                command
                    .env("MOZ_REMOTE_SETTINGS_DEVTOOLS", "1")
                    .env("XDG_CONFIG_HOME", dir.join("xdg-config"))
                    .args(["--headless", "--no-remote", "--profile"])
                    .arg(&data);
            }
            Engine::WebKit => {
                command
                    .env("XDG_DATA_HOME", dir.join("xdg-data"))
                    .env("XDG_CACHE_HOME", dir.join("xdg-cache"))
                    .env("XDG_CONFIG_HOME", dir.join("xdg-config"))
                    .args(["-P", "headless", "--webprocess-failure=exit"]);
                if settings.third_party_cookies == ThirdPartyCookies::Allowed {
                    command.arg("--cookie-store=always");
                }
                if trust.is_some() {
                    command.arg("--ignore-tls-errors");
                }
            }
        }
        let log = std::fs::File::create(profile.log()).expect("create the browser log");
        let log_too = log.try_clone().expect("clone the browser log");
        command
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_too)
            .process_group(0)
            .kill_on_drop(true);
        command
    }
}

/// A fresh profile directory for one browser run, removed on drop.
pub(crate) struct Profile {
    dir: PathBuf,
}

impl Profile {
    pub(crate) fn new(engine: Engine, name: &str) -> Self {
        static RUN: AtomicUsize = AtomicUsize::new(0);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "{}-{name}-{}-{}",
            engine.slug(),
            std::process::id(),
            RUN.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the profile directory");
        Self { dir }
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    fn log(&self) -> PathBuf {
        self.dir.join("browser.log")
    }

    /// The end of the browser's output, for failure messages.
    pub(crate) fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.log()).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(25)..].join("\n")
    }
}

impl Drop for Profile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A browser (or driver) in its own process group. Dropping it kills the whole group: Chromium,
/// Firefox and cog start helper processes (renderers, content processes, the network and web
/// processes), and a WebDriver server starts the browser, so the main process alone is not
/// enough. None of them exits by itself.
pub(crate) struct Running {
    child: Child,
    /// The group's id: the leader's pid (`process_group(0)`), kept because a child that has
    /// been waited for no longer reports it, while its helpers may still run.
    group: Option<u32>,
}

impl Running {
    pub(crate) fn spawn(mut command: Command, what: &str) -> Self {
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("start {what}: {e}"));
        let group = child.id();
        Self { child, group }
    }

    pub(crate) fn child(&mut self) -> &mut Child {
        &mut self.child
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(group) = self.group {
            // `kill` instead of `killpg(2)`: the workspace forbids `unsafe`.
            let _ = std::process::Command::new("kill")
                .args(["-KILL", "--", &format!("-{group}")])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        // `kill_on_drop` reaps the leader.
    }
}
