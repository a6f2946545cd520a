//! [`CorsOptions`]: the uncompiled, mergeable CORS configuration.

use std::any::TypeId;

use crate::allow_headers::AllowHeaders;
use crate::allow_methods::AllowMethods;
use crate::allow_origin::AllowOrigin;
use crate::cache_control::PreflightCacheControl;
use crate::credentials::Credentials;
use crate::expose_headers::ExposeHeaders;
use crate::max_age::MaxAge;
use crate::origin_set::OriginSet;
use crate::provided::ProvidedValue;
use crate::set_ref::SetRef;
use crate::tenant_origins::TenantOrigins;

/// CORS options, as a user writes them.
///
/// Every field is optional, so options from several levels (module, controller, route) can be
/// [merged](CorsOptions::merge) field by field, the most specific level winning. Unset fields
/// take these defaults when compiled into a [`CorsPolicy`](crate::CorsPolicy):
///
/// | option | default |
/// |---|---|
/// | [`origin`](Self::origin) | [`AllowOrigin::any()`]: `Access-Control-Allow-Origin: *` |
/// | [`methods`](Self::methods) | [`AllowMethods::route()`]: the methods of the route |
/// | [`allow_headers`](Self::allow_headers) | [`AllowHeaders::mirror_request()`] |
/// | [`expose_headers`](Self::expose_headers) | none exposed |
/// | [`credentials`](Self::credentials) | `false` |
/// | [`max_age`](Self::max_age) | no `Access-Control-Max-Age` (browsers then cache a preflight for 5 s) |
/// | [`preflight_cache_control`](Self::preflight_cache_control) | no `Cache-Control` on preflight answers |
/// | [`private_network`](Self::private_network) | `false` |
/// | [`allow_null_origin`](Self::allow_null_origin) | `false` |
/// | [`preflight_status`](Self::preflight_status) | [`PreflightStatus::NO_CONTENT`] (204) |
/// | [`rejected_preflight`](Self::rejected_preflight) | [`RejectedPreflight::NoCorsHeaders`] |
/// | [`enabled`](Self::enabled) | `true` |
/// | [`preflight_passthrough`](Self::preflight_passthrough) | `false` |
/// | [`owned_public_suffixes`](Self::owned_public_suffixes) | none: no pattern over a public suffix |
/// | [`protect_cross_origin`](Self::protect_cross_origin) | `false`: unsafe cross-origin requests reach the handler |
/// | [`cross_origin_bypass`](Self::cross_origin_bypass) | none: protection, where on, covers every path |
/// | [`check_websocket_origin`](Self::check_websocket_origin) | `true`: WebSocket handshakes from origins the policy does not allow are refused, with or without CORS |
/// | [`origin_set`](Self::origin_set) | none: no [`OriginSet`](crate::OriginSet) beside the list |
/// | [`tenant_origins`](Self::tenant_origins) | none: no [`TenantOrigins`](crate::TenantOrigins) beside the list |
/// | [`origin_fallback`](Self::origin_fallback) | none: `origin` alone decides (code only, not in files) |
/// | [`dangerously_allow_insecure_origins`](Self::dangerously_allow_insecure_origins) | `false`: with credentials, no plain-HTTP origin but loopback |
///
/// With the default `serde` feature the options deserialize from configuration files (snake_case
/// keys, unknown keys rejected):
///
/// ```
/// # #[cfg(feature = "serde")] {
/// use cors_axum_core::{CorsOptions, CorsPolicy};
///
/// let options: CorsOptions = serde_json::from_str(r#"{
///     "origin": ["https://example.com", "https://*.example.com", "http://localhost:*"],
///     "methods": ["GET", "POST"],
///     "allow_headers": ["content-type", "x-requested-with"],
///     "expose_headers": ["x-request-id"],
///     "credentials": true,
///     "max_age": 600,
///     "preflight_cache_control": "public, max-age=600",
///     "private_network": false,
///     "allow_null_origin": false,
///     "preflight_status": 200,
///     "rejected_preflight": "forbidden",
///     "enabled": true,
///     "preflight_passthrough": false,
///     "protect_cross_origin": true,
///     "cross_origin_bypass": ["/webhooks/*"],
///     "check_websocket_origin": true,
///     "owned_public_suffixes": [],
///     "dangerously_allow_insecure_origins": false
/// }"#).unwrap();
/// assert!(CorsPolicy::from_options(&options).is_ok());
/// # }
/// ```
#[must_use]
#[derive(Clone, Debug, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct CorsOptions {
    pub(crate) origin: Option<AllowOrigin>,
    pub(crate) methods: Option<AllowMethods>,
    pub(crate) allow_headers: Option<AllowHeaders>,
    pub(crate) expose_headers: Option<ExposeHeaders>,
    pub(crate) credentials: Option<Credentials>,
    pub(crate) max_age: Option<MaxAge>,
    pub(crate) preflight_cache_control: Option<PreflightCacheControl>,
    pub(crate) private_network: Option<bool>,
    pub(crate) allow_null_origin: Option<bool>,
    pub(crate) preflight_status: Option<PreflightStatus>,
    pub(crate) rejected_preflight: Option<RejectedPreflight>,
    pub(crate) enabled: Option<bool>,
    pub(crate) preflight_passthrough: Option<bool>,
    pub(crate) owned_public_suffixes: Option<Vec<String>>,
    pub(crate) dangerously_allow_insecure_origins: Option<bool>,
    pub(crate) protect_cross_origin: Option<bool>,
    pub(crate) cross_origin_bypass: Option<Vec<String>>,
    pub(crate) check_websocket_origin: Option<bool>,
    pub(crate) origin_set: Option<SetRef<OriginSet>>,
    pub(crate) tenant_origins: Option<SetRef<TenantOrigins>>,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) origin_fallback: Option<AllowOrigin>,
}

/// Calls `$then!` with the name of every field of [`CorsOptions`]: [`CorsOptions::merge`]
/// builds the struct from the list, so the list cannot leave one out.
macro_rules! every_field {
    ($then:ident) => {
        $then!(
            origin,
            methods,
            allow_headers,
            expose_headers,
            credentials,
            max_age,
            preflight_cache_control,
            private_network,
            allow_null_origin,
            preflight_status,
            rejected_preflight,
            enabled,
            preflight_passthrough,
            owned_public_suffixes,
            dangerously_allow_insecure_origins,
            protect_cross_origin,
            cross_origin_bypass,
            check_websocket_origin,
            origin_set,
            tenant_origins,
            origin_fallback
        )
    };
}

impl CorsOptions {
    /// Options with nothing set: every field takes its default (see the table above).
    pub fn new() -> Self {
        Self::default()
    }

    /// Which origins may read responses
    /// ([`Access-Control-Allow-Origin`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Access-Control-Allow-Origin)).
    /// Accepts an [`AllowOrigin`], `"*"`, one origin or pattern (`https://*.example.com`,
    /// `http://localhost:*`: see [`AllowOrigin`]), or a list of them.
    pub fn origin(mut self, origin: impl Into<AllowOrigin>) -> Self {
        self.origin = Some(origin.into());
        self
    }

    /// Which methods a preflight allows
    /// ([`Access-Control-Allow-Methods`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Access-Control-Allow-Methods)).
    pub fn methods(mut self, methods: impl Into<AllowMethods>) -> Self {
        self.methods = Some(methods.into());
        self
    }

    /// Which request headers a preflight allows
    /// ([`Access-Control-Allow-Headers`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Access-Control-Allow-Headers)).
    pub fn allow_headers(mut self, headers: impl Into<AllowHeaders>) -> Self {
        self.allow_headers = Some(headers.into());
        self
    }

    /// Which response headers scripts may read
    /// ([`Access-Control-Expose-Headers`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Access-Control-Expose-Headers)).
    pub fn expose_headers(mut self, headers: impl Into<ExposeHeaders>) -> Self {
        self.expose_headers = Some(headers.into());
        self
    }

    /// Whether credentialed requests (cookies, HTTP authentication) may read responses
    /// ([`Access-Control-Allow-Credentials`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Access-Control-Allow-Credentials)):
    /// `true` or `false` for every allowed origin, or a [`Credentials`] that chooses by the
    /// option that allowed the origin, e.g. the first-party list but not the tenants'
    /// [`OriginSet`](crate::OriginSet): `Credentials::by_source().origin(true)`, in files
    /// `"credentials": {"origin": true, "origin_set": false}`. Credentials for any origin
    /// (`*`) are a configuration error of `credentials`; with credentials for any source,
    /// so is `*` for methods or headers, and a plain-HTTP origin other than loopback in a
    /// source that gets them, unless
    /// [`dangerously_allow_insecure_origins(true)`](Self::dangerously_allow_insecure_origins).
    pub fn credentials(mut self, credentials: impl Into<Credentials>) -> Self {
        self.credentials = Some(credentials.into());
        self
    }

    /// How long a browser may cache a preflight answer
    /// ([`Access-Control-Max-Age`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Access-Control-Max-Age)).
    /// Accepts seconds (`u64`) or a [`Duration`](std::time::Duration).
    pub fn max_age(mut self, max_age: impl Into<MaxAge>) -> Self {
        self.max_age = Some(max_age.into());
        self
    }

    /// `Cache-Control` on preflight answers, for shared caches (a CDN or proxy in front of the
    /// server) that would otherwise not keep them, or keep them by their own default: a
    /// [`PreflightCacheControl`], directives as written (`"public, max-age=600"`), or seconds
    /// (`600` is `max-age=600`, as fastify-cors's `cacheControl`). Checked when the policy is
    /// compiled. Unset by default: no `Cache-Control` is written.
    ///
    /// A granted preflight answer gets this value, replacing any `Cache-Control` in the map. A
    /// refused one gets `Cache-Control: no-store`, so that no cache keeps a refusal that may not
    /// hold for long (an origin lookup that failed or timed out, options reloaded with a new
    /// origin); refusing again costs the server little. Both keep the preflight's `Vary`
    /// (`Origin` and the three `Access-Control-Request-*` headers), so a cache never gives one
    /// origin's or one request's answer to another.
    ///
    /// ```
    /// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest};
    /// use http::{HeaderMap, HeaderValue, Method};
    ///
    /// let policy = CorsPolicy::from_options(
    ///     &CorsOptions::new()
    ///         .origin("https://app.example")
    ///         .preflight_cache_control("public, max-age=600"),
    /// )?;
    /// let mut request = HeaderMap::new();
    /// request.insert("origin", HeaderValue::from_static("https://app.example"));
    /// request.insert("access-control-request-method", HeaderValue::from_static("PUT"));
    /// let mut granted = HeaderMap::new();
    /// policy.preflight(&CorsRequest::new(&Method::OPTIONS, &request)).write(&mut granted);
    /// assert_eq!(granted["cache-control"], "public, max-age=600");
    ///
    /// request.insert("origin", HeaderValue::from_static("https://evil.example"));
    /// let mut refused = HeaderMap::new();
    /// policy.preflight(&CorsRequest::new(&Method::OPTIONS, &request)).write(&mut refused);
    /// assert_eq!(refused["cache-control"], "no-store");
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn preflight_cache_control(
        mut self,
        cache_control: impl Into<PreflightCacheControl>,
    ) -> Self {
        self.preflight_cache_control = Some(cache_control.into());
        self
    }

    /// Whether to answer [Private Network Access](https://wicg.github.io/private-network-access/)
    /// preflights (`Access-Control-Request-Private-Network: true`) with
    /// `Access-Control-Allow-Private-Network: true`. Opt-in; off by default.
    pub fn private_network(mut self, allow: bool) -> Self {
        self.private_network = Some(allow);
        self
    }

    /// Whether the origin `null` is allowed. Browsers send `Origin: null` from sandboxed frames,
    /// `file:` and `data:` pages and after cross-origin redirects, which any site can arrange, so
    /// it is refused unless enabled here. When enabled, `null` is granted under every origin
    /// policy and may also be listed explicitly.
    pub fn allow_null_origin(mut self, allow: bool) -> Self {
        self.allow_null_origin = Some(allow);
        self
    }

    /// The status of a successful preflight answer: any 2xx; 204 (default), or 200 for legacy
    /// clients. Accepts a [`PreflightStatus`], a `u16` or an [`http::StatusCode`]; anything but
    /// a 2xx is refused when the policy is compiled.
    pub fn preflight_status(mut self, status: impl Into<PreflightStatus>) -> Self {
        self.preflight_status = Some(status.into());
        self
    }

    /// How to answer a preflight that is not allowed.
    pub fn rejected_preflight(mut self, rejected: RejectedPreflight) -> Self {
        self.rejected_preflight = Some(rejected);
        self
    }

    /// Whether CORS applies at all. `enabled(false)` switches it off where these options apply
    /// (a module, a controller, a route): no `Access-Control-*` header, no `Vary`, and
    /// preflights refused; a more specific level may switch it on again with `enabled(true)`.
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = Some(enabled);
        self
    }

    /// Options that switch CORS off: the same as `CorsOptions::new().enabled(false)`.
    pub fn disabled() -> Self {
        Self::new().enabled(false)
    }

    /// Whether a preflight is also passed on to the route's own `OPTIONS` handler, which then
    /// answers it (status and body), the CORS headers being added to its response. Off by
    /// default: preflights are answered without calling any handler.
    pub fn preflight_passthrough(mut self, passthrough: bool) -> Self {
        self.preflight_passthrough = Some(passthrough);
        self
    }

    /// Public suffixes of the private section of the [Public Suffix List](https://publicsuffix.org/)
    /// that you own, so that a pattern over one is allowed.
    ///
    /// A pattern whose domain is a public suffix, a domain under which anyone may register a
    /// site, is a configuration error of [`origin`](Self::origin): `https://*.com`,
    /// `https://*.co.uk` (ICANN section), `https://*.github.io` (private section: GitHub's
    /// users each get a site under it). If you run such a platform yourself, say
    /// `myplatform.app` where each customer gets `customer.myplatform.app`, declare it here to
    /// allow `https://*.myplatform.app`. Suffixes of the ICANN section (`com`, `co.uk`) and
    /// top-level domains are no one's and cannot be declared: that is an error of this option.
    ///
    /// The list is bundled (feature `public-suffix`, on by default); without the feature only
    /// top-level domains are refused. In configuration files:
    /// `"owned_public_suffixes": ["myplatform.app"]`.
    ///
    /// ```
    /// use cors_axum_core::{CorsOptions, CorsPolicy};
    ///
    /// let options = CorsOptions::new().origin("https://*.github.io");
    /// # #[cfg(feature = "public-suffix")]
    /// assert_eq!(CorsPolicy::from_options(&options).unwrap_err().field(), "origin");
    /// assert!(CorsPolicy::from_options(&options.owned_public_suffixes(["github.io"])).is_ok());
    ///
    /// let options = CorsOptions::new().owned_public_suffixes(["co.uk"]);
    /// # #[cfg(feature = "public-suffix")]
    /// assert_eq!(CorsPolicy::from_options(&options).unwrap_err().field(), "owned_public_suffixes");
    /// ```
    pub fn owned_public_suffixes<I, S>(mut self, suffixes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.owned_public_suffixes = Some(suffixes.into_iter().map(Into::into).collect());
        self
    }

    /// Whether plain-HTTP origins (`http://`, exact or pattern) may be allowed together with
    /// [`credentials(true)`](Self::credentials). Off by default: with credentials, an allowed
    /// `http://` origin is a configuration error of [`origin`](Self::origin), because a network
    /// attacker (on the same Wi-Fi, say) can impersonate a plain-HTTP origin, then make
    /// credentialed requests in the user's name and read the answers. Origins on the loopback
    /// interface are accepted without it: `http://localhost`, `http://*.localhost`,
    /// `127.0.0.0/8`, `http://[::1]`, with any port. Named after jub0bs/cors's
    /// `DangerouslyTolerateInsecureOrigins`.
    ///
    /// Predicates and [`AllowOrigin::mirror_request()`](crate::AllowOrigin::mirror_request)
    /// decide for themselves, so they are not checked. In configuration files:
    /// `"dangerously_allow_insecure_origins": true`.
    ///
    /// ```
    /// use cors_axum_core::{CorsOptions, CorsPolicy};
    ///
    /// let options = CorsOptions::new().origin("http://intranet.example").credentials(true);
    /// assert_eq!(CorsPolicy::from_options(&options).unwrap_err().field(), "origin");
    /// assert!(CorsPolicy::from_options(&options.dangerously_allow_insecure_origins(true)).is_ok());
    ///
    /// let local = CorsOptions::new().origin("http://localhost:*").credentials(true);
    /// assert!(CorsPolicy::from_options(&local).is_ok());
    /// ```
    pub fn dangerously_allow_insecure_origins(mut self, allow: bool) -> Self {
        self.dangerously_allow_insecure_origins = Some(allow);
        self
    }

    /// Whether unsafe cross-origin requests are refused before they reach the handler: a
    /// defence against cross-site request forgery (CSRF), after Go 1.25's
    /// `http.CrossOriginProtection`. Off by default; a route may switch it off again with
    /// `false`, as options merge field by field. In configuration files:
    /// `"protect_cross_origin": true`.
    ///
    /// CORS alone does not stop a browser from *sending* a cross-origin `POST` (a form, or a
    /// `fetch()` that needs no preflight): it only hides the answer. With protection on,
    /// [`CorsPolicy::cross_origin`](crate::CorsPolicy::cross_origin) refuses an unsafe request
    /// (any method but `GET`, `HEAD` and `OPTIONS`) that a browser sends from another origin,
    /// unless the CORS policy allows that origin; the caller answers it `403 Forbidden`. See
    /// there for the rule.
    pub fn protect_cross_origin(mut self, protect: bool) -> Self {
        self.protect_cross_origin = Some(protect);
        self
    }

    /// The asynchronous decision ([`AllowOrigin::async_predicate`] or
    /// [`AllowOrigin::async_predicate_with`]) for the origins [`origin`](Self::origin) does not
    /// allow: the origins listed (say, in a configuration file) are answered at once, and only
    /// the others wait for the lookup. The same as
    /// `AllowOrigin::list([..]).or_else(lookup)` ([`AllowOrigin::or_else`]), for options whose
    /// list comes from elsewhere; without an `origin`, the lookup alone decides. With any
    /// other `origin` than a list, it is a configuration error of `origin`. Merged field by
    /// field like the rest, so a route may keep the application's lookup and list its own
    /// origins.
    ///
    /// ```
    /// # #[cfg(feature = "serde")] {
    /// use cors_axum_core::{AllowOrigin, CorsOptions, CorsPolicy};
    ///
    /// let from_file: CorsOptions =
    ///     serde_json::from_str(r#"{"origin": ["https://app.example"], "credentials": true}"#).unwrap();
    /// let options = from_file.origin_fallback(AllowOrigin::async_predicate(|query| async move {
    ///     Ok(query.origin.as_bytes().ends_with(b".tenants.example"))
    /// }));
    /// assert!(CorsPolicy::from_options(&options).unwrap().decides_origins_asynchronously());
    /// # }
    /// ```
    pub fn origin_fallback(mut self, lookup: AllowOrigin) -> Self {
        self.origin_fallback = Some(lookup);
        self
    }

    /// An [`OriginSet`](crate::OriginSet) whose origins are allowed beside those of
    /// [`origin`](Self::origin), a list (without `origin`, the set alone decides). The set may
    /// change while requests are served; every path whose options name it sees the change at
    /// once. In options files: `"origin_set": "tenants"`, bound when the router is built to the
    /// set of that name that the application provides (cors-axum: `.provide(set)`), or with
    /// [`with_values`](Self::with_values). Merged field by field like the rest.
    ///
    /// ```
    /// # #[cfg(feature = "serde")] {
    /// use cors_axum_core::{CorsOptions, CorsPolicy, OriginSet, ProvidedValue};
    /// use std::sync::Arc;
    ///
    /// let tenants = OriginSet::new("tenants");
    /// let from_file: CorsOptions = serde_json::from_str(
    ///     r#"{"origin": ["https://app.example"], "origin_set": "tenants"}"#,
    /// ).unwrap();
    /// assert_eq!(CorsPolicy::from_options(&from_file).unwrap_err().field(), "origin_set");
    /// let provided: ProvidedValue = Arc::new(tenants.clone());
    /// let bound = from_file.with_values(|_| Some(provided.clone())).unwrap();
    /// assert!(CorsPolicy::from_options(&bound).is_ok());
    ///
    /// let in_code = CorsOptions::new().origin("https://app.example").origin_set(&tenants);
    /// assert!(CorsPolicy::from_options(&in_code).is_ok());
    /// # }
    /// ```
    pub fn origin_set(mut self, set: &OriginSet) -> Self {
        self.origin_set = Some(SetRef::Set(set.clone()));
        self
    }

    /// A [`TenantOrigins`](crate::TenantOrigins) set whose origins are allowed on their own
    /// tenant's requests (by default, those for the tenant's host), beside those of
    /// [`origin`](Self::origin), a list, and [`origin_set`](Self::origin_set), which every
    /// tenant gets (without either, the tenant set alone decides). The set may change while
    /// requests are served. Where its [`TenantKey`](crate::TenantKey) reads a header, every
    /// answer names it in `Vary`. In options files: `"tenant_origins": "tenant_hosts"`, bound
    /// when the router is built to the set of that name that the application provides
    /// (cors-axum: `.provide(set)`), or with [`with_values`](Self::with_values). Its origins
    /// get credentials as [`Credentials::tenant_origins`] says. Merged field by field like the
    /// rest.
    ///
    /// ```
    /// # #[cfg(feature = "serde")] {
    /// use cors_axum_core::{CorsOptions, CorsPolicy, ProvidedValue, TenantOrigins};
    /// use std::sync::Arc;
    ///
    /// let tenants = TenantOrigins::new("tenant_hosts");
    /// let from_file: CorsOptions = serde_json::from_str(
    ///     r#"{"origin": ["https://console.example"], "tenant_origins": "tenant_hosts",
    ///         "credentials": {"origin": true, "tenant_origins": false}}"#,
    /// ).unwrap();
    /// let err = CorsPolicy::from_options(&from_file).unwrap_err();
    /// assert_eq!(err.field(), "tenant_origins");
    /// let provided: ProvidedValue = Arc::new(tenants.clone());
    /// let bound = from_file.with_values(|_| Some(provided.clone())).unwrap();
    /// assert!(CorsPolicy::from_options(&bound).is_ok());
    /// # }
    /// ```
    pub fn tenant_origins(mut self, set: &TenantOrigins) -> Self {
        self.tenant_origins = Some(SetRef::Set(set.clone()));
        self
    }

    /// The origin decision these options compile: [`origin`](Self::origin) with
    /// [`origin_set`](Self::origin_set) and [`tenant_origins`](Self::tenant_origins), then
    /// [`origin_fallback`](Self::origin_fallback).
    pub(crate) fn effective_origin(&self) -> AllowOrigin {
        let names_a_set = self.origin_set.is_some() || self.tenant_origins.is_some();
        let origin = match &self.origin {
            Some(origin) => Some(origin.clone()),
            // A set goes beside a list, empty here.
            None if names_a_set => Some(AllowOrigin::list(Vec::<String>::new())),
            None => None,
        }
        .map(|origin| origin.with_sets(&self.origin_set, &self.tenant_origins));
        match (origin, &self.origin_fallback) {
            (origin, None) => origin.unwrap_or_default(),
            (None, Some(lookup)) => lookup.clone().into_fallback(),
            (Some(origin), Some(lookup)) => origin.or_else(lookup.clone()),
        }
    }

    /// The types of the values the origin decisions of these options take
    /// ([`AllowOrigin::async_predicate_with`]) and that are not bound yet, with their names.
    pub fn needed_values(&self) -> Vec<(TypeId, &'static str)> {
        let set = self.origin_set.as_ref().and_then(SetRef::needed_value);
        let tenants = self.tenant_origins.as_ref().and_then(SetRef::needed_value);
        [&self.origin, &self.origin_fallback]
            .into_iter()
            .flatten()
            .filter_map(AllowOrigin::needed_value)
            .chain(set)
            .chain(tenants)
            .collect()
    }

    /// These options with the values their origin decisions take
    /// ([`AllowOrigin::async_predicate_with`]) bound from `values`, which returns the value of
    /// a type, if it has one. An error of `origin` names a type that `values` does not have.
    pub fn with_values(
        &self,
        values: impl Fn(TypeId) -> Option<ProvidedValue>,
    ) -> Result<CorsOptions, crate::error::CorsConfigError> {
        let bind = |origin: &Option<AllowOrigin>| {
            origin
                .as_ref()
                .map(|origin| origin.with_value(&values))
                .transpose()
                .map_err(|type_name| {
                    crate::error::CorsConfigError::new(
                        "origin",
                        None,
                        format!("the origin decision takes a `{type_name}`, and none is provided"),
                    )
                })
        };
        Ok(CorsOptions {
            origin: bind(&self.origin)?,
            origin_fallback: bind(&self.origin_fallback)?,
            origin_set: crate::set_ref::bind(&self.origin_set, &values)?,
            tenant_origins: crate::set_ref::bind(&self.tenant_origins, &values)?,
            ..self.clone()
        })
    }

    /// Paths that cross-origin protection lets through: webhooks and other endpoints that other
    /// sites call by design. Each is a path (`/hooks/stripe`), or a prefix ending in `/*`
    /// (`/webhooks/*` covers `/webhooks/github` and below, not `/webhooks` itself); anything
    /// else is an error of this option. In configuration files:
    /// `"cross_origin_bypass": ["/webhooks/*"]`. With the module system, a route or controller
    /// can also switch protection off for itself with `protect_cross_origin(false)`.
    ///
    /// ```
    /// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest};
    /// use http::{HeaderMap, HeaderValue, Method, Uri};
    ///
    /// let options = CorsOptions::new()
    ///     .origin("https://app.example")
    ///     .protect_cross_origin(true)
    ///     .cross_origin_bypass(["/webhooks/*"]);
    /// let policy = CorsPolicy::from_options(&options)?;
    /// let mut headers = HeaderMap::new();
    /// headers.insert("sec-fetch-site", HeaderValue::from_static("cross-site"));
    /// headers.insert("origin", HeaderValue::from_static("https://hooks.example"));
    /// let hook = Uri::from_static("/webhooks/github");
    /// let form = Uri::from_static("/session");
    /// let request = |uri| CorsRequest::new(&Method::POST, &headers).with_uri(uri);
    /// assert!(policy.cross_origin(&request(&hook), None).is_ok());
    /// assert!(policy.cross_origin(&request(&form), None).is_err());
    ///
    /// let bad = CorsOptions::new().cross_origin_bypass(["/webhooks*"]);
    /// assert_eq!(CorsPolicy::from_options(&bad).unwrap_err().field(), "cross_origin_bypass");
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn cross_origin_bypass<I, S>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.cross_origin_bypass = Some(paths.into_iter().map(Into::into).collect());
        self
    }

    /// Whether the origin of a WebSocket handshake is checked against the origins these options
    /// allow (on by default). Browsers apply no CORS to WebSockets: any page may open one to
    /// any server with the user's cookies, so a server that does not check `Origin` lets any
    /// site act in the user's name over the socket (cross-site WebSocket hijacking). The check
    /// ([`CorsPolicy::websocket_handshake`](crate::CorsPolicy::websocket_handshake)) follows
    /// the allow list whether or not CORS headers are written: a route whose CORS is switched
    /// off ([`enabled(false)`](Self::enabled), `cors = false`) keeps it, since switching CORS
    /// off on a WebSocket route is a natural move that must not open it to every site.
    ///
    /// `false` is the explicit opt-out, for a socket that every site may open by design (a
    /// public feed) or one that authenticates each connection without cookies. In
    /// configuration files: `"check_websocket_origin": false`.
    ///
    /// With cors-axum, the options of a `GET` or `CONNECT` route whose CORS is off are therefore
    /// compiled like any others when the router is built, and an invalid one is a build error
    /// naming the option, as it would be with CORS on (so is any, where cross-origin protection
    /// is on).
    ///
    /// ```
    /// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest};
    /// use http::{HeaderMap, HeaderValue, Method};
    ///
    /// let mut headers = HeaderMap::new();
    /// headers.insert("upgrade", HeaderValue::from_static("websocket"));
    /// headers.insert("connection", HeaderValue::from_static("Upgrade"));
    /// headers.insert("origin", HeaderValue::from_static("https://evil.example"));
    /// let handshake = CorsRequest::new(&Method::GET, &headers);
    ///
    /// let checked = CorsPolicy::from_options(&CorsOptions::new().origin("https://app.example"))?;
    /// assert!(checked.websocket(&handshake, None).is_err());
    /// let open = CorsOptions::new().origin("https://app.example").check_websocket_origin(false);
    /// assert!(CorsPolicy::from_options(&open)?.websocket(&handshake, None).is_ok());
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn check_websocket_origin(mut self, check: bool) -> Self {
        self.check_websocket_origin = Some(check);
        self
    }

    /// Whether WebSocket handshakes are checked
    /// ([`check_websocket_origin`](Self::check_websocket_origin), on unless set to `false`).
    pub fn checks_websocket_origin(&self) -> bool {
        self.check_websocket_origin != Some(false)
    }

    /// Whether these options switch cross-origin protection on
    /// ([`protect_cross_origin(true)`](Self::protect_cross_origin)), with or without CORS.
    pub fn protects_cross_origin(&self) -> bool {
        self.protect_cross_origin == Some(true)
    }

    /// Whether these options leave CORS on (the default) or switch it off
    /// ([`enabled(false)`](Self::enabled)).
    pub fn is_enabled(&self) -> bool {
        self.enabled != Some(false)
    }

    /// Whether preflights are passed on to the route's own `OPTIONS` handler
    /// ([`preflight_passthrough`](Self::preflight_passthrough)).
    pub fn passes_preflight_through(&self) -> bool {
        self.preflight_passthrough == Some(true)
    }

    /// Field-by-field merge: every field set in `more_specific` wins, others come from `self`.
    ///
    /// ```
    /// use cors_axum_core::CorsOptions;
    ///
    /// let module = CorsOptions::new().origin("https://example.com").max_age(600);
    /// let route = CorsOptions::new().credentials(true);
    /// let merged = module.merge(&route);
    /// assert_eq!(
    ///     format!("{merged:?}"),
    ///     format!("{:?}", CorsOptions::new().origin("https://example.com").max_age(600).credentials(true)),
    /// );
    /// ```
    pub fn merge(&self, more_specific: &CorsOptions) -> CorsOptions {
        macro_rules! merged {
            ($($field:ident),*) => {
                CorsOptions {
                    $($field: more_specific.$field.as_ref().or(self.$field.as_ref()).cloned()),*
                }
            };
        }
        every_field!(merged)
    }

    /// Whether `replacement` may take the place of these options (the options in force) at
    /// run time without widening what they allow by leaving an option out: an error naming the
    /// option, what leaving it out would allow, and how to mean it, when `replacement` leaves
    /// out an option set here whose default is wider:
    ///
    /// | left out | set here as | the default allows |
    /// |---|---|---|
    /// | `origin` (and [`origin_set`](Self::origin_set), [`tenant_origins`](Self::tenant_origins), [`origin_fallback`](Self::origin_fallback)) | anything but `*`, a set or a lookup | any origin, `*` |
    /// | `methods` | a list | every method of the route |
    /// | `allow_headers` | a list | every header a preflight asks for |
    /// | `enabled` | `false` | CORS switched back on |
    /// | `protect_cross_origin` | `true` | cross-origin protection switched off |
    ///
    /// A half-written or truncated configuration file most often leaves options out; one that
    /// means the wider value says so (`"origin": "*"`, `"protect_cross_origin": false`). The
    /// other options default to what allows least, so leaving them out never widens; nor does
    /// leaving out `origin`, `methods` or `allow_headers` in a replacement that switches CORS
    /// off (`"enabled": false`). A replacement may still widen by what it sets, which is the
    /// configuration's own statement.
    ///
    /// ```
    /// use cors_axum_core::CorsOptions;
    ///
    /// let in_force = CorsOptions::new().origin("https://app.example").protect_cross_origin(true);
    /// let err = in_force.replaceable_by(&CorsOptions::new().origin("https://app.example"));
    /// assert_eq!(err.unwrap_err().field(), "protect_cross_origin");
    /// let err = in_force.replaceable_by(&CorsOptions::new().protect_cross_origin(true));
    /// assert_eq!(err.unwrap_err().field(), "origin");
    /// let meant = CorsOptions::new().origin("*").protect_cross_origin(false);
    /// assert!(in_force.replaceable_by(&meant).is_ok());
    /// let off = CorsOptions::disabled().protect_cross_origin(true);
    /// assert!(in_force.replaceable_by(&off).is_ok());
    ///
    /// // A set alone decides origins too: leaving every source out is refused.
    /// let tenants = cors_axum_core::OriginSet::new("tenants");
    /// let in_force = CorsOptions::new().origin_set(&tenants);
    /// assert_eq!(in_force.replaceable_by(&CorsOptions::new()).unwrap_err().field(), "origin");
    /// assert!(in_force.replaceable_by(&CorsOptions::new().origin("https://app.example")).is_ok());
    /// let hosts = cors_axum_core::TenantOrigins::new("tenant_hosts");
    /// let in_force = CorsOptions::new().tenant_origins(&hosts);
    /// assert_eq!(in_force.replaceable_by(&CorsOptions::new()).unwrap_err().field(), "origin");
    /// ```
    pub fn replaceable_by(
        &self,
        replacement: &CorsOptions,
    ) -> Result<(), crate::error::CorsConfigError> {
        // Every source that decides origins counts: the list, the sets and the lookup. Options
        // with none of them allow any origin (`*`), so a replacement that keeps none of them
        // widens options that had one, whichever it was.
        let decides_origins = self.origin.as_ref().is_some_and(|origin| !origin.is_any())
            || self.origin_set.is_some()
            || self.tenant_origins.is_some()
            || self.origin_fallback.is_some();
        let names_origins = replacement.origin.is_some()
            || replacement.origin_set.is_some()
            || replacement.tenant_origins.is_some()
            || replacement.origin_fallback.is_some();
        // Switched off, CORS grants nothing, whatever its other options.
        let cors_on = replacement.enabled != Some(false);
        let widened = [
            (
                cors_on && decides_origins && !names_origins,
                "origin",
                "any origin (`*`) would be allowed",
                r#""origin": "*""#,
            ),
            (
                cors_on
                    && self.methods.as_ref().is_some_and(AllowMethods::is_list)
                    && replacement.methods.is_none(),
                "methods",
                "every method of the route would be allowed",
                r#""methods": "route""#,
            ),
            (
                cors_on
                    && self
                        .allow_headers
                        .as_ref()
                        .is_some_and(AllowHeaders::is_list)
                    && replacement.allow_headers.is_none(),
                "allow_headers",
                "every request header would be allowed",
                r#""allow_headers": "mirror""#,
            ),
            (
                self.enabled == Some(false) && replacement.enabled.is_none(),
                "enabled",
                "CORS would be switched back on",
                r#""enabled": true"#,
            ),
            (
                self.protect_cross_origin == Some(true)
                    && replacement.protect_cross_origin.is_none(),
                "protect_cross_origin",
                "cross-origin protection would be switched off",
                r#""protect_cross_origin": false"#,
            ),
        ];
        let mut left_out = widened.iter().filter(|(widens, ..)| *widens);
        let Some(&(_, field, effect, meant)) = left_out.next() else {
            return Ok(());
        };
        let mut message = format!(
            "left out of the new options, while the options in force set it: {effect}; \
             to mean that, set it (`{meant}`)"
        );
        for &(_, field, effect, meant) in left_out {
            message.push_str(&format!(
                "; `{field}` is left out too: {effect}; to mean that, set it (`{meant}`)"
            ));
        }
        Err(crate::error::CorsConfigError::new(field, None, message))
    }

    /// Whether no field is set.
    pub fn is_empty(&self) -> bool {
        macro_rules! unset {
            ($($field:ident),*) => {
                $(self.$field.is_none())&&*
            };
        }
        every_field!(unset)
    }
}

/// The status of a successful preflight answer: any `2xx`.
///
/// Browsers accept a preflight only with an ok status (200 to 299). `204 No Content`, the
/// default, carries no body; some legacy clients (old WebKit, some smart TVs) choke on it, hence
/// [`PreflightStatus::OK`]. Any other number is accepted here and refused when the policy is
/// compiled, as a [`CorsConfigError`](crate::CorsConfigError) naming `preflight_status`.
///
/// ```
/// use cors_axum_core::{CorsOptions, CorsPolicy, PreflightStatus};
/// use http::StatusCode;
///
/// let policy = CorsPolicy::from_options(&CorsOptions::new().preflight_status(200))?;
/// assert_eq!(policy.preflight_status(), StatusCode::OK);
/// let _ = CorsOptions::new().preflight_status(PreflightStatus::NO_CONTENT);
/// let _ = CorsOptions::new().preflight_status(StatusCode::ACCEPTED);
///
/// let err = CorsPolicy::from_options(&CorsOptions::new().preflight_status(301)).unwrap_err();
/// assert_eq!(err.field(), "preflight_status");
/// # Ok::<(), cors_axum_core::CorsConfigError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize), serde(transparent))]
pub struct PreflightStatus(u64);

impl PreflightStatus {
    /// `204 No Content` (the default).
    pub const NO_CONTENT: PreflightStatus = PreflightStatus(204);
    /// `200 OK`.
    pub const OK: PreflightStatus = PreflightStatus(200);

    /// The status as written, not yet checked.
    pub fn code(self) -> u64 {
        self.0
    }

    pub(crate) fn compile(self) -> Result<http::StatusCode, crate::error::CorsConfigError> {
        u16::try_from(self.0)
            .ok()
            .and_then(|code| http::StatusCode::from_u16(code).ok())
            .filter(http::StatusCode::is_success)
            .ok_or_else(|| {
                crate::error::CorsConfigError::new(
                    "preflight_status",
                    Some(&self.0.to_string()),
                    format!(
                        "{} is not a 2xx status; browsers accept a preflight only with a status from \
                         200 to 299: use 204 (the default) or 200",
                        self.0
                    ),
                )
            })
    }
}

impl Default for PreflightStatus {
    fn default() -> Self {
        Self::NO_CONTENT
    }
}

impl From<u16> for PreflightStatus {
    fn from(code: u16) -> Self {
        PreflightStatus(u64::from(code))
    }
}

impl From<http::StatusCode> for PreflightStatus {
    fn from(status: http::StatusCode) -> Self {
        Self::from(status.as_u16())
    }
}

/// How a preflight that is not allowed (origin, method or headers) is answered. Either way the
/// answer carries no `Access-Control-*` header, so the browser blocks the actual request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum RejectedPreflight {
    /// The normal preflight status, without CORS headers (default; what most servers do).
    #[default]
    NoCorsHeaders,
    /// `403 Forbidden`, which makes the refusal visible in logs and network panels.
    Forbidden,
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;

    #[test]
    fn deserializes_every_field() {
        let options: CorsOptions = serde_json::from_str(
            r#"{"origin": "*", "methods": "*", "allow_headers": "mirror", "expose_headers": "*",
                "credentials": false, "max_age": 5, "private_network": true, "allow_null_origin": true,
                "preflight_status": 204, "rejected_preflight": "no-cors-headers",
                "preflight_cache_control": "max-age=60", "owned_public_suffixes": ["myplatform.app"],
                "dangerously_allow_insecure_origins": false, "protect_cross_origin": true,
                "cross_origin_bypass": ["/hooks/*"]}"#,
        )
        .unwrap();
        assert!(!options.is_empty());
        assert_eq!(options.preflight_status, Some(PreflightStatus::NO_CONTENT));
        assert_eq!(
            options.rejected_preflight,
            Some(RejectedPreflight::NoCorsHeaders)
        );
        assert_eq!(
            options.preflight_cache_control,
            Some(PreflightCacheControl::directives("max-age=60"))
        );
        assert_eq!(
            options.owned_public_suffixes.as_deref(),
            Some(&["myplatform.app".to_owned()][..])
        );
        assert_eq!(options.dangerously_allow_insecure_origins, Some(false));
        assert!(options.protects_cross_origin());
        assert_eq!(
            options.cross_origin_bypass.as_deref(),
            Some(&["/hooks/*".to_owned()][..])
        );
    }

    #[test]
    fn rejects_unknown_fields() {
        let err = serde_json::from_str::<CorsOptions>(r#"{"origins": "*"}"#).unwrap_err();
        assert!(err.to_string().contains("unknown field `origins`"), "{err}");
    }

    #[test]
    fn empty_object_is_empty() {
        assert!(
            serde_json::from_str::<CorsOptions>("{}")
                .unwrap()
                .is_empty()
        );
        assert!(CorsOptions::new().is_empty());
        assert!(!CorsOptions::new().credentials(false).is_empty());
    }

    #[test]
    fn merge_prefers_specific() {
        let general = CorsOptions::new().origin("https://a.com").credentials(true);
        let specific = CorsOptions::new().credentials(false);
        let merged = general.merge(&specific);
        assert_eq!(merged.credentials, Some(Credentials::from(false)));
        assert!(merged.origin.is_some());
        assert!(merged.max_age.is_none());
        assert!(CorsOptions::new().merge(&CorsOptions::new()).is_empty());
    }
}
