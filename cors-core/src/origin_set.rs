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

use arc_swap::ArcSwap;

use crate::error::CorsConfigError;
use crate::origin::{
    ConfiguredOrigin, MAX_ORIGIN_LEN, OriginList, OriginPattern, parse, parse_configured,
};
use crate::origin_error::{CredentialsToInsecure, OriginChecks, origin_error};
use crate::provided::ProvidedValue;
use crate::public_suffix::OwnedSuffixes;

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

/// Checks an entry as a configured origin of a list is checked.
fn entry(origin: &str) -> Result<ConfiguredOrigin, CorsConfigError> {
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
        let (inserted, errors) = checked(insert);
        let (removed, _) = checked(remove);
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
        let (entries, errors) = checked(origins);
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
        let set = DynamicOrigins {
            set: self.clone(),
            refuse_insecure: false,
        };
        lookup(&OriginList::default(), Some(&set), origin.as_bytes())
            .is_ok_and(|found| found != InSet::No)
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

/// The entries that pass the checks, and the errors of the others.
fn checked<I>(origins: I) -> (Vec<ConfiguredOrigin>, Vec<CorsConfigError>)
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    let mut entries = Vec::new();
    let mut errors = Vec::new();
    for origin in origins {
        match entry(origin.as_ref()) {
            Ok(entry) => entries.push(entry),
            Err(error) => errors.push(error),
        }
    }
    (entries, errors)
}

impl fmt::Debug for OriginSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OriginSet")
            .field("name", &self.name())
            .field("len", &self.len())
            .finish()
    }
}

/// Which set options name: one given in code, or a name from an options file, bound to the
/// application's set when the router is built.
#[derive(Clone, Debug)]
pub(crate) enum SetRef {
    Set(OriginSet),
    /// Only options files name a set.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    Named(String),
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for SetRef {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(SetRef::Named)
    }
}

/// `set` with a named set bound to the [`OriginSet`] that `values` provides, which must have
/// that name.
pub(crate) fn bind(
    set: &Option<SetRef>,
    values: &dyn Fn(std::any::TypeId) -> Option<ProvidedValue>,
) -> Result<Option<SetRef>, CorsConfigError> {
    let Some(SetRef::Named(name)) = set else {
        return Ok(set.clone());
    };
    let provided = values(std::any::TypeId::of::<OriginSet>()).ok_or_else(|| unbound_set(name))?;
    match provided.downcast_ref::<OriginSet>() {
        Some(found) if found.name() == name => Ok(Some(SetRef::Set(found.clone()))),
        Some(found) => Err(CorsConfigError::new(
            "origin_set",
            Some(name),
            format!(
                "the options name the origin set `{name}`, and the application provides `{}`",
                found.name()
            ),
        )),
        None => Err(unbound_set(name)),
    }
}

/// The error of options that name a set nobody provided.
pub(crate) fn unbound_set(name: &str) -> CorsConfigError {
    CorsConfigError::new(
        "origin_set",
        Some(name),
        format!(
            "the options name the origin set `{name}`, which was not provided: provide \
             `OriginSet::new(\"{name}\")` to the application (cors-axum: `.provide(..)`), or bind \
             it with `CorsOptions::with_values`"
        ),
    )
}

/// A compiled policy's view of a set: the set, and whether the policy refuses its plain-HTTP
/// entries (credentials without `dangerously_allow_insecure_origins`).
#[derive(Clone, Debug)]
pub(crate) struct DynamicOrigins {
    pub(crate) set: OriginSet,
    pub(crate) refuse_insecure: bool,
}

/// Whether the set holds a request's (normalised) origin, as far as credentials let it.
fn in_set(snapshot: &Snapshot, set: &DynamicOrigins, origin: &[u8]) -> bool {
    snapshot.exact(origin)
        && !(set.refuse_insecure
            && origin.starts_with(b"http:")
            && parse(origin).is_ok_and(|o| o.is_insecure()))
}

/// Whether a request's `Origin` value is in `list` or in `set`, and which; `Err` when it is not
/// an origin. The value is looked up as sent first, and parsed only when neither holds it so.
#[inline]
pub(crate) fn lookup<'s>(
    list: &'s OriginList,
    set: Option<&DynamicOrigins>,
    input: &[u8],
) -> Result<InSet<'s>, NotAnOrigin> {
    if let Some(configured) = list.exact(input) {
        return Ok(InSet::Exact(configured));
    }
    let snapshot = set.map(|set| (set, set.set.shared.current.load()));
    let in_snapshot = |origin: &[u8]| {
        snapshot
            .as_ref()
            .is_some_and(|(set, snapshot)| in_set(snapshot, set, origin))
    };
    if in_snapshot(input) {
        return Ok(InSet::InOriginSet);
    }
    // Spelled as its normalised form, a miss has no other spelling to look up, and without
    // patterns nothing else can hold it: not held, well-formed or not (see `NotAnOrigin`).
    let patterns = snapshot
        .as_ref()
        .is_some_and(|(_, s)| !s.patterns.is_empty());
    if !patterns && !list.has_patterns() && spelled_normalised(input) {
        return Ok(InSet::No);
    }
    let origin = parse(input).map_err(|_| NotAnOrigin)?;
    if origin.canonical.is_none() {
        let mut buf = [0u8; MAX_ORIGIN_LEN];
        if let Some(normalized) = origin.normalize_into(&mut buf) {
            if list.exact(normalized).is_some() {
                return Ok(InSet::Spelled);
            }
            if in_snapshot(normalized) {
                return Ok(InSet::InOriginSet);
            }
        }
    }
    if list.pattern_matches(&origin) {
        return Ok(InSet::Spelled);
    }
    let in_patterns = snapshot.as_ref().is_some_and(|(set, snapshot)| {
        snapshot
            .patterns
            .iter()
            .any(|p| !(set.refuse_insecure && p.is_insecure()) && p.matches(&origin))
    });
    Ok(if in_patterns {
        InSet::InOriginSet
    } else {
        InSet::No
    })
}

/// Whether an origin is in a list or its origin set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InSet<'s> {
    /// A configured origin, byte for byte: reflect this value, which is prebuilt.
    Exact(&'s http::HeaderValue),
    /// Another spelling of a configured origin, or an origin a pattern matches.
    Spelled,
    /// An origin of the [`OriginSet`].
    InOriginSet,
    No,
}

/// A request's `Origin` that is not `scheme://host[:port]`, found so where it had to be parsed:
/// a value that neither the list nor the set can hold under any spelling is answered
/// [`InSet::No`] unparsed, and [`parse`] tells whether it is one, if anyone asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NotAnOrigin;

/// Whether `input`, if it is an origin, is spelled as its normalised form: `https` or `http`,
/// no uppercase letter, and no port (which could be the scheme's default, or have leading
/// zeros). Browsers send origins so. Without a branch per byte, cheaper than parsing.
fn spelled_normalised(input: &[u8]) -> bool {
    let Some(rest) = (input.strip_prefix(b"https://")).or_else(|| input.strip_prefix(b"http://"))
    else {
        return false;
    };
    !rest.iter().fold(false, |seen, &b| {
        seen | (b == b':') | b.is_ascii_uppercase()
    })
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
