//! [`ExposeHeaders`]: which response headers scripts may read.

use http::{HeaderName, HeaderValue};

use crate::error::CorsConfigError;
use crate::header_list;
use crate::list_option::list_option;

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
                 header named `*`. List the response headers scripts may read",
            )),
            ExposeSpec::Any => Ok(Some(HeaderValue::from_static("*"))),
            ExposeSpec::None => Ok(None),
            ExposeSpec::List(names) => {
                Ok(header_list::compile_names("expose_headers", names)?.value)
            }
        }
    }
}

list_option!(ExposeHeaders, HeaderName;);

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
