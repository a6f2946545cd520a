//! [`AllowMethods`]: which methods a preflight allows.

use http::{HeaderValue, Method};

use crate::error::CorsConfigError;
use crate::header::STAR;
use crate::header_list::{CompiledNames, is_token};
use crate::list_option::list_option;
use crate::refusal::Refusal;

/// Which methods a preflight allows: the
/// [`Access-Control-Allow-Methods`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Access-Control-Allow-Methods)
/// response header.
///
/// Methods compare case-sensitively, as in the Fetch standard (browsers uppercase `GET`,
/// `POST` and the other standard methods before sending them).
///
/// ```
/// use cors_axum_core::AllowMethods;
/// use http::Method;
///
/// let _ = AllowMethods::route(); // the default: the methods the route answers
/// let _ = AllowMethods::list(["GET", "POST"]);
/// let _: AllowMethods = vec![Method::GET, Method::PATCH].into();
/// let _: AllowMethods = "*".into(); // the same as `any()`
/// ```
#[must_use]
#[derive(Clone, Debug, Default)]
pub struct AllowMethods(MethodsSpec);

#[derive(Clone, Debug, Default)]
enum MethodsSpec {
    Any,
    List(Vec<String>),
    Mirror,
    #[default]
    Route,
}

impl AllowMethods {
    /// Whether this is a list: narrower, for some routes, than the default (the route's methods).
    pub(crate) fn is_list(&self) -> bool {
        matches!(self.0, MethodsSpec::List(_))
    }

    /// Any method: `Access-Control-Allow-Methods: *`. Cannot be combined with credentials.
    pub fn any() -> Self {
        AllowMethods(MethodsSpec::Any)
    }

    /// These methods, written in this order.
    pub fn list<I, M>(methods: I) -> Self
    where
        I: IntoIterator<Item = M>,
        M: AsRef<str>,
    {
        AllowMethods(MethodsSpec::List(
            methods.into_iter().map(|m| m.as_ref().to_owned()).collect(),
        ))
    }

    /// Whatever method the preflight asks for, echoed back (with
    /// `Vary: Access-Control-Request-Method`).
    pub fn mirror_request() -> Self {
        AllowMethods(MethodsSpec::Mirror)
    }

    /// The methods of the route the preflight is for (the default). With
    /// [`CorsPolicy::from_options`](crate::CorsPolicy::from_options), where the route is not known,
    /// this behaves as [`mirror_request`](AllowMethods::mirror_request).
    pub fn route() -> Self {
        AllowMethods(MethodsSpec::Route)
    }

    pub(crate) fn compile(
        &self,
        route_methods: Option<&[Method]>,
        credentials: bool,
    ) -> Result<CompiledMethods, CorsConfigError> {
        match (&self.0, route_methods) {
            (MethodsSpec::Any, _) if credentials => Err(CorsConfigError::new(
                "methods",
                Some("*"),
                "`*` is only a wildcard without credentials; with `credentials(true)` browsers read it as a \
                 method named `*`. List the methods, or leave `methods` unset to allow the route's methods",
            )),
            (MethodsSpec::Any, _) => Ok(CompiledMethods::Any),
            (MethodsSpec::Mirror, _) | (MethodsSpec::Route, None) => Ok(CompiledMethods::Mirror),
            (MethodsSpec::Route, Some(methods)) => Ok(CompiledMethods::List(CompiledNames::new(
                methods
                    .iter()
                    .map(|method| method.as_str().to_owned())
                    .collect(),
            ))),
            (MethodsSpec::List(methods), _) => {
                for method in methods {
                    validate(method)?;
                }
                Ok(CompiledMethods::List(CompiledNames::new(methods.clone())))
            }
        }
    }
}

const STANDARD: [&str; 9] = [
    "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
];

fn validate(method: &str) -> Result<(), CorsConfigError> {
    if method == "*" {
        return Err(CorsConfigError::new(
            "methods",
            Some(method),
            "`*` (any method) cannot be part of a list; use `*` alone to allow any method, or list the methods",
        ));
    }
    if !is_token(method.as_bytes()) {
        return Err(CorsConfigError::new(
            "methods",
            Some(method),
            format!(
                "`{method}` is not a valid HTTP method; a method is a token such as `GET` or `PATCH`"
            ),
        ));
    }
    if let Some(standard) = STANDARD
        .iter()
        .find(|s| s.eq_ignore_ascii_case(method) && **s != method)
    {
        return Err(CorsConfigError::new(
            "methods",
            Some(method),
            format!(
                "`{method}`: methods are case-sensitive and browsers send this one uppercase; write `{standard}`"
            ),
        ));
    }
    Ok(())
}

#[cold]
fn not_listed(requested: &HeaderValue) -> Refusal<'_> {
    if is_token(requested.as_bytes()) {
        Refusal::MethodNotAllowed { method: requested }
    } else {
        Refusal::MalformedRequestMethod { method: requested }
    }
}

/// A validated methods option.
#[derive(Clone, Debug)]
pub(crate) enum CompiledMethods {
    /// `*`.
    Any,
    /// A fixed list and its prebuilt header value (`None` when empty: nothing is allowed).
    List(CompiledNames),
    /// Echo the requested method.
    Mirror,
}

impl CompiledMethods {
    /// Whether the requested method is allowed: `Ok(Some(method))` for the mirror, which answers
    /// with it, `Ok(None)` when the answer is [`fixed_value`](CompiledMethods::fixed_value), or
    /// why it is refused.
    pub(crate) fn check<'a>(
        &self,
        requested: &'a HeaderValue,
    ) -> Result<Option<HeaderValue>, Refusal<'a>> {
        match self {
            CompiledMethods::Any if is_token(requested.as_bytes()) => Ok(None),
            CompiledMethods::Mirror if is_token(requested.as_bytes()) => {
                Ok(Some(requested.clone()))
            }
            CompiledMethods::Any | CompiledMethods::Mirror => {
                Err(Refusal::MalformedRequestMethod { method: requested })
            }
            // Configured methods are tokens, so one equal to the request is too.
            CompiledMethods::List(list) => {
                let listed = list.names.iter().any(|m| **m == *requested.as_bytes());
                if listed {
                    Ok(None)
                } else {
                    Err(not_listed(requested))
                }
            }
        }
    }

    /// The `Access-Control-Allow-Methods` value for the requested method, or why it is refused.
    #[cfg(test)]
    fn answer<'a>(&self, requested: &'a HeaderValue) -> Result<HeaderValue, Refusal<'a>> {
        self.check(requested).map(|mirrored| {
            mirrored
                .or_else(|| self.fixed_value())
                .expect("a grant has a value")
        })
    }

    /// The answer when it does not depend on the requested method (`None` for the mirror).
    pub(crate) fn fixed_value(&self) -> Option<HeaderValue> {
        match self {
            CompiledMethods::Any => Some(STAR),
            CompiledMethods::List(list) => list.value.clone(),
            CompiledMethods::Mirror => None,
        }
    }

    pub(crate) fn is_mirror(&self) -> bool {
        matches!(self, CompiledMethods::Mirror)
    }
}

list_option!(AllowMethods, Method; "mirror" => Self::mirror_request(), "route" => Self::route());

#[cfg(test)]
mod tests {
    use super::*;

    fn value(m: &AllowMethods, route: Option<&[Method]>) -> Option<HeaderValue> {
        m.compile(route, false)
            .unwrap()
            .answer(&HeaderValue::from_static("POST"))
            .ok()
    }

    #[test]
    fn route_methods_in_order() {
        let route = [
            Method::GET,
            Method::HEAD,
            Method::POST,
            Method::PATCH,
            Method::OPTIONS,
        ];
        assert_eq!(
            value(&AllowMethods::route(), Some(&route)).unwrap(),
            "GET, HEAD, POST, PATCH, OPTIONS"
        );
        assert_eq!(value(&AllowMethods::route(), None).unwrap(), "POST");
        assert!(value(&AllowMethods::route(), Some(&[Method::GET])).is_none());
    }

    #[test]
    fn case_sensitive() {
        let compiled = AllowMethods::list(["GET", "POST"])
            .compile(None, false)
            .unwrap();
        let lower = HeaderValue::from_static("post");
        assert_eq!(
            compiled.answer(&lower),
            Err(Refusal::MethodNotAllowed { method: &lower })
        );
        assert_eq!(
            compiled.answer(&HeaderValue::from_static("POST")).unwrap(),
            "GET, POST"
        );
        let malformed = HeaderValue::from_static("GE T");
        for methods in [
            AllowMethods::list(["GET"]),
            AllowMethods::any(),
            AllowMethods::mirror_request(),
        ] {
            assert_eq!(
                methods.compile(None, false).unwrap().answer(&malformed),
                Err(Refusal::MalformedRequestMethod { method: &malformed })
            );
        }
        let empty = AllowMethods::list(Vec::<String>::new())
            .compile(None, false)
            .unwrap();
        let get = HeaderValue::from_static("GET");
        assert_eq!(
            empty.answer(&get),
            Err(Refusal::MethodNotAllowed { method: &get })
        );
    }

    #[test]
    fn validation() {
        assert!(AllowMethods::list(["get"]).compile(None, false).is_err());
        assert!(AllowMethods::list(["GE T"]).compile(None, false).is_err());
        assert!(
            AllowMethods::list(["PURGE", "*"])
                .compile(None, false)
                .is_err()
        );
        assert!(AllowMethods::list(["PURGE"]).compile(None, true).is_ok());
        assert!(AllowMethods::any().compile(None, true).is_err());
        assert!(
            AllowMethods::list(Vec::<String>::new())
                .compile(None, false)
                .is_ok()
        );
    }
}
