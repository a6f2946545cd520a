//! [`PreflightCacheControl`]: how long shared caches (CDNs, proxies) may keep a preflight
//! answer.

use std::time::Duration;

use http::HeaderValue;

use crate::error::CorsConfigError;
use crate::header_list::is_token_byte;

/// The [`Cache-Control`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Cache-Control)
/// header of a granted preflight answer, for caches between the browser and the server (a CDN
/// in front of the API, say): [`CorsOptions::preflight_cache_control`](crate::CorsOptions::preflight_cache_control).
/// Not to be confused with [`MaxAge`](crate::MaxAge), which tells the browser how long to keep
/// the answer in its own preflight cache.
///
/// Either a directive list as written (`"public, max-age=600"`), or a number of seconds,
/// written `max-age=<seconds>` (as fastify-cors's `cacheControl` does). A list is checked when
/// the policy is compiled: directives `name` or `name=value` (a token or a quoted string),
/// separated by commas; anything else is a configuration error of `preflight_cache_control`.
///
/// ```
/// use cors_axum_core::PreflightCacheControl;
/// use std::time::Duration;
///
/// let _: PreflightCacheControl = "public, max-age=600".into();
/// let _: PreflightCacheControl = 600.into(); // `max-age=600`
/// let _: PreflightCacheControl = Duration::from_secs(600).into();
/// ```
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreflightCacheControl(Spec);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Spec {
    Directives(String),
    MaxAge(u64),
}

impl PreflightCacheControl {
    /// `Cache-Control` as written, e.g. `"public, max-age=600, s-maxage=3600"`.
    pub fn directives(directives: impl Into<String>) -> Self {
        PreflightCacheControl(Spec::Directives(directives.into()))
    }

    /// `Cache-Control: max-age=<seconds>`.
    pub fn max_age(seconds: u64) -> Self {
        PreflightCacheControl(Spec::MaxAge(seconds))
    }

    pub(crate) fn compile(&self) -> Result<HeaderValue, CorsConfigError> {
        let directives = match &self.0 {
            Spec::MaxAge(seconds) => format!("max-age={seconds}"),
            Spec::Directives(directives) => directives.trim().to_owned(),
        };
        let checked = check_directives(directives.as_bytes()).and_then(|()| {
            crate::intern::static_value(&directives).ok_or("it is not a header value")
        });
        checked.map_err(|why| {
            let written = match &self.0 {
                Spec::Directives(written) => written.as_str(),
                Spec::MaxAge(_) => &directives,
            };
            CorsConfigError::new(
                "preflight_cache_control",
                Some(written),
                format!(
                    "`{}` is not a `Cache-Control` value: {why}; write directives separated by commas, \
                     each a name or `name=value`, e.g. `public, max-age=600`",
                    written.escape_debug()
                ),
            )
        })
    }
}

/// Checks `#cache-directive` of RFC 9111: `token [ "=" ( token / quoted-string ) ]`, separated
/// by commas with optional whitespace (spaces and tabs), at least one.
fn check_directives(value: &[u8]) -> Result<(), &'static str> {
    let mut rest = value;
    let mut directives = 0;
    loop {
        rest = skip_whitespace(rest);
        let name_len = rest.iter().take_while(|&&b| is_token_byte(b)).count();
        if name_len > 0 {
            directives += 1;
            rest = &rest[name_len..];
            if let Some(value) = rest.strip_prefix(b"=") {
                rest = value_end(value)?;
            }
        } else if !matches!(rest.first(), None | Some(b',')) {
            return Err("a directive's name is not a token");
        }
        rest = skip_whitespace(rest);
        match rest.split_first() {
            None if directives == 0 => return Err("it names no directive"),
            None => return Ok(()),
            Some((b',', more)) => rest = more,
            Some(_) => return Err("directives are separated by commas"),
        }
    }
}

fn skip_whitespace(bytes: &[u8]) -> &[u8] {
    let len = bytes
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    &bytes[len..]
}

/// What follows a directive's value (a token or a quoted string).
fn value_end(value: &[u8]) -> Result<&[u8], &'static str> {
    let Some(quoted) = value.strip_prefix(b"\"") else {
        let len = value.iter().take_while(|&&b| is_token_byte(b)).count();
        return match len {
            0 => Err("a directive's value is neither a token nor a quoted string"),
            _ => Ok(&value[len..]),
        };
    };
    let mut escaped = false;
    for (i, &b) in quoted.iter().enumerate() {
        if !(b == b'\t' || (b' '..=b'~').contains(&b)) {
            return Err("a quoted value holds a byte that is not visible ASCII");
        }
        if escaped {
            escaped = false;
        } else if b == b'\\' {
            escaped = true;
        } else if b == b'"' {
            return Ok(&quoted[i + 1..]);
        }
    }
    Err("a quoted value is not closed")
}

impl From<&str> for PreflightCacheControl {
    fn from(directives: &str) -> Self {
        Self::directives(directives)
    }
}

impl From<String> for PreflightCacheControl {
    fn from(directives: String) -> Self {
        Self::directives(directives)
    }
}

impl From<u64> for PreflightCacheControl {
    /// `max-age=<seconds>`.
    fn from(seconds: u64) -> Self {
        Self::max_age(seconds)
    }
}

impl From<Duration> for PreflightCacheControl {
    /// `max-age=<whole seconds>`.
    fn from(duration: Duration) -> Self {
        Self::max_age(duration.as_secs())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for PreflightCacheControl {
    /// A string of directives, or a number of seconds (`max-age=<seconds>`).
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = PreflightCacheControl;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("`Cache-Control` directives or a number of seconds")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(PreflightCacheControl::directives(v))
            }

            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(PreflightCacheControl::max_age(v))
            }

            // Formats such as TOML give every integer as an `i64`.
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
                u64::try_from(v)
                    .map(PreflightCacheControl::max_age)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compiled(spec: impl Into<PreflightCacheControl>) -> Result<String, String> {
        spec.into()
            .compile()
            .map(|v| v.to_str().unwrap().to_owned())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn directives_and_seconds() {
        assert_eq!(compiled(600).unwrap(), "max-age=600");
        assert_eq!(compiled(Duration::from_millis(1500)).unwrap(), "max-age=1");
        for ok in [
            "public, max-age=600",
            "  public,max-age=600 , s-maxage=86400  ",
            "no-store",
            "private=\"set-cookie, x-a\", max-age=0",
            "no-cache=\"a\\\"b\"",
            "max-age=600,",
            ",public",
        ] {
            assert_eq!(compiled(ok).unwrap(), ok.trim(), "{ok}");
        }
    }

    #[test]
    fn refuses_what_is_not_a_directive_list() {
        for (bad, why) in [
            ("", "it names no directive"),
            (" , ", "it names no directive"),
            ("max-age 600", "directives are separated by commas"),
            ("public; max-age=600", "directives are separated by commas"),
            ("max-age=", "neither a token nor a quoted string"),
            ("max-age=\"600", "a quoted value is not closed"),
            (
                "private=\"a\nb\"",
                "a quoted value holds a byte that is not visible ASCII",
            ),
            (
                "private=\"é\"",
                "a quoted value holds a byte that is not visible ASCII",
            ),
            (
                "public\r\n, max-age=600",
                "directives are separated by commas",
            ),
            ("=600", "a directive's name is not a token"),
            ("public\nmax-age=600", "directives are separated by commas"),
            ("publïc", "directives are separated by commas"),
        ] {
            let err = compiled(bad).unwrap_err();
            assert!(
                err.starts_with("invalid CORS option `preflight_cache_control`: "),
                "{err}"
            );
            assert!(err.contains(why), "{bad:?}: {err}");
            assert!(err.contains("e.g. `public, max-age=600`"), "{err}");
            assert!(!err.contains('\n'), "{err}");
        }
    }
}
