//! Which cookies each engine sends back, per attribute combination and scenario: the expected
//! tables of `docs/COOKIES.md`, and the check of a scenario's outcome against them.

use std::collections::BTreeMap;

use crate::browser::api::COOKIE_VARIANTS;
use crate::browser::engine::{Engine, Scheme, Settings, ThirdPartyCookies};
use crate::browser::scenario::Outcome;

/// One column of the cookie tables: where the page and the API are, and how the browser runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Column {
    pub(crate) name: &'static str,
    pub(crate) page_host: &'static str,
    pub(crate) api_host: &'static str,
    pub(crate) settings: Settings,
}

const fn column(
    name: &'static str,
    page_host: &'static str,
    api_host: &'static str,
    scheme: Scheme,
    third_party_cookies: ThirdPartyCookies,
) -> Column {
    Column {
        name,
        page_host,
        api_host,
        settings: Settings {
            third_party_cookies,
            scheme,
        },
    }
}

use Scheme::{Http, Https};
const DEFAULT: ThirdPartyCookies = ThirdPartyCookies::Default;
const ALLOWED: ThirdPartyCookies = ThirdPartyCookies::Allowed;

/// The columns, in the order of the tables. "Same site" pairs differ only in the port, which is
/// not part of a site; `localhost` and `127.0.0.1` are two sites. The third-party cookie setting
/// only matters cross-site.
#[rustfmt::skip]
pub(crate) const COLUMNS: [Column; 12] = [
    column("same_site_ip", "127.0.0.1", "127.0.0.1", Http, DEFAULT),
    column("same_site_localhost", "localhost", "localhost", Http, DEFAULT),
    column("cross_site_localhost_page", "localhost", "127.0.0.1", Http, DEFAULT),
    column("cross_site_ip_page", "127.0.0.1", "localhost", Http, DEFAULT),
    column("cross_site_localhost_page_3pc_allowed", "localhost", "127.0.0.1", Http, ALLOWED),
    column("cross_site_ip_page_3pc_allowed", "127.0.0.1", "localhost", Http, ALLOWED),
    column("https_same_site_ip", "127.0.0.1", "127.0.0.1", Https, DEFAULT),
    column("https_same_site_localhost", "localhost", "localhost", Https, DEFAULT),
    column("https_cross_site_localhost_page", "localhost", "127.0.0.1", Https, DEFAULT),
    column("https_cross_site_ip_page", "127.0.0.1", "localhost", Https, DEFAULT),
    column("https_cross_site_localhost_page_3pc_allowed", "localhost", "127.0.0.1", Https, ALLOWED),
    column("https_cross_site_ip_page_3pc_allowed", "127.0.0.1", "localhost", Https, ALLOWED),
];

/// The column named `name`.
pub(crate) fn column_named(name: &str) -> Column {
    *COLUMNS
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no cookie column `{name}`"))
}

/// Sent back on the next credentialed request.
const Y: bool = true;
/// Not sent back: refused when set, or kept but not sent.
const N: bool = false;

/// Per variant ([`COOKIE_VARIANTS`]), whether it came back in each of the [`COLUMNS`].
type Findings = [(&'static str, [bool; 12]); 8];

/// Chromium 156: a new profile blocks third-party cookies, so cross-site only `Partitioned`
/// comes back (and `SameSite=None; Secure` once they are allowed); `Secure` is kept over plain
/// HTTP on loopback; `SameSite=None` without `Secure` is refused. HTTPS changes nothing.
#[rustfmt::skip]
const CHROMIUM: Findings = [
    // columns: same site (ip, localhost), cross-site (localhost page, ip page), the same with
    // third-party cookies allowed; over http, then over https
    ("default",                  [Y, Y, Y, Y, Y, Y,   Y, Y, Y, Y, Y, Y]),
    ("unspecified",              [Y, Y, N, N, N, N,   Y, Y, N, N, N, N]),
    ("lax",                      [Y, Y, N, N, N, N,   Y, Y, N, N, N, N]),
    ("strict",                   [Y, Y, N, N, N, N,   Y, Y, N, N, N, N]),
    ("none",                     [N, N, N, N, N, N,   N, N, N, N, N, N]),
    ("none_secure",              [Y, Y, N, N, Y, Y,   Y, Y, N, N, Y, Y]),
    ("lax_secure",               [Y, Y, N, N, N, N,   Y, Y, N, N, N, N]),
    ("none_secure_partitioned",  [Y, Y, Y, Y, Y, Y,   Y, Y, Y, Y, Y, Y]),
];

/// Firefox 153 ESR: Total Cookie Protection stores cross-site cookies partitioned under the
/// page's site and sends them back from there, for no `SameSite` and `SameSite=None; Secure`
/// (with or without `Partitioned`); `Lax` and `Strict` are refused cross-site, `SameSite=None`
/// without `Secure` everywhere. Accepting all cookies unpartitions them, which the page cannot
/// tell. HTTPS changes nothing.
#[rustfmt::skip]
const FIREFOX: Findings = [
    // columns: same site (ip, localhost), cross-site (localhost page, ip page), the same with
    // third-party cookies allowed; over http, then over https
    ("default",                  [Y, Y, Y, Y, Y, Y,   Y, Y, Y, Y, Y, Y]),
    ("unspecified",              [Y, Y, Y, Y, Y, Y,   Y, Y, Y, Y, Y, Y]),
    ("lax",                      [Y, Y, N, N, N, N,   Y, Y, N, N, N, N]),
    ("strict",                   [Y, Y, N, N, N, N,   Y, Y, N, N, N, N]),
    ("none",                     [N, N, N, N, N, N,   N, N, N, N, N, N]),
    ("none_secure",              [Y, Y, Y, Y, Y, Y,   Y, Y, Y, Y, Y, Y]),
    ("lax_secure",               [Y, Y, N, N, N, N,   Y, Y, N, N, N, N]),
    ("none_secure_partitioned",  [Y, Y, Y, Y, Y, Y,   Y, Y, Y, Y, Y, Y]),
];

/// WPE WebKit 2.38 (cog): libsoup never stores a `Secure` cookie received over `http://`, not
/// even on loopback, and accepts `SameSite=None` without it; cog's default cookie policy
/// (`no-third-party`) stores nothing from a cross-site response; `--cookie-store=always` lifts
/// that for cookies other than `Lax` and `Strict`. Over HTTPS every same-site variant comes back,
/// and with `always` the `set_cookie` default does cross-site too (`Partitioned` is ignored).
#[rustfmt::skip]
const WEBKIT: Findings = [
    // columns: same site (ip, localhost), cross-site (localhost page, ip page), the same with
    // third-party cookies allowed; over http, then over https
    ("default",                  [Y, Y, N, N, N, N,   Y, Y, N, N, Y, Y]),
    ("unspecified",              [Y, Y, N, N, Y, Y,   Y, Y, N, N, Y, Y]),
    ("lax",                      [Y, Y, N, N, N, N,   Y, Y, N, N, N, N]),
    ("strict",                   [Y, Y, N, N, N, N,   Y, Y, N, N, N, N]),
    ("none",                     [Y, Y, N, N, Y, Y,   Y, Y, N, N, Y, Y]),
    ("none_secure",              [N, N, N, N, N, N,   Y, Y, N, N, Y, Y]),
    ("lax_secure",               [N, N, N, N, N, N,   Y, Y, N, N, N, N]),
    ("none_secure_partitioned",  [N, N, N, N, N, N,   Y, Y, N, N, Y, Y]),
];

impl Engine {
    /// The engine's cookie table: what the cookie scenarios assert.
    fn cookie_findings(self) -> &'static Findings {
        match self {
            Engine::Chromium => &CHROMIUM,
            Engine::Firefox => &FIREFOX,
            Engine::WebKit => &WEBKIT,
        }
    }
}

/// Whether `engine` sends back the cookie `variant` in `column`, as documented.
pub(crate) fn expected(engine: Engine, column: &Column, variant: &str) -> bool {
    let index = COLUMNS
        .iter()
        .position(|c| c.name == column.name)
        .expect("one of the columns");
    let (_, row) = engine
        .cookie_findings()
        .iter()
        .find(|(v, _)| *v == variant)
        .unwrap_or_else(|| panic!("no findings for cookie `{variant}`"));
    row[index]
}

/// Which lab cookies came back on `/cookies/check`, by variant.
fn cookies_sent_back(outcome: &Outcome) -> BTreeMap<&'static str, bool> {
    let seen = outcome.wire.cookies_seen_by("/cookies/check");
    let header = seen.last().map_or("", String::as_str);
    let names: Vec<&str> = header
        .split(';')
        .filter_map(|pair| pair.trim().split_once('=').map(|(n, _)| n))
        .collect();
    COOKIE_VARIANTS
        .iter()
        .map(|(variant, _)| (*variant, names.contains(&&*format!("lab_{variant}"))))
        .collect()
}

fn sent(sent: bool) -> &'static str {
    if sent { "sent back" } else { "not sent back" }
}

/// Asserts the cookie cases of `outcome` (column `column`) against the engine's findings; on a
/// mismatch, prints the column observed next to the one expected.
pub(crate) fn check_cookie_findings(engine: Engine, column: &Column, outcome: &Outcome) {
    for (variant, _) in COOKIE_VARIANTS {
        let case = outcome.report.case(&format!("cookie_set_{variant}"));
        assert_eq!(
            case["outcome"], "ok",
            "{}: setting cookie `{variant}` is a credentialed response script can read: {case}",
            column.name
        );
    }
    let check = outcome.report.case("cookie_check");
    assert_eq!(check["outcome"], "ok", "{}: {check}", column.name);
    let observed = cookies_sent_back(outcome);
    let mut table = String::from(
        "| attributes (+ `Path=/; HttpOnly`) | observed | expected |\n|---|---|---|\n",
    );
    let mut mismatches = Vec::new();
    for (variant, attributes) in COOKIE_VARIANTS {
        let expected = expected(engine, column, variant);
        let mark = if observed[variant] == expected {
            ""
        } else {
            " **≠**"
        };
        table.push_str(&format!(
            "| {attributes} | {}{mark} | {} |\n",
            sent(observed[variant]),
            sent(expected)
        ));
        if observed[variant] != expected {
            mismatches.push(*variant);
        }
    }
    eprintln!("{}, {}: cookies\n{table}", outcome.version, column.name);
    assert!(
        mismatches.is_empty(),
        "{}, {}: cookies {mismatches:?} are not as tests/it/browser/cookies.rs and docs/COOKIES.md \
         say; observed:\n{table}",
        outcome.version,
        column.name
    );
}

/// The table of `docs/COOKIES.md`, made from the findings: per attribute combination and
/// engine, whether the cookie came back in each column, over HTTP and over HTTPS.
pub(crate) fn markdown_table() -> String {
    let mut table = String::from(
        "| attributes (+ `Path=/; HttpOnly`) | engine | same site `127.0.0.1:A` → `127.0.0.1:B` \
         | same site `localhost:A` → `localhost:B` | cross-site `localhost` → `127.0.0.1` \
         | cross-site `127.0.0.1` → `localhost` | cross-site `localhost` → `127.0.0.1`, \
         third-party cookies allowed | cross-site `127.0.0.1` → `localhost`, third-party \
         cookies allowed |\n|---|---|---|---|---|---|---|---|\n",
    );
    let word = |sent: bool| if sent { "sent" } else { "no" };
    for (variant, attributes) in COOKIE_VARIANTS {
        for (i, engine) in [Engine::Chromium, Engine::Firefox, Engine::WebKit]
            .into_iter()
            .enumerate()
        {
            let (_, row) = engine
                .cookie_findings()
                .iter()
                .find(|(v, _)| v == variant)
                .expect("a row per variant");
            let label = if i == 0 { *attributes } else { "" };
            table.push_str(&format!("| {label} | {} |", engine.name()));
            for http in 0..6 {
                let (plain, tls) = (row[http], row[http + 6]);
                let cell = format!("{} / {}", word(plain), word(tls));
                if plain == tls {
                    table.push_str(&format!(" {cell} |"));
                } else {
                    table.push_str(&format!(" **{cell}** |"));
                }
            }
            table.push('\n');
        }
    }
    table
}
