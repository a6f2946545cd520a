//! [`OriginSet`]: allowed origins held in memory and changed while requests are served, for
//! origins that live in a database (tenants' own domains) rather than in the configuration.
//!
//! A request reads the set with one atomic load of its current snapshot and never waits: a
//! change builds a new snapshot beside the current one and swaps it in. Exact origins live in
//! one hash set (randomly seeded: tenants choose what goes in), built once; later changes are
//! kept in a small overlay (added, removed) until it grows past [`OVERLAY_MAX`] entries, when
//! the set is rebuilt with them. Copying a snapshot for a change therefore copies the overlay,
//! never the million origins under it.

use hashbrown::HashSet;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use arc_swap::{ArcSwap, Guard};

use crate::error::CorsConfigError;
use crate::origin::{
    ConfiguredOrigin, OriginPattern, ParsedOrigin, holds, parse, parse_configured,
};
use crate::origin_error::{CredentialsToInsecure, OriginChecks, origin_error};
use crate::public_suffix::OwnedSuffixes;
use crate::set_ref::NamedSet;

/// Changes kept beside the compact table before it is rebuilt with them.
const OVERLAY_MAX: usize = 4096;

/// Allowed origins and patterns held in memory, shared by every policy whose options name it,
/// and changed (one origin added or removed, a batch, or everything replaced) while requests
/// are served. A clone is another handle on the same set.
///
/// Entries are the origins and patterns of [`AllowOrigin::list`](crate::AllowOrigin::list),
/// checked the same way when added: `https://app.example`, `https://*.tenant.example`,
/// `http://localhost:*`; a path, a pattern over a public suffix or an IP address, `*` and `null`
/// are refused with an error of the `origin` field. A request's origin is found with one atomic
/// load and a hash lookup: no I/O, no lock, whatever the size of the set. With
/// [`credentials(true)`](crate::CorsOptions::credentials) and without
/// [`dangerously_allow_insecure_origins`](crate::CorsOptions::dangerously_allow_insecure_origins),
/// plain-HTTP entries (other than loopback) are not granted on that path.
///
/// ```
/// use cors_axum_core::{AllowOrigin, CorsOptions, CorsPolicy, CorsRequest, OriginSet};
/// use http::{HeaderMap, HeaderValue, Method};
///
/// let tenants = OriginSet::new("tenants");
/// let origin = AllowOrigin::list(["https://app.example"]).and_set(&tenants);
/// let policy = CorsPolicy::from_options(&CorsOptions::new().origin(origin))?;
/// let allowed = |origin: &'static str| {
///     let mut headers = HeaderMap::new();
///     headers.insert("origin", HeaderValue::from_static(origin));
///     policy.actual(&CorsRequest::new(&Method::GET, &headers)).is_allowed()
/// };
/// assert!(!allowed("https://acme.example"));
/// tenants.insert("https://acme.example")?;
/// assert!(allowed("https://acme.example"));
/// tenants.remove("https://acme.example");
/// assert!(!allowed("https://acme.example"));
/// assert!(tenants.insert("https://*.com").is_err());
/// # Ok::<(), cors_axum_core::CorsConfigError>(())
/// ```
#[derive(Clone)]
pub struct OriginSet {
    shared: Arc<Shared>,
}

struct Shared {
    name: Box<str>,
    current: ArcSwap<Snapshot>,
    /// Serialises writers; readers never take it.
    writer: Mutex<()>,
}

/// One version of the set.
#[derive(Clone, Default)]
struct Snapshot {
    /// Exact origins, normalised.
    table: Arc<HashSet<Box<[u8]>>>,
    /// Exact origins added since the table was built (none of them in it).
    added: HashSet<Box<[u8]>>,
    /// Exact origins of the table removed since it was built.
    removed: HashSet<Box<[u8]>>,
    patterns: Arc<Vec<OriginPattern>>,
}

impl Snapshot {
    /// Whether the set holds the normalised exact origin.
    #[inline]
    fn exact(&self, origin: &[u8]) -> bool {
        if self.added.is_empty() && self.removed.is_empty() {
            return self.table.contains(origin);
        }
        self.added.contains(origin)
            || (self.table.contains(origin) && !self.removed.contains(origin))
    }

    fn len(&self) -> usize {
        self.table.len() - self.removed.len() + self.added.len() + self.patterns.len()
    }

    fn insert(&mut self, entry: ConfiguredOrigin) -> bool {
        match entry {
            ConfiguredOrigin::Exact(origin) if self.table.contains(&origin) => {
                self.removed.remove(&origin)
            }
            ConfiguredOrigin::Exact(origin) => self.added.insert(origin),
            ConfiguredOrigin::Pattern(pattern) => {
                if self.patterns.contains(&pattern) {
                    return false;
                }
                Arc::make_mut(&mut self.patterns).push(pattern);
                true
            }
        }
    }

    fn remove(&mut self, entry: &ConfiguredOrigin) -> bool {
        match entry {
            ConfiguredOrigin::Exact(origin) => {
                self.added.remove(origin)
                    || (self.table.contains(origin) && self.removed.insert(origin.clone()))
            }
            ConfiguredOrigin::Pattern(pattern) => {
                let Some(at) = self.patterns.iter().position(|p| p == pattern) else {
                    return false;
                };
                Arc::make_mut(&mut self.patterns).remove(at);
                true
            }
        }
    }

    /// The table rebuilt with the overlay, once the overlay has grown.
    fn compact(&mut self) {
        if self.added.len() + self.removed.len() <= OVERLAY_MAX {
            return;
        }
        let mut table: HashSet<Box<[u8]>> = self
            .table
            .iter()
            .filter(|origin| !self.removed.contains(*origin))
            .cloned()
            .collect();
        table.extend(self.added.drain());
        self.table = Arc::new(table);
        self.removed.clear();
    }
}

/// Checks an entry of a set (an [`OriginSet`], or a tenant's in a
/// [`TenantOrigins`](crate::TenantOrigins)) as a configured origin of a list is checked.
pub(crate) fn entry(origin: &str) -> Result<ConfiguredOrigin, CorsConfigError> {
    if origin == "*" || origin == "null" {
        return Err(CorsConfigError::new(
            "origin",
            Some(origin),
            format!(
                "`{origin}` cannot be in an origin set, which holds origins and patterns; allow any \
                 origin with `*` in the options, `null` with `allow_null_origin(true)`"
            ),
        ));
    }
    let configured = parse_configured(origin).map_err(|e| origin_error(origin, e))?;
    // The checks of a list's entries; plain HTTP is recorded rather than refused, since whether
    // credentials go with the set is the options' matter, decided per request.
    let checks = OriginChecks {
        allow_null: false,
        owned_suffixes: &OwnedSuffixes::default(),
        credentials_to_insecure: CredentialsToInsecure::NoCredentials,
        set_refuses_insecure: false,
        tenants_refuse_insecure: false,
    };
    checks.check(origin, &configured)?;
    Ok(configured)
}

impl OriginSet {
    /// An empty set. Options files name it with `"origin_set": "<name>"`.
    pub fn new(name: impl Into<String>) -> Self {
        OriginSet {
            shared: Arc::new(Shared {
                name: name.into().into_boxed_str(),
                current: ArcSwap::from_pointee(Snapshot::default()),
                writer: Mutex::new(()),
            }),
        }
    }

    /// The set's name, as options files write it.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// Adds an origin or pattern; `Ok(false)` if it was there already. An entry that a list
    /// would refuse is an error of `origin`, and the set is left as it was.
    pub fn insert(&self, origin: &str) -> Result<bool, CorsConfigError> {
        let entry = entry(origin)?;
        Ok(self.change(|snapshot| snapshot.insert(entry)))
    }

    /// Removes an origin or pattern (any spelling of it); `false` if it was not there.
    pub fn remove(&self, origin: &str) -> bool {
        match entry(origin) {
            Ok(entry) => self.change(|snapshot| snapshot.remove(&entry)),
            Err(_) => false,
        }
    }

    /// Adds `insert` and removes `remove` (in that order) in one change: requests see all of it
    /// or none. Entries that a list would refuse are skipped and returned as errors.
    pub fn patch<I, R>(&self, insert: I, remove: R) -> Vec<CorsConfigError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
        R: IntoIterator,
        R::Item: AsRef<str>,
    {
        let (inserted, errors) = checked(insert.into_iter().map(|o| entry(o.as_ref())));
        let (removed, _) = checked(remove.into_iter().map(|o| entry(o.as_ref())));
        if !inserted.is_empty() || !removed.is_empty() {
            self.change(|snapshot| {
                let mut changed = false;
                for entry in inserted {
                    changed |= snapshot.insert(entry);
                }
                for entry in &removed {
                    changed |= snapshot.remove(entry);
                }
                changed
            });
        }
        errors
    }

    /// Replaces every entry with `origins`, in one change. Entries that a list would refuse are
    /// skipped and returned as errors.
    pub fn replace_all<I>(&self, origins: I) -> Vec<CorsConfigError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let (entries, errors) = checked(origins.into_iter().map(|o| entry(o.as_ref())));
        let mut snapshot = Snapshot::default();
        let mut table = HashSet::with_capacity(entries.len());
        for entry in entries {
            match entry {
                ConfiguredOrigin::Exact(origin) => {
                    table.insert(origin);
                }
                pattern => {
                    snapshot.insert(pattern);
                }
            }
        }
        snapshot.table = Arc::new(table);
        let _writer = self.writer();
        self.shared.current.store(Arc::new(snapshot));
        errors
    }

    /// Whether a request with this `Origin` value would be granted by the set (on a path
    /// without credentials).
    pub fn contains(&self, origin: &str) -> bool {
        let snapshot = self.shared.current.load();
        holds(
            origin.as_bytes(),
            |origin| snapshot.exact(origin),
            |origin| snapshot.patterns.iter().any(|p| p.matches(origin)),
        )
    }

    /// How many origins and patterns the set holds.
    pub fn len(&self) -> usize {
        self.shared.current.load().len()
    }

    /// Whether the set holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn writer(&self) -> std::sync::MutexGuard<'_, ()> {
        self.shared
            .writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Applies `f` to a copy of the current snapshot and publishes it if `f` changed it.
    fn change(&self, f: impl FnOnce(&mut Snapshot) -> bool) -> bool {
        let _writer = self.writer();
        let mut snapshot = Snapshot::clone(&self.shared.current.load());
        let changed = f(&mut snapshot);
        if changed {
            snapshot.compact();
            self.shared.current.store(Arc::new(snapshot));
        }
        changed
    }
}

/// The entries that passed their checks, and the errors of the others.
pub(crate) fn checked<T>(
    entries: impl IntoIterator<Item = Result<T, CorsConfigError>>,
) -> (Vec<T>, Vec<CorsConfigError>) {
    let mut passed = Vec::new();
    let mut errors = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => passed.push(entry),
            Err(error) => errors.push(error),
        }
    }
    (passed, errors)
}

impl fmt::Debug for OriginSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OriginSet")
            .field("name", &self.name())
            .field("len", &self.len())
            .finish()
    }
}

impl NamedSet for OriginSet {
    const FIELD: &'static str = "origin_set";
    const WHAT: &'static str = "origin set";
    const TYPE: &'static str = "OriginSet";

    fn name(&self) -> &str {
        &self.shared.name
    }
}

/// A compiled policy's view of a set: the set, and whether the policy refuses its plain-HTTP
/// entries (credentials without `dangerously_allow_insecure_origins`).
#[derive(Clone, Debug)]
pub(crate) struct DynamicOrigins {
    pub(crate) set: OriginSet,
    pub(crate) refuse_insecure: bool,
}

impl DynamicOrigins {
    /// The current snapshot, loaded for one request.
    #[inline]
    pub(crate) fn load(&self) -> LoadedSet {
        LoadedSet {
            snapshot: self.set.shared.current.load(),
            refuse_insecure: self.refuse_insecure,
        }
    }
}

/// A snapshot of a set, loaded for one request.
pub(crate) struct LoadedSet {
    snapshot: Guard<Arc<Snapshot>>,
    refuse_insecure: bool,
}

impl LoadedSet {
    /// Whether the set holds a request's (normalised) exact origin, as far as credentials let
    /// it.
    #[inline]
    pub(crate) fn exact(&self, origin: &[u8]) -> bool {
        self.snapshot.exact(origin)
            && !(self.refuse_insecure
                && origin.starts_with(b"http:")
                && parse(origin).is_ok_and(|o| o.is_insecure()))
    }

    /// Whether the set holds patterns.
    pub(crate) fn has_patterns(&self) -> bool {
        !self.snapshot.patterns.is_empty()
    }

    /// Whether a pattern of the set matches the origin, as far as credentials let it.
    pub(crate) fn pattern(&self, origin: &ParsedOrigin<'_>) -> bool {
        OriginPattern::any_matches(&self.snapshot.patterns, self.refuse_insecure, origin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_pass_through_the_overlay_and_the_rebuilt_table() {
        let set = OriginSet::new("t");
        let origin = |i: usize| format!("https://t{i}.example");
        assert!(set.replace_all((0..100).map(origin)).is_empty());
        assert_eq!(set.len(), 100);
        assert!(set.remove(&origin(5)));
        assert!(!set.remove(&origin(5)));
        assert!(!set.contains(&origin(5)));
        assert!(set.insert(&origin(5)).unwrap());
        assert!(set.contains("HTTPS://T5.example:443"));
        for i in 100..100 + OVERLAY_MAX + 10 {
            set.insert(&origin(i)).unwrap();
        }
        let snapshot = set.shared.current.load();
        assert!(snapshot.added.len() < OVERLAY_MAX, "compacted");
        assert_eq!(set.len(), 100 + OVERLAY_MAX + 10);
        assert!((0..100 + OVERLAY_MAX + 10).all(|i| set.contains(&origin(i))));
        assert!(!set.contains("https://t99999.example"));
    }

    #[test]
    fn patterns_and_refusals() {
        let set = OriginSet::new("t");
        set.insert("https://*.acme.example").unwrap();
        assert!(set.contains("https://a.acme.example"));
        assert!(!set.contains("https://acme.example"));
        assert!(!set.contains("https://a.acme.example.evil"));
        for bad in [
            "*",
            "null",
            "https://*.com",
            "https://*.10.0.0.1",
            "https://a.com/",
        ] {
            assert_eq!(set.insert(bad).unwrap_err().field(), "origin", "{bad}");
        }
        let errors = set.patch(["https://b.example", "nope"], ["https://*.acme.example"]);
        assert_eq!(errors.len(), 1);
        assert!(set.contains("https://b.example"));
        assert!(!set.contains("https://a.acme.example"));
        assert!(!set.contains("not an origin"));
    }
}
