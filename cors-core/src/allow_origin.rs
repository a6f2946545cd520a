//! [`AllowOrigin`]: which origins may read responses.

use std::fmt;
use std::sync::Arc;

use http::HeaderValue;

use crate::origin::{
    OriginConfigError, OriginSet, OriginSyntaxError, parse_configured, parse_request,
};

use crate::{CorsConfigError, Refusal};

type Predicate = Arc<dyn Fn(&HeaderValue) -> bool + Send + Sync + 'static>;

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
/// `example.com` with that scheme and port, but not `https://example.com` itself.
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
/// let _ = AllowOrigin::predicate(|origin| origin.as_bytes().ends_with(b".localhost:3000"));
/// let _: AllowOrigin = "*".into(); // the same as `any()`
/// ```
#[must_use]
#[derive(Clone)]
pub struct AllowOrigin(OriginSpec);

#[derive(Clone)]
enum OriginSpec {
    Any,
    List(Vec<String>),
    Predicate(Predicate),
    Mirror,
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
        AllowOrigin(OriginSpec::Any)
    }

    /// One origin, such as `https://example.com`, or one pattern, such as `https://*.example.com`.
    pub fn exact(origin: impl Into<String>) -> Self {
        AllowOrigin(OriginSpec::List(vec![origin.into()]))
    }

    /// Several origins and/or patterns; a request origin is looked up in constant time.
    pub fn list<I, S>(origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        AllowOrigin(OriginSpec::List(
            origins.into_iter().map(Into::into).collect(),
        ))
    }

    /// Origins for which `f` returns true. `f` sees only well-formed origins (never `null`,
    /// several values or malformed bytes) and runs on every CORS request, so keep it cheap.
    pub fn predicate<F>(f: F) -> Self
    where
        F: Fn(&HeaderValue) -> bool + Send + Sync + 'static,
    {
        AllowOrigin(OriginSpec::Predicate(Arc::new(f)))
    }

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
        AllowOrigin(OriginSpec::Mirror)
    }

    pub(crate) fn compile(&self, allow_null: bool) -> Result<CompiledOrigin, CorsConfigError> {
        let rule = match &self.0 {
            OriginSpec::Any => OriginRule::Any,
            OriginSpec::Mirror => OriginRule::Mirror,
            OriginSpec::Predicate(f) => OriginRule::Predicate(Arc::clone(f)),
            OriginSpec::List(origins) => {
                let mut set = OriginSet::default();
                for origin in origins {
                    if origin == "*" {
                        return Err(CorsConfigError::new(
                            "origin",
                            Some(origin),
                            "`*` (any origin) cannot be part of a list; use `*` alone to allow any origin, \
                             or list the origins"
                                .to_owned(),
                        ));
                    }
                    if origin == "null" {
                        if !allow_null {
                            return Err(null_error());
                        }
                        continue;
                    }
                    set.insert(parse_configured(origin).map_err(|e| origin_error(origin, e))?);
                }
                OriginRule::Set(set)
            }
        };
        Ok(CompiledOrigin { rule, allow_null })
    }
}

fn null_error() -> CorsConfigError {
    CorsConfigError::new(
        "origin",
        Some("null"),
        "`null` is sent by sandboxed frames, `file:` pages and redirected requests, which any site can \
         produce; allow it deliberately with `allow_null_origin(true)`"
            .to_owned(),
    )
}

/// The origin with everything after the authority, and any user information, removed.
fn suggested_origin(origin: &str) -> String {
    let Some(sep) = origin.find("://") else {
        return origin.to_owned();
    };
    let rest = &origin[sep + 3..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    format!("{}://{host_port}", &origin[..sep])
}

fn origin_error(origin: &str, error: OriginConfigError) -> CorsConfigError {
    const SHAPE: &str = "write it as `scheme://host[:port]`, e.g. `https://example.com`";
    let message = match error {
        OriginConfigError::Syntax(_) if origin.contains(',') => {
            format!(
                "`{origin}` contains a comma; give several origins as a list, e.g. \
             `[\"https://a.example\", \"https://b.example\"]`"
            )
        }
        OriginConfigError::Syntax(OriginSyntaxError::Path) => format!(
            "`{origin}` has a path or a trailing slash; write it as `{}`",
            suggested_origin(origin)
        ),
        OriginConfigError::Syntax(OriginSyntaxError::QueryOrFragment) => format!(
            "`{origin}` has a query or a fragment; write it as `{}`",
            suggested_origin(origin)
        ),
        OriginConfigError::Syntax(OriginSyntaxError::Userinfo) => format!(
            "`{origin}` contains user information; write it as `{}`",
            suggested_origin(origin)
        ),
        OriginConfigError::Syntax(OriginSyntaxError::NotAnOrigin) if origin == "mirror" => {
            "`mirror` is not an origin; to reflect every origin, write `\"origin\": \"mirror\"` alone, \
             not in a list"
                .to_owned()
        }
        OriginConfigError::Syntax(OriginSyntaxError::NotAnOrigin) => {
            format!("`{origin}` is not an origin; {SHAPE}")
        }
        OriginConfigError::Syntax(OriginSyntaxError::EmptyHost) => {
            format!("`{origin}` has no host; {SHAPE}")
        }
        OriginConfigError::Syntax(OriginSyntaxError::InvalidHost) => format!(
            "`{origin}` has an invalid host; a host is dot-separated labels of letters, digits, `-` and `_`, \
             or an IPv6 address in brackets, e.g. `https://app.example.com`"
        ),
        OriginConfigError::Syntax(OriginSyntaxError::InvalidPort) => format!(
            "`{origin}` has an invalid port; a port is a number from 1 to 65535, e.g. `https://example.com:8443`"
        ),
        OriginConfigError::Syntax(OriginSyntaxError::TooLong) => format!(
            "`{origin}` is longer than {} bytes, so no browser origin can match it; check the value",
            crate::origin::MAX_ORIGIN_LEN
        ),
        OriginConfigError::SeveralWildcards => format!(
            "`{origin}` has more than one `*`; only the whole leftmost label of the host may be `*`, \
             e.g. `https://*.example.com`"
        ),
        OriginConfigError::WildcardNotLeftmostLabel => format!(
            "`{origin}`: `*` must be the whole leftmost label of the host, e.g. `https://*.example.com`"
        ),
        OriginConfigError::WildcardOverTopLevel => format!(
            "`{origin}` would match every site under a top-level domain; put `*` over a domain you control, \
             e.g. `https://*.example.com`"
        ),
    };
    CorsConfigError::new("origin", Some(origin), message)
}

impl Default for AllowOrigin {
    fn default() -> Self {
        Self::any()
    }
}

impl fmt::Debug for AllowOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            OriginSpec::Any => f.write_str("AllowOrigin::Any"),
            OriginSpec::List(list) => f.debug_tuple("AllowOrigin::List").field(list).finish(),
            OriginSpec::Predicate(_) => f.write_str("AllowOrigin::Predicate(..)"),
            OriginSpec::Mirror => f.write_str("AllowOrigin::MirrorRequest"),
        }
    }
}

impl From<&str> for AllowOrigin {
    /// `"*"` is [`AllowOrigin::any()`]; anything else is [`AllowOrigin::exact`].
    fn from(origin: &str) -> Self {
        if origin == "*" {
            Self::any()
        } else {
            Self::exact(origin)
        }
    }
}

impl From<String> for AllowOrigin {
    /// `"*"` is [`AllowOrigin::any()`]; anything else is [`AllowOrigin::exact`].
    fn from(origin: String) -> Self {
        if origin == "*" {
            Self::any()
        } else {
            Self::exact(origin)
        }
    }
}

impl From<&String> for AllowOrigin {
    fn from(origin: &String) -> Self {
        Self::from(origin.as_str())
    }
}

impl From<Vec<&str>> for AllowOrigin {
    fn from(origins: Vec<&str>) -> Self {
        Self::list(origins)
    }
}

impl From<Vec<String>> for AllowOrigin {
    fn from(origins: Vec<String>) -> Self {
        Self::list(origins)
    }
}

impl From<&[&str]> for AllowOrigin {
    fn from(origins: &[&str]) -> Self {
        Self::list(origins.iter().copied())
    }
}

impl<const N: usize> From<[&str; N]> for AllowOrigin {
    fn from(origins: [&str; N]) -> Self {
        Self::list(origins)
    }
}

impl<const N: usize> From<[String; N]> for AllowOrigin {
    fn from(origins: [String; N]) -> Self {
        Self::list(origins)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for AllowOrigin {
    /// `"*"` (any), `"mirror"` ([`AllowOrigin::mirror_request`]), one origin or pattern, or a
    /// list of origins and patterns.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(
            match crate::options::StringOrList::deserialize(deserializer)? {
                crate::options::StringOrList::String(s) if s == "mirror" => Self::mirror_request(),
                crate::options::StringOrList::String(s) => Self::from(s),
                crate::options::StringOrList::List(list) => Self::list(list),
            },
        )
    }
}

/// How a compiled policy decides on a request origin.
#[derive(Clone)]
pub(crate) enum OriginRule {
    Any,
    Mirror,
    Predicate(Predicate),
    Set(OriginSet),
}

/// A validated origin option.
#[derive(Clone)]
pub(crate) struct CompiledOrigin {
    pub(crate) rule: OriginRule,
    allow_null: bool,
}

impl CompiledOrigin {
    /// Whether a request's (single) `Origin` value may be reflected in
    /// `Access-Control-Allow-Origin`: `null` only with the opt-in, otherwise only a well-formed
    /// origin the rule allows.
    pub(crate) fn allows(&self, origin: &HeaderValue) -> bool {
        let bytes = origin.as_bytes();
        if bytes == b"null" {
            return self.allow_null;
        }
        match &self.rule {
            OriginRule::Any | OriginRule::Mirror => parse_request(bytes).is_some(),
            OriginRule::Predicate(f) => parse_request(bytes).is_some() && f(origin),
            OriginRule::Set(set) => set.allows(bytes),
        }
    }

    /// Why an origin [`allows`](CompiledOrigin::allows) refused is refused.
    #[cold]
    pub(crate) fn refusal<'a>(&self, origin: &'a HeaderValue) -> Refusal<'a> {
        let bytes = origin.as_bytes();
        if bytes == b"null" {
            Refusal::NullOriginNotEnabled
        } else if parse_request(bytes).is_none() {
            Refusal::MalformedOrigin { origin }
        } else {
            Refusal::OriginNotAllowed { origin }
        }
    }
}

impl fmt::Debug for CompiledOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rule: &dyn fmt::Debug = match &self.rule {
            OriginRule::Any => &"Any",
            OriginRule::Mirror => &"MirrorRequest",
            OriginRule::Predicate(_) => &"Predicate(..)",
            OriginRule::Set(set) => set,
        };
        f.debug_struct("CompiledOrigin")
            .field("rule", rule)
            .field("allow_null", &self.allow_null)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(origin: &str) -> String {
        AllowOrigin::exact(origin)
            .compile(false)
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
        assert!(AllowOrigin::list(["null"]).compile(false).is_err());
        assert!(AllowOrigin::list(["null"]).compile(true).is_ok());
    }

    #[test]
    fn refusals_name_the_reason() {
        let set = AllowOrigin::list(["https://a.com"]).compile(false).unwrap();
        let value = |s: &'static str| HeaderValue::from_static(s);
        let null = value("null");
        assert_eq!(set.refusal(&null), Refusal::NullOriginNotEnabled);
        let evil = value("https://evil.com");
        assert!(!set.allows(&evil));
        assert_eq!(
            set.refusal(&evil),
            Refusal::OriginNotAllowed { origin: &evil }
        );
        let path = value("https://a.com/");
        assert!(!set.allows(&path));
        assert_eq!(
            set.refusal(&path),
            Refusal::MalformedOrigin { origin: &path }
        );
    }

    #[test]
    fn mirror_is_not_an_origin_in_a_list() {
        let err = AllowOrigin::list(["mirror"]).compile(false).unwrap_err();
        assert!(err.to_string().contains("alone, not in a list"), "{err}");
    }

    #[test]
    fn from_star_is_any() {
        assert!(matches!(AllowOrigin::from("*").0, OriginSpec::Any));
        assert!(matches!(
            AllowOrigin::from("https://a.com").0,
            OriginSpec::List(_)
        ));
        assert!(
            AllowOrigin::list(["https://a.com", "*"])
                .compile(false)
                .is_err()
        );
    }
}
