//! [`ExposeHeaders`]: which response headers scripts may read.

use http::{HeaderName, HeaderValue};

use crate::error::CorsConfigError;
use crate::header_list;

/// Which response headers scripts may read beyond the CORS-safelisted ones: the
/// [`Access-Control-Expose-Headers`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Access-Control-Expose-Headers)
/// response header, sent on actual (non-preflight) responses. None by default.
///
/// ```
/// use cors_axum_core::ExposeHeaders;
///
/// let _ = ExposeHeaders::list(["x-request-id", "content-disposition"]);
/// let _: ExposeHeaders = "*".into(); // the same as `any()`
/// ```
#[must_use]
#[derive(Clone, Debug, Default)]
pub struct ExposeHeaders(ExposeSpec);

#[derive(Clone, Debug, Default)]
enum ExposeSpec {
    Any,
    List(Vec<String>),
    #[default]
    None,
}

impl ExposeHeaders {
    /// Every header: `Access-Control-Expose-Headers: *`. Cannot be combined with credentials.
    pub fn any() -> Self {
        ExposeHeaders(ExposeSpec::Any)
    }

    /// These headers.
    pub fn list<I, H>(headers: I) -> Self
    where
        I: IntoIterator<Item = H>,
        H: AsRef<str>,
    {
        ExposeHeaders(ExposeSpec::List(
            headers.into_iter().map(|h| h.as_ref().to_owned()).collect(),
        ))
    }

    /// No header beyond the safelisted ones (the default).
    pub fn none() -> Self {
        ExposeHeaders(ExposeSpec::None)
    }

    /// The prebuilt header value, `None` when nothing is exposed.
    pub(crate) fn compile(
        &self,
        credentials: bool,
    ) -> Result<Option<HeaderValue>, CorsConfigError> {
        match &self.0 {
            ExposeSpec::Any if credentials => Err(CorsConfigError::new(
                "expose_headers",
                Some("*"),
                "`*` is only a wildcard without credentials; with `credentials(true)` browsers read it as a \
                 header named `*`. List the response headers scripts may read"
                    .to_owned(),
            )),
            ExposeSpec::Any => Ok(Some(HeaderValue::from_static("*"))),
            ExposeSpec::None => Ok(None),
            ExposeSpec::List(names) => Ok(header_list::compile_names("expose_headers", names)?.value),
        }
    }
}

impl From<&str> for ExposeHeaders {
    /// `"*"` is [`ExposeHeaders::any()`]; anything else is a list of that one header.
    fn from(header: &str) -> Self {
        if header == "*" {
            Self::any()
        } else {
            Self::list([header])
        }
    }
}

impl From<String> for ExposeHeaders {
    /// `"*"` is [`ExposeHeaders::any()`]; anything else is a list of that one header.
    fn from(header: String) -> Self {
        Self::from(header.as_str())
    }
}

impl<const N: usize> From<[&str; N]> for ExposeHeaders {
    fn from(headers: [&str; N]) -> Self {
        Self::list(headers)
    }
}

impl From<Vec<&str>> for ExposeHeaders {
    fn from(headers: Vec<&str>) -> Self {
        Self::list(headers)
    }
}

impl From<Vec<String>> for ExposeHeaders {
    fn from(headers: Vec<String>) -> Self {
        Self::list(headers)
    }
}

impl From<HeaderName> for ExposeHeaders {
    fn from(header: HeaderName) -> Self {
        Self::list([header])
    }
}

impl<const N: usize> From<[HeaderName; N]> for ExposeHeaders {
    fn from(headers: [HeaderName; N]) -> Self {
        Self::list(headers)
    }
}

impl From<Vec<HeaderName>> for ExposeHeaders {
    fn from(headers: Vec<HeaderName>) -> Self {
        Self::list(headers)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for ExposeHeaders {
    /// `"*"` (any), one header name, or a list of header names.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(
            match crate::string_or_list::StringOrList::deserialize(deserializer)? {
                crate::string_or_list::StringOrList::String(s) => Self::from(s),
                crate::string_or_list::StringOrList::List(list) => Self::list(list),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles() {
        assert_eq!(
            ExposeHeaders::list(["X-Request-Id", "x-a", "x-request-id"])
                .compile(false)
                .unwrap()
                .unwrap(),
            "x-request-id, x-a"
        );
        assert_eq!(ExposeHeaders::any().compile(false).unwrap().unwrap(), "*");
        assert!(ExposeHeaders::any().compile(true).is_err());
        assert_eq!(ExposeHeaders::none().compile(true).unwrap(), None);
        assert_eq!(
            ExposeHeaders::list(Vec::<String>::new())
                .compile(true)
                .unwrap(),
            None
        );
        assert!(ExposeHeaders::list(["bad header"]).compile(false).is_err());
    }
}
