//! [`ActualDecision`]: the engine's answer to an actual (non-preflight) request.

use http::header::{
    ACCESS_CONTROL_ALLOW_CREDENTIALS, ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_EXPOSE_HEADERS,
};
use http::{HeaderMap, HeaderValue};

use std::sync::Arc;

use crate::credentials::Credentialed;
use crate::header::{STAR, TRUE};
use crate::refusal::Refusal;
use crate::vary::{VARY_ORIGIN, Vary};

/// Whether an actual response is credentialed: known only once the handler has run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ResponseCredentials {
    /// As the options say ([`CorsOptions::credentials`](crate::CorsOptions::credentials)).
    #[default]
    Policy,
    /// Credentialed whatever the options say, e.g. because the handler set a cookie: an allowed
    /// origin is answered with `Access-Control-Allow-Credentials: true`, unless the options
    /// name its source without credentials
    /// ([`Credentials::by_source`](crate::Credentials::by_source)). Under
    /// [`AllowOrigin::any()`](crate::AllowOrigin::any) the answer stays `*`, which browsers
    /// refuse with credentials ([`Refusal::CredentialsUnderAnyOrigin`]); reflecting any origin
    /// with credentials takes [`AllowOrigin::mirror_request()`](crate::AllowOrigin::mirror_request).
    Include,
}

/// What the policy decided about the request's origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// No `Origin`: not a CORS request.
    NotCors,
    /// Any origin: `*`.
    AnyOrigin,
    /// An allowed origin: reflected.
    Reflect,
    /// Refused, and why.
    Refused(OriginRefusal),
}

/// Why an origin is refused, without the origin itself (which the decision keeps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OriginRefusal {
    NotAllowed,
    Null,
    Several,
    Malformed,
    /// An asynchronous decision failed (the decision keeps the reason).
    LookupFailed,
}

impl Verdict {
    pub(crate) fn refused(refusal: Refusal<'_>) -> Self {
        Verdict::Refused(match refusal {
            Refusal::NullOriginNotEnabled => OriginRefusal::Null,
            Refusal::SeveralOrigins => OriginRefusal::Several,
            Refusal::MalformedOrigin { .. } => OriginRefusal::Malformed,
            Refusal::OriginLookupFailed { .. } => OriginRefusal::LookupFailed,
            _ => OriginRefusal::NotAllowed,
        })
    }
}

/// The decision on an actual request, or on one that is not CORS, from
/// [`CorsPolicy::actual`](crate::CorsPolicy::actual).
///
/// Made before the request goes to the handler, it owns what it needs: the request's `Origin`
/// (a [`HeaderValue`] clone, which shares the request's bytes) and the policy's prebuilt values.
/// Keep it with the response future; once the handler has answered,
/// [`write`](ActualDecision::write) adds `Access-Control-Allow-Origin`, `-Allow-Credentials`,
/// `-Expose-Headers` and `Vary: Origin` to the response, as the handler left it.
///
/// ```
/// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest, ResponseCredentials};
/// use http::{HeaderMap, HeaderValue, Method};
///
/// let policy = CorsPolicy::from_options(
///     &CorsOptions::new().origin("https://example.com").expose_headers(["x-request-id"]),
/// )?;
/// let mut headers = HeaderMap::new();
/// headers.insert("origin", HeaderValue::from_static("https://example.com"));
/// let decision = policy.actual(&CorsRequest::new(&Method::GET, &headers));
/// drop(headers); // the request goes to the handler
///
/// let mut response = HeaderMap::new();
/// response.insert("set-cookie", HeaderValue::from_static("session=1"));
/// let refusal = decision.write(&mut response, ResponseCredentials::Include);
/// assert_eq!(refusal, None);
/// assert_eq!(response["access-control-allow-origin"], "https://example.com");
/// assert_eq!(response["access-control-allow-credentials"], "true");
/// assert_eq!(response["access-control-expose-headers"], "x-request-id");
/// assert_eq!(response["vary"], "Origin");
/// # Ok::<(), cors_axum_core::CorsConfigError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ActualDecision {
    /// The request's `Origin` when it has exactly one line.
    pub(crate) origin: Option<HeaderValue>,
    pub(crate) verdict: Verdict,
    /// Whether the options give credentials to the origin's source.
    pub(crate) credentials: Credentialed,
    /// Whether every answer, CORS or not, gets `Vary: Origin` (unless any origin is allowed).
    pub(crate) vary_origin: bool,
    /// What few policies or requests add: behind one shared pointer, the policy's own, so that
    /// the decision stays small (it is kept in every response future, which is moved several
    /// times per request) and making it clones no header value.
    pub(crate) extras: Option<Arc<DecisionExtras>>,
}

/// The rarely needed parts of an [`ActualDecision`], prebuilt by the policy (`None` there when
/// it has none of them).
#[derive(Debug, Default)]
pub(crate) struct DecisionExtras {
    /// `Vary` instead of `Origin`, when a request-aware origin decision reads more headers.
    pub(crate) vary_names: Option<Arc<Vary>>,
    /// `Access-Control-Expose-Headers`, written when the origin is granted.
    pub(crate) expose_headers: Option<HeaderValue>,
    /// Why an asynchronous origin decision failed, for the refusal: set on a copy of the
    /// policy's extras, made only then.
    pub(crate) lookup_failure: Option<Box<str>>,
}

impl DecisionExtras {
    /// The policy's extras, `None` when it has neither `Vary` names nor exposed headers.
    pub(crate) fn of_policy(
        vary_names: Option<Arc<Vary>>,
        expose_headers: Option<HeaderValue>,
    ) -> Option<Arc<Self>> {
        (vary_names.is_some() || expose_headers.is_some()).then(|| {
            Arc::new(Self {
                vary_names,
                expose_headers,
                lookup_failure: None,
            })
        })
    }

    /// The policy's `extras` with the reason an asynchronous origin decision failed.
    pub(crate) fn with_lookup_failure(extras: Option<&Self>, reason: &str) -> Arc<Self> {
        Arc::new(Self {
            vary_names: extras.and_then(|e| e.vary_names.clone()),
            expose_headers: None,
            lookup_failure: Some(reason.into()),
        })
    }
}

impl ActualDecision {
    /// Whether all [`write_headers`](Self::write_headers) writes is `Vary: Origin`: a request
    /// without `Origin` under a policy whose answers vary by origin, with no other names to
    /// vary on. A caller may then keep no decision and write that alone
    /// ([`vary_on_origin`](crate::vary_on_origin)).
    pub fn varies_by_origin_alone(&self) -> bool {
        self.verdict == Verdict::NotCors
            && self.vary_origin
            && self.extras.as_ref().is_none_or(|e| e.vary_names.is_none())
    }

    /// Whether the request had an `Origin` header, i.e. is a CORS request.
    pub fn is_cors(&self) -> bool {
        self.verdict != Verdict::NotCors
    }

    /// Whether the origin is granted: `Access-Control-Allow-Origin` will be written (`*` or the
    /// origin itself).
    pub fn is_allowed(&self) -> bool {
        matches!(self.verdict, Verdict::AnyOrigin | Verdict::Reflect)
    }

    /// The request's `Origin` when it had exactly one.
    pub fn origin(&self) -> Option<&HeaderValue> {
        self.origin.as_ref()
    }

    /// The host of the request's origin, as the engine reads origins (lowercase not enforced,
    /// no port, IPv6 addresses in brackets): `Some("app.example")` for
    /// `Origin: https://app.example:8443`; `None` without one well-formed origin. For a
    /// same-site check against the request's own `Host`.
    ///
    /// ```
    /// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest};
    /// use http::{HeaderMap, HeaderValue, Method};
    ///
    /// let policy = CorsPolicy::from_options(&CorsOptions::new())?;
    /// let mut headers = HeaderMap::new();
    /// headers.insert("origin", HeaderValue::from_static("http://[::1]:8080"));
    /// let decision = policy.actual(&CorsRequest::new(&Method::GET, &headers));
    /// assert_eq!(decision.origin_host(), Some("[::1]"));
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn origin_host(&self) -> Option<&str> {
        let origin = crate::origin::parse(self.origin.as_ref()?.as_bytes()).ok()?;
        std::str::from_utf8(origin.host).ok()
    }

    /// Why the origin is refused; `None` when it is granted or the request is not CORS. Whether
    /// the browser will then accept a credentialed answer is known only when writing: see
    /// [`write`](ActualDecision::write).
    pub fn refusal(&self) -> Option<Refusal<'_>> {
        let Verdict::Refused(why) = self.verdict else {
            return None;
        };
        Some(match (why, &self.origin) {
            (OriginRefusal::LookupFailed, _) => Refusal::OriginLookupFailed {
                reason: self
                    .extras
                    .as_ref()
                    .and_then(|extras| extras.lookup_failure.as_deref())
                    .unwrap_or_default(),
            },
            (OriginRefusal::Null, _) => Refusal::NullOriginNotEnabled,
            (OriginRefusal::NotAllowed, Some(origin)) => {
                crate::allow_origin::explained(Refusal::OriginNotAllowed { origin })
            }
            (OriginRefusal::Malformed, Some(origin)) => Refusal::MalformedOrigin { origin },
            // A single `Origin` line is always kept, so only several lines come here.
            (OriginRefusal::Several | OriginRefusal::NotAllowed | OriginRefusal::Malformed, _) => {
                Refusal::SeveralOrigins
            }
        })
    }

    /// Adds the CORS headers to the handler's response, in place of any `Access-Control-*`
    /// header the handler set (the policy owns them: a refused request is never granted by a
    /// header set elsewhere): `Access-Control-Allow-Origin`, `-Allow-Credentials`,
    /// `-Expose-Headers` for a granted origin, and `Vary: Origin` (merged into the handler's
    /// `Vary`) whenever the answer depends on the origin, CORS request or not. Allocates
    /// nothing given a map with room for the headers and no header to remove.
    ///
    /// `credentials` says whether the handler made the response credentialed. Returns why a
    /// browser will not let the script read the answer, if it will not: the
    /// [`refusal`](ActualDecision::refusal), or [`Refusal::CredentialsUnderAnyOrigin`] for a
    /// response made credentialed under [`AllowOrigin::any()`](crate::AllowOrigin::any), which
    /// is answered `*` with `Access-Control-Allow-Credentials: true` (a caller may warn once).
    #[inline]
    pub fn write(
        &self,
        response_headers: &mut HeaderMap,
        credentials: ResponseCredentials,
    ) -> Option<Refusal<'_>> {
        if self.write_headers(response_headers, credentials) {
            Some(Refusal::CredentialsUnderAnyOrigin)
        } else {
            self.refusal()
        }
    }

    /// The headers of [`write`](ActualDecision::write), without working out why an origin is
    /// refused, for a caller that needs no reason back (one that logs refusals when it decides,
    /// if it logs them): returns only whether the response was made credentialed under
    /// [`AllowOrigin::any()`](crate::AllowOrigin::any)
    /// ([`Refusal::CredentialsUnderAnyOrigin`]), of which it may warn.
    ///
    /// ```
    /// use cors_axum_core::{CorsOptions, CorsPolicy, CorsRequest, ResponseCredentials};
    /// use http::{HeaderMap, HeaderValue, Method};
    ///
    /// let policy = CorsPolicy::from_options(&CorsOptions::new().origin("https://a.example"))?;
    /// let mut headers = HeaderMap::new();
    /// headers.insert("origin", HeaderValue::from_static("https://b.example"));
    /// let decision = policy.actual(&CorsRequest::new(&Method::GET, &headers));
    /// let mut response = HeaderMap::new();
    /// assert!(!decision.write_headers(&mut response, ResponseCredentials::Policy));
    /// assert!(!response.contains_key("access-control-allow-origin"));
    /// assert_eq!(response["vary"], "Origin");
    ///
    /// // A handler's own grant is not kept.
    /// let mut response = HeaderMap::new();
    /// response.insert("access-control-allow-origin", HeaderValue::from_static("*"));
    /// decision.write_headers(&mut response, ResponseCredentials::Policy);
    /// assert!(!response.contains_key("access-control-allow-origin"));
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    #[inline]
    pub fn write_headers(
        &self,
        response_headers: &mut HeaderMap,
        credentials: ResponseCredentials,
    ) -> bool {
        crate::header::remove_cors_headers(response_headers);
        let credentialed = match self.credentials {
            Credentialed::Yes => true,
            Credentialed::IfResponseIs => credentials == ResponseCredentials::Include,
            Credentialed::Never => false,
        };
        let under_any_origin = match (self.verdict, &self.origin) {
            (Verdict::AnyOrigin, _) => {
                self.grant(response_headers, STAR, credentialed);
                credentialed
            }
            (Verdict::Reflect, Some(origin)) => {
                self.grant(response_headers, origin.clone(), credentialed);
                false
            }
            _ => false,
        };
        match self.extras.as_ref().and_then(|e| e.vary_names.as_ref()) {
            Some(names) => names.apply(response_headers),
            None if self.vary_origin => VARY_ORIGIN.apply(response_headers),
            None => {}
        }
        under_any_origin
    }

    fn grant(&self, response: &mut HeaderMap, allow_origin: HeaderValue, credentialed: bool) {
        response.insert(ACCESS_CONTROL_ALLOW_ORIGIN, allow_origin);
        if credentialed {
            response.insert(ACCESS_CONTROL_ALLOW_CREDENTIALS, TRUE);
        }
        if let Some(expose) = self.extras.as_ref().and_then(|e| e.expose_headers.as_ref()) {
            response.insert(ACCESS_CONTROL_EXPOSE_HEADERS, expose.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::actual::ResponseCredentials;
    use crate::options::CorsOptions;
    use crate::policy::CorsPolicy;
    use crate::refusal::Refusal;
    use crate::request::CorsRequest;
    use http::{HeaderMap, HeaderValue, Method};

    #[test]
    fn a_refusal_decided_without_parsing_is_explained_when_asked() {
        let policy =
            CorsPolicy::from_options(&CorsOptions::new().origin("https://a.example")).unwrap();
        let decide = |origin: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert("origin", HeaderValue::from_static(origin));
            policy.actual(&CorsRequest::new(&Method::GET, &headers))
        };
        for (origin, malformed) in [
            ("https://evil.example", false),
            ("https://evil.example/", true),
            ("evil", true),
            ("https://a.example.evil", false),
            ("https://a.example/", true),
        ] {
            let decision = decide(origin);
            assert!(!decision.is_allowed() && decision.is_cors(), "{origin}");
            let refusal = decision.refusal();
            match refusal {
                Some(Refusal::MalformedOrigin { .. }) => assert!(malformed, "{origin}"),
                Some(Refusal::OriginNotAllowed { .. }) => assert!(!malformed, "{origin}"),
                other => panic!("{origin}: {other:?}"),
            }
            let mut response = HeaderMap::new();
            assert_eq!(
                decision.write(&mut response, ResponseCredentials::Policy),
                refusal
            );
            assert_eq!(response.len(), 1);
            assert_eq!(response["vary"], "Origin");
        }
    }
}
