//! The browser model (`cors_audit::browser`): the Fetch standard's rules, case by case.

use http::header::AUTHORIZATION;
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};

use cors_audit::browser::*;

const PAGE: &str = "https://app.example";

fn request(method: &str) -> ScriptRequest {
    ScriptRequest::new(PAGE, method).unwrap()
}

fn answer(headers: &[(&'static str, &'static str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        map.append(*name, HeaderValue::from_static(value));
    }
    map
}

fn preflight(
    request: &ScriptRequest,
    headers: &[(&'static str, &'static str)],
) -> Result<u64, PreflightFailure> {
    request
        .check_preflight(StatusCode::NO_CONTENT, &answer(headers))
        .map(|accepted| accepted.max_age().as_secs())
}

#[test]
fn origins_are_serialized_origins_or_null() {
    for origin in [
        "https://app.example",
        "http://localhost:3000",
        "http://[::1]:8080",
        "null",
    ] {
        assert!(ScriptRequest::new(origin, "GET").is_ok(), "{origin}");
    }
    for origin in [
        "https://App.example",
        "https://app.example:443",
        "https://app.example/",
        "app.example",
        "",
    ] {
        assert_eq!(
            ScriptRequest::new(origin, "GET").unwrap_err(),
            ScriptError::InvalidOrigin(origin.to_owned()),
        );
    }
}

#[test]
fn methods_are_normalised_or_refused_as_fetch_does() {
    for (written, sent) in [
        ("get", "GET"),
        ("Post", "POST"),
        ("put", "PUT"),
        ("delete", "DELETE"),
        ("options", "OPTIONS"),
        ("head", "HEAD"),
        // Not normalised: methods are case-sensitive.
        ("patch", "patch"),
        ("PURGE", "PURGE"),
    ] {
        assert_eq!(request(written).method().as_str(), sent, "{written}");
    }
    for forbidden in ["CONNECT", "trace", "Track"] {
        assert_eq!(
            ScriptRequest::new(PAGE, forbidden).unwrap_err(),
            ScriptError::ForbiddenMethod(forbidden.to_owned())
        );
    }
    assert!(matches!(
        ScriptRequest::new(PAGE, "GE T"),
        Err(ScriptError::InvalidMethod(_))
    ));
}

#[test]
fn headers_are_trimmed_and_forbidden_ones_dropped() {
    let request = request("GET")
        .header("X-Custom", "  value\t")
        .unwrap()
        .header("Origin", "https://evil.example")
        .unwrap()
        .header("Cookie", "a=b")
        .unwrap()
        .header("Sec-Fetch-Mode", "no-cors")
        .unwrap();
    let sent = request.request_headers();
    assert_eq!(sent["x-custom"], "value");
    assert_eq!(sent["origin"], PAGE, "the script cannot set `Origin`");
    assert!(sent.get("cookie").is_none());
    assert!(sent.get("sec-fetch-mode").is_none());
    assert!(matches!(
        ScriptRequest::new(PAGE, "GET").unwrap().header("x y", "1"),
        Err(ScriptError::InvalidHeaderName(_))
    ));
    assert!(matches!(
        ScriptRequest::new(PAGE, "GET").unwrap().header("x", "a\nb"),
        Err(ScriptError::InvalidHeaderValue(_))
    ));
}

#[test]
fn a_preflight_is_needed_for_unsafe_methods_and_headers() {
    let simple = |r: Result<ScriptRequest, ScriptError>| !r.unwrap().needs_preflight();
    assert!(simple(Ok(request("GET"))));
    assert!(simple(Ok(request("HEAD"))));
    assert!(simple(
        request("POST").header("Content-Type", "text/plain;charset=UTF-8")
    ));
    assert!(simple(
        request("POST").header("content-type", "multipart/form-data; boundary=x")
    ));
    assert!(simple(request("GET").header("Accept", "application/json")));
    assert!(simple(
        request("GET").header("Accept-Language", "en-US,en;q=0.5")
    ));
    assert!(simple(request("GET").header("Range", "bytes=0-99")));

    assert!(!simple(Ok(request("PUT"))));
    assert!(!simple(Ok(request("DELETE"))));
    assert!(!simple(Ok(request("patch"))));
    assert!(!simple(Ok(request("OPTIONS"))));
    assert!(!simple(
        request("POST").header("Content-Type", "application/json")
    ));
    assert!(!simple(
        request("GET").header("X-Requested-With", "XMLHttpRequest")
    ));
    assert!(!simple(request("GET").header("Authorization", "Bearer x")));
    assert!(!simple(request("GET").header("Range", "bytes=-99")));
    assert!(!simple(Ok(request("GET").private_network(true))));
}

#[test]
fn the_preflight_lists_unsafe_names_sorted_lowercase_without_spaces() {
    let request = request("put")
        .header("X-B", "1")
        .unwrap()
        .header("Content-Type", "application/json")
        .unwrap()
        .header("Accept", "*/*")
        .unwrap()
        .header("x-a", "1")
        .unwrap();
    let headers = request.preflight_headers();
    assert_eq!(headers["origin"], PAGE);
    assert_eq!(headers["accept"], "*/*");
    assert_eq!(headers["access-control-request-method"], "PUT");
    assert_eq!(
        headers["access-control-request-headers"],
        "content-type,x-a,x-b"
    );
    assert!(
        headers
            .get("access-control-request-private-network")
            .is_none()
    );

    let plain = ScriptRequest::new(PAGE, "DELETE")
        .unwrap()
        .private_network(true);
    let headers = plain.preflight_headers();
    assert!(headers.get("access-control-request-headers").is_none());
    assert_eq!(headers["access-control-request-private-network"], "true");
}

#[test]
fn the_cors_check() {
    let omit = request("GET");
    let include = request("GET").credentials(CredentialsMode::Include);
    let same_origin = request("GET").credentials(CredentialsMode::SameOrigin);

    assert_eq!(check(&omit, &[]), Err(CorsCheckFailure::MissingAllowOrigin));
    assert_eq!(
        check(&omit, &[("access-control-allow-origin", "*")]),
        Ok(())
    );
    assert_eq!(
        check(&same_origin, &[("access-control-allow-origin", "*")]),
        Ok(())
    );
    assert_eq!(
        check(
            &include,
            &[
                ("access-control-allow-origin", "*"),
                ("access-control-allow-credentials", "true")
            ]
        ),
        Err(CorsCheckFailure::WildcardWithCredentials)
    );
    assert_eq!(
        check(&omit, &[("access-control-allow-origin", PAGE)]),
        Ok(())
    );
    assert_eq!(
        check(
            &omit,
            &[("access-control-allow-origin", "https://APP.example")]
        ),
        Err(CorsCheckFailure::AllowOriginMismatch {
            allowed: HeaderValue::from_static("https://APP.example"),
            origin: HeaderValue::from_static(PAGE),
        })
    );
    assert!(
        check(
            &omit,
            &[("access-control-allow-origin", "https://app.example:443")]
        )
        .is_err(),
        "byte for byte: a default port is another value"
    );
    assert_eq!(
        check(
            &omit,
            &[
                ("access-control-allow-origin", PAGE),
                ("access-control-allow-origin", PAGE)
            ]
        ),
        Err(CorsCheckFailure::SeveralAllowOrigins)
    );
}

/// The CORS check of `request` on an answer with `headers`.
fn check(
    request: &ScriptRequest,
    headers: &[(&'static str, &'static str)],
) -> Result<(), CorsCheckFailure> {
    request.check_response(&answer(headers)).map(|_| ())
}

#[test]
fn the_cors_check_of_credentials() {
    let omit = request("GET");
    let include = request("GET").credentials(CredentialsMode::Include);
    // Credentials: exactly `true`, in one line.
    assert_eq!(
        check(&include, &[("access-control-allow-origin", PAGE)]),
        Err(CorsCheckFailure::AllowCredentialsNotTrue { found: None })
    );
    assert_eq!(
        check(
            &include,
            &[
                ("access-control-allow-origin", PAGE),
                ("access-control-allow-credentials", "TRUE")
            ]
        ),
        Err(CorsCheckFailure::AllowCredentialsNotTrue {
            found: Some("TRUE".to_owned())
        })
    );
    assert_eq!(
        check(
            &include,
            &[
                ("access-control-allow-origin", PAGE),
                ("access-control-allow-credentials", "true"),
                ("access-control-allow-credentials", "true"),
            ]
        ),
        Err(CorsCheckFailure::AllowCredentialsNotTrue {
            found: Some("true, true".to_owned())
        })
    );
    assert_eq!(
        check(
            &include,
            &[
                ("access-control-allow-origin", PAGE),
                ("access-control-allow-credentials", "true")
            ]
        ),
        Ok(())
    );
    // Without credentials, `Access-Control-Allow-Credentials` does not matter.
    assert_eq!(
        check(
            &omit,
            &[
                ("access-control-allow-origin", PAGE),
                ("access-control-allow-credentials", "false")
            ]
        ),
        Ok(())
    );
    // `null` is an origin like any other, byte for byte.
    let null = ScriptRequest::new("null", "GET").unwrap();
    assert_eq!(
        check(&null, &[("access-control-allow-origin", "null")]),
        Ok(())
    );
}

#[test]
fn the_cors_check_comes_before_the_status() {
    let put = request("PUT");
    let refused = put.check_preflight(StatusCode::FORBIDDEN, &answer(&[]));
    assert_eq!(
        refused,
        Err(PreflightFailure::Cors(CorsCheckFailure::MissingAllowOrigin))
    );
    for status in [
        StatusCode::OK,
        StatusCode::NO_CONTENT,
        StatusCode::from_u16(299).unwrap(),
    ] {
        let ok = put.check_preflight(
            status,
            &answer(&[
                ("access-control-allow-origin", "*"),
                ("access-control-allow-methods", "PUT"),
            ]),
        );
        assert!(ok.is_ok(), "{status}");
    }
    for status in [
        StatusCode::MOVED_PERMANENTLY,
        StatusCode::FORBIDDEN,
        StatusCode::from_u16(300).unwrap(),
    ] {
        let refused = put.check_preflight(
            status,
            &answer(&[
                ("access-control-allow-origin", "*"),
                ("access-control-allow-methods", "PUT"),
            ]),
        );
        assert_eq!(refused, Err(PreflightFailure::NotOkStatus(status)));
    }
}

#[test]
fn methods_compare_case_sensitively() {
    let acao = ("access-control-allow-origin", PAGE);
    assert_eq!(
        preflight(
            &request("PUT"),
            &[acao, ("access-control-allow-methods", "GET, PUT")]
        ),
        Ok(5)
    );
    assert_eq!(
        preflight(
            &request("PUT"),
            &[acao, ("access-control-allow-methods", "put")]
        ),
        Err(PreflightFailure::MethodNotAllowed {
            method: Method::PUT,
            wildcard_with_credentials: false
        })
    );
    assert!(
        preflight(
            &request("patch"),
            &[acao, ("access-control-allow-methods", "PATCH")]
        )
        .is_err()
    );
    assert!(
        preflight(
            &request("patch"),
            &[acao, ("access-control-allow-methods", "patch")]
        )
        .is_ok()
    );
}

#[test]
fn methods_lists_star_and_malformed_lists() {
    let acao = ("access-control-allow-origin", PAGE);
    let acac = ("access-control-allow-credentials", "true");
    // Several lines and empty elements form one list.
    assert!(
        preflight(
            &request("PUT"),
            &[
                acao,
                ("access-control-allow-methods", "GET,,"),
                ("access-control-allow-methods", " PUT ")
            ]
        )
        .is_ok()
    );
    assert!(
        preflight(
            &request("PUT"),
            &[acao, ("access-control-allow-methods", "*")]
        )
        .is_ok()
    );
    let include = request("PUT").credentials(CredentialsMode::Include);
    assert_eq!(
        preflight(
            &include,
            &[acao, acac, ("access-control-allow-methods", "*")]
        ),
        Err(PreflightFailure::MethodNotAllowed {
            method: Method::PUT,
            wildcard_with_credentials: true
        })
    );
    assert!(
        preflight(
            &include,
            &[acao, acac, ("access-control-allow-methods", "PUT")]
        )
        .is_ok()
    );
    // A safelisted method needs no `Access-Control-Allow-Methods`.
    let post = request("POST").header("x-custom", "1").unwrap();
    assert!(preflight(&post, &[acao, ("access-control-allow-headers", "x-custom")]).is_ok());
    // A list that is not a list of methods fails the preflight.
    assert_eq!(
        preflight(
            &request("PUT"),
            &[acao, ("access-control-allow-methods", "PUT; GET")]
        ),
        Err(PreflightFailure::MalformedAllowMethods)
    );
    assert_eq!(
        preflight(
            &request("PUT"),
            &[
                acao,
                ("access-control-allow-methods", "PUT"),
                ("access-control-allow-headers", "x y")
            ]
        ),
        Err(PreflightFailure::MalformedAllowHeaders)
    );
}

#[test]
fn headers_compare_case_insensitively_and_star_never_covers_authorization() {
    let acao = ("access-control-allow-origin", PAGE);
    let acac = ("access-control-allow-credentials", "true");
    let custom = request("GET").header("X-Custom", "1").unwrap();
    assert!(
        preflight(
            &custom,
            &[acao, ("access-control-allow-headers", "x-CUSTOM")]
        )
        .is_ok()
    );
    assert!(preflight(&custom, &[acao, ("access-control-allow-headers", "*")]).is_ok());
    assert_eq!(
        preflight(
            &custom,
            &[acao, ("access-control-allow-headers", "x-other")]
        ),
        Err(PreflightFailure::HeaderNotAllowed {
            name: HeaderName::from_static("x-custom"),
            wildcard_ignored: false
        })
    );
    let custom = custom.credentials(CredentialsMode::Include);
    assert_eq!(
        preflight(
            &custom,
            &[acao, acac, ("access-control-allow-headers", "*")]
        ),
        Err(PreflightFailure::HeaderNotAllowed {
            name: HeaderName::from_static("x-custom"),
            wildcard_ignored: true
        })
    );
    let auth = request("GET").header("Authorization", "Bearer x").unwrap();
    let refused = preflight(&auth, &[acao, ("access-control-allow-headers", "*")]);
    assert_eq!(
        refused,
        Err(PreflightFailure::HeaderNotAllowed {
            name: AUTHORIZATION,
            wildcard_ignored: true
        })
    );
    assert_eq!(
        refused.unwrap_err().to_string(),
        "the preflight answer does not allow the header `authorization` (`*` does not cover `authorization`)"
    );
    assert!(
        preflight(
            &auth,
            &[acao, ("access-control-allow-headers", "*, Authorization")]
        )
        .is_ok()
    );
    // Safelisted headers need no allowance.
    let plain = request("PUT").header("Content-Type", "text/plain").unwrap();
    assert!(preflight(&plain, &[acao, ("access-control-allow-methods", "PUT")]).is_ok());
}

#[test]
fn max_age_is_one_number_or_five_seconds() {
    let acao = ("access-control-allow-origin", "*");
    let methods = ("access-control-allow-methods", "PUT");
    let put = request("PUT");
    assert_eq!(preflight(&put, &[acao, methods]), Ok(5));
    assert_eq!(
        preflight(&put, &[acao, methods, ("access-control-max-age", "600")]),
        Ok(600)
    );
    assert_eq!(
        preflight(&put, &[acao, methods, ("access-control-max-age", "0")]),
        Ok(0)
    );
    for bad in ["-1", "1.5", "abc", "", "60 "] {
        assert_eq!(
            preflight(&put, &[acao, methods, ("access-control-max-age", bad)]),
            Ok(5),
            "{bad:?}"
        );
    }
    assert_eq!(
        preflight(
            &put,
            &[
                acao,
                methods,
                ("access-control-max-age", "1"),
                ("access-control-max-age", "2")
            ]
        ),
        Ok(5)
    );
}

#[test]
fn private_network_access_needs_its_own_allowance() {
    let acao = ("access-control-allow-origin", "*");
    let get = request("GET").private_network(true);
    assert_eq!(
        preflight(&get, &[acao]),
        Err(PreflightFailure::PrivateNetworkNotAllowed)
    );
    assert_eq!(
        preflight(
            &get,
            &[acao, ("access-control-allow-private-network", "TRUE")]
        ),
        Err(PreflightFailure::PrivateNetworkNotAllowed)
    );
    assert_eq!(
        preflight(
            &get,
            &[acao, ("access-control-allow-private-network", "true")]
        ),
        Ok(5)
    );
}

#[test]
fn exposed_headers() {
    let response = |extra: &[(&'static str, &'static str)]| {
        let mut headers = answer(&[
            ("access-control-allow-origin", PAGE),
            ("access-control-allow-credentials", "true"),
            ("content-type", "text/plain"),
            ("cache-control", "no-store"),
            ("x-request-id", "1"),
            ("x-other", "1"),
            ("set-cookie", "a=b"),
        ]);
        for (name, value) in extra {
            headers.append(*name, HeaderValue::from_static(value));
        }
        headers
    };
    let names = |readable: ReadableResponse| -> Vec<String> {
        readable
            .exposed_headers()
            .iter()
            .map(|n| n.as_str().to_owned())
            .collect()
    };
    let omit = request("GET");
    let include = request("GET").credentials(CredentialsMode::Include);

    let only_safelisted = ["cache-control", "content-type"];
    assert_eq!(
        names(omit.check_response(&response(&[])).unwrap()),
        only_safelisted
    );
    let listed = omit
        .check_response(&response(&[(
            "access-control-expose-headers",
            "X-Request-Id, set-cookie",
        )]))
        .unwrap();
    assert!(listed.is_exposed("X-REQUEST-ID"));
    assert!(!listed.is_exposed("set-cookie"), "never `Set-Cookie`");
    assert_eq!(
        names(listed),
        ["cache-control", "content-type", "x-request-id"]
    );
    // `*` exposes every name without credentials...
    let all = omit
        .check_response(&response(&[("access-control-expose-headers", "*")]))
        .unwrap();
    assert_eq!(
        names(all),
        [
            "access-control-allow-credentials",
            "access-control-allow-origin",
            "access-control-expose-headers",
            "cache-control",
            "content-type",
            "x-other",
            "x-request-id"
        ]
    );
    // ... and only a header named `*` with them.
    let star = include
        .check_response(&response(&[("access-control-expose-headers", "*")]))
        .unwrap();
    assert_eq!(names(star), only_safelisted);
    // A list that is not one exposes nothing more.
    let bad = omit
        .check_response(&response(&[(
            "access-control-expose-headers",
            "x-request-id; x-other",
        )]))
        .unwrap();
    assert_eq!(names(bad), only_safelisted);
}

#[test]
fn fetch_sends_a_preflight_only_when_needed_and_stops_at_a_refusal() {
    let mut seen = Vec::new();
    let mut server = |method: &Method, headers: &HeaderMap| {
        seen.push((
            method.clone(),
            headers.contains_key("access-control-request-method"),
        ));
        (
            StatusCode::OK,
            answer(&[("access-control-allow-origin", "*")]),
        )
    };
    assert!(request("GET").fetch(&mut server).is_ok());
    assert_eq!(seen, [(Method::GET, false)]);

    seen.clear();
    let mut server = |method: &Method, headers: &HeaderMap| {
        seen.push((
            method.clone(),
            headers.contains_key("access-control-request-method"),
        ));
        (
            StatusCode::OK,
            answer(&[("access-control-allow-origin", "*")]),
        )
    };
    let failure = request("PUT").fetch(&mut server).unwrap_err();
    assert_eq!(
        failure,
        FetchFailure::Preflight(PreflightFailure::MethodNotAllowed {
            method: Method::PUT,
            wildcard_with_credentials: false
        })
    );
    assert_eq!(
        seen,
        [(Method::OPTIONS, true)],
        "the actual request is never sent"
    );
    assert_eq!(
        failure.to_string(),
        "preflight: the preflight answer does not allow the method `PUT`"
    );
}

#[test]
fn failures_read_as_one_line() {
    let all = [
        CorsCheckFailure::MissingAllowOrigin.to_string(),
        CorsCheckFailure::SeveralAllowOrigins.to_string(),
        CorsCheckFailure::WildcardWithCredentials.to_string(),
        CorsCheckFailure::AllowOriginMismatch {
            allowed: HeaderValue::from_static("https://a.example"),
            origin: HeaderValue::from_static("https://b.example"),
        }
        .to_string(),
        CorsCheckFailure::AllowCredentialsNotTrue { found: None }.to_string(),
        PreflightFailure::NotOkStatus(StatusCode::FORBIDDEN).to_string(),
        PreflightFailure::MalformedAllowMethods.to_string(),
        PreflightFailure::MalformedAllowHeaders.to_string(),
        PreflightFailure::PrivateNetworkNotAllowed.to_string(),
        ScriptError::ForbiddenMethod("TRACE".to_owned()).to_string(),
    ];
    for line in &all {
        assert!(!line.is_empty() && !line.contains('\n'), "{line:?}");
    }
    assert_eq!(
        all[3],
        "`Access-Control-Allow-Origin: https://a.example` is not the origin `https://b.example`"
    );
}
