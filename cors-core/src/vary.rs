//! Merging request header names into a response's
//! [`Vary`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Vary) header.
//!
//! A cache must not reuse a response whose CORS headers depend on a request header for a request
//! with a different value of that header. The names are merged into any `Vary` the handler set,
//! never overwriting it and never duplicating a name.

use http::header::{Entry, OccupiedEntry, VARY};
use http::{HeaderMap, HeaderName, HeaderValue};

/// The request headers every preflight answer depends on beside `Origin`: each can make it
/// refused (a method or header not allowed or malformed, private network access not enabled).
const PREFLIGHT: [&str; 3] = [
    "Access-Control-Request-Method",
    "Access-Control-Request-Headers",
    "Access-Control-Request-Private-Network",
];

/// The request headers an answer depends on, as a prebuilt `Vary` value.
#[derive(Debug, Clone)]
pub(crate) struct Vary(HeaderValue);

/// `Vary: Origin`, of actual responses whose answer depends on the origin alone.
pub(crate) static VARY_ORIGIN: Vary = Vary(HeaderValue::from_static("Origin"));

impl Vary {
    /// `Origin` (when `origin`), the preflight's request headers (when `preflight`), then
    /// `extra`, in that order; `None` when there are none.
    pub(crate) fn new(origin: bool, preflight: bool, extra: &[HeaderName]) -> Option<Self> {
        let names: Vec<&str> = (origin.then_some("Origin").into_iter())
            .chain(preflight.then_some(PREFLIGHT).into_iter().flatten())
            .chain(extra.iter().map(HeaderName::as_str))
            .collect();
        if names.is_empty() {
            return None;
        }
        let value = crate::intern::static_value(&names.join(", "))
            .expect("header names joined with `, ` are a header value");
        Some(Vary(value))
    }

    /// Merges the names into `headers`: the prebuilt value when the answer has no `Vary` yet
    /// (no allocation), [`merge_vary`] otherwise. Not inlined into its callers, so that the
    /// map's append, for a name known here, is inlined into it.
    pub(crate) fn apply(&self, headers: &mut HeaderMap) {
        // An append looks the name up once, where an entry or a lookup then an insert cost
        // more: with no `Vary` yet, the common case, that is all.
        if headers.append(VARY, self.0.clone()) {
            self.merge_appended(headers);
        }
    }

    /// [`merge_vary`] into the `Vary` the answer had, once the line [`apply`](Self::apply)
    /// appended is taken back.
    #[cold]
    fn merge_appended(&self, headers: &mut HeaderMap) {
        let Entry::Occupied(mut entry) = headers.entry(VARY) else {
            return;
        };
        let mut lines: Vec<HeaderValue> = entry.iter().cloned().collect();
        lines.pop();
        let mut lines = lines.into_iter();
        if let Some(first) = lines.next() {
            entry.insert(first);
        }
        for line in lines {
            entry.append(line);
        }
        merge_vary(headers, &self.0);
    }
}

/// What an answer to a request without `Origin` gets under a policy whose answers vary by
/// origin ([`ActualDecision::varies_by_origin_alone`](crate::ActualDecision::varies_by_origin_alone)),
/// as [`ActualDecision::write_headers`](crate::ActualDecision::write_headers) writes it: any
/// `Access-Control-*` header the handler set removed, and `Origin` added to its `Vary`,
/// merged with the names it lists already.
///
/// ```
/// use cors_axum_core::vary_on_origin;
/// use http::{HeaderMap, HeaderValue, header::VARY};
///
/// let mut headers = HeaderMap::new();
/// vary_on_origin(&mut headers);
/// assert_eq!(headers[VARY], "Origin");
/// let mut headers = HeaderMap::new();
/// headers.insert(VARY, HeaderValue::from_static("accept-encoding"));
/// vary_on_origin(&mut headers);
/// assert_eq!(headers[VARY], "accept-encoding, Origin");
/// ```
pub fn vary_on_origin(headers: &mut HeaderMap) {
    crate::header::remove_cors_headers(headers);
    VARY_ORIGIN.apply(headers);
}

/// Merges the names listed in `names` (a `Vary` value: comma-separated header names) into the
/// `Vary` of `headers`: inserted as it is when there is none; otherwise every name not listed yet
/// (compared case-insensitively) is appended, and a `Vary: *` is left as it is.
///
/// For a server that adds another answer's `Vary` to a response it did not build, such as the
/// answer of a preflight passed on to the route's own handler.
///
/// ```
/// use cors_axum_core::merge_vary;
/// use http::{HeaderMap, HeaderValue, header::VARY};
///
/// let mut headers = HeaderMap::new();
/// headers.insert(VARY, HeaderValue::from_static("accept-encoding, origin"));
/// merge_vary(&mut headers, &HeaderValue::from_static("Origin, Access-Control-Request-Method"));
/// assert_eq!(headers[VARY], "accept-encoding, origin, Access-Control-Request-Method");
/// ```
pub fn merge_vary(headers: &mut HeaderMap, names: &HeaderValue) {
    let mut entry = match headers.entry(VARY) {
        Entry::Vacant(entry) => {
            entry.insert(names.clone());
            return;
        }
        Entry::Occupied(entry) => entry,
    };
    let listed = |name: &[u8], entry: &OccupiedEntry<'_, HeaderValue>| {
        entry.iter().any(|line| {
            line.as_bytes()
                .split(|&b| b == b',')
                .map(<[u8]>::trim_ascii)
                .any(|element| element == b"*" || element.eq_ignore_ascii_case(name))
        })
    };
    let mut merged: Vec<u8> = Vec::new();
    for name in names
        .as_bytes()
        .split(|&b| b == b',')
        .map(<[u8]>::trim_ascii)
    {
        if name.is_empty() || listed(name, &entry) || merged_lists(&merged, name) {
            continue;
        }
        merged.extend_from_slice(b", ");
        merged.extend_from_slice(name);
    }
    if merged.is_empty() {
        return;
    }
    let mut line: Vec<u8> = Vec::new();
    for existing in entry.iter() {
        let existing = existing.as_bytes().trim_ascii();
        if !existing.is_empty() {
            if !line.is_empty() {
                line.extend_from_slice(b", ");
            }
            line.extend_from_slice(existing);
        }
    }
    let merged = if line.is_empty() {
        &merged[2..]
    } else {
        &merged[..]
    };
    line.extend_from_slice(merged);
    // Replaces every existing line with the merged one.
    entry.insert(
        HeaderValue::from_bytes(&line)
            .expect("header values and names joined with `, ` are a header value"),
    );
}

/// Whether `merged` (`, `-prefixed names) already lists `name`.
fn merged_lists(merged: &[u8], name: &[u8]) -> bool {
    merged
        .split(|&b| b == b',')
        .map(<[u8]>::trim_ascii)
        .any(|element| element.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vary_lines(headers: &HeaderMap) -> Vec<&str> {
        headers
            .get_all(VARY)
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect()
    }

    fn vary(origin: bool, preflight: bool, extra: &[&'static str]) -> Vary {
        let extra: Vec<HeaderName> = extra.iter().map(|n| HeaderName::from_static(n)).collect();
        Vary::new(origin, preflight, &extra).unwrap()
    }

    #[test]
    fn inserts_when_absent_and_merges_without_duplicates() {
        let mut headers = HeaderMap::new();
        vary(true, false, &[]).apply(&mut headers);
        assert_eq!(vary_lines(&headers), ["Origin"]);
        let mut headers = HeaderMap::new();
        headers.insert(VARY, HeaderValue::from_static("accept-encoding, origin"));
        headers.append(VARY, HeaderValue::from_static("Accept"));
        vary(true, true, &[]).apply(&mut headers);
        assert_eq!(
            vary_lines(&headers),
            [
                "accept-encoding, origin, Accept, Access-Control-Request-Method, \
                 Access-Control-Request-Headers, Access-Control-Request-Private-Network"
            ]
        );
    }

    #[test]
    fn extra_names_are_listed_and_merged() {
        let names = vary(true, false, &["x-tenant"]);
        let mut headers = HeaderMap::new();
        names.apply(&mut headers);
        assert_eq!(vary_lines(&headers), ["Origin, x-tenant"]);
        let mut headers = HeaderMap::new();
        headers.insert(VARY, HeaderValue::from_static("X-Tenant"));
        names.apply(&mut headers);
        assert_eq!(vary_lines(&headers), ["X-Tenant, Origin"]);
        let mut headers = HeaderMap::new();
        headers.insert(VARY, HeaderValue::from_static("origin, x-tenant"));
        headers.append(VARY, HeaderValue::from_static("Accept"));
        names.apply(&mut headers);
        assert_eq!(vary_lines(&headers), ["origin, x-tenant", "Accept"]);
    }

    #[test]
    fn leaves_star_and_lists_names_in_order() {
        let mut headers = HeaderMap::new();
        headers.insert(VARY, HeaderValue::from_static("*"));
        vary(true, false, &[]).apply(&mut headers);
        assert_eq!(vary_lines(&headers), ["*"]);
        assert!(Vary::new(false, false, &[]).is_none());
        let mut headers = HeaderMap::new();
        headers.insert(
            VARY,
            HeaderValue::from_static("access-control-request-method"),
        );
        headers.append(VARY, HeaderValue::from_static(""));
        vary(true, true, &[]).apply(&mut headers);
        assert_eq!(
            vary_lines(&headers),
            [
                "access-control-request-method, Origin, Access-Control-Request-Headers, \
                 Access-Control-Request-Private-Network"
            ]
        );
    }

    #[test]
    fn merge_vary_appends_missing_names_once() {
        let value = |s: &'static str| HeaderValue::from_static(s);
        let mut headers = HeaderMap::new();
        headers.append(VARY, value("Accept"));
        headers.append(VARY, value("origin"));
        merge_vary(&mut headers, &value("Origin, X-A, x-a, , Accept-Language"));
        assert_eq!(
            vary_lines(&headers),
            ["Accept, origin, X-A, Accept-Language"]
        );
        let mut star = HeaderMap::new();
        star.insert(VARY, value("*"));
        merge_vary(&mut star, &value("Origin"));
        assert_eq!(vary_lines(&star), ["*"]);
        let mut empty = HeaderMap::new();
        merge_vary(&mut empty, &value("Origin"));
        assert_eq!(vary_lines(&empty), ["Origin"]);
    }
}
