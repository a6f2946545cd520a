//! [`Credentials`]: which allowed origins may read credentialed responses.

/// Which allowed origins get
/// [`Access-Control-Allow-Credentials: true`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Access-Control-Allow-Credentials),
/// so that their scripts may send cookies and read the answers:
/// [`CorsOptions::credentials`](crate::CorsOptions::credentials).
///
/// Either every allowed origin (`true`) or none (`false`, the default), or by the option that
/// allowed the origin: [`origin`](Self::origin) (the first-party list, pattern, predicate or
/// `mirror`), [`origin_set`](Self::origin_set) (the [`OriginSet`](crate::OriginSet), such as
/// the tenants' domains from a database), [`tenant_origins`](Self::tenant_origins) (the
/// [`TenantOrigins`](crate::TenantOrigins), each tenant's own origins on its own host) and
/// [`origin_fallback`](Self::origin_fallback) (the
/// asynchronous lookup, [`AllowOrigin::or_else`](crate::AllowOrigin::or_else) or
/// [`CorsOptions::origin_fallback`](crate::CorsOptions::origin_fallback)). A source not named
/// gets no credentials. In options files: `"credentials": true`, or
/// `"credentials": {"origin": true, "origin_set": false}`.
///
/// An origin held by the list and a set alike is decided by the list, one held by the origin
/// set and a tenant's by the origin set. An origin granted
/// without credentials is answered with its own origin and no
/// `Access-Control-Allow-Credentials`, so a browser refuses it a credentialed response; and
/// with the per-source form, a source without credentials gets none even on a response the
/// handler makes credentialed
/// ([`ResponseCredentials::Include`](crate::ResponseCredentials::Include)). The answer depends
/// on the origin either way, and says `Vary: Origin`.
///
/// ```
/// use cors_axum_core::{Credentials, CorsOptions, CorsPolicy, CorsRequest, OriginSet};
/// use http::{HeaderMap, HeaderValue, Method};
///
/// let tenants = OriginSet::new("tenants");
/// tenants.insert("https://acme.example")?;
/// let policy = CorsPolicy::from_options(
///     &CorsOptions::new()
///         .origin("https://app.example")
///         .origin_set(&tenants)
///         .credentials(Credentials::by_source().origin(true)),
/// )?;
/// let answer = |origin: &'static str| {
///     let mut request = HeaderMap::new();
///     request.insert("origin", HeaderValue::from_static(origin));
///     let mut response = HeaderMap::new();
///     policy
///         .actual(&CorsRequest::new(&Method::GET, &request))
///         .write(&mut response, Default::default());
///     response
/// };
/// let first_party = answer("https://app.example");
/// assert_eq!(first_party["access-control-allow-origin"], "https://app.example");
/// assert_eq!(first_party["access-control-allow-credentials"], "true");
/// assert_eq!(first_party["vary"], "Origin");
/// let tenant = answer("https://acme.example");
/// assert_eq!(tenant["access-control-allow-origin"], "https://acme.example");
/// assert!(tenant.get("access-control-allow-credentials").is_none());
/// assert_eq!(tenant["vary"], "Origin");
/// # Ok::<(), cors_axum_core::CorsConfigError>(())
/// ```
#[must_use]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Credentials {
    origin: bool,
    origin_set: bool,
    tenant_origins: bool,
    origin_fallback: bool,
    /// Whether the sources were named one by one (then one without credentials never gets
    /// them), rather than all given the same with a `bool`.
    by_source: bool,
}

/// The option that allowed an origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// [`CorsOptions::origin`](crate::CorsOptions::origin): a list, a pattern, a predicate, any.
    Origin,
    /// [`CorsOptions::origin_set`](crate::CorsOptions::origin_set).
    OriginSet,
    /// [`CorsOptions::tenant_origins`](crate::CorsOptions::tenant_origins).
    TenantOrigins,
    /// [`CorsOptions::origin_fallback`](crate::CorsOptions::origin_fallback), or the lookup of
    /// [`AllowOrigin::or_else`](crate::AllowOrigin::or_else).
    OriginFallback,
}

/// Whether an answer to an origin is credentialed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Credentialed {
    Yes,
    /// Only if the handler makes the response credentialed
    /// ([`ResponseCredentials::Include`](crate::ResponseCredentials::Include)).
    IfResponseIs,
    /// Never: its source was named without credentials.
    Never,
}

impl Credentials {
    /// No source has credentials until named: `Credentials::by_source().origin(true)` gives
    /// them to the origins of [`origin`](crate::CorsOptions::origin) only.
    pub fn by_source() -> Self {
        Credentials {
            by_source: true,
            ..Credentials::default()
        }
    }

    /// Whether the origins [`CorsOptions::origin`](crate::CorsOptions::origin) allows get
    /// credentials. With any origin (`*`), `true` is a configuration error of `credentials`.
    pub fn origin(mut self, allow: bool) -> Self {
        self.origin = allow;
        self.by_source = true;
        self
    }

    /// Whether the origins of the [`OriginSet`](crate::OriginSet) get credentials.
    pub fn origin_set(mut self, allow: bool) -> Self {
        self.origin_set = allow;
        self.by_source = true;
        self
    }

    /// Whether the origins of the [`TenantOrigins`](crate::TenantOrigins), each granted on its
    /// own tenant's requests, get credentials.
    pub fn tenant_origins(mut self, allow: bool) -> Self {
        self.tenant_origins = allow;
        self.by_source = true;
        self
    }

    /// Whether the origins the asynchronous lookup allows get credentials.
    pub fn origin_fallback(mut self, allow: bool) -> Self {
        self.origin_fallback = allow;
        self.by_source = true;
        self
    }

    /// Whether any source gets credentials.
    pub fn any(self) -> bool {
        self.origin || self.origin_set || self.tenant_origins || self.origin_fallback
    }

    /// Whether the origins of `source` get credentials.
    pub(crate) fn allows(self, source: Source) -> bool {
        match source {
            Source::Origin => self.origin,
            Source::OriginSet => self.origin_set,
            Source::TenantOrigins => self.tenant_origins,
            Source::OriginFallback => self.origin_fallback,
        }
    }

    /// How an answer to an origin of `source` is credentialed.
    pub(crate) fn of(self, source: Source) -> Credentialed {
        match (self.allows(source), self.by_source) {
            (true, _) => Credentialed::Yes,
            (false, false) => Credentialed::IfResponseIs,
            (false, true) => Credentialed::Never,
        }
    }

    /// Whether the sources are named one by one.
    pub(crate) fn is_by_source(self) -> bool {
        self.by_source
    }
}

impl From<bool> for Credentials {
    /// Every allowed origin gets credentials (`true`), or none does (`false`).
    fn from(allow: bool) -> Self {
        Credentials {
            origin: allow,
            origin_set: allow,
            tenant_origins: allow,
            origin_fallback: allow,
            by_source: false,
        }
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Credentials {
    /// `true`, `false`, or `{"origin": true, "origin_set": false, "tenant_origins": false,
    /// "origin_fallback": false}` (a source left out gets no credentials).
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct BySource {
            #[serde(default)]
            origin: bool,
            #[serde(default)]
            origin_set: bool,
            #[serde(default)]
            tenant_origins: bool,
            #[serde(default)]
            origin_fallback: bool,
        }
        #[derive(serde::Deserialize)]
        #[serde(
            untagged,
            expecting = "`true`, `false`, or credentials by source, \
                                       as in `{\"origin\": true, \"origin_set\": false}`"
        )]
        enum Written {
            All(bool),
            BySource(BySource),
        }
        Ok(match Written::deserialize(deserializer)? {
            Written::All(allow) => Credentials::from(allow),
            Written::BySource(s) => Credentials::by_source()
                .origin(s.origin)
                .origin_set(s.origin_set)
                .tenant_origins(s.tenant_origins)
                .origin_fallback(s.origin_fallback),
        })
    }
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;

    #[test]
    fn reads_a_bool_or_sources() {
        let read = |s: &str| serde_json::from_str::<Credentials>(s);
        assert_eq!(read("true").unwrap(), Credentials::from(true));
        assert_eq!(read("false").unwrap(), Credentials::from(false));
        assert_eq!(
            read(r#"{"origin": true, "origin_set": false}"#).unwrap(),
            Credentials::by_source().origin(true)
        );
        assert_eq!(read("{}").unwrap(), Credentials::by_source());
        let err = read(r#"{"origins": true}"#).unwrap_err().to_string();
        assert!(err.contains("credentials by source"), "{err}");
        assert!(read(r#""yes""#).is_err());
    }

    #[test]
    fn a_source_named_without_credentials_never_gets_them() {
        let all = Credentials::from(false);
        assert_eq!(all.of(Source::OriginSet), Credentialed::IfResponseIs);
        let named = Credentials::by_source().origin(true);
        assert_eq!(named.of(Source::Origin), Credentialed::Yes);
        assert_eq!(named.of(Source::OriginSet), Credentialed::Never);
        assert_eq!(named.of(Source::OriginFallback), Credentialed::Never);
        assert_eq!(named.of(Source::TenantOrigins), Credentialed::Never);
        let tenants = Credentials::by_source().tenant_origins(true);
        assert_eq!(tenants.of(Source::TenantOrigins), Credentialed::Yes);
        assert_eq!(
            Credentials::from(true).of(Source::TenantOrigins),
            Credentialed::Yes
        );
        assert!(named.any() && !Credentials::by_source().any());
    }
}
