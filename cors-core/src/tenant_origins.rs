//! [`TenantOrigins`]: each tenant's own allowed origins, held in memory and changed while
//! requests are served, a request granted only those of the tenant it is for.
//!
//! Built as [`OriginSet`](crate::OriginSet) is: a request reads one snapshot with one atomic
//! load and never waits; a change builds a new snapshot and swaps it in. A snapshot maps each
//! tenant's key to its origins (a hash set, and its patterns), shared between snapshots; the
//! tenants changed since the map was built are kept in a small overlay until it grows past
//! [`OVERLAY_MAX`] tenants, when the map is rebuilt with them. A change therefore copies the
//! tenants it changes and the overlay, never the other tenants.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use arc_swap::{ArcSwap, Guard};
use hashbrown::{HashMap, HashSet};

use crate::error::CorsConfigError;
use crate::origin::{ConfiguredOrigin, OriginPattern, ParsedOrigin, holds, parse};
use crate::origin_set::{checked, entry};
use crate::request::CorsRequest;
use crate::set_ref::NamedSet;
use crate::tenant_key::{MAX_KEY_LEN, TenantKey};

/// Tenants changed since the map was built, kept beside it before it is rebuilt with them.
const OVERLAY_MAX: usize = 1024;

/// Each tenant's own allowed origins: entries `(tenant, origin)`, a request granted an origin
/// of the set only when it is for that tenant. A clone is another handle on the same set.
///
/// Software that gives each customer its own host (`acme.api.example`) and lets each list the
/// browser origins that may call it: `("acme.api.example", "https://app.acme.example")` lets
/// that origin call `acme.api.example`, not `globex.api.example`, nor the server's bare IP
/// address. The tenant is the request's host by default, or what a [`TenantKey`] reads (a
/// header, a part of the path, an extension an earlier layer set):
/// [`keyed_by`](Self::keyed_by). The policy's other origins (its list, its
/// [`OriginSet`](crate::OriginSet)) still apply to every tenant.
///
/// Origins are the entries of [`AllowOrigin::list`](crate::AllowOrigin::list), checked the
/// same way when added (origins and patterns; a path, a pattern over a public suffix, `*` and
/// `null` are errors of `origin`); keys are checked as [`TenantKey`] says (errors of
/// `tenant_origins`). A request's origin is found with one atomic load and two hash lookups,
/// its tenant's then its origin's: no I/O, no lock, no allocation, whatever the size of the
/// set. Name the set in options with
/// [`CorsOptions::tenant_origins`](crate::CorsOptions::tenant_origins), or in options files
/// with `"tenant_origins": "<name>"`. Whether its origins get credentials is
/// [`Credentials::tenant_origins`](crate::Credentials::tenant_origins); with credentials and
/// without [`dangerously_allow_insecure_origins`](crate::CorsOptions::dangerously_allow_insecure_origins),
/// its plain-HTTP entries (other than loopback) are not granted.
///
/// ```
/// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest, TenantOrigins};
/// use http::{HeaderMap, HeaderValue, Method};
///
/// let tenants = TenantOrigins::new("tenant_hosts");
/// tenants.insert("acme.api.example", "https://app.acme.example")?;
/// let policy = CorsPolicy::from_options(
///     &CorsOptions::new().origin("https://console.example").tenant_origins(&tenants),
/// )?;
/// let allowed = |host: &'static str, origin: &'static str| {
///     let mut headers = HeaderMap::new();
///     headers.insert("host", HeaderValue::from_static(host));
///     headers.insert("origin", HeaderValue::from_static(origin));
///     policy.actual(&CorsRequest::new(&Method::GET, &headers)).is_allowed()
/// };
/// assert!(allowed("acme.api.example", "https://app.acme.example"));
/// assert!(allowed("ACME.api.example:443", "https://app.acme.example"));
/// assert!(!allowed("globex.api.example", "https://app.acme.example"));
/// assert!(!allowed("192.0.2.1", "https://app.acme.example"));
/// assert!(allowed("globex.api.example", "https://console.example"));
/// tenants.remove("acme.api.example", "https://app.acme.example");
/// assert!(!allowed("acme.api.example", "https://app.acme.example"));
/// # Ok::<(), cors_axum_core::CorsConfigError>(())
/// ```
#[derive(Clone)]
pub struct TenantOrigins {
    shared: Arc<Shared>,
}

struct Shared {
    name: Box<str>,
    key: TenantKey,
    current: ArcSwap<Snapshot>,
    /// Serialises writers; readers never take it.
    writer: Mutex<()>,
}

/// An entry, checked: a tenant's key and an origin.
type Entry = (Box<[u8]>, ConfiguredOrigin);

/// One tenant's origins.
#[derive(Clone, Default)]
pub(crate) struct Tenant {
    /// Exact origins, normalised.
    exact: HashSet<Box<[u8]>>,
    patterns: Vec<OriginPattern>,
}

impl Tenant {
    fn len(&self) -> usize {
        self.exact.len() + self.patterns.len()
    }

    fn insert(&mut self, entry: ConfiguredOrigin) -> bool {
        match entry {
            ConfiguredOrigin::Exact(origin) => self.exact.insert(origin),
            ConfiguredOrigin::Pattern(pattern) if self.patterns.contains(&pattern) => false,
            ConfiguredOrigin::Pattern(pattern) => {
                self.patterns.push(pattern);
                true
            }
        }
    }

    fn remove(&mut self, entry: &ConfiguredOrigin) -> bool {
        match entry {
            ConfiguredOrigin::Exact(origin) => self.exact.remove(origin),
            ConfiguredOrigin::Pattern(pattern) => {
                let before = self.patterns.len();
                self.patterns.retain(|p| p != pattern);
                self.patterns.len() != before
            }
        }
    }
}

/// One version of the set.
#[derive(Clone, Default)]
struct Snapshot {
    /// Each tenant's origins, by key.
    table: Arc<HashMap<Arc<[u8]>, Arc<Tenant>>>,
    /// Tenants changed since the table was built: their origins now, `None` for none.
    changed: HashMap<Arc<[u8]>, Option<Arc<Tenant>>>,
    /// Entries, every tenant's.
    len: usize,
}

impl Snapshot {
    /// The origins of the tenant with this key.
    #[inline]
    fn tenant(&self, key: &[u8]) -> Option<&Tenant> {
        if !self.changed.is_empty()
            && let Some(changed) = self.changed.get(key)
        {
            return changed.as_deref();
        }
        self.table.get(key).map(|tenant| &**tenant)
    }

    /// The table rebuilt with the overlay, once the overlay has grown.
    fn compact(&mut self) {
        if self.changed.len() <= OVERLAY_MAX {
            return;
        }
        let mut table = HashMap::clone(&self.table);
        for (key, tenant) in self.changed.drain() {
            match tenant {
                Some(tenant) => table.insert(key, tenant),
                None => table.remove(&key),
            };
        }
        self.table = Arc::new(table);
    }
}

/// One change to a snapshot: the tenants it edits, copied once each, put back by
/// [`finish`](Self::finish).
struct Change<'s> {
    snapshot: &'s mut Snapshot,
    edited: HashMap<Arc<[u8]>, Tenant>,
    changed: bool,
}

impl Change<'_> {
    fn tenant(&mut self, key: Box<[u8]>) -> &mut Tenant {
        let snapshot = &*self.snapshot;
        self.edited
            .entry(Arc::from(key))
            .or_insert_with_key(|key| snapshot.tenant(key).cloned().unwrap_or_default())
    }

    fn insert(&mut self, key: Box<[u8]>, origin: ConfiguredOrigin) {
        if self.tenant(key).insert(origin) {
            self.snapshot.len += 1;
            self.changed = true;
        }
    }

    /// Empties the tenant with this key.
    fn clear(&mut self, key: Box<[u8]>) {
        let tenant = self.tenant(key);
        if tenant.len() > 0 {
            let len = tenant.len();
            *tenant = Tenant::default();
            self.snapshot.len -= len;
            self.changed = true;
        }
    }

    fn remove(&mut self, key: Box<[u8]>, origin: &ConfiguredOrigin) {
        if self.tenant(key).remove(origin) {
            self.snapshot.len -= 1;
            self.changed = true;
        }
    }

    /// Puts the edited tenants into the overlay; whether anything changed.
    fn finish(self) -> bool {
        for (key, tenant) in self.edited {
            let tenant = (tenant.len() > 0).then(|| Arc::new(tenant));
            if tenant.is_none() && !self.snapshot.table.contains_key(&key) {
                self.snapshot.changed.remove(&key);
            } else {
                self.snapshot.changed.insert(key, tenant);
            }
        }
        self.snapshot.compact();
        self.changed
    }
}

impl TenantOrigins {
    /// An empty set whose tenants are requests' hosts ([`TenantKey::host`]). Options files
    /// name it with `"tenant_origins": "<name>"`.
    pub fn new(name: impl Into<String>) -> Self {
        Self::keyed_by(name, TenantKey::host())
    }

    /// An empty set whose tenants are what `key` reads from a request.
    ///
    /// ```
    /// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest, TenantKey, TenantOrigins};
    /// use http::{HeaderMap, HeaderName, HeaderValue, Method};
    ///
    /// let tenants =
    ///     TenantOrigins::keyed_by("tenants", TenantKey::header(HeaderName::from_static("x-tenant")));
    /// tenants.insert("acme", "https://app.acme.example")?;
    /// let policy = CorsPolicy::from_options(&CorsOptions::new().tenant_origins(&tenants))?;
    /// let mut headers = HeaderMap::new();
    /// headers.insert("x-tenant", HeaderValue::from_static("acme"));
    /// headers.insert("origin", HeaderValue::from_static("https://app.acme.example"));
    /// let decision = policy.actual(&CorsRequest::new(&Method::GET, &headers));
    /// assert!(decision.is_allowed());
    /// let mut response = HeaderMap::new();
    /// decision.write(&mut response, Default::default());
    /// assert_eq!(response["vary"], "Origin, x-tenant");
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn keyed_by(name: impl Into<String>, key: TenantKey) -> Self {
        TenantOrigins {
            shared: Arc::new(Shared {
                name: name.into().into_boxed_str(),
                key,
                current: ArcSwap::from_pointee(Snapshot::default()),
                writer: Mutex::new(()),
            }),
        }
    }

    /// The set's name, as options files write it.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// What the set's keys are read from.
    pub fn key(&self) -> &TenantKey {
        &self.shared.key
    }

    /// Adds `origin` (an origin or pattern) to `tenant`'s; `Ok(false)` if it was there
    /// already. An entry that is refused leaves the set as it was.
    pub fn insert(&self, tenant: &str, origin: &str) -> Result<bool, CorsConfigError> {
        let (key, origin) = self.entry(tenant, origin)?;
        Ok(self.change(|change| change.insert(key, origin)))
    }

    /// Removes `origin` (any spelling of it) from `tenant`'s; `false` if it was not there.
    pub fn remove(&self, tenant: &str, origin: &str) -> bool {
        match self.entry(tenant, origin) {
            Ok((key, origin)) => self.change(|change| change.remove(key, &origin)),
            Err(_) => false,
        }
    }

    /// Adds `insert` and removes `remove`, `(tenant, origin)` pairs, in that order, in one
    /// change: requests see all of it or none. Entries that are refused are skipped and
    /// returned as errors.
    pub fn patch<I, R, T, O>(&self, insert: I, remove: R) -> Vec<CorsConfigError>
    where
        I: IntoIterator<Item = (T, O)>,
        R: IntoIterator<Item = (T, O)>,
        T: AsRef<str>,
        O: AsRef<str>,
    {
        let (inserted, errors) = self.checked(insert);
        let (removed, _) = self.checked(remove);
        if !inserted.is_empty() || !removed.is_empty() {
            self.change(|change| {
                for (key, origin) in inserted {
                    change.insert(key, origin);
                }
                for (key, origin) in removed {
                    change.remove(key, &origin);
                }
            });
        }
        errors
    }

    /// Replaces the origins of `tenants` with those `entries` give them, `(tenant, origin)`
    /// pairs (entries of other tenants are added too), in one change: a tenant's rows read
    /// again from a database, say. Tenants and entries that are refused are skipped and
    /// returned as errors.
    ///
    /// ```
    /// use cors_axum_core::TenantOrigins;
    ///
    /// let tenants = TenantOrigins::new("tenant_hosts");
    /// tenants.insert("acme.example", "https://a.acme.example")?;
    /// tenants.insert("globex.example", "https://globex.example")?;
    /// tenants.replace_tenants(["ACME.example"], [("acme.example", "https://b.acme.example")]);
    /// assert!(!tenants.contains("acme.example", "https://a.acme.example"));
    /// assert!(tenants.contains("acme.example", "https://b.acme.example"));
    /// assert!(tenants.contains("globex.example", "https://globex.example"));
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn replace_tenants<K, I, T, O>(&self, tenants: K, entries: I) -> Vec<CorsConfigError>
    where
        K: IntoIterator,
        K::Item: AsRef<str>,
        I: IntoIterator<Item = (T, O)>,
        T: AsRef<str>,
        O: AsRef<str>,
    {
        let keys = tenants
            .into_iter()
            .map(|t| self.shared.key.entry(t.as_ref()));
        let (keys, mut errors) = checked(keys);
        let (entries, refused) = self.checked(entries);
        errors.extend(refused);
        self.change(|change| {
            for key in keys {
                change.clear(key);
            }
            for (key, origin) in entries {
                change.insert(key, origin);
            }
        });
        errors
    }

    /// Replaces every entry with `entries`, `(tenant, origin)` pairs, in one change. Entries
    /// that are refused are skipped and returned as errors.
    pub fn replace_all<I, T, O>(&self, entries: I) -> Vec<CorsConfigError>
    where
        I: IntoIterator<Item = (T, O)>,
        T: AsRef<str>,
        O: AsRef<str>,
    {
        let (entries, errors) = self.checked(entries);
        let mut tenants: HashMap<Arc<[u8]>, Tenant> = HashMap::new();
        let mut len = 0;
        for (key, origin) in entries {
            len += usize::from(tenants.entry(Arc::from(key)).or_default().insert(origin));
        }
        let table = tenants
            .into_iter()
            .map(|(key, tenant)| (key, Arc::new(tenant)))
            .collect();
        let snapshot = Snapshot {
            table: Arc::new(table),
            changed: HashMap::new(),
            len,
        };
        let _writer = self.writer();
        self.shared.current.store(Arc::new(snapshot));
        errors
    }

    /// Whether a request for `tenant` with this `Origin` value would be granted by the set (on
    /// a path without credentials).
    pub fn contains(&self, tenant: &str, origin: &str) -> bool {
        let Ok(key) = self.shared.key.entry(tenant) else {
            return false;
        };
        let snapshot = self.shared.current.load();
        snapshot.tenant(&key).is_some_and(|tenant| {
            holds(
                origin.as_bytes(),
                |origin| tenant.exact.contains(origin),
                |origin| tenant.patterns.iter().any(|p| p.matches(origin)),
            )
        })
    }

    /// How many entries the set holds, every tenant's.
    pub fn len(&self) -> usize {
        self.shared.current.load().len
    }

    /// Whether the set holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn entry(&self, tenant: &str, origin: &str) -> Result<Entry, CorsConfigError> {
        Ok((self.shared.key.entry(tenant)?, entry(origin)?))
    }

    /// The entries that pass the checks, and the errors of the others.
    fn checked<I, T, O>(&self, entries: I) -> (Vec<Entry>, Vec<CorsConfigError>)
    where
        I: IntoIterator<Item = (T, O)>,
        T: AsRef<str>,
        O: AsRef<str>,
    {
        checked(
            entries
                .into_iter()
                .map(|(tenant, origin)| self.entry(tenant.as_ref(), origin.as_ref())),
        )
    }

    fn writer(&self) -> std::sync::MutexGuard<'_, ()> {
        self.shared
            .writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Applies `f` to a copy of the current snapshot and publishes it if `f` changed it.
    fn change(&self, f: impl FnOnce(&mut Change<'_>)) -> bool {
        let _writer = self.writer();
        let mut snapshot = Snapshot::clone(&self.shared.current.load());
        let mut change = Change {
            snapshot: &mut snapshot,
            edited: HashMap::new(),
            changed: false,
        };
        f(&mut change);
        let changed = change.finish();
        if changed {
            self.shared.current.store(Arc::new(snapshot));
        }
        changed
    }
}

impl NamedSet for TenantOrigins {
    const FIELD: &'static str = "tenant_origins";
    const WHAT: &'static str = "tenant origin set";
    const TYPE: &'static str = "TenantOrigins";

    fn name(&self) -> &str {
        &self.shared.name
    }
}

impl fmt::Debug for TenantOrigins {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TenantOrigins")
            .field("name", &self.name())
            .field("key", self.key())
            .field("len", &self.len())
            .finish()
    }
}

/// A compiled policy's view of a tenant set: the set, and whether the policy refuses its
/// plain-HTTP entries (credentials without `dangerously_allow_insecure_origins`).
#[derive(Clone, Debug)]
pub(crate) struct DynamicTenants {
    pub(crate) set: TenantOrigins,
    pub(crate) refuse_insecure: bool,
}

impl DynamicTenants {
    /// The current snapshot, and the key of `request` as sent; `None` for a request with no
    /// key.
    #[inline]
    pub(crate) fn load<'k>(&'k self, request: &CorsRequest<'k>) -> Option<LoadedTenants<'k>> {
        let key = self.set.shared.key.of(request)?;
        Some(LoadedTenants {
            snapshot: self.set.shared.current.load(),
            key,
            tenants: self,
        })
    }
}

/// A snapshot of a tenant set, loaded for one request, and the request's key as sent.
pub(crate) struct LoadedTenants<'k> {
    snapshot: Guard<Arc<Snapshot>>,
    key: &'k [u8],
    tenants: &'k DynamicTenants,
}

impl LoadedTenants<'_> {
    /// The origins of the request's tenant, if it has any: its key looked up as sent (as
    /// browsers send a host, lowercase and without the default port), and only otherwise
    /// normalised.
    #[inline]
    pub(crate) fn tenant(&self) -> Option<TenantView<'_>> {
        let tenant = match self.snapshot.tenant(self.key) {
            Some(tenant) => tenant,
            None => {
                let mut buf = [0u8; MAX_KEY_LEN];
                let key = self.tenants.set.shared.key.normalized(self.key, &mut buf)?;
                self.snapshot.tenant(key)?
            }
        };
        Some(TenantView {
            tenant,
            refuse_insecure: self.tenants.refuse_insecure,
        })
    }
}

/// One tenant's origins, as a policy grants them.
#[derive(Clone, Copy)]
pub(crate) struct TenantView<'s> {
    tenant: &'s Tenant,
    refuse_insecure: bool,
}

impl TenantView<'_> {
    /// Whether the tenant holds the (normalised) exact origin, as far as credentials let it.
    #[inline]
    pub(crate) fn exact(self, origin: &[u8]) -> bool {
        self.tenant.exact.contains(origin)
            && !(self.refuse_insecure
                && origin.starts_with(b"http:")
                && parse(origin).is_ok_and(|o| o.is_insecure()))
    }

    /// Whether the tenant has patterns.
    pub(crate) fn has_patterns(self) -> bool {
        !self.tenant.patterns.is_empty()
    }

    /// Whether a pattern of the tenant matches the origin, as far as credentials let it.
    pub(crate) fn pattern(self, origin: &ParsedOrigin<'_>) -> bool {
        OriginPattern::any_matches(&self.tenant.patterns, self.refuse_insecure, origin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_pass_through_the_overlay_and_the_rebuilt_table() {
        let set = TenantOrigins::new("t");
        let host = |i: usize| format!("t{i}.api.example");
        let origin = |i: usize| format!("https://app{i}.example");
        let rows = |range: std::ops::Range<usize>| range.map(move |i| (host(i), origin(i)));
        assert!(set.replace_all(rows(0..100)).is_empty());
        assert_eq!(set.len(), 100);
        assert!(set.remove(&host(5), &origin(5)));
        assert!(!set.remove(&host(5), &origin(5)));
        assert!(!set.contains(&host(5), &origin(5)));
        assert!(set.insert(&host(5), &origin(5)).unwrap());
        assert!(set.contains("T5.api.example.", "HTTPS://APP5.example:443"));
        assert!(!set.contains(&host(6), &origin(5)), "another tenant's");
        for i in 100..100 + OVERLAY_MAX + 10 {
            set.insert(&host(i), &origin(i)).unwrap();
        }
        assert!(
            set.shared.current.load().changed.len() <= OVERLAY_MAX,
            "compacted"
        );
        assert_eq!(set.len(), 100 + OVERLAY_MAX + 10);
        assert!((0..100 + OVERLAY_MAX + 10).all(|i| set.contains(&host(i), &origin(i))));
        let errors = set.patch(
            [
                (host(1), "https://b.example".to_owned()),
                (host(1), "nope".to_owned()),
            ],
            [(host(1), origin(1))],
        );
        assert_eq!(errors.len(), 1);
        assert!(set.contains(&host(1), "https://b.example"));
        assert!(!set.contains(&host(1), &origin(1)));
        assert_eq!(set.len(), 100 + OVERLAY_MAX + 10);
    }

    #[test]
    fn patterns_keys_and_refusals() {
        let set = TenantOrigins::new("t");
        set.insert("acme.example", "https://*.acme.example")
            .unwrap();
        assert!(set.contains("acme.example", "https://a.acme.example"));
        assert!(!set.contains("acme.example", "https://acme.example"));
        assert!(!set.contains("globex.example", "https://a.acme.example"));
        assert_eq!(
            set.insert("acme.example", "*").unwrap_err().field(),
            "origin"
        );
        let err = set
            .insert("acme.example:8443", "https://a.example")
            .unwrap_err();
        assert_eq!(err.field(), "tenant_origins");
        assert!(set.remove("acme.example", "https://*.acme.example"));
        assert!(set.is_empty());
        assert!(set.shared.current.load().tenant(b"acme.example").is_none());
    }
}
