//! Merging request header names into a response's
//! [`Vary`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Vary) header.
//!
//! A cache must not reuse a response whose CORS headers depend on a request header for a request
//! with a different value of that header. The names are merged into any `Vary` the handler set,
//! never overwriting it and never duplicating a name.

use http::header::{Entry, OccupiedEntry, VARY};
use http::{HeaderMap, HeaderValue};

/// Most names one [`VaryNames`] holds (Origin and the three preflight request headers).
const MAX_NAMES: usize = 4;

/// A fixed set of names to add to `Vary`, with its header value prebuilt.
#[derive(Debug, Clone)]
pub(crate) struct VaryNames {
    names: Vec<&'static str>,
    value: HeaderValue,
}

impl VaryNames {
    /// Builds the set; `None` when `names` is empty. At most four names.
    pub(crate) fn new(names: &[&'static str]) -> Option<Self> {
        debug_assert!(names.len() <= MAX_NAMES);
        if names.is_empty() {
            return None;
        }
        let value = crate::intern::static_value(&names.join(", "))?;
        Some(Self {
            names: names.iter().take(MAX_NAMES).copied().collect(),
            value,
        })
    }

    /// Merges the names into `headers`. With no `Vary` yet, inserts the prebuilt value (no
    /// allocation); allocates only to merge with a `Vary` that lists other names.
    pub(crate) fn apply(&self, headers: &mut HeaderMap) {
        match headers.entry(VARY) {
            Entry::Vacant(entry) => {
                entry.insert(self.value.clone());
            }
            Entry::Occupied(entry) => self.merge(entry),
        }
    }

    #[cold]
    fn merge(&self, mut entry: OccupiedEntry<'_, HeaderValue>) {
        let mut present = [false; MAX_NAMES];
        for line in entry.iter() {
            for element in line.as_bytes().split(|&b| b == b',') {
                let element = element.trim_ascii();
                if element == b"*" {
                    // `Vary: *` already says the response varies on everything.
                    return;
                }
                for (i, name) in self.names.iter().enumerate() {
                    if element.eq_ignore_ascii_case(name.as_bytes()) {
                        present[i] = true;
                    }
                }
            }
        }
        let absent: Vec<&str> = self
            .names
            .iter()
            .zip(present)
            .filter(|(_, present)| !present)
            .map(|(name, _)| *name)
            .collect();
        if absent.is_empty() {
            return;
        }
        let mut merged: Vec<u8> = Vec::new();
        for line in entry.iter() {
            let trimmed = line.as_bytes().trim_ascii();
            if trimmed.is_empty() {
                continue;
            }
            if !merged.is_empty() {
                merged.extend_from_slice(b", ");
            }
            merged.extend_from_slice(trimmed);
        }
        for name in absent {
            if !merged.is_empty() {
                merged.extend_from_slice(b", ");
            }
            merged.extend_from_slice(name.as_bytes());
        }
        match HeaderValue::from_bytes(&merged) {
            // Replaces every existing line with the merged one.
            Ok(value) => {
                entry.insert(value);
            }
            // Unreachable with valid existing values; keep the handler's lines and add ours.
            Err(_) => entry.append(self.value.clone()),
        }
    }
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
        let names = VaryNames::new(&["Origin", "Access-Control-Request-Method"]).unwrap();
        let mut headers = HeaderMap::new();
        names.apply(&mut headers);
        assert_eq!(
            vary_lines(&headers),
            ["Origin, Access-Control-Request-Method"]
        );
    }

    #[test]
    fn merges_without_duplicates() {
        let names = VaryNames::new(&["Origin", "Access-Control-Request-Headers"]).unwrap();
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
    fn leaves_complete_and_star() {
        let names = VaryNames::new(&["Origin"]).unwrap();
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
        assert!(VaryNames::new(&[]).is_none());
    }
}
