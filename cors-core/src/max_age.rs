//! [`MaxAge`]: how long a browser may cache a preflight answer.

use std::time::Duration;

use http::HeaderValue;

use crate::error::CorsConfigError;

/// How long a browser may cache a preflight answer: the
/// [`Access-Control-Max-Age`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Access-Control-Max-Age)
/// response header, in whole seconds (a [`Duration`] is rounded down).
///
/// At most [`MaxAge::MAX_SECONDS`] (`u32::MAX`); a larger value is a configuration error.
/// Browsers cap it anyway: Chromium at 7200 s, Firefox at 86400 s. Without it, browsers cache a
/// preflight for 5 s.
///
/// ```
/// use cors_axum_core::MaxAge;
/// use std::time::Duration;
///
/// let _: MaxAge = 600.into();
/// let _: MaxAge = Duration::from_secs(3600).into();
/// ```
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize), serde(transparent))]
pub struct MaxAge(u64);

impl MaxAge {
    /// The largest accepted value, in seconds.
    pub const MAX_SECONDS: u64 = u32::MAX as u64;

    /// A max-age of `seconds`.
    pub fn seconds(seconds: u64) -> Self {
        MaxAge(seconds)
    }

    pub(crate) fn compile(self) -> Result<HeaderValue, CorsConfigError> {
        if self.0 > Self::MAX_SECONDS {
            return Err(CorsConfigError::new(
                "max_age",
                Some(&self.0.to_string()),
                format!(
                    "{} seconds is more than the largest accepted value, {}; browsers cap the preflight cache \
                     anyway (Chromium at 7200 s, Firefox at 86400 s), so use at most 86400",
                    self.0,
                    Self::MAX_SECONDS
                ),
            ));
        }
        crate::intern::static_value(&self.0.to_string())
            .ok_or_else(|| CorsConfigError::new("max_age", None, "not a valid header value"))
    }
}

impl From<u64> for MaxAge {
    fn from(seconds: u64) -> Self {
        MaxAge(seconds)
    }
}

impl From<Duration> for MaxAge {
    fn from(duration: Duration) -> Self {
        MaxAge(duration.as_secs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds() {
        assert_eq!(MaxAge::from(600u64).compile().unwrap(), "600");
        assert_eq!(
            MaxAge::from(Duration::from_millis(1999)).compile().unwrap(),
            "1"
        );
        assert_eq!(
            MaxAge::from(u64::from(u32::MAX)).compile().unwrap(),
            "4294967295"
        );
        assert_eq!(
            MaxAge::from(u64::from(u32::MAX) + 1)
                .compile()
                .unwrap_err()
                .field(),
            "max_age"
        );
    }
}
