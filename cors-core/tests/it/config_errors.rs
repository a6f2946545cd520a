//! Every misconfiguration is refused when compiling, with a message naming the option and the fix.

use cors_axum_core::{
    AllowHeaders, AllowMethods, AllowOrigin, CorsOptions, CorsPolicy, ExposeHeaders,
};
use std::time::Duration;

fn err(options: CorsOptions) -> cors_axum_core::CorsConfigError {
    CorsPolicy::from_options(&options).expect_err("options must be refused")
}

#[test]
fn table_of_misconfigurations() {
    let cases: Vec<(CorsOptions, &str, Option<&str>, &str)> = vec![
        (
            CorsOptions::new().credentials(true),
            "credentials",
            Some("true"),
            "invalid CORS option `credentials`: `credentials(true)` cannot be combined with any origin (`*`): \
             browsers refuse `Access-Control-Allow-Origin: *` on credentialed requests. List the allowed origins, \
             or use `AllowOrigin::mirror_request()` to reflect every origin deliberately",
        ),
        (
            CorsOptions::new()
                .origin("https://a.com")
                .credentials(true)
                .allow_headers("*"),
            "allow_headers",
            Some("*"),
            "invalid CORS option `allow_headers`: `*` is only a wildcard without credentials; with \
             `credentials(true)` browsers read it as a header named `*`. List the headers, or use \
             `mirror_request()` to allow the headers a preflight asks for",
        ),
        (
            CorsOptions::new()
                .origin("https://a.com")
                .credentials(true)
                .expose_headers("*"),
            "expose_headers",
            Some("*"),
            "invalid CORS option `expose_headers`: `*` is only a wildcard without credentials; with \
             `credentials(true)` browsers read it as a header named `*`. List the response headers scripts may read",
        ),
        (
            CorsOptions::new()
                .origin("https://a.com")
                .credentials(true)
                .methods("*"),
            "methods",
            Some("*"),
            "invalid CORS option `methods`: `*` is only a wildcard without credentials; with `credentials(true)` \
             browsers read it as a method named `*`. List the methods, or leave `methods` unset to allow the \
             route's methods",
        ),
        (
            CorsOptions::new().preflight_status(301),
            "preflight_status",
            Some("301"),
            "invalid CORS option `preflight_status`: 301 is not a 2xx status; browsers accept a \
             preflight only with a status from 200 to 299: use 204 (the default) or 200",
        ),
        (
            CorsOptions::new().preflight_status(http::StatusCode::BAD_REQUEST),
            "preflight_status",
            Some("400"),
            "invalid CORS option `preflight_status`: 400 is not a 2xx status; browsers accept a \
             preflight only with a status from 200 to 299: use 204 (the default) or 200",
        ),
        (
            CorsOptions::new().origin("https://example.com/"),
            "origin",
            Some("https://example.com/"),
            "invalid CORS option `origin`: `https://example.com/` has a path or a trailing slash; write it as \
             `https://example.com`",
        ),
        (
            CorsOptions::new().origin("https://example.com/app"),
            "origin",
            Some("https://example.com/app"),
            "invalid CORS option `origin`: `https://example.com/app` has a path or a trailing slash; write it as \
             `https://example.com`",
        ),
        (
            CorsOptions::new().origin("https://example.com?x=1"),
            "origin",
            Some("https://example.com?x=1"),
            "invalid CORS option `origin`: `https://example.com?x=1` has a query or a fragment; write it as \
             `https://example.com`",
        ),
        (
            CorsOptions::new().origin("https://example.com#top"),
            "origin",
            Some("https://example.com#top"),
            "invalid CORS option `origin`: `https://example.com#top` has a query or a fragment; write it as \
             `https://example.com`",
        ),
        (
            CorsOptions::new().origin("https://user:pw@example.com"),
            "origin",
            Some("https://user:pw@example.com"),
            "invalid CORS option `origin`: `https://user:pw@example.com` contains user information; write it as \
             `https://example.com`",
        ),
        (
            CorsOptions::new().origin("example.com"),
            "origin",
            Some("example.com"),
            "invalid CORS option `origin`: `example.com` is not an origin; write it as `scheme://host[:port]`, \
             e.g. `https://example.com`",
        ),
        (
            CorsOptions::new().origin("1ttps://example.com"),
            "origin",
            Some("1ttps://example.com"),
            "invalid CORS option `origin`: `1ttps://example.com` is not an origin; write it as \
             `scheme://host[:port]`, e.g. `https://example.com`",
        ),
        (
            CorsOptions::new().origin("https://"),
            "origin",
            Some("https://"),
            "invalid CORS option `origin`: `https://` has no host; write it as `scheme://host[:port]`, \
             e.g. `https://example.com`",
        ),
        (
            CorsOptions::new().origin("https://exa mple.com"),
            "origin",
            Some("https://exa mple.com"),
            "invalid CORS option `origin`: `https://exa mple.com` has an invalid host; a host is dot-separated \
             labels of letters, digits, `-` and `_`, or an IPv6 address in brackets, e.g. `https://app.example.com`",
        ),
        (
            CorsOptions::new().origin("https://a.com,https://b.com"),
            "origin",
            Some("https://a.com,https://b.com"),
            "invalid CORS option `origin`: `https://a.com,https://b.com` contains a comma; give several origins as \
             a list, e.g. `[\"https://a.example\", \"https://b.example\"]`",
        ),
        (
            CorsOptions::new().origin("https://example.com:99999"),
            "origin",
            Some("https://example.com:99999"),
            "invalid CORS option `origin`: `https://example.com:99999` has an invalid port; a port is a number \
             from 1 to 65535, e.g. `https://example.com:8443`",
        ),
        (
            CorsOptions::new().origin("https://*.*.example.com"),
            "origin",
            Some("https://*.*.example.com"),
            "invalid CORS option `origin`: `https://*.*.example.com` has more than one `*` in its host; only \
             the whole leftmost label of the host may be `*`, e.g. `https://*.example.com`",
        ),
        (
            CorsOptions::new().origin("http://localhost:51*"),
            "origin",
            Some("http://localhost:51*"),
            "invalid CORS option `origin`: `http://localhost:51*`: `*` in a port stands for the whole port, \
             any port, e.g. `http://localhost:*`; list the ports otherwise, e.g. `http://localhost:5173`",
        ),
        (
            CorsOptions::new().origin("http://localhost:*/app"),
            "origin",
            Some("http://localhost:*/app"),
            "invalid CORS option `origin`: `http://localhost:*/app` has a path or a trailing slash; write it as \
             `http://localhost:*`",
        ),
        (
            CorsOptions::new().origin("https://app-*.example.com"),
            "origin",
            Some("https://app-*.example.com"),
            "invalid CORS option `origin`: `https://app-*.example.com`: `*` must be the whole leftmost label of \
             the host, e.g. `https://*.example.com`",
        ),
        (
            CorsOptions::new().origin("https://api.*.example.com"),
            "origin",
            Some("https://api.*.example.com"),
            "invalid CORS option `origin`: `https://api.*.example.com`: `*` must be the whole leftmost label of \
             the host, e.g. `https://*.example.com`",
        ),
        (
            CorsOptions::new().origin("https://*.com"),
            "origin",
            Some("https://*.com"),
            "invalid CORS option `origin`: `https://*.com` would match every site registered under the public \
             suffix `com`; put `*` over a domain you control, e.g. `https://*.example.com`",
        ),
        (
            CorsOptions::new().origin(["https://a.com", "*"]),
            "origin",
            Some("*"),
            "invalid CORS option `origin`: `*` (any origin) cannot be part of a list; use `*` alone to allow any \
             origin, or list the origins",
        ),
        (
            CorsOptions::new().origin(["https://a.com", "null"]),
            "origin",
            Some("null"),
            "invalid CORS option `origin`: `null` is sent by sandboxed frames, `file:` pages and redirected \
             requests, which any site can produce; allow it deliberately with `allow_null_origin(true)`",
        ),
        (
            CorsOptions::new().allow_headers(["content-type", "x bad"]),
            "allow_headers",
            Some("x bad"),
            "invalid CORS option `allow_headers`: `x bad` is not a valid header name; a header name is a token \
             such as `content-type` or `x-requested-with`",
        ),
        (
            CorsOptions::new().allow_headers(["content-type", "*"]),
            "allow_headers",
            Some("*"),
            "invalid CORS option `allow_headers`: `*` (any header) cannot be part of a list; use `*` alone, or \
             list the headers",
        ),
        (
            CorsOptions::new().expose_headers(["x-request-id", "x:y"]),
            "expose_headers",
            Some("x:y"),
            "invalid CORS option `expose_headers`: `x:y` is not a valid header name; a header name is a token \
             such as `content-type` or `x-requested-with`",
        ),
        (
            CorsOptions::new().methods(["GET", "PO ST"]),
            "methods",
            Some("PO ST"),
            "invalid CORS option `methods`: `PO ST` is not a valid HTTP method; a method is a token such as \
             `GET` or `PATCH`",
        ),
        (
            CorsOptions::new().methods(["GET", "patch"]),
            "methods",
            Some("patch"),
            "invalid CORS option `methods`: `patch`: methods are case-sensitive and browsers send this one \
             uppercase; write `PATCH`",
        ),
        (
            CorsOptions::new().methods(["GET", "*"]),
            "methods",
            Some("*"),
            "invalid CORS option `methods`: `*` (any method) cannot be part of a list; use `*` alone to allow \
             any method, or list the methods",
        ),
        (
            CorsOptions::new().max_age(u64::from(u32::MAX) + 1),
            "max_age",
            Some("4294967296"),
            "invalid CORS option `max_age`: 4294967296 seconds is more than the largest accepted value, \
             4294967295; browsers cap the preflight cache anyway (Chromium at 7200 s, Firefox at 86400 s), so \
             use at most 86400",
        ),
    ];
    for (options, field, value, message) in cases {
        let error = err(options);
        assert_eq!(error.to_string(), message);
        assert_eq!(error.field(), field, "{message}");
        assert_eq!(error.value(), value, "{message}");
    }
}

#[test]
fn errors_are_std_errors() {
    let error: Box<dyn std::error::Error + Send + Sync> =
        Box::new(err(CorsOptions::new().credentials(true)));
    assert!(
        error
            .to_string()
            .starts_with("invalid CORS option `credentials`")
    );
}

#[test]
fn valid_configurations_compile() {
    let ok = [
        CorsOptions::new(),
        CorsOptions::new()
            .origin(AllowOrigin::mirror_request())
            .credentials(true),
        CorsOptions::new()
            .origin(AllowOrigin::predicate(|_| true))
            .credentials(true),
        CorsOptions::new()
            .origin([
                "https://a.com",
                "null",
                "https://*.b.co.uk:8443",
                "http://[::1]:3000",
            ])
            .allow_null_origin(true)
            .credentials(true)
            .methods(AllowMethods::mirror_request())
            .allow_headers(AllowHeaders::mirror_request())
            .expose_headers(ExposeHeaders::list(["X-Request-Id"])),
        CorsOptions::new()
            .methods(["PURGE", "GET"])
            .max_age(Duration::from_secs(7200)),
        CorsOptions::new().max_age(u64::from(u32::MAX)),
        CorsOptions::new().origin("HTTPS://EXAMPLE.COM:443"),
        CorsOptions::new().origin(Vec::<String>::new()),
        CorsOptions::new().preflight_status(200),
        CorsOptions::new().preflight_status(299),
        CorsOptions::new().preflight_status(http::StatusCode::ACCEPTED),
    ];
    for options in ok {
        CorsPolicy::from_options(&options).unwrap_or_else(|e| panic!("{options:?}: {e}"));
    }
}

#[test]
fn route_compilation_also_validates() {
    let error = CorsPolicy::for_route(&CorsOptions::new().credentials(true), &[http::Method::GET])
        .unwrap_err();
    assert_eq!(error.field(), "credentials");
}

#[cfg(feature = "serde")]
#[test]
fn deserialized_options_are_validated_too() {
    let options: CorsOptions =
        serde_json::from_str(r#"{"origin": ["https://a.com/"], "credentials": true}"#).unwrap();
    assert_eq!(err(options).value(), Some("https://a.com/"));
    let options: CorsOptions =
        serde_json::from_str(r#"{"origin": "*", "credentials": true}"#).unwrap();
    assert_eq!(err(options).field(), "credentials");
}

#[cfg(feature = "serde")]
#[test]
fn any_2xx_preflight_status_and_a_build_error_otherwise() {
    let compile = |json: &str| {
        let options: CorsOptions = serde_json::from_str(json).unwrap();
        CorsPolicy::from_options(&options).map(|p| p.preflight_status())
    };
    for code in [200u16, 204, 299] {
        let status = compile(&format!(r#"{{"preflight_status": {code}}}"#)).unwrap();
        assert_eq!(status.as_u16(), code);
    }
    for code in [0u64, 199, 300, 404, 1000, 70000] {
        let err = compile(&format!(r#"{{"preflight_status": {code}}}"#)).unwrap_err();
        assert_eq!(err.field(), "preflight_status");
        assert_eq!(err.value(), Some(code.to_string().as_str()));
        assert!(err.to_string().contains("is not a 2xx status"), "{err}");
    }
    assert!(serde_json::from_str::<CorsOptions>(r#"{"preflight_status": "204"}"#).is_err());
}

#[cfg(feature = "serde")]
#[test]
fn origin_mirror_is_mirror_request() {
    let options: CorsOptions = serde_json::from_str(r#"{"origin": "mirror"}"#).unwrap();
    assert_eq!(
        format!("{options:?}"),
        format!(
            "{:?}",
            CorsOptions::new().origin(AllowOrigin::mirror_request())
        )
    );
    let options: CorsOptions =
        serde_json::from_str(r#"{"origin": "mirror", "credentials": true}"#).unwrap();
    assert!(CorsPolicy::from_options(&options).is_ok());
    let options: CorsOptions = serde_json::from_str(r#"{"origin": ["mirror"]}"#).unwrap();
    assert_eq!(
        CorsPolicy::from_options(&options).unwrap_err().field(),
        "origin"
    );
}

#[cfg(feature = "serde")]
#[test]
fn port_wildcards_in_files() {
    use cors_axum_core::CorsRequest;
    use http::{HeaderMap, HeaderValue, Method};

    let options: CorsOptions =
        serde_json::from_str(r#"{"origin": ["http://localhost:*"], "credentials": true}"#).unwrap();
    let policy = CorsPolicy::from_options(&options).unwrap();
    let mut request = HeaderMap::new();
    request.insert("origin", HeaderValue::from_static("http://localhost:5173"));
    assert!(
        policy
            .actual(&CorsRequest::new(&Method::GET, &request))
            .is_allowed()
    );
    request.insert("origin", HeaderValue::from_static("http://localhost"));
    assert!(
        !policy
            .actual(&CorsRequest::new(&Method::GET, &request))
            .is_allowed()
    );

    let options: CorsOptions =
        serde_json::from_str(r#"{"origin": "http://localhost:5*"}"#).unwrap();
    let err = err(options);
    assert_eq!(err.field(), "origin");
    assert_eq!(err.value(), Some("http://localhost:5*"));
    assert!(err.to_string().contains("`http://localhost:*`"), "{err}");
}

#[cfg(feature = "public-suffix")]
#[test]
fn patterns_over_public_suffixes_are_refused_naming_the_suffix() {
    let cases = [
        (
            "https://*.co.uk",
            "`https://*.co.uk` would match every site registered under the public suffix `co.uk`; put \
             `*` over a domain you control, e.g. `https://*.example.co.uk`",
        ),
        (
            "https://*.com.au:*",
            "`https://*.com.au:*` would match every site registered under the public suffix `com.au`; \
             put `*` over a domain you control, e.g. `https://*.example.com.au:*`",
        ),
        (
            "https://*.GitHub.io",
            "`https://*.GitHub.io` would match every site of every customer of `github.io`, a public \
             suffix (private section of the Public Suffix List); put `*` over a domain you control, e.g. \
             `https://*.example.GitHub.io`, or, if you run `github.io` itself, declare it with \
             `owned_public_suffixes([\"github.io\"])`",
        ),
    ];
    for (pattern, message) in cases {
        let err = err(CorsOptions::new().origin(pattern));
        assert_eq!(err.field(), "origin");
        assert_eq!(err.value(), Some(pattern));
        assert_eq!(
            err.to_string(),
            format!("invalid CORS option `origin`: {message}")
        );
    }
    // Owned private-section suffixes are allowed once declared; ICANN ones never.
    for pattern in ["https://*.github.io", "https://*.vercel.app:*"] {
        let options = CorsOptions::new()
            .origin(pattern)
            .owned_public_suffixes(["vercel.app", "GITHUB.IO"]);
        assert!(CorsPolicy::from_options(&options).is_ok(), "{pattern}");
    }
    let err = err(CorsOptions::new()
        .origin("https://*.co.uk")
        .owned_public_suffixes(["co.uk"]));
    assert_eq!(err.field(), "owned_public_suffixes");
    assert_eq!(err.value(), Some("co.uk"));
    // Domains under a suffix are anyone's own.
    for pattern in [
        "https://*.example.co.uk",
        "https://*.someone.github.io",
        "https://*.example.com",
    ] {
        assert!(
            CorsPolicy::from_options(&CorsOptions::new().origin(pattern)).is_ok(),
            "{pattern}"
        );
    }
}

#[test]
fn patterns_over_top_level_domains_are_refused_with_or_without_the_list() {
    for pattern in ["https://*.com", "https://*.lan:*", "http://*.dev"] {
        let err = err(CorsOptions::new()
            .origin(pattern)
            .owned_public_suffixes(["example.org"]));
        assert_eq!(err.field(), "origin");
        assert!(err.to_string().contains("public suffix"), "{err}");
    }
    for owned in ["com", "lan", "dev"] {
        let err = err(CorsOptions::new().owned_public_suffixes([owned]));
        assert_eq!(err.field(), "owned_public_suffixes");
        assert!(err.to_string().contains("no one owns it"), "{err}");
        assert!(err.to_string().contains("`internal`, `corp`"), "{err}");
    }
    // Loopback names are no one's registrations.
    assert!(CorsPolicy::from_options(&CorsOptions::new().origin("http://*.localhost:*")).is_ok());
}

#[test]
fn patterns_under_names_kept_for_private_networks_are_declared_owned() {
    for (pattern, name) in [
        ("https://*.internal", "internal"),
        ("https://*.corp:*", "corp"),
        ("http://*.test", "test"),
    ] {
        let err = err(CorsOptions::new().origin(pattern));
        assert_eq!(err.field(), "origin");
        assert_eq!(
            err.to_string(),
            format!(
                "invalid CORS option `origin`: `{pattern}` would match every name under `{name}`, a \
                 top-level name kept for private networks, which no one owns on the public \
                 internet; put `*` over a domain you control, e.g. `{}`, or, if your network alone \
                 resolves `{name}`, declare it with `owned_public_suffixes([\"{name}\"])`",
                pattern.replacen("*.", "*.example.", 1)
            )
        );
        let owned = CorsOptions::new()
            .origin(pattern)
            .owned_public_suffixes([name.to_ascii_uppercase()]);
        assert!(CorsPolicy::from_options(&owned).is_ok(), "{pattern}");
    }
    // Declaring one name does not declare another.
    let err = err(CorsOptions::new()
        .origin("https://*.corp")
        .owned_public_suffixes(["internal"]));
    assert_eq!(err.value(), Some("https://*.corp"));
    // Below such a name, a domain is the organisation's own already.
    assert!(
        CorsPolicy::from_options(&CorsOptions::new().origin("https://*.acme.internal")).is_ok()
    );
}

#[test]
fn patterns_over_ip_addresses_are_refused_naming_the_fix() {
    for pattern in [
        "https://*.0.0.1",
        "http://*.168.1.1:*",
        "https://*.1",
        "https://*.[::1]",
    ] {
        let err = err(CorsOptions::new().origin(pattern));
        assert_eq!(err.field(), "origin");
        assert_eq!(err.value(), Some(pattern));
        assert_eq!(
            err.to_string(),
            format!(
                "invalid CORS option `origin`: `{pattern}`: `*` over an IP address (or a host ending \
                 in a number, which browsers read as an IPv4 address) would match addresses, not \
                 subdomains; put `*` over a domain name, e.g. `https://*.example.com`, or list each \
                 address, e.g. `https://10.0.0.1`"
            )
        );
    }
    // Exact addresses stay allowed, and so do names with digits.
    for origin in [
        "https://10.0.0.1",
        "https://*.1password.com",
        "https://*.s3.example",
    ] {
        assert!(
            CorsPolicy::from_options(&CorsOptions::new().origin(origin)).is_ok(),
            "{origin}"
        );
    }
}

#[cfg(feature = "serde")]
#[test]
fn owned_public_suffixes_in_files() {
    let options: CorsOptions = serde_json::from_str(
        r#"{"origin": "https://*.myplatform.github.io", "owned_public_suffixes": ["github.io"]}"#,
    )
    .unwrap();
    assert!(CorsPolicy::from_options(&options).is_ok());
    let options: CorsOptions = serde_json::from_str(
        r#"{"origin": ["https://*.github.io"], "owned_public_suffixes": ["github.io"]}"#,
    )
    .unwrap();
    assert!(CorsPolicy::from_options(&options).is_ok());
    let options: CorsOptions =
        serde_json::from_str(r#"{"owned_public_suffixes": ["https://github.io"]}"#).unwrap();
    assert_eq!(err(options).field(), "owned_public_suffixes");
}

#[test]
fn plain_http_origins_with_credentials_need_the_dangerous_opt_in() {
    for origin in [
        "http://app.example",
        "HTTP://App.Example:8080",
        "http://*.example.com",
        "http://intranet.example:*",
        "http://10.0.0.2:3000",
        "http://localhost.evil.test",
    ] {
        let options = CorsOptions::new()
            .origin(["https://example.com", origin])
            .credentials(true);
        let err = err(options.clone());
        assert_eq!(err.field(), "origin");
        assert_eq!(err.value(), Some(origin));
        let message = err.to_string();
        assert!(
            message.contains("a network attacker can impersonate a plain-HTTP origin"),
            "{message}"
        );
        assert!(
            message.contains("`dangerously_allow_insecure_origins(true)`"),
            "{message}"
        );
        assert!(
            CorsPolicy::from_options(&options.dangerously_allow_insecure_origins(true)).is_ok(),
            "{origin}"
        );
        // Without credentials there is nothing to steal.
        assert!(CorsPolicy::from_options(&CorsOptions::new().origin(origin)).is_ok());
    }
    assert_eq!(
        err(CorsOptions::new()
            .origin("http://app.example:8080")
            .credentials(true))
        .to_string(),
        "invalid CORS option `origin`: `http://app.example:8080` is plain HTTP and `credentials(true)` \
         shares credentialed responses with it: a network attacker can impersonate a plain-HTTP origin \
         and read them. Allow `https://app.example:8080` instead (plain HTTP is accepted on loopback: \
         `localhost`, `*.localhost`, `127.0.0.0/8`, `[::1]`), or accept the risk with \
         `dangerously_allow_insecure_origins(true)`"
    );
    // Loopback, HTTPS and other decisions are not checked.
    for origin in [
        "http://localhost:3000",
        "http://localhost:*",
        "http://*.localhost:*",
        "http://127.0.0.1:8080",
        "http://127.10.0.1",
        "http://[::1]:*",
        "https://app.example",
    ] {
        let options = CorsOptions::new().origin(origin).credentials(true);
        assert!(CorsPolicy::from_options(&options).is_ok(), "{origin}");
    }
    let mirror = CorsOptions::new()
        .origin(AllowOrigin::mirror_request())
        .credentials(true);
    assert!(CorsPolicy::from_options(&mirror).is_ok());
    // Merged field by field: a route may switch the opt-in off again.
    let module = CorsOptions::new()
        .origin("http://app.example")
        .dangerously_allow_insecure_origins(true);
    let route = CorsOptions::new().credentials(true);
    assert!(CorsPolicy::from_options(&module.merge(&route)).is_ok());
    let strict = route.dangerously_allow_insecure_origins(false);
    assert_eq!(err(module.merge(&strict)).field(), "origin");
}

#[cfg(feature = "serde")]
#[test]
fn insecure_origins_opt_in_in_files() {
    let options: CorsOptions =
        serde_json::from_str(r#"{"origin": ["http://app.example"], "credentials": true}"#).unwrap();
    assert_eq!(err(options).field(), "origin");
    let options: CorsOptions = serde_json::from_str(
        r#"{"origin": ["http://app.example"], "credentials": true,
            "dangerously_allow_insecure_origins": true}"#,
    )
    .unwrap();
    assert!(CorsPolicy::from_options(&options).is_ok());
}
