//! [`AllowOrigin`]: which origins may read responses.

use std::any::{Any, TypeId, type_name};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use http::{HeaderMap, HeaderName, HeaderValue, Method, Uri};

use crate::credentials::Source;
use crate::error::CorsConfigError;
use crate::list_option::list_option;
use crate::origin::{OriginList, parse, parse_configured};
use crate::origin_error::{OriginChecks, origin_error};
use crate::origin_set::{DynamicOrigins, OriginSet};
use crate::origin_sources::{Found, NotAnOrigin, find};
use crate::provided::ProvidedValue;
use crate::refusal::Refusal;
use crate::request::{CorsRequest, OriginAnswer};
use crate::set_ref::{NamedSet, SetRef, unbound};
use crate::tenant_origins::{DynamicTenants, TenantOrigins};

type RequestPredicate = Opaque<dyn Fn(&HeaderValue, &CorsRequest<'_>) -> bool + Send + Sync>;
type AsyncPredicate = Opaque<dyn Fn(OriginQuery) -> LookupFuture + Send + Sync>;
/// Makes an asynchronous predicate from the value it was declared to take.
type Binder = Opaque<dyn Fn(&(dyn Any + Send + Sync)) -> Option<AsyncPredicate> + Send + Sync>;

/// A function the application gave: shared, and shown as `..` by `Debug`.
pub(crate) struct Opaque<F: ?Sized>(Arc<F>);

impl<F: ?Sized> Clone for Opaque<F> {
    fn clone(&self) -> Self {
        Opaque(Arc::clone(&self.0))
    }
}

impl<F: ?Sized> fmt::Debug for Opaque<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("..")
    }
}

impl<F: ?Sized> std::ops::Deref for Opaque<F> {
    type Target = F;

    fn deref(&self) -> &F {
        &self.0
    }
}

/// The error an asynchronous origin decision may fail with.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The future of an asynchronous origin decision: allowed, refused, or failed.
pub type LookupFuture = Pin<Box<dyn Future<Output = Result<bool, BoxError>> + Send>>;

/// What an asynchronous origin decision ([`AllowOrigin::async_predicate`]) sees of a request,
/// owned, so that the decision can outlive the borrow of the request.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct OriginQuery {
    /// The request's `Origin`: one well-formed origin, never `null`.
    pub origin: HeaderValue,
    /// The request's method (`OPTIONS` for a preflight).
    pub method: Method,
    /// The request's URI, when the caller gave it ([`CorsRequest::with_uri`]).
    pub uri: Option<Uri>,
    /// The request's headers.
    pub headers: HeaderMap,
}

/// An asynchronous origin decision to make before the engine decides:
/// [`CorsPolicy::origin_lookup`](crate::CorsPolicy::origin_lookup).
#[non_exhaustive]
pub struct OriginLookup {
    /// The decision; the caller awaits it, at most [`timeout`](Self::timeout).
    pub future: LookupFuture,
    /// How long the decision may take; past it the caller answers as refused.
    pub timeout: Duration,
}

impl fmt::Debug for OriginLookup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OriginLookup")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// Which origins may read responses: the
/// [`Access-Control-Allow-Origin`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Access-Control-Allow-Origin)
/// response header.
///
/// Origins are compared as the Fetch standard serializes them: scheme, host and port, scheme and
/// host case-insensitively, a default port (`:443` for `https`, `:80` for `http`) equal to none.
/// An allowed origin is answered with the request's own `Origin` value, never a configured
/// spelling. Configured origins are checked when the policy is compiled: a path, a trailing
/// slash, a query, user information or a bad port is an error.
///
/// Patterns such as `https://*.example.com` allow every subdomain (one or more labels) of
/// `example.com` with that scheme and port, but not `https://example.com` itself. A port
/// wildcard, as in `http://localhost:*`, allows every port written in the origin, with that
/// scheme and host: `http://localhost:5173`, not `http://localhost` (a browser's origin for port
/// 80, which it leaves out; list it too if needed), not `https://localhost:5173`, not
/// `http://localhost.evil.test:5173`. Both together, `https://*.example.com:*`, allow every
/// subdomain on every explicit port. `*` stands only for the whole leftmost label of the host
/// or for the whole port; anything else is a configuration error.
///
/// `null` may be listed only together with
/// [`CorsOptions::allow_null_origin(true)`](crate::CorsOptions::allow_null_origin).
///
/// ```
/// use cors_axum_core::AllowOrigin;
///
/// let _ = AllowOrigin::any();
/// let _ = AllowOrigin::exact("https://example.com");
/// let _ = AllowOrigin::list(["https://example.com", "https://*.example.com"]);
/// let _ = AllowOrigin::list(["http://localhost:*", "https://*.example.com:*"]);
/// let _ = AllowOrigin::predicate(|origin| origin.as_bytes().ends_with(b".localhost:3000"));
/// let _: AllowOrigin = "*".into(); // the same as `any()`
/// ```
#[must_use]
#[derive(Clone, Debug)]
pub struct AllowOrigin {
    spec: OriginSpec,
    /// Request headers the decision reads, for `Vary`.
    varying_on: Vec<String>,
    /// How long an asynchronous decision may take.
    timeout: Duration,
    /// An [`OriginSet`] consulted beside the list.
    set: Option<SetRef<OriginSet>>,
    /// The [`TenantOrigins`] consulted beside the list and the set.
    tenants: Option<SetRef<TenantOrigins>>,
    /// Whether this is [`CorsOptions::origin_fallback`](crate::CorsOptions::origin_fallback)
    /// alone, whose origins are granted as the fallback's, not the list's.
    fallback: bool,
}

#[derive(Clone, Debug)]
enum OriginSpec {
    Any,
    List(Vec<String>),
    RequestPredicate(RequestPredicate),
    Async(AsyncPredicate),
    /// An asynchronous decision that takes a value of the type, not provided yet.
    AsyncWith(Binder, TypeId, &'static str),
    /// A list, then an asynchronous decision for the origins it does not hold.
    ListThen(Vec<String>, Box<OriginSpec>),
    /// A combination that cannot be made, and why: an error when compiled.
    Misused(&'static str),
    Mirror,
}

impl From<OriginSpec> for AllowOrigin {
    fn from(spec: OriginSpec) -> Self {
        AllowOrigin {
            spec,
            varying_on: Vec::new(),
            timeout: AllowOrigin::DEFAULT_TIMEOUT,
            set: None,
            tenants: None,
            fallback: false,
        }
    }
}

impl AllowOrigin {
    /// Any origin: `Access-Control-Allow-Origin: *`. The default. Cannot be combined with
    /// [`CorsOptions::credentials(true)`](crate::CorsOptions::credentials); see
    /// [`AllowOrigin::mirror_request`] for that.
    ///
    /// Every CORS request (one with an `Origin` header) gets `*` whatever its `Origin` value, so
    /// the answer does not depend on it and needs no `Vary: Origin`.
    ///
    /// **Secure by default:** a response the handler makes credentialed anyway
    /// ([`ResponseCredentials::Include`](crate::ResponseCredentials::Include), e.g. because it
    /// sets a cookie) still gets `*`, with `Access-Control-Allow-Credentials: true`: browsers
    /// refuse to let a script read such a response, so no site can read a credentialed answer
    /// just because any origin is allowed. Writing it reports
    /// [`Refusal::CredentialsUnderAnyOrigin`](crate::Refusal::CredentialsUnderAnyOrigin), for a
    /// warning.
    pub fn any() -> Self {
        OriginSpec::Any.into()
    }

    /// One origin, such as `https://example.com`, or one pattern, such as `https://*.example.com`.
    pub fn exact(origin: impl Into<String>) -> Self {
        OriginSpec::List(vec![origin.into()]).into()
    }

    /// Several origins and/or patterns; a request origin is looked up in constant time.
    pub fn list<I, S>(origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        OriginSpec::List(origins.into_iter().map(Into::into).collect()).into()
    }

    /// Origins for which `f` returns true. `f` sees only well-formed origins (never `null`,
    /// several values or malformed bytes) and runs on every CORS request, so keep it cheap.
    pub fn predicate<F>(f: F) -> Self
    where
        F: Fn(&HeaderValue) -> bool + Send + Sync + 'static,
    {
        Self::request_predicate(move |origin: &HeaderValue, _: &CorsRequest<'_>| f(origin))
    }

    /// Origins for which `f` returns true, given the request: its method, URI (when the
    /// caller gave it) and headers, to decide by `Host`, path or tenant. `f` sees only
    /// well-formed origins, on preflights and actual requests alike, and runs on every CORS
    /// request, so keep it cheap.
    ///
    /// Name the request headers `f` reads with [`varying_on`](Self::varying_on), so that every
    /// answer says `Vary` on them. `Host` needs no naming: caches key a response on its URL,
    /// the host included.
    ///
    /// ```
    /// use cors_axum_core::{AllowOrigin, CorsOptions, CorsPolicy, CorsRequest};
    /// use http::{HeaderMap, HeaderValue, Method};
    ///
    /// // Tenant `acme` calls from `https://acme.example`, every other tenant is refused.
    /// let origin = AllowOrigin::request_predicate(|origin, request| {
    ///     let tenant = request.headers().get("x-tenant").and_then(|t| t.to_str().ok());
    ///     tenant == Some("acme") && origin == "https://acme.example"
    /// })
    /// .varying_on(["x-tenant"]);
    /// let policy = CorsPolicy::from_options(&CorsOptions::new().origin(origin))?;
    ///
    /// let mut headers = HeaderMap::new();
    /// headers.insert("origin", HeaderValue::from_static("https://acme.example"));
    /// headers.insert("x-tenant", HeaderValue::from_static("acme"));
    /// let decision = policy.actual(&CorsRequest::new(&Method::GET, &headers));
    /// assert!(decision.is_allowed());
    /// let mut response = HeaderMap::new();
    /// decision.write(&mut response, Default::default());
    /// assert_eq!(response["vary"], "Origin, x-tenant");
    ///
    /// headers.insert("x-tenant", HeaderValue::from_static("globex"));
    /// assert!(!policy.actual(&CorsRequest::new(&Method::GET, &headers)).is_allowed());
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn request_predicate<F>(f: F) -> Self
    where
        F: Fn(&HeaderValue, &CorsRequest<'_>) -> bool + Send + Sync + 'static,
    {
        OriginSpec::RequestPredicate(Opaque(Arc::new(f))).into()
    }

    /// Origins decided asynchronously, for example by a database of tenants: `f` gets the
    /// request's origin (well-formed, never `null`), method, URI and headers, and answers
    /// allowed, refused, or an error. The engine stays synchronous: the caller (the layer of
    /// cors-axum) asks [`CorsPolicy::origin_lookup`](crate::CorsPolicy::origin_lookup) for the
    /// future, awaits it at most [`lookup_timeout`](Self::lookup_timeout) (1 s unless set),
    /// and gives the answer with [`CorsRequest::with_origin_answer`]. An error or a timeout is
    /// answered as a refusal, never as an error response nor a grant, with
    /// [`Refusal::OriginLookupFailed`](crate::Refusal::OriginLookupFailed) as the reason.
    ///
    /// The decision runs on every CORS request: cache it, within bounds (see the guide of
    /// cors-axum on multi-tenant origins). As with
    /// [`request_predicate`](Self::request_predicate), name the headers it reads with
    /// [`varying_on`](Self::varying_on).
    pub fn async_predicate<F, Fut>(f: F) -> Self
    where
        F: Fn(OriginQuery) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<bool, BoxError>> + Send + 'static,
    {
        OriginSpec::Async(Opaque(Arc::new(move |query| {
            Box::pin(f(query)) as LookupFuture
        })))
        .into()
    }

    /// [`async_predicate`](Self::async_predicate) with a value the application provides,
    /// such as a database pool: `f` gets a clone of it and the query. With cors-axum the value
    /// is one provided with `.provide(..)` of the application builder or a module's
    /// `providers_per_rou`, found when the router is built (a missing one is a build error);
    /// with the engine alone, [`CorsOptions::with_values`](crate::CorsOptions::with_values)
    /// binds it. Options whose value is not bound are a configuration error of `origin`.
    ///
    /// ```
    /// use cors_axum_core::{AllowOrigin, CorsOptions, CorsPolicy, ProvidedValue};
    /// use std::sync::Arc;
    ///
    /// #[derive(Clone)]
    /// struct Tenants(Arc<Vec<&'static str>>);
    ///
    /// let options = CorsOptions::new().origin(AllowOrigin::async_predicate_with(
    ///     |tenants: Tenants, query| async move {
    ///         Ok(tenants.0.iter().any(|t| query.origin == *t))
    ///     },
    /// ));
    /// assert_eq!(CorsPolicy::from_options(&options).unwrap_err().field(), "origin");
    ///
    /// let tenants: ProvidedValue = Arc::new(Tenants(Arc::new(vec!["https://acme.example"])));
    /// let bound = options.with_values(|_| Some(tenants.clone()))?;
    /// assert!(CorsPolicy::from_options(&bound)?.decides_origins_asynchronously());
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn async_predicate_with<T, F, Fut>(f: F) -> Self
    where
        T: Clone + Send + Sync + 'static,
        F: Fn(T, OriginQuery) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<bool, BoxError>> + Send + 'static,
    {
        let f = Arc::new(f);
        let binder: Binder = Opaque(Arc::new(move |value: &(dyn Any + Send + Sync)| {
            let value = value.downcast_ref::<T>()?.clone();
            let f = Arc::clone(&f);
            let bound: Arc<dyn Fn(OriginQuery) -> LookupFuture + Send + Sync> =
                Arc::new(move |query| Box::pin(f(value.clone(), query)) as LookupFuture);
            Some(Opaque(bound))
        }));
        OriginSpec::AsyncWith(binder, TypeId::of::<T>(), type_name::<T>()).into()
    }

    /// These origins and patterns, answered at once, then `lookup`, an asynchronous decision
    /// ([`async_predicate`](Self::async_predicate) or
    /// [`async_predicate_with`](Self::async_predicate_with)), for the origins they do not hold:
    /// "these three origins, and any tenant's origin from the database". A listed origin never
    /// waits for the lookup. Anything but a list here, or a lookup that is not asynchronous, is
    /// a configuration error of `origin`. With origins from a configuration file, set the
    /// lookup with [`CorsOptions::origin_fallback`](crate::CorsOptions::origin_fallback).
    ///
    /// ```
    /// use cors_axum_core::{AllowOrigin, CorsOptions, CorsPolicy, CorsRequest};
    /// use http::{HeaderMap, HeaderValue, Method};
    ///
    /// let origin = AllowOrigin::list(["https://app.example", "https://*.partner.example"])
    ///     .or_else(AllowOrigin::async_predicate(|query| async move {
    ///         Ok(query.origin.as_bytes().ends_with(b".tenants.example"))
    ///     }));
    /// let policy = CorsPolicy::from_options(&CorsOptions::new().origin(origin))?;
    /// let mut headers = HeaderMap::new();
    /// headers.insert("origin", HeaderValue::from_static("https://app.example"));
    /// assert!(policy.origin_lookup(&CorsRequest::new(&Method::GET, &headers)).is_none());
    /// headers.insert("origin", HeaderValue::from_static("https://acme.tenants.example"));
    /// assert!(policy.origin_lookup(&CorsRequest::new(&Method::GET, &headers)).is_some());
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn or_else(self, lookup: AllowOrigin) -> Self {
        let AllowOrigin {
            spec,
            mut varying_on,
            timeout: _,
            set,
            tenants,
            fallback,
        } = self;
        varying_on.extend(lookup.varying_on);
        let spec = match spec {
            OriginSpec::List(origins) => OriginSpec::ListThen(origins, Box::new(lookup.spec)),
            _ => OriginSpec::Misused(
                "`or_else` follows a list of origins and patterns, as in \
                 `AllowOrigin::list([..]).or_else(AllowOrigin::async_predicate(..))`",
            ),
        };
        AllowOrigin {
            spec,
            varying_on,
            timeout: lookup.timeout,
            set,
            tenants,
            fallback,
        }
    }

    /// The origins of an [`OriginSet`](crate::OriginSet), which may change while requests are
    /// served: the same as `AllowOrigin::list::<_, &str>([]).and_set(set)`.
    pub fn set(set: &OriginSet) -> Self {
        Self::list(Vec::<String>::new()).and_set(set)
    }

    /// These origins and patterns, and those of an [`OriginSet`](crate::OriginSet), which may
    /// change while requests are served: "the front-end's origin, and every tenant's". The set
    /// is read with one atomic load per request and no I/O. With
    /// [`or_else`](Self::or_else), the lookup runs only for origins neither holds. After
    /// anything but a list, it is a configuration error of `origin`. In options files:
    /// `"origin_set": "<name>"` ([`CorsOptions::origin_set`](crate::CorsOptions::origin_set)).
    pub fn and_set(mut self, set: &OriginSet) -> Self {
        self.set = Some(SetRef::Set(set.clone()));
        self
    }

    /// This decision with the sets options name, each replacing any set of its own.
    pub(crate) fn with_sets(
        mut self,
        set: &Option<SetRef<OriginSet>>,
        tenants: &Option<SetRef<TenantOrigins>>,
    ) -> Self {
        self.set = set.clone().or(self.set);
        self.tenants = tenants.clone().or(self.tenants);
        self
    }

    /// This decision as [`CorsOptions::origin_fallback`](crate::CorsOptions::origin_fallback)
    /// alone: what it allows is the fallback's.
    pub(crate) fn into_fallback(mut self) -> Self {
        self.fallback = true;
        self
    }

    /// Whether this is [`any()`](Self::any), the default.
    pub(crate) fn is_any(&self) -> bool {
        matches!(self.spec, OriginSpec::Any)
    }

    /// The types of the values this decision takes
    /// ([`async_predicate_with`](Self::async_predicate_with)) that are not bound yet.
    pub(crate) fn needed_value(&self) -> Option<(TypeId, &'static str)> {
        let decision = match &self.spec {
            OriginSpec::ListThen(_, then) => then,
            spec => spec,
        };
        match decision {
            OriginSpec::AsyncWith(_, id, name) => Some((*id, name)),
            _ => None,
        }
    }

    /// This decision with its value bound from `values`; `Err` with the type's name when
    /// `values` has none.
    pub(crate) fn with_value(
        &self,
        values: &dyn Fn(TypeId) -> Option<ProvidedValue>,
    ) -> Result<Self, &'static str> {
        let bind = |spec: &OriginSpec| -> Result<OriginSpec, &'static str> {
            let OriginSpec::AsyncWith(binder, id, name) = spec else {
                return Ok(spec.clone());
            };
            let value = values(*id).ok_or(*name)?;
            binder(&*value).map(OriginSpec::Async).ok_or(*name)
        };
        let spec = match &self.spec {
            OriginSpec::ListThen(origins, then) => {
                OriginSpec::ListThen(origins.clone(), Box::new(bind(then)?))
            }
            other => bind(other)?,
        };
        Ok(AllowOrigin {
            spec,
            ..self.clone()
        })
    }

    /// Request headers the origin decision reads, beside `Origin`: every answer then names them
    /// in `Vary`, so that a cache does not give one tenant's answer to another. Invalid names are
    /// a configuration error of the `origin` option.
    pub fn varying_on<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.varying_on.extend(names.into_iter().map(Into::into));
        self
    }

    /// How long an [asynchronous decision](Self::async_predicate) may take before it is
    /// answered as a refusal (1 s unless set).
    pub fn lookup_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);

    /// Every well-formed origin, reflected explicitly (`Access-Control-Allow-Origin: <origin>`,
    /// `Vary: Origin`); `null` only with
    /// [`CorsOptions::allow_null_origin(true)`](crate::CorsOptions::allow_null_origin).
    ///
    /// **The one opt-in for credentialed access from any site.** Unlike
    /// [`any`](AllowOrigin::any), this may be combined with
    /// [`CorsOptions::credentials(true)`](crate::CorsOptions::credentials), and a response the
    /// handler makes credentialed reflects the origin with
    /// `Access-Control-Allow-Credentials: true`: every website can then make credentialed
    /// requests (with the user's cookies) and read the answers. Use it only for resources meant
    /// for that. In configuration files: `"origin": "mirror"`.
    pub fn mirror_request() -> Self {
        OriginSpec::Mirror.into()
    }

    pub(crate) fn compile(
        &self,
        checks: &OriginChecks<'_>,
    ) -> Result<CompiledOrigin, CorsConfigError> {
        let allow_null = checks.allow_null;
        let mut varying_on = Vec::with_capacity(self.varying_on.len());
        for name in &self.varying_on {
            let parsed = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                CorsConfigError::new(
                    "origin",
                    Some(name),
                    format!("`{name}` in `varying_on` is not a header name"),
                )
            })?;
            if !varying_on.contains(&parsed) {
                varying_on.push(parsed);
            }
        }
        let rule = match &self.spec {
            OriginSpec::Any => OriginRule::Any,
            OriginSpec::Mirror => OriginRule::Mirror,
            OriginSpec::RequestPredicate(f) => OriginRule::RequestPredicate(f.clone()),
            OriginSpec::Async(f) => OriginRule::Async(f.clone(), self.timeout),
            OriginSpec::AsyncWith(_, _, name) => return Err(unbound_value(name)),
            OriginSpec::Misused(why) => return Err(CorsConfigError::new("origin", None, *why)),
            OriginSpec::ListThen(origins, then) => {
                let lookup = match &**then {
                    OriginSpec::Async(f) => f.clone(),
                    OriginSpec::AsyncWith(_, _, name) => return Err(unbound_value(name)),
                    _ => {
                        return Err(CorsConfigError::new(
                            "origin",
                            None,
                            "`or_else` goes from a list of origins and patterns to an asynchronous \
                             decision (`AllowOrigin::async_predicate`), as in \
                             `AllowOrigin::list([..]).or_else(AllowOrigin::async_predicate(..))`",
                        ));
                    }
                };
                OriginRule::ListThen(compile_list(origins, checks)?, lookup, self.timeout)
            }
            OriginSpec::List(origins) => OriginRule::List(compile_list(origins, checks)?),
        };
        let is_list = matches!(rule, OriginRule::List(_) | OriginRule::ListThen(..));
        let dynamic = beside_list(&self.set, is_list, "and_set(&set)")?.map(|set| DynamicOrigins {
            set,
            refuse_insecure: checks.set_refuses_insecure,
        });
        let tenants = beside_list(&self.tenants, is_list, "CorsOptions::tenant_origins(&set)")?;
        if let Some(tenants) = &tenants {
            for name in tenants.key().vary() {
                if !varying_on.contains(name) {
                    varying_on.push(name.clone());
                }
            }
        }
        let tenants = tenants.map(|set| DynamicTenants {
            set,
            refuse_insecure: checks.tenants_refuse_insecure,
        });
        Ok(CompiledOrigin {
            rule,
            allow_null,
            varying_on,
            dynamic,
            tenants,
            async_source: if self.fallback {
                Source::OriginFallback
            } else {
                Source::Origin
            },
        })
    }
}

/// The set `set` refers to, bound; an error when it is named and not bound, or beside
/// anything but a list (`is_list`), as `written` shows.
fn beside_list<T: NamedSet>(
    set: &Option<SetRef<T>>,
    is_list: bool,
    written: &str,
) -> Result<Option<T>, CorsConfigError> {
    match set {
        None => Ok(None),
        Some(SetRef::Named(name)) => Err(unbound::<T>(name)),
        Some(SetRef::Set(set)) if is_list => Ok(Some(set.clone())),
        Some(set) => Err(CorsConfigError::new(
            T::FIELD,
            Some(set.name()),
            format!(
                "an {} goes with a list of origins (which may be empty), as in \
                 `AllowOrigin::list([..])` with `{written}`, not with any origin, a predicate or \
                 `mirror`",
                T::WHAT
            ),
        )),
    }
}

/// The error of a decision that takes a value nobody provided.
fn unbound_value(type_name: &str) -> CorsConfigError {
    CorsConfigError::new(
        "origin",
        None,
        format!(
            "the origin decision takes a `{type_name}`, which was not provided: provide it to the \
             application (cors-axum: `.provide(..)`, or `providers_per_rou`), or bind it with \
             `CorsOptions::with_values`"
        ),
    )
}

/// Compiles configured origins and patterns.
fn compile_list(
    origins: &[String],
    checks: &OriginChecks<'_>,
) -> Result<OriginList, CorsConfigError> {
    let allow_null = checks.allow_null;
    let mut set = OriginList::default();
    for origin in origins {
        if origin == "*" {
            return Err(CorsConfigError::new(
                "origin",
                Some(origin),
                "`*` (any origin) cannot be part of a list; use `*` alone to allow any origin, \
                 or list the origins",
            ));
        }
        if origin == "null" {
            if !allow_null {
                return Err(null_error());
            }
            continue;
        }
        let configured = parse_configured(origin).map_err(|e| origin_error(origin, e))?;
        checks.check(origin, &configured)?;
        set.insert(configured);
    }
    Ok(set)
}

fn null_error() -> CorsConfigError {
    CorsConfigError::new(
        "origin",
        Some("null"),
        "`null` is sent by sandboxed frames, `file:` pages and redirected requests, which any site can \
         produce; allow it deliberately with `allow_null_origin(true)`",
    )
}

impl Default for AllowOrigin {
    fn default() -> Self {
        Self::any()
    }
}

list_option!(AllowOrigin; "mirror" => Self::mirror_request());

/// The answer of the asynchronous decision made for `request`; a failed or missing one refuses.
fn answered<'a>(request: &CorsRequest<'a>) -> Result<bool, Refusal<'a>> {
    match request.origin_answer() {
        Some(OriginAnswer::Allowed) => Ok(true),
        Some(OriginAnswer::Refused) => Ok(false),
        Some(OriginAnswer::Failed(reason)) => Err(Refusal::OriginLookupFailed { reason }),
        None => Err(Refusal::OriginLookupFailed {
            reason: "the lookup was not made",
        }),
    }
}

/// Calls an origin predicate; a panic in it is a refusal, so that a bug in the application's
/// predicate answers the request instead of tearing down its connection.
fn predicate<'a>(f: impl FnOnce() -> bool) -> Result<bool, Refusal<'a>> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|_| {
        Refusal::OriginLookupFailed {
            reason: "the origin predicate panicked",
        }
    })
}

/// `refusal` with its reason made exact: an origin refused as not allowed by
/// [`CompiledOrigin::allows`] without being parsed is told malformed if it is.
pub(crate) fn explained(refusal: Refusal<'_>) -> Refusal<'_> {
    match refusal {
        Refusal::OriginNotAllowed { origin } if parse(origin.as_bytes()).is_err() => {
            Refusal::MalformedOrigin { origin }
        }
        other => other,
    }
}

/// How a compiled policy decides on a request origin.
#[derive(Clone, Debug)]
pub(crate) enum OriginRule {
    Any,
    Mirror,
    RequestPredicate(RequestPredicate),
    Async(AsyncPredicate, Duration),
    List(OriginList),
    /// The list, then the asynchronous decision for the origins it does not hold.
    ListThen(OriginList, AsyncPredicate, Duration),
}

/// A validated origin option.
#[derive(Clone, Debug)]
pub(crate) struct CompiledOrigin {
    pub(crate) rule: OriginRule,
    allow_null: bool,
    /// Request headers the decision reads, for `Vary`.
    pub(crate) varying_on: Vec<HeaderName>,
    /// The origin set consulted beside the list.
    dynamic: Option<DynamicOrigins>,
    /// The tenant set consulted beside the list and the origin set.
    tenants: Option<DynamicTenants>,
    /// The source of what [`OriginRule::Async`] allows.
    async_source: Source,
}

/// An origin the rule allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Granted<'s> {
    /// A configured origin equal to the request's byte for byte, to reflect instead of the
    /// request's own value (the same bytes, prebuilt).
    pub(crate) value: Option<&'s HeaderValue>,
    /// The option that allowed it.
    pub(crate) source: Source,
}

impl CompiledOrigin {
    /// Whether a request's (single) `Origin` value may be reflected in
    /// `Access-Control-Allow-Origin`, and why not: `null` only with the opt-in, otherwise only
    /// a well-formed origin the rule allows. The origin is read once. A predicate that panics
    /// refuses, with the panic as the reason.
    pub(crate) fn decide<'s, 'a>(
        &'s self,
        origin: &'a HeaderValue,
        request: &CorsRequest<'a>,
    ) -> Result<Granted<'s>, Refusal<'a>> {
        self.allows(origin, request).map_err(explained)
    }

    /// [`decide`](Self::decide), but an origin a list does not hold may be refused as
    /// [`Refusal::OriginNotAllowed`] though it is malformed: telling which takes parsing it,
    /// which a decision that explains its refusal only when asked
    /// ([`ActualDecision::refusal`](crate::ActualDecision::refusal)) leaves until then,
    /// with [`explained`].
    pub(crate) fn allows<'s, 'a>(
        &'s self,
        origin: &'a HeaderValue,
        request: &CorsRequest<'a>,
    ) -> Result<Granted<'s>, Refusal<'a>> {
        let bytes = origin.as_bytes();
        let granted = |source| Granted {
            value: None,
            source,
        };
        if bytes == b"null" {
            return if self.allow_null {
                Ok(granted(Source::Origin))
            } else {
                Err(Refusal::NullOriginNotEnabled)
            };
        }
        let (allowed, source) = match &self.rule {
            OriginRule::List(list) | OriginRule::ListThen(list, ..) => {
                match self.find(list, request, bytes) {
                    Ok(Found::Exact(configured)) => {
                        return Ok(Granted {
                            value: Some(configured),
                            source: Source::Origin,
                        });
                    }
                    Ok(Found::Spelled) => (true, Source::Origin),
                    Ok(Found::InOriginSet) => (true, Source::OriginSet),
                    Ok(Found::InTenantOrigins) => (true, Source::TenantOrigins),
                    // A malformed origin is never looked up, so it is refused as such.
                    Ok(Found::No) if matches!(self.rule, OriginRule::ListThen(..)) => {
                        if parse(bytes).is_err() {
                            return Err(Refusal::MalformedOrigin { origin });
                        }
                        (answered(request)?, Source::OriginFallback)
                    }
                    Ok(Found::No) => (false, Source::Origin),
                    Err(NotAnOrigin) => return Err(Refusal::MalformedOrigin { origin }),
                }
            }
            _ if parse(bytes).is_err() => return Err(Refusal::MalformedOrigin { origin }),
            OriginRule::Any | OriginRule::Mirror => (true, Source::Origin),
            OriginRule::RequestPredicate(f) => (predicate(|| f(origin, request))?, Source::Origin),
            OriginRule::Async(..) => (answered(request)?, self.async_source),
        };
        if allowed {
            Ok(granted(source))
        } else {
            Err(Refusal::OriginNotAllowed { origin })
        }
    }

    /// Where `list`, the origin set or the tenant set of `request` holds a request's `Origin`
    /// value.
    #[inline]
    fn find<'s>(
        &self,
        list: &'s OriginList,
        request: &CorsRequest<'_>,
        origin: &[u8],
    ) -> Result<Found<'s>, NotAnOrigin> {
        let tenants = self.tenants.as_ref().map(|tenants| (tenants, request));
        find(list, self.dynamic.as_ref(), tenants, origin)
    }

    /// Whether the rule decides asynchronously.
    pub(crate) fn is_async(&self) -> bool {
        matches!(self.rule, OriginRule::Async(..) | OriginRule::ListThen(..))
    }

    /// The asynchronous decision to make for `request`, if the rule has one and the request
    /// has one well-formed origin the decision has not answered yet.
    pub(crate) fn lookup(&self, request: &CorsRequest<'_>) -> Option<OriginLookup> {
        let origin = request.origin()?;
        let (f, timeout) = match &self.rule {
            OriginRule::Async(f, timeout) => (f, timeout),
            // A listed origin is answered without the lookup.
            OriginRule::ListThen(list, f, timeout)
                if self.find(list, request, origin.as_bytes()) == Ok(Found::No) =>
            {
                (f, timeout)
            }
            _ => return None,
        };
        if request.origin_answer().is_some()
            || origin.as_bytes() == b"null"
            || parse(origin.as_bytes()).is_err()
        {
            return None;
        }
        let query = OriginQuery {
            origin: origin.clone(),
            method: request.method().clone(),
            uri: request.uri().cloned(),
            headers: request.headers().clone(),
        };
        Some(OriginLookup {
            future: f(query),
            timeout: *timeout,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::origin_error::{CredentialsToInsecure, suggested_origin};
    use crate::public_suffix::OwnedSuffixes;

    fn checks(allow_null: bool) -> OriginChecks<'static> {
        static NONE_OWNED: OwnedSuffixes = OwnedSuffixes::NONE;
        OriginChecks {
            allow_null,
            owned_suffixes: &NONE_OWNED,
            credentials_to_insecure: CredentialsToInsecure::NoCredentials,
            set_refuses_insecure: false,
            tenants_refuse_insecure: false,
        }
    }

    fn err(origin: &str) -> String {
        AllowOrigin::exact(origin)
            .compile(&checks(false))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn suggests_the_origin() {
        assert_eq!(
            suggested_origin("https://example.com/a/b?c"),
            "https://example.com"
        );
        assert_eq!(
            suggested_origin("https://u:p@example.com:8443/"),
            "https://example.com:8443"
        );
    }

    #[test]
    fn messages_name_the_fix() {
        assert!(err("https://example.com?x").contains("write it as `https://example.com`"));
        assert!(err("https://a.com,https://b.com").contains("give several origins as a list"));
        assert!(err("example.com").contains("is not an origin"));
    }

    #[test]
    fn null_needs_opt_in() {
        assert!(AllowOrigin::list(["null"]).compile(&checks(false)).is_err());
        assert!(AllowOrigin::list(["null"]).compile(&checks(true)).is_ok());
    }

    #[test]
    fn refusals_name_the_reason() {
        let set = AllowOrigin::list(["https://a.com"])
            .compile(&checks(false))
            .unwrap();
        let value = |s: &'static str| HeaderValue::from_static(s);
        let headers = http::HeaderMap::new();
        let request = CorsRequest::new(&http::Method::GET, &headers);
        let null = value("null");
        assert_eq!(
            set.decide(&null, &request),
            Err(Refusal::NullOriginNotEnabled)
        );
        let evil = value("https://evil.com");
        assert_eq!(
            set.decide(&evil, &request),
            Err(Refusal::OriginNotAllowed { origin: &evil })
        );
        let path = value("https://a.com/");
        assert_eq!(
            set.decide(&path, &request),
            Err(Refusal::MalformedOrigin { origin: &path })
        );
        let configured = set.decide(&value("https://a.com"), &request).unwrap();
        assert_eq!(
            configured.value,
            Some(&value("https://a.com")),
            "reflected as configured"
        );
        assert_eq!(
            set.decide(&value("HTTPS://A.com:443"), &request),
            Ok(Granted {
                value: None,
                source: Source::Origin
            })
        );
    }

    #[test]
    fn a_predicate_that_panics_refuses() {
        let rule = AllowOrigin::predicate(|_| panic!("the predicate's bug"))
            .compile(&checks(false))
            .unwrap();
        let headers = http::HeaderMap::new();
        let request = CorsRequest::new(&http::Method::GET, &headers);
        let origin = HeaderValue::from_static("https://a.com");
        assert_eq!(
            rule.decide(&origin, &request),
            Err(Refusal::OriginLookupFailed {
                reason: "the origin predicate panicked"
            })
        );
    }

    #[test]
    fn mirror_is_not_an_origin_in_a_list() {
        let err = AllowOrigin::list(["mirror"])
            .compile(&checks(false))
            .unwrap_err();
        assert!(err.to_string().contains("alone, not in a list"), "{err}");
    }

    #[test]
    fn from_star_is_any() {
        assert!(matches!(AllowOrigin::from("*").spec, OriginSpec::Any));
        assert!(matches!(
            AllowOrigin::from("https://a.com").spec,
            OriginSpec::List(_)
        ));
        assert!(
            AllowOrigin::list(["https://a.com", "*"])
                .compile(&checks(false))
                .is_err()
        );
    }
}
