//! The error returned when CORS options cannot be compiled into a [`CorsPolicy`](crate::CorsPolicy).

use std::fmt;

/// A CORS option that cannot work as written.
///
/// Returned by [`CorsPolicy::from_options`](crate::CorsPolicy::from_options) and
/// [`CorsPolicy::for_route`](crate::CorsPolicy::for_route), so a misconfiguration fails when the
/// application starts rather than as a puzzling browser error later. The message always names the
/// option and says how to fix it:
///
/// ```
/// use cors_axum_core::{CorsOptions, CorsPolicy};
///
/// let err = CorsPolicy::from_options(&CorsOptions::new().origin("https://example.com/")).unwrap_err();
/// assert_eq!(err.field(), "origin");
/// assert_eq!(err.value(), Some("https://example.com/"));
/// assert_eq!(
///     err.to_string(),
///     "invalid CORS option `origin`: `https://example.com/` has a path or a trailing slash; \
///      write it as `https://example.com`"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorsConfigError {
    field: &'static str,
    value: Option<String>,
    message: String,
}

impl CorsConfigError {
    pub(crate) fn new(
        field: &'static str,
        value: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            field,
            value: value.map(str::to_owned),
            message: message.into(),
        }
    }

    /// The option at fault, spelled as in the serde configuration: `origin`, `methods`,
    /// `allow_headers`, `expose_headers`, `credentials`, `max_age`, `allow_null_origin`,
    /// `preflight_status`, `preflight_cache_control` or `owned_public_suffixes`; for a
    /// replacement that would widen the options in force by leaving one out
    /// ([`CorsOptions::replaceable_by`](crate::CorsOptions::replaceable_by)), also `enabled`
    /// or `protect_cross_origin`.
    pub fn field(&self) -> &'static str {
        self.field
    }

    /// The offending value (an origin, a header name, a method, a number), when one value is at fault.
    pub fn value(&self) -> Option<&str> {
        self.value.as_deref()
    }

    /// What is wrong and how to fix it, without the option's name: the message after
    /// "invalid CORS option `field`: ", for callers that name the option in a sentence of their
    /// own.
    ///
    /// ```
    /// use cors_axum_core::{CorsOptions, CorsPolicy};
    ///
    /// let err = CorsPolicy::from_options(&CorsOptions::new().origin("https://example.com/")).unwrap_err();
    /// assert_eq!(
    ///     err.reason(),
    ///     "`https://example.com/` has a path or a trailing slash; write it as `https://example.com`"
    /// );
    /// ```
    pub fn reason(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for CorsConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid CORS option `{}`: {}", self.field, self.message)
    }
}

impl std::error::Error for CorsConfigError {}
