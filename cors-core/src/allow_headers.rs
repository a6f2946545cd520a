//! [`AllowHeaders`]: which request headers a preflight allows.

use http::{HeaderName, HeaderValue};

use crate::error::CorsConfigError;
use crate::header::STAR;
use crate::header_list::{self, CompiledNames, HeaderListSummary};
use crate::list_option::list_option;
use crate::refusal::Refusal;

/// Which request headers a preflight allows: the
/// [`Access-Control-Allow-Headers`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Access-Control-Allow-Headers)
/// response header, answering `Access-Control-Request-Headers`.
///
/// Header names compare case-insensitively. A requested list is parsed as the Fetch standard
/// describes (comma-separated, optional whitespace, several lines forming one list), with bounds:
/// at most 64 names and 4 KiB; a longer or malformed list gets a rejected preflight.
///
/// ```
/// use cors_axum_core::AllowHeaders;
///
/// let _ = AllowHeaders::mirror_request(); // the default
/// let _ = AllowHeaders::list(["content-type", "x-requested-with"]);
/// let _: AllowHeaders = "*".into(); // the same as `any()`
/// ```
#[must_use]
#[derive(Clone, Debug, Default)]
pub struct AllowHeaders(HeadersSpec);

#[derive(Clone, Debug, Default)]
enum HeadersSpec {
    Any,
    List(Vec<String>),
    #[default]
    Mirror,
}

impl AllowHeaders {
    /// Whether this is a list: narrower than the default (every header a preflight asks for).
    pub(crate) fn is_list(&self) -> bool {
        matches!(self.0, HeadersSpec::List(_))
    }

    /// Any header: `Access-Control-Allow-Headers: *`. A `*` never covers `Authorization`, so when a
    /// preflight asks for it the answer is `*, authorization`. Cannot be combined with credentials.
    pub fn any() -> Self {
        AllowHeaders(HeadersSpec::Any)
    }

    /// Exactly these headers: a preflight asking for any other header is rejected.
    pub fn list<I, H>(headers: I) -> Self
    where
        I: IntoIterator<Item = H>,
        H: AsRef<str>,
    {
        AllowHeaders(HeadersSpec::List(
            headers.into_iter().map(|h| h.as_ref().to_owned()).collect(),
        ))
    }

    /// Whatever headers the preflight asks for, echoed back (with
    /// `Vary: Access-Control-Request-Headers`). The default.
    pub fn mirror_request() -> Self {
        AllowHeaders(HeadersSpec::Mirror)
    }

    pub(crate) fn compile(&self, credentials: bool) -> Result<CompiledHeaders, CorsConfigError> {
        match &self.0 {
            HeadersSpec::Any if credentials => Err(CorsConfigError::new(
                "allow_headers",
                Some("*"),
                "`*` is only a wildcard without credentials; with `credentials(true)` browsers read it as a \
                 header named `*`. List the headers, or use `mirror_request()` to allow the headers a \
                 preflight asks for",
            )),
            HeadersSpec::Any => Ok(CompiledHeaders::Any),
            HeadersSpec::Mirror => Ok(CompiledHeaders::Mirror),
            HeadersSpec::List(names) => Ok(CompiledHeaders::List(header_list::compile_names(
                "allow_headers",
                names,
            )?)),
        }
    }
}

/// `*` with `authorization`, which `*` does not cover.
const STAR_AUTHORIZATION: HeaderValue = HeaderValue::from_static("*, authorization");

/// A validated allowed-headers option.
#[derive(Clone, Debug)]
pub(crate) enum CompiledHeaders {
    Any,
    List(CompiledNames),
    Mirror,
}

/// How a granted preflight answers `Access-Control-Request-Headers`.
#[derive(Clone, Debug)]
pub(crate) enum HeadersGrant {
    /// With the policy's list, or nothing for an empty one.
    List,
    /// `*`.
    Star,
    /// `*, authorization`: `*` does not cover `Authorization`.
    StarAuthorization,
    /// With the requested list.
    Echo(HeaderValue),
    /// Nothing: no header was requested.
    Nothing,
}

impl CompiledHeaders {
    /// How a granted preflight answers the requested list, or why the preflight is refused.
    pub(crate) fn check<'a, I>(&self, requested: I) -> Result<HeadersGrant, Refusal<'a>>
    where
        I: IntoIterator<Item = &'a HeaderValue> + Copy,
    {
        match self {
            CompiledHeaders::Any => {
                let mut has_authorization = false;
                header_list::parse(requested, |name| {
                    has_authorization |= name.eq_ignore_ascii_case(b"authorization");
                    true
                })?;
                Ok(if has_authorization {
                    HeadersGrant::StarAuthorization
                } else {
                    HeadersGrant::Star
                })
            }
            CompiledHeaders::List(list) => {
                header_list::all_in(requested, &list.names)?;
                Ok(HeadersGrant::List)
            }
            CompiledHeaders::Mirror => {
                let summary: HeaderListSummary = header_list::parse(requested, |_| true)?;
                if summary.names == 0 {
                    return Ok(HeadersGrant::Nothing);
                }
                // One line, as browsers send the list: echoed as it is, with no second walk.
                if summary.lines == 1
                    && let Some(line) = requested.into_iter().next()
                {
                    return Ok(HeadersGrant::Echo(line.clone()));
                }
                let mut lines = requested
                    .into_iter()
                    .filter(|l| !l.as_bytes().trim_ascii().is_empty());
                let (Some(first), None) = (lines.next(), lines.next()) else {
                    return Ok(HeadersGrant::Echo(join_lines(requested)));
                };
                Ok(HeadersGrant::Echo(first.clone()))
            }
        }
    }

    /// The `Access-Control-Allow-Headers` value of a grant (`None`: send none).
    pub(crate) fn value(&self, grant: HeadersGrant) -> Option<HeaderValue> {
        match (grant, self) {
            (HeadersGrant::Echo(value), _) => Some(value),
            (HeadersGrant::Star, _) => Some(STAR),
            (HeadersGrant::StarAuthorization, _) => Some(STAR_AUTHORIZATION),
            (HeadersGrant::List, CompiledHeaders::List(list)) => list.value.clone(),
            _ => None,
        }
    }

    /// The `Access-Control-Allow-Headers` value answering the requested list (`Ok(None)`: send
    /// none), or `Err` when the preflight must be refused.
    #[cfg(test)]
    fn answer<'a, I>(&self, requested: I) -> Result<Option<HeaderValue>, Refusal<'a>>
    where
        I: IntoIterator<Item = &'a HeaderValue> + Copy,
    {
        self.check(requested).map(|grant| self.value(grant))
    }

    /// Whether the value of `Access-Control-Allow-Headers` depends on the requested list (not
    /// only whether there is one).
    pub(crate) fn echoes_request(&self) -> bool {
        matches!(self, CompiledHeaders::Any | CompiledHeaders::Mirror)
    }
}

#[cold]
fn join_lines<'a, I>(lines: I) -> HeaderValue
where
    I: IntoIterator<Item = &'a HeaderValue>,
{
    let mut joined = Vec::new();
    for line in lines {
        let line = line.as_bytes().trim_ascii();
        if line.is_empty() {
            continue;
        }
        if !joined.is_empty() {
            joined.extend_from_slice(b", ");
        }
        joined.extend_from_slice(line);
    }
    HeaderValue::from_bytes(&joined)
        .expect("header values joined with `, ` and trimmed are a header value")
}

list_option!(AllowHeaders, HeaderName; "mirror" => Self::mirror_request());

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(h: &AllowHeaders, lines: &[&'static str]) -> Result<Option<HeaderValue>, String> {
        let values: Vec<HeaderValue> = lines.iter().map(|l| HeaderValue::from_static(l)).collect();
        h.compile(false)
            .unwrap()
            .answer(&values)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn list_checks_every_name_case_insensitively() {
        let h = AllowHeaders::list(["Content-Type", "X-PINGOTHER"]);
        assert_eq!(
            answer(&h, &["x-pingother, content-type"]).unwrap().unwrap(),
            "content-type, x-pingother"
        );
        assert_eq!(
            answer(&h, &["X-PingOther", "CONTENT-TYPE"])
                .unwrap()
                .unwrap(),
            "content-type, x-pingother"
        );
        assert_eq!(
            answer(&h, &["x-pingother, X-Other"]).unwrap_err(),
            "request header `X-Other` is not allowed"
        );
        assert_eq!(
            answer(&h, &["x-pingother, x(other"]).unwrap_err(),
            "malformed `Access-Control-Request-Headers`: `x(other` is not a header name"
        );
    }

    #[test]
    fn mirror_echoes_or_joins() {
        let h = AllowHeaders::mirror_request();
        assert_eq!(
            answer(&h, &["X-PINGOTHER, Content-Type"]).unwrap().unwrap(),
            "X-PINGOTHER, Content-Type"
        );
        assert_eq!(answer(&h, &["x-a", " x-b "]).unwrap().unwrap(), "x-a, x-b");
        assert_eq!(answer(&h, &["x-a", ""]).unwrap().unwrap(), "x-a");
        assert_eq!(answer(&h, &[]).unwrap(), None);
        assert_eq!(
            answer(&h, &["x a"]).unwrap_err(),
            "malformed `Access-Control-Request-Headers`: `x a` is not a header name"
        );
    }

    #[test]
    fn any_adds_authorization() {
        let h = AllowHeaders::any();
        assert_eq!(answer(&h, &["x-a"]).unwrap().unwrap(), "*");
        assert_eq!(
            answer(&h, &["x-a, Authorization"]).unwrap().unwrap(),
            "*, authorization"
        );
        assert!(h.compile(true).is_err());
    }

    #[test]
    fn validation() {
        assert!(AllowHeaders::list(["x a"]).compile(false).is_err());
        assert!(AllowHeaders::list(["x-a", "*"]).compile(false).is_err());
        assert!(AllowHeaders::list([""]).compile(false).is_err());
    }
}
