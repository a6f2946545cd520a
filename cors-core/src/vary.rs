//! Merging request header names into a response's
//! [`Vary`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Vary) header.
//!
//! A cache must not reuse a response whose CORS headers depend on a request header for a request
//! with a different value of that header. The names are merged into any `Vary` the handler set,
//! never overwriting it and never duplicating a name.

use std::sync::Arc;

use http::header::{Entry, OccupiedEntry, VARY};
use http::{HeaderMap, HeaderName, HeaderValue};

/// The request headers a CORS answer can depend on, in the order `Vary` lists them.
const NAMES: [&str; 4] = [
    "Origin",
    "Access-Control-Request-Method",
    "Access-Control-Request-Headers",
    "Access-Control-Request-Private-Network",
];

/// `Origin`, as a bit of a [`VaryNames`] set.
pub(crate) const ORIGIN: u8 = 1;
/// `Access-Control-Request-Method`.
pub(crate) const REQUEST_METHOD: u8 = 1 << 1;
/// `Access-Control-Request-Headers`.
pub(crate) const REQUEST_HEADERS: u8 = 1 << 2;
/// `Access-Control-Request-Private-Network`.
pub(crate) const REQUEST_PRIVATE_NETWORK: u8 = 1 << 3;

/// `Vary: Origin`, for actual responses whose answer depends on the origin alone.
pub(crate) static VARY_ORIGIN: VaryNames = VaryNames {
    set: ORIGIN,
    extra: None,
    value: HeaderValue::from_static("Origin"),
};

/// A fixed set of names to add to `Vary` (bits of [`NAMES`], and names an origin decision
/// depends on), with its header value prebuilt.
#[derive(Debug, Clone)]
pub(crate) struct VaryNames {
    set: u8,
    /// Request headers a request-aware origin decision reads
    /// ([`AllowOrigin::varying_on`](crate::AllowOrigin::varying_on)).
    extra: Option<Arc<[HeaderName]>>,
    value: HeaderValue,
}

impl VaryNames {
    /// The names of the bits in `set`; `None` when it has none.
    #[cfg(test)]
    pub(crate) fn new(set: u8) -> Option<Self> {
        Self::with_extra(set, &[])
    }

    /// The names of the bits in `set`, then `extra`; `None` when there are none.
    pub(crate) fn with_extra(set: u8, extra: &[HeaderName]) -> Option<Self> {
        let mut names: Vec<&str> = names(set).collect();
        names.extend(extra.iter().map(HeaderName::as_str));
        if names.is_empty() {
            return None;
        }
        let value = crate::intern::static_value(&names.join(", "))
            .expect("header names joined with `, ` are a header value");
        let extra = (!extra.is_empty()).then(|| Arc::from(extra));
        Some(Self { set, extra, value })
    }

    /// Merges the names into `headers`. With no `Vary` yet, inserts the prebuilt value (no
    /// allocation); allocates only to merge with a `Vary` that lists other names.
    pub(crate) fn apply(&self, headers: &mut HeaderMap) {
        // An append looks the name up once, where a lookup then an insert look it up twice (and
        // `HeaderMap::entry` costs more still): with no `Vary` yet, the common case, that is all.
        if headers.append(VARY, self.value.clone()) {
            self.merge_appended(headers);
        }
    }

    /// Merges the names into the `Vary` the answer had already, to which [`apply`](Self::apply)
    /// appended the prebuilt value: that line is taken back first, the others staying where
    /// they were.
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
        self.merge(headers);
    }

    #[cold]
    fn merge(&self, headers: &mut HeaderMap) {
        let Entry::Occupied(mut entry) = headers.entry(VARY) else {
            return;
        };
        let mut absent = self.set;
        let extra: &[HeaderName] = self.extra.as_deref().unwrap_or(&[]);
        let mut extra_absent: Vec<bool> = vec![true; extra.len()];
        for line in entry.iter() {
            for element in line.as_bytes().split(|&b| b == b',') {
                let element = element.trim_ascii();
                if element == b"*" {
                    // `Vary: *` already says the response varies on everything.
                    return;
                }
                for (bit, name) in NAMES.iter().enumerate() {
                    if element.eq_ignore_ascii_case(name.as_bytes()) {
                        absent &= !(1 << bit);
                    }
                }
                for (name, absent) in extra.iter().zip(&mut extra_absent) {
                    if element.eq_ignore_ascii_case(name.as_str().as_bytes()) {
                        *absent = false;
                    }
                }
            }
        }
        if absent == 0 && !extra_absent.contains(&true) {
            return;
        }
        let mut merged: Vec<u8> = Vec::new();
        let mut push = |part: &[u8]| {
            if !merged.is_empty() {
                merged.extend_from_slice(b", ");
            }
            merged.extend_from_slice(part);
        };
        for line in entry.iter() {
            let line = line.as_bytes().trim_ascii();
            if !line.is_empty() {
                push(line);
            }
        }
        for name in names(absent) {
            push(name.as_bytes());
        }
        for (name, _) in extra
            .iter()
            .zip(&extra_absent)
            .filter(|(_, absent)| **absent)
        {
            push(name.as_str().as_bytes());
        }
        // Replaces every existing line with the merged one.
        entry.insert(
            HeaderValue::from_bytes(&merged)
                .expect("header values and names joined with `, ` are a header value"),
        );
    }
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

/// The names of the bits in `set`, in [`NAMES`] order.
fn names(set: u8) -> impl Iterator<Item = &'static str> {
    NAMES
        .iter()
        .enumerate()
        .filter(move |(bit, _)| set & (1 << bit) != 0)
        .map(|(_, name)| *name)
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

    #[test]
    fn inserts_when_absent() {
        let names = VaryNames::new(ORIGIN | REQUEST_METHOD).unwrap();
        let mut headers = HeaderMap::new();
        names.apply(&mut headers);
        assert_eq!(
            vary_lines(&headers),
            ["Origin, Access-Control-Request-Method"]
        );
    }

    #[test]
    fn merges_without_duplicates() {
        let names = VaryNames::new(REQUEST_HEADERS | ORIGIN).unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(VARY, HeaderValue::from_static("accept-encoding, origin"));
        headers.append(VARY, HeaderValue::from_static("Accept"));
        names.apply(&mut headers);
        assert_eq!(
            vary_lines(&headers),
            ["accept-encoding, origin, Accept, Access-Control-Request-Headers"]
        );
    }

    #[test]
    fn extra_names_are_listed_and_merged() {
        let names = VaryNames::with_extra(ORIGIN, &[HeaderName::from_static("x-tenant")]).unwrap();
        let mut headers = HeaderMap::new();
        names.apply(&mut headers);
        assert_eq!(vary_lines(&headers), ["Origin, x-tenant"]);
        let mut headers = HeaderMap::new();
        headers.insert(VARY, HeaderValue::from_static("X-Tenant"));
        names.apply(&mut headers);
        assert_eq!(vary_lines(&headers), ["X-Tenant, Origin"]);
        let mut headers = HeaderMap::new();
        headers.insert(VARY, HeaderValue::from_static("origin, x-tenant"));
        names.apply(&mut headers);
        assert_eq!(vary_lines(&headers), ["origin, x-tenant"]);
    }

    #[test]
    fn leaves_complete_and_star() {
        let names = &VaryNames::new(ORIGIN).unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(VARY, HeaderValue::from_static("ORIGIN"));
        names.apply(&mut headers);
        assert_eq!(vary_lines(&headers), ["ORIGIN"]);
        headers.insert(VARY, HeaderValue::from_static("*"));
        names.apply(&mut headers);
        assert_eq!(vary_lines(&headers), ["*"]);
    }

    #[test]
    fn none_for_empty() {
        assert!(VaryNames::new(0).is_none());
    }

    #[test]
    fn lists_names_in_order() {
        let all =
            VaryNames::new(REQUEST_PRIVATE_NETWORK | REQUEST_HEADERS | REQUEST_METHOD | ORIGIN)
                .unwrap();
        let mut headers = HeaderMap::new();
        all.apply(&mut headers);
        assert_eq!(
            vary_lines(&headers),
            [
                "Origin, Access-Control-Request-Method, Access-Control-Request-Headers, \
                 Access-Control-Request-Private-Network"
            ]
        );
        let mut headers = HeaderMap::new();
        headers.insert(
            VARY,
            HeaderValue::from_static("access-control-request-method"),
        );
        headers.append(VARY, HeaderValue::from_static(""));
        all.apply(&mut headers);
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
