//! Prebuilt header values that cost nothing to clone.
//!
//! A `HeaderValue` built at run time shares its bytes behind a reference count, so every clone
//! and drop is an atomic operation on one cache line that all server threads then contend for.
//! A value built from a `&'static str` has no count at all. So each distinct value a policy
//! needs (a methods list, a headers list, a max-age) is stored once for the life of the process
//! and shared by every policy that needs it. Request data (origins) is never stored here, only
//! configuration, so the table stays as small as the set of distinct configured values.
//!
//! Policies that replace each other at run time ([`owned`]) must not store their values for
//! the life of the process, or every reload with new values would add to the table: their
//! values are reference-counted and freed with the last policy that uses them.

use std::cell::Cell;
use std::collections::HashSet;
use std::sync::{Mutex, OnceLock, PoisonError};

use http::HeaderValue;

thread_local! {
    /// Whether the policy being compiled on this thread stores its values ([`owned`]).
    static OWNED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `compile` with every value it builds reference-counted rather than stored for the life
/// of the process: for a policy that a reload replaces.
pub(crate) fn owned<T>(compile: impl FnOnce() -> T) -> T {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            OWNED.set(self.0);
        }
    }
    let _reset = Reset(OWNED.replace(true));
    compile()
}

/// A header value for `s`, whose clones touch no reference count (unless [`owned`]); `None` if
/// `s` is not a valid header value.
pub(crate) fn static_value(s: &str) -> Option<HeaderValue> {
    // `from_static` panics on invalid input; `from_str` applies the same rule without panicking.
    let value = HeaderValue::from_str(s).ok()?;
    if OWNED.get() {
        return Some(value);
    }
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

    #[test]
    fn owned_values_are_not_stored() {
        let stored = static_value("GET, PUT").unwrap();
        let owned = owned(|| static_value("GET, PUT").unwrap());
        assert_eq!(owned, stored);
        assert_ne!(owned.as_bytes().as_ptr(), stored.as_bytes().as_ptr());
        // Back to storing once the compile is over.
        let again = static_value("GET, PUT").unwrap();
        assert_eq!(again.as_bytes().as_ptr(), stored.as_bytes().as_ptr());
    }
}
