//! Prebuilt header values that cost nothing to clone.
//!
//! A `HeaderValue` built at run time shares its bytes behind a reference count, so every clone
//! and drop is an atomic operation on one cache line that all server threads then contend for.
//! A value built from a `&'static str` has no count at all. So each distinct value a policy
//! needs (a methods list, a headers list, a max-age, a configured origin) is stored once for
//! the life of the process and shared by every policy that needs it. Request data is never
//! stored here, only configuration.
//!
//! The table is bounded ([`BUDGET`] bytes): once full, a new value is reference-counted and
//! freed with the last policy that uses it. An application's values fill a small part of it;
//! what the bound is for is reloading (`cors-axum`'s `CorsReload`), where each reload may bring
//! new values, and any number of reloads must keep memory flat. Every policy is compiled the
//! same way, whoever compiles it and whenever.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock, PoisonError};

use http::HeaderValue;

/// How many bytes of values the table stores at most: a few thousand typical values.
const BUDGET: usize = 64 * 1024;

/// The stored values, and their bytes.
#[derive(Default)]
struct Table {
    values: HashSet<&'static str>,
    bytes: usize,
}

/// A header value for `s`, whose clones touch no reference count while the table has room;
/// `None` if `s` is not a valid header value.
pub(crate) fn static_value(s: &str) -> Option<HeaderValue> {
    // `from_static` panics on invalid input; `from_str` applies the same rule without panicking.
    let value = HeaderValue::from_str(s).ok()?;
    Some(intern(s).map_or(value, HeaderValue::from_static))
}

/// `s` stored for the life of the process, unless the table is full.
fn intern(s: &str) -> Option<&'static str> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    let mut table = TABLE
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(existing) = table.values.get(s) {
        return Some(existing);
    }
    if table.bytes + s.len() > BUDGET {
        return None;
    }
    let stored: &'static str = Box::leak(Box::from(s));
    table.values.insert(stored);
    table.bytes += s.len();
    Some(stored)
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

    #[test]
    fn a_value_the_table_has_no_room_for_is_counted_not_stored() {
        let large = "x".repeat(BUDGET + 1);
        let a = static_value(&large).unwrap();
        let b = static_value(&large).unwrap();
        assert_eq!(a, b);
        assert_ne!(a.as_bytes().as_ptr(), b.as_bytes().as_ptr());
        // Values that fit are still stored.
        let c = static_value("GET, PUT").unwrap();
        let d = static_value("GET, PUT").unwrap();
        assert_eq!(c.as_bytes().as_ptr(), d.as_bytes().as_ptr());
    }
}
