//! What a browser lets a script send without a preflight: the Fetch standard's CORS-safelisted
//! methods and request headers, and the CORS-unsafe request-header names.

use http::{HeaderMap, HeaderName, HeaderValue, Method};

/// A CORS-safelisted method: `GET`, `HEAD` or `POST` (case-sensitive, after normalisation).
pub(crate) fn is_safelisted_method(method: &Method) -> bool {
    matches!(method.as_str(), "GET" | "HEAD" | "POST")
}

/// A CORS-unsafe request-header byte: a control byte but tab, or one of `"():<>?@[\]{}` and DEL.
fn is_unsafe_byte(b: u8) -> bool {
    (b < 0x20 && b != b'\t')
        || matches!(
            b,
            b'"' | b'('
                | b')'
                | b':'
                | b'<'
                | b'>'
                | b'?'
                | b'@'
                | b'['
                | b'\\'
                | b']'
                | b'{'
                | b'}'
                | 0x7f
        )
}

/// Whether `(name, value)` is a CORS-safelisted request-header.
pub(crate) fn is_safelisted_header(name: &HeaderName, value: &HeaderValue) -> bool {
    let value = value.as_bytes();
    if value.len() > 128 {
        return false;
    }
    // `HeaderName` is lowercase already.
    match name.as_str() {
        "accept" => !value.iter().any(|&b| is_unsafe_byte(b)),
        "accept-language" | "content-language" => value
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b" *,-.;=".contains(&b)),
        "content-type" => {
            !value.iter().any(|&b| is_unsafe_byte(b))
                && mime_essence(value).is_some_and(|essence| {
                    essence.eq_ignore_ascii_case(b"application/x-www-form-urlencoded")
                        || essence.eq_ignore_ascii_case(b"multipart/form-data")
                        || essence.eq_ignore_ascii_case(b"text/plain")
                })
        }
        "range" => matches!(single_range(value), Some((Some(_), _))),
        _ => false,
    }
}

/// HTTP whitespace: tab, line feed, carriage return, space.
fn is_http_whitespace(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\r' | b' ')
}

/// An HTTP token code point (`tchar`). A byte of 0x80 and above decodes (isomorphically) to a
/// code point that is not one.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Whether `bytes` is an HTTP token: one or more `tchar`s.
pub(crate) fn is_token(bytes: &[u8]) -> bool {
    !bytes.is_empty() && bytes.iter().all(|&b| is_token_byte(b))
}

/// The `type/subtype` of a MIME type as the MIME Sniffing standard's "parse a MIME type" finds
/// it, or `None` where it fails. Parameters never make it fail, so they are not read.
fn mime_essence(value: &[u8]) -> Option<&[u8]> {
    let start = value.iter().position(|&b| !is_http_whitespace(b))?;
    let end = value.iter().rposition(|&b| !is_http_whitespace(b))? + 1;
    let input = &value[start..end];
    let slash = input.iter().position(|&b| b == b'/')?;
    let kind = &input[..slash];
    let rest = &input[slash + 1..];
    let subtype_end = rest.iter().position(|&b| b == b';').unwrap_or(rest.len());
    let subtype = &rest[..subtype_end];
    let subtype_len = subtype
        .iter()
        .rposition(|&b| !is_http_whitespace(b))
        .map_or(0, |last| last + 1);
    let subtype = &subtype[..subtype_len];
    (is_token(kind) && is_token(subtype)).then(|| &input[..slash + 1 + subtype_len])
}

/// A byte range: its start and its end, each optional, as decimal digit strings (not read as
/// numbers, so any length works).
type Range<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);

/// The Fetch standard's "parse a single range header value" without whitespace: `bytes=` then an
/// optional start, `-`, an optional end.
fn single_range(value: &[u8]) -> Option<Range<'_>> {
    let rest = value.strip_prefix(b"bytes=")?;
    let dash = rest.iter().position(|&b| b == b'-')?;
    let (start, end) = (&rest[..dash], &rest[dash + 1..]);
    if !start.iter().chain(end).all(u8::is_ascii_digit) {
        return None;
    }
    let (start, end) = (non_empty(start), non_empty(end));
    match (start, end) {
        (None, None) => None,
        (Some(start), Some(end)) if greater(start, end) => None,
        _ => Some((start, end)),
    }
}

fn non_empty(digits: &[u8]) -> Option<&[u8]> {
    (!digits.is_empty()).then_some(digits)
}

/// Whether decimal digit string `a` is a larger number than `b`.
fn greater(a: &[u8], b: &[u8]) -> bool {
    let (a, b) = (significant(a), significant(b));
    (a.len(), a) > (b.len(), b)
}

/// A decimal digit string without its leading zeros.
fn significant(digits: &[u8]) -> &[u8] {
    let first = digits
        .iter()
        .position(|&d| d != b'0')
        .unwrap_or(digits.len());
    &digits[first..]
}

/// The CORS-unsafe request-header names of `headers`: the names of headers that are not
/// safelisted, plus, when the safelisted values add up to more than 1024 bytes, theirs too;
/// lowercase, sorted, each once.
pub(crate) fn unsafe_names(headers: &HeaderMap) -> Vec<HeaderName> {
    let mut unsafe_names = Vec::new();
    let mut potentially_unsafe = Vec::new();
    let mut safelisted_size = 0;
    for (name, value) in headers {
        if is_safelisted_header(name, value) {
            potentially_unsafe.push(name.clone());
            safelisted_size += value.len();
        } else {
            unsafe_names.push(name.clone());
        }
    }
    if safelisted_size > 1024 {
        unsafe_names.append(&mut potentially_unsafe);
    }
    unsafe_names.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    unsafe_names.dedup();
    unsafe_names
}

/// A forbidden request-header, which scripts cannot set (`Headers` silently drops it).
pub(crate) fn is_forbidden_header(name: &HeaderName, value: &HeaderValue) -> bool {
    const FORBIDDEN: [&str; 21] = [
        "accept-charset",
        "accept-encoding",
        "access-control-request-headers",
        "access-control-request-method",
        "connection",
        "content-length",
        "cookie",
        "cookie2",
        "date",
        "dnt",
        "expect",
        "host",
        "keep-alive",
        "origin",
        "referer",
        "set-cookie",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "via",
    ];
    let name = name.as_str();
    if FORBIDDEN.contains(&name) || name.starts_with("proxy-") || name.starts_with("sec-") {
        return true;
    }
    if matches!(
        name,
        "x-http-method" | "x-http-method-override" | "x-method-override"
    ) {
        // Forbidden when it names a forbidden method.
        return value
            .as_bytes()
            .split(|&b| b == b',')
            .map(<[u8]>::trim_ascii)
            .any(is_forbidden_method);
    }
    false
}

/// `CONNECT`, `TRACE` or `TRACK`, in any case.
pub(crate) fn is_forbidden_method(method: &[u8]) -> bool {
    [&b"CONNECT"[..], b"TRACE", b"TRACK"]
        .iter()
        .any(|m| m.eq_ignore_ascii_case(method))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn safe(name: &'static str, value: &[u8]) -> bool {
        is_safelisted_header(
            &HeaderName::from_static(name),
            &HeaderValue::from_bytes(value).unwrap(),
        )
    }

    #[test]
    fn safelisted_methods_are_case_sensitive() {
        for (method, safe) in [
            ("GET", true),
            ("HEAD", true),
            ("POST", true),
            ("PUT", false),
            ("PATCH", false),
            ("OPTIONS", false),
            ("post", false),
        ] {
            assert_eq!(
                is_safelisted_method(&Method::from_bytes(method.as_bytes()).unwrap()),
                safe,
                "{method}"
            );
        }
    }

    #[test]
    fn accept_refuses_unsafe_bytes_and_long_values() {
        assert!(safe("accept", b"application/json, text/*;q=0.5"));
        assert!(safe("accept", b"*/*"));
        for byte in b"\"():<>?@[\\]{}\x7f\x01".iter() {
            let value = [b'a', *byte];
            if HeaderValue::from_bytes(&value).is_ok() {
                assert!(!safe("accept", &value), "{byte:#x}");
            }
        }
        assert!(safe("accept", &[b'a'; 128]));
        assert!(!safe("accept", &[b'a'; 129]));
    }

    #[test]
    fn languages_take_a_small_alphabet() {
        assert!(safe("accept-language", b"en-US,en;q=0.9, *"));
        assert!(safe("content-language", b"de-DE"));
        assert!(!safe("accept-language", b"en_US"));
        assert!(!safe("content-language", b"en/US"));
        assert!(!safe("accept-language", b"\xe9"));
    }

    #[test]
    fn content_type_takes_three_essences() {
        for value in [
            &b"text/plain"[..],
            b"TEXT/Plain",
            b"text/plain;charset=UTF-8",
            b" text/plain ; charset=utf-8",
            b"multipart/form-data; boundary=x",
            b"application/x-www-form-urlencoded",
            b"text/plain;garbage",
            b"text/plain; charset=\xe9",
        ] {
            assert!(safe("content-type", value), "{}", value.escape_ascii());
        }
        for value in [
            &b"application/json"[..],
            b"text/html",
            b"text/plain, text/html",
            b"text /plain",
            b"text/",
            b"/plain",
            b"text",
            b"",
            b"text/plain\x01",
            b"text/plain; a=\"b\"",
            b"tex\xe9t/plain",
        ] {
            if HeaderValue::from_bytes(value).is_ok() {
                assert!(!safe("content-type", value), "{}", value.escape_ascii());
            }
        }
    }

    #[test]
    fn range_takes_one_range_with_a_start() {
        for value in ["bytes=0-", "bytes=0-499", "bytes=500-500", "bytes=0001-2"] {
            assert!(safe("range", value.as_bytes()), "{value}");
        }
        for value in [
            "bytes=-500",
            "bytes=500-499",
            "bytes=10-9",
            "bytes=-",
            "bytes= 0-1",
            "bytes=0-1,3-4",
            "Bytes=0-1",
            "bytes=a-1",
            "items=0-1",
        ] {
            assert!(!safe("range", value.as_bytes()), "{value}");
        }
        assert!(greater(b"10", b"9"));
        assert!(!greater(b"0009", b"10"));
        assert!(!greater(b"5", b"5"));
        assert!(safe(
            "range",
            b"bytes=99999999999999999999999-99999999999999999999999"
        ));
    }

    #[test]
    fn other_headers_are_not_safelisted() {
        assert!(!safe("x-requested-with", b"XMLHttpRequest"));
        assert!(!safe("authorization", b"Bearer x"));
        assert!(!safe("content-encoding", b"gzip"));
    }

    #[test]
    fn unsafe_names_are_sorted_lowercase_and_count_safelisted_bytes() {
        let mut headers = HeaderMap::new();
        headers.append("X-B", HeaderValue::from_static("1"));
        headers.append("content-type", HeaderValue::from_static("application/json"));
        headers.append("x-a", HeaderValue::from_static("1"));
        headers.append("x-b", HeaderValue::from_static("2"));
        headers.append("accept", HeaderValue::from_static("*/*"));
        assert_eq!(unsafe_names(&headers), ["content-type", "x-a", "x-b"]);

        // Safelisted values of more than 1024 bytes together make them unsafe too.
        let mut headers = HeaderMap::new();
        let long = HeaderValue::from_str(&"a".repeat(128)).unwrap();
        for _ in 0..8 {
            headers.append("accept", long.clone());
        }
        assert!(unsafe_names(&headers).is_empty(), "1024 bytes are fine");
        headers.append("content-language", HeaderValue::from_static("en"));
        assert_eq!(unsafe_names(&headers), ["accept", "content-language"]);
    }

    #[test]
    fn forbidden_headers() {
        let forbidden = |name: &'static str, value: &'static str| {
            is_forbidden_header(
                &HeaderName::from_static(name),
                &HeaderValue::from_static(value),
            )
        };
        for name in [
            "origin",
            "cookie",
            "host",
            "sec-fetch-mode",
            "proxy-authorization",
        ] {
            assert!(forbidden(name, "x"), "{name}");
        }
        assert!(forbidden("x-http-method-override", "GET, trace"));
        assert!(!forbidden("x-http-method-override", "PATCH"));
        assert!(!forbidden("authorization", "Bearer x"));
        assert!(is_forbidden_method(b"Connect"));
        assert!(!is_forbidden_method(b"PATCH"));
    }
}
