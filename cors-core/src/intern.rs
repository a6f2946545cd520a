//! Prebuilt header values that cost nothing to clone.
//!
//! A `HeaderValue` built at run time shares its bytes behind a reference count, so every clone
//! and drop is an atomic operation on one cache line that all server threads then contend for.
//! A value built from a `&'static str` has no count at all. So each distinct value a policy
//! needs (a methods list, a headers list, a max-age) is stored once for the life of the process
//! and shared by every policy that needs it. Request data (origins) is never stored here, only
//! configuration, so the table stays as small as the set of distinct configured values.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock, PoisonError};

use http::HeaderValue;

/// A header value for `s`, whose clones touch no reference count; `None` if `s` is not a valid
/// header value.
pub(crate) fn static_value(s: &str) -> Option<HeaderValue> {
    // `from_static` panics on invalid input; `from_str` applies the same rule without panicking.
    HeaderValue::from_str(s).ok()?;
    Some(HeaderValue::from_static(intern(s)))
}

fn intern(s: &str) -> &'static str {
    static TABLE: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut table = TABLE
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(existing) = table.get(s) {
        return existing;
    }
    let stored: &'static str = Box::leak(Box::from(s));
    table.insert(stored);
    stored
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_each_value_once() {
        let a = static_value("GET, POST").unwrap();
        let b = static_value("GET, POST").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.as_bytes().as_ptr(), b.as_bytes().as_ptr());
        assert!(static_value("bad\nvalue").is_none());
    }
}
