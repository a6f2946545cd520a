//! `cors-audit` against servers on 127.0.0.1: the project's example (no finding, exit 0),
//! correct servers built with cors-axum (no finding), and servers misconfigured on purpose,
//! each with its one finding and exit status 1.

use crate::example;
use crate::run;
use crate::servers;

use axum::http::{HeaderMap, Method, StatusCode};
use cors_audit::{FindingKind, Severity};
use run::{audit_of, kinds, run_binary, the_finding};
use servers::{ALLOWED, allowing, hand_written, hand_written_with, serve};

#[tokio::test(flavor = "multi_thread")]
async fn the_example_server_has_no_finding() {
    let base = serve(example::AppModule::router().unwrap()).await;
    for (path, credentials) in [("/", false), ("/credentials", true)] {
        let report = audit_of(
            format!("{base}{path}"),
            &["https://example.com"],
            credentials,
        )
        .await;
        assert!(report.is_clean(), "{report}");
        assert!(
            report.routes[0].outcomes.iter().any(|o| o.is_readable()),
            "the allowed origin reads: {report}"
        );
    }
    let run = run_binary(&[&format!("{base}/"), "--origin", "https://example.com"]).await;
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stdout
            .ends_with("\ncors-audit: 0 findings (0 high, 0 medium, 0 low) on 1 route\n"),
        "{}",
        run.stdout
    );
}

/// Audits `/items` of a hand-written server for [`ALLOWED`].
async fn hand_written_report(
    headers: servers::Headers,
    preflight_status: StatusCode,
    credentials: bool,
) -> (cors_audit::Report, String) {
    let base = serve(hand_written_with(headers, preflight_status)).await;
    let url = format!("{base}/items");
    (audit_of(url.clone(), &[ALLOWED], credentials).await, url)
}

/// Asserts that the library finds `kind` on the hand-written server, and that the binary
/// reports it in JSON with exit status 1.
async fn assert_finding(
    headers: servers::Headers,
    preflight_status: StatusCode,
    credentials: bool,
    kind: FindingKind,
) -> cors_audit::Report {
    let (report, url) = hand_written_report(headers, preflight_status, credentials).await;
    assert!(
        kinds(&report).contains(&kind),
        "expected {kind:?}:\n{report}"
    );
    let mut args = vec![
        url,
        "--origin".to_owned(),
        ALLOWED.to_owned(),
        "--json".to_owned(),
    ];
    if credentials {
        args.push("--credentials".to_owned());
    }
    let run = run_binary(&args).await;
    assert_eq!(run.code, 1, "{}", run.stdout);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("--json prints JSON");
    let findings = json["routes"][0]["findings"].as_array().unwrap();
    assert!(
        findings.iter().any(|f| f["kind"] == kind.name()),
        "{}",
        run.stdout
    );
    report
}

#[tokio::test(flavor = "multi_thread")]
async fn reflecting_any_origin_with_credentials() {
    fn headers(_: &Method, request: &HeaderMap, preflight: bool) -> Vec<(&'static str, String)> {
        let mut headers = allowing(request, preflight, |_| true);
        headers.push(("access-control-allow-credentials", "true".to_owned()));
        headers
    }
    let report = assert_finding(
        headers,
        StatusCode::NO_CONTENT,
        false,
        FindingKind::ArbitraryOriginReflected,
    )
    .await;
    let finding = the_finding(&report, FindingKind::ArbitraryOriginReflected);
    assert_eq!(finding.severity, Severity::High, "{finding}");
    // One cause: the look-alikes and `null` are its evidence, not findings of their own.
    assert!(
        !kinds(&report).contains(&FindingKind::LookAlikeOriginAllowed),
        "{report}"
    );
    assert!(
        !kinds(&report).contains(&FindingKind::NullAllowed),
        "{report}"
    );
    assert!(
        finding
            .evidence
            .contains(&"null-origin get-credentials".to_owned()),
        "{finding:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn reflection_only_to_requests_with_a_cookie() {
    let report = assert_finding(
        servers::cookie_gated,
        StatusCode::NO_CONTENT,
        false,
        FindingKind::ArbitraryOriginReflected,
    )
    .await;
    let finding = the_finding(&report, FindingKind::ArbitraryOriginReflected);
    assert_eq!(finding.severity, Severity::High, "{finding}");
    // Only the probes that carry the cookie show it: the credentialed ones, and the malformed
    // origins sent raw with it.
    assert!(
        finding
            .evidence
            .iter()
            .all(|case| case.contains("credentials") || case.starts_with("special-characters")),
        "{finding:?}"
    );
    let probe = report.routes[0]
        .outcomes
        .iter()
        .find(|o| o.name == "arbitrary-origin get-credentials")
        .unwrap();
    assert!(
        probe.exchanges[0]
            .request_headers
            .contains(&("cookie".to_owned(), "cors_audit=1".to_owned())),
        "{probe:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_real_cookie_given_with_the_cookie_option() {
    // Reflects any origin with credentials, but only for a session the server knows.
    fn headers(_: &Method, request: &HeaderMap, preflight: bool) -> Vec<(&'static str, String)> {
        if request.get("cookie").is_some_and(|c| c == "session=known") {
            let mut headers = allowing(request, preflight, |_| true);
            headers.push(("access-control-allow-credentials", "true".to_owned()));
            headers
        } else {
            allowing(request, preflight, |o| o == ALLOWED)
        }
    }
    let base = serve(hand_written(headers)).await;
    let url = format!("{base}/items");
    let dummy = run_binary(&[&url, "--origin", ALLOWED, "--header", "content-type"]).await;
    assert!(
        !dummy.stdout.contains("arbitrary-origin-reflected"),
        "the dummy cookie is not a session: {}",
        dummy.stdout
    );
    let real = run_binary(&[
        &url,
        "--origin",
        ALLOWED,
        "--header",
        "content-type",
        "--cookie",
        "session=known",
    ])
    .await;
    assert_eq!(real.code, 1, "{}", real.stdout);
    assert!(
        real.stdout.contains("high   arbitrary-origin-reflected"),
        "{}",
        real.stdout
    );
    let bad = run_binary(&[&url, "--origin", ALLOWED, "--cookie", "no-value"]).await;
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr
            .contains("`--cookie no-value` is not a cookie; write it as `NAME=VALUE`"),
        "{}",
        bad.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn credentials_only_on_post_and_preflights_is_high() {
    let report = assert_finding(
        servers::credentials_on_post_and_preflight,
        StatusCode::NO_CONTENT,
        false,
        FindingKind::ArbitraryOriginReflected,
    )
    .await;
    let finding = the_finding(&report, FindingKind::ArbitraryOriginReflected);
    assert_eq!(finding.severity, Severity::High, "{finding}");
    assert!(
        finding
            .evidence
            .contains(&"arbitrary-origin post-preflighted-credentials".to_owned()),
        "the preflighted, credentialed probe shows it: {finding:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_vary_origin() {
    fn headers(_: &Method, request: &HeaderMap, preflight: bool) -> Vec<(&'static str, String)> {
        let mut headers = allowing(request, preflight, |o| o == ALLOWED);
        headers.retain(|(name, _)| *name != "vary");
        headers
    }
    assert_finding(
        headers,
        StatusCode::NO_CONTENT,
        false,
        FindingKind::MissingVaryOrigin,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_preflight_without_vary() {
    let report = assert_finding(
        servers::preflight_without_vary,
        StatusCode::NO_CONTENT,
        false,
        FindingKind::MissingVaryOrigin,
    )
    .await;
    let finding = the_finding(&report, FindingKind::MissingVaryOrigin);
    assert!(
        finding
            .message
            .contains("(granted preflights, refused preflights)"),
        "{finding}"
    );
    // Actual answers carry `Vary`: no case without a preflight is evidence.
    let preflighted: Vec<&str> = report.routes[0]
        .outcomes
        .iter()
        .filter(|o| o.preflight().is_some())
        .map(|o| o.name.as_str())
        .collect();
    assert!(
        finding
            .evidence
            .iter()
            .all(|c| preflighted.contains(&c.as_str())),
        "{finding:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_no_cache_stores_needs_no_vary() {
    // As `preflight_without_vary`, but the preflight answers say `no-store`.
    fn headers(
        method: &Method,
        request: &HeaderMap,
        preflight: bool,
    ) -> Vec<(&'static str, String)> {
        let mut headers = servers::preflight_without_vary(method, request, preflight);
        if preflight {
            headers.push(("cache-control", "no-store".to_owned()));
        }
        headers
    }
    let (report, _) = hand_written_report(headers, StatusCode::NO_CONTENT, false).await;
    assert!(
        !kinds(&report).contains(&FindingKind::MissingVaryOrigin),
        "{report}"
    );
    assert!(
        !kinds(&report).contains(&FindingKind::MissingVaryRequestHeaders),
        "{report}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refusal_without_vary() {
    let report = assert_finding(
        servers::refusal_without_vary,
        StatusCode::NO_CONTENT,
        false,
        FindingKind::MissingVaryOrigin,
    )
    .await;
    let finding = the_finding(&report, FindingKind::MissingVaryOrigin);
    assert!(
        finding
            .message
            .contains("(refused requests, refused preflights)"),
        "{finding}"
    );
    assert!(
        finding
            .evidence
            .iter()
            .all(|c| !c.starts_with("get") && !c.starts_with("post")),
        "the declared origin's answers carry `Vary`: {finding:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn allowing_null() {
    fn headers(_: &Method, request: &HeaderMap, preflight: bool) -> Vec<(&'static str, String)> {
        allowing(request, preflight, |o| o == ALLOWED || o == "null")
    }
    let report = assert_finding(
        headers,
        StatusCode::NO_CONTENT,
        false,
        FindingKind::NullAllowed,
    )
    .await;
    assert_eq!(
        the_finding(&report, FindingKind::NullAllowed).severity,
        Severity::Medium
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_suffix_matched_origin() {
    // "Ends with the allowed host": `https://evilapp.example` passes too.
    fn headers(_: &Method, request: &HeaderMap, preflight: bool) -> Vec<(&'static str, String)> {
        allowing(request, preflight, |o| o.ends_with("app.example"))
    }
    let report = assert_finding(
        headers,
        StatusCode::NO_CONTENT,
        false,
        FindingKind::LookAlikeOriginAllowed,
    )
    .await;
    let finding = the_finding(&report, FindingKind::LookAlikeOriginAllowed);
    assert!(
        finding.message.contains("https://evilapp.example"),
        "{finding}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prefix_matched_origin() {
    // "Starts with the allowed origin": `https://app.example.evil.example` passes too.
    fn headers(_: &Method, request: &HeaderMap, preflight: bool) -> Vec<(&'static str, String)> {
        allowing(request, preflight, |o| o.starts_with(ALLOWED))
    }
    assert_finding(
        headers,
        StatusCode::NO_CONTENT,
        false,
        FindingKind::LookAlikeOriginAllowed,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_preflight_answered_403() {
    fn headers(_: &Method, request: &HeaderMap, preflight: bool) -> Vec<(&'static str, String)> {
        allowing(request, preflight, |o| o == ALLOWED)
    }
    assert_finding(
        headers,
        StatusCode::FORBIDDEN,
        false,
        FindingKind::PreflightNotOk,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn star_with_credentials_and_methods_wider_than_the_route() {
    fn headers(_: &Method, _: &HeaderMap, preflight: bool) -> Vec<(&'static str, String)> {
        let mut headers = vec![
            ("access-control-allow-origin", "*".to_owned()),
            ("access-control-allow-credentials", "true".to_owned()),
        ];
        if preflight {
            headers.push((
                "access-control-allow-methods",
                "GET, POST, DELETE".to_owned(),
            ));
            headers.push(("access-control-allow-headers", "*".to_owned()));
        }
        headers
    }
    let (report, _) = hand_written_report(headers, StatusCode::NO_CONTENT, true).await;
    let found = kinds(&report);
    assert!(
        found.contains(&FindingKind::StarWithCredentials),
        "{report}"
    );
    assert!(
        found.contains(&FindingKind::AllowMethodsWiderThanRoute),
        "{report}"
    );
    // The failing credentialed requests are the `*` finding's evidence, not a finding apart.
    let star = the_finding(&report, FindingKind::StarWithCredentials);
    assert!(
        star.evidence.contains(&"get-credentials".to_owned()),
        "{star:?}"
    );
    assert!(
        !found.contains(&FindingKind::AllowedOriginRefused),
        "{report}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_correct_wildcard_pattern_has_no_finding() {
    let base = serve(servers::wildcard_pattern()).await;
    let url = format!("{base}/items");
    for (origins, credentials) in [
        (&["https://*.example.com"][..], false),
        (&["https://*.example.com"][..], true),
        (
            &["https://a.example.com", "https://*.example.com"][..],
            true,
        ),
    ] {
        let report = audit_of(url.clone(), origins, credentials).await;
        assert!(report.is_clean(), "{origins:?}:\n{report}");
        let readable = report.routes[0]
            .outcomes
            .iter()
            .filter(|o| o.is_readable() && o.hostility.is_none())
            .count();
        assert!(readable >= 2, "the declared origins read: {report}");
    }
    // Declared alone, an origin of the pattern has look-alikes the pattern allows: the audit
    // cannot know they are meant, and says so.
    let report = audit_of(url.clone(), &["https://a.example.com"], false).await;
    let finding = the_finding(&report, FindingKind::LookAlikeOriginAllowed);
    assert!(
        finding.message.contains("https://evila.example.com"),
        "{finding}"
    );

    let run = run_binary(&[&url, "--origin", "https://*.example.com", "--credentials"]).await;
    assert_eq!(run.code, 0, "{}", run.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn any_origin_with_credentials_is_one_finding() {
    let base = serve(servers::any_origin()).await;
    let url = format!("{base}/items");
    let report = audit_of(url.clone(), &[ALLOWED], true).await;
    assert_eq!(
        kinds(&report),
        [FindingKind::StarWithCredentials],
        "{report}"
    );
    let finding = the_finding(&report, FindingKind::StarWithCredentials);
    for case in [
        "get-credentials",
        "put-preflighted-credentials",
        "arbitrary-origin get",
    ] {
        assert!(
            finding.evidence.contains(&case.to_owned()),
            "{case}: {finding:?}"
        );
    }
    // A public API without credentials is fine: every site may read it by design.
    let report = audit_of(url, &[ALLOWED], false).await;
    assert!(report.is_clean(), "{report}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cross_site_form_post_that_reaches_the_handler() {
    let base = serve(servers::exact_with_form_target()).await;
    let url = format!("{base}/session");
    let report = audit_of(url.clone(), &[ALLOWED], true).await;
    assert_eq!(
        kinds(&report),
        [FindingKind::CrossSitePostReachesHandler],
        "{report}"
    );
    let finding = the_finding(&report, FindingKind::CrossSitePostReachesHandler);
    assert_eq!(
        finding.evidence,
        [
            "cross-site-form-post",
            "cross-site-form-post without-sec-fetch-site"
        ]
    );
    // Without cookies a forged form carries nothing of the user's: no probe, no finding.
    let report = audit_of(url, &[ALLOWED], false).await;
    assert!(report.is_clean(), "{report}");

    let base = serve(servers::exact_protected()).await;
    let report = audit_of(format!("{base}/session"), &[ALLOWED], true).await;
    assert!(report.is_clean(), "a 403 before the handler: {report}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_websocket_accepted_from_any_origin() {
    let base = serve(servers::websockets()).await;
    let report = audit_of(format!("{base}/ws"), &[ALLOWED], false).await;
    assert_eq!(
        kinds(&report),
        [FindingKind::WebSocketFromHostileOrigin],
        "{report}"
    );
    assert_eq!(
        the_finding(&report, FindingKind::WebSocketFromHostileOrigin).severity,
        Severity::Medium
    );
    let report = audit_of(format!("{base}/ws"), &[ALLOWED], true).await;
    assert_eq!(
        the_finding(&report, FindingKind::WebSocketFromHostileOrigin).severity,
        Severity::High,
        "the browser sends the user's cookies with the handshake"
    );
    let report = audit_of(format!("{base}/ws-checked"), &[ALLOWED], true).await;
    assert!(report.is_clean(), "{report}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sarif_for_code_scanning() {
    let base = serve(hand_written(servers::credentials_on_post_and_preflight)).await;
    let url = format!("{base}/items");
    let run = run_binary(&[&url, "--origin", ALLOWED, "--sarif", "-"]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    let sarif: serde_json::Value = serde_json::from_str(&run.stdout).expect("SARIF is JSON");
    assert_eq!(sarif["version"], "2.1.0");
    let runs = sarif["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let driver = &runs[0]["tool"]["driver"];
    assert_eq!(driver["name"], "cors-audit");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    assert!(
        driver["informationUri"]
            .as_str()
            .unwrap()
            .starts_with("https://")
    );
    let rules = driver["rules"].as_array().unwrap();
    assert_eq!(rules.len(), FindingKind::ALL.len());
    for rule in rules {
        assert!(
            rule["id"].is_string() && rule["help"]["text"].is_string(),
            "{rule}"
        );
    }
    let results = runs[0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for result in results {
        let rule = &rules[result["ruleIndex"].as_u64().unwrap() as usize];
        assert_eq!(result["ruleId"], rule["id"], "{result}");
        assert!(
            ["error", "warning", "note"].contains(&result["level"].as_str().unwrap()),
            "{result}"
        );
        assert!(result["message"]["text"].is_string(), "{result}");
        let location = &result["locations"][0];
        assert_eq!(
            location["physicalLocation"]["artifactLocation"]["uri"],
            url.as_str()
        );
        assert_eq!(location["logicalLocations"][0]["name"], url.as_str());
    }
    let arbitrary = results
        .iter()
        .find(|r| r["ruleId"] == "arbitrary-origin-reflected")
        .unwrap();
    assert_eq!(arbitrary["level"], "error", "high is an error");
    assert!(
        run.stderr
            .ends_with("cors-audit: 2 findings (1 high, 0 medium, 1 low) on 1 route\n"),
        "the summary goes to standard error: {}",
        run.stderr
    );

    // To a file, with the text report on standard output.
    let file = std::env::temp_dir().join(format!("cors-audit-{}.sarif", std::process::id()));
    let path = file.to_str().unwrap();
    let run = run_binary(&[&url, "--origin", ALLOWED, "--sarif", path]).await;
    assert_eq!(run.code, 1);
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(written["runs"][0]["results"], runs[0]["results"]);
    assert!(run.stdout.ends_with("on 1 route\n"), "{}", run.stdout);
    let _ = std::fs::remove_file(file);
}

#[test]
fn a_server_that_does_not_answer_is_exit_status_2() {
    // A port nothing listens on: bind one, then close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let run = run::run_binary_blocking(&[
        format!("http://127.0.0.1:{port}/"),
        "--origin".to_owned(),
        ALLOWED.to_owned(),
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("cors-audit: OPTIONS http://127.0.0.1:"),
        "{}",
        run.stderr
    );

    let run = run::run_binary_blocking(&[
        "http://127.0.0.1:1/".to_owned(),
        "--origin".to_owned(),
        "app.example".to_owned(),
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("`app.example` is not an origin"),
        "{}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_correct_port_wildcard_has_no_finding() {
    let options = cors_axum::CorsOptions::new()
        .origin("http://localhost:*")
        .credentials(true);
    let base = serve(servers::cors_axum(options, false)).await;
    let url = format!("{base}/items");
    for credentials in [false, true] {
        let report = audit_of(url.clone(), &["http://localhost:*"], credentials).await;
        assert!(report.is_clean(), "{report}");
    }
    let report = audit_of(url.clone(), &["http://localhost:*"], false).await;
    let origins: Vec<&str> = report.routes[0]
        .outcomes
        .iter()
        .filter_map(|o| o.origin.as_deref())
        .collect();
    assert!(origins.contains(&"http://localhost:8080"), "{origins:?}");
    assert!(
        origins.contains(&"http://evillocalhost:8080"),
        "{origins:?}"
    );
    assert!(!origins.contains(&"http://localhost:8443"), "{origins:?}");
    let run = run_binary(&[&url, "--origin", "http://localhost:*", "--credentials"]).await;
    assert_eq!(run.code, 0, "{}", run.stdout);
}

/// Credentials for the first-party list and not for the tenants' set: the report says which
/// origins get them, in the table and in JSON, and finds nothing wrong.
#[tokio::test(flavor = "multi_thread")]
async fn the_report_says_which_origins_get_credentials() {
    let tenant = "https://acme.example";
    let tenants = cors_axum::cors::OriginSet::new("tenants");
    tenants.insert(tenant).unwrap();
    let options = cors_axum::CorsOptions::new()
        .origin(ALLOWED)
        .origin_set(&tenants)
        .credentials(cors_axum::cors::Credentials::by_source().origin(true));
    let base = serve(servers::cors_axum(options, false)).await;
    let url = format!("{base}/items");
    let report = audit_of(url.clone(), &[ALLOWED, tenant], true).await;
    assert!(report.is_clean(), "{report}");
    let granted: Vec<(&str, bool)> = report.routes[0]
        .granted
        .iter()
        .map(|g| (g.origin.as_str(), g.credentials))
        .collect();
    assert_eq!(granted, [(ALLOWED, true), (tenant, false)], "{report}");
    assert!(
        report.to_string().contains(&format!(
            "origins granted: {ALLOWED} (with credentials), {tenant} (without credentials)"
        )),
        "{report}"
    );
    let run = run_binary(&[&url, "--origin", ALLOWED, "--origin", tenant, "--json"]).await;
    assert_eq!(run.code, 0, "{}", run.stdout);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        json["routes"][0]["granted"],
        serde_json::json!([
            {"origin": ALLOWED, "credentials": true},
            {"origin": tenant, "credentials": false},
        ])
    );
}

/// An API that grants each tenant's origins on its own host only: audited with `--host`, the
/// tenant's origin reads and nothing is found; without it (the address's host), the declared
/// origin is refused.
#[tokio::test(flavor = "multi_thread")]
async fn a_tenants_origin_audited_on_its_host() {
    use cors_axum::CorsOptions;
    use cors_axum::cors::TenantOrigins;

    let tenants = TenantOrigins::new("tenant_hosts");
    tenants
        .insert("acme.api.example", "https://app.acme.example")
        .unwrap();
    let router = servers::cors_axum(CorsOptions::new().tenant_origins(&tenants), false);
    let url = format!("{}/items", serve(router).await);
    let origin = "https://app.acme.example";
    let run = run_binary(&[&url, "--origin", origin, "--host", "acme.api.example"]).await;
    assert_eq!(run.code, 0, "{}", run.stdout);
    let run = run_binary(&[&url, "--origin", origin]).await;
    assert_eq!(run.code, 1, "{}", run.stdout);
    let run = run_binary(&[&url, "--origin", origin, "--host", "a\nb"]).await;
    assert_eq!(run.code, 2, "{}", run.stdout);
}
