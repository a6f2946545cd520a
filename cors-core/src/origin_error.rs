//! The error of a configured origin or pattern that is not one (what is wrong, and the origin
//! it should have been), and the checks that refuse one the options do not allow, for lists and
//! origin sets alike.

use crate::error::CorsConfigError;
use crate::origin::{ConfiguredOrigin, OriginConfigError, OriginSyntaxError};
use crate::public_suffix::{self, OwnedSuffixes};

/// The origin with everything after the authority, and any user information, removed.
pub(crate) fn suggested_origin(origin: &str) -> String {
    let Some(sep) = origin.find("://") else {
        return origin.to_owned();
    };
    let rest = &origin[sep + 3..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    format!("{}://{host_port}", &origin[..sep])
}

pub(crate) fn origin_error(origin: &str, error: OriginConfigError) -> CorsConfigError {
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
            "`{origin}` has more than one `*` in its host; only the whole leftmost label of the host may \
             be `*`, e.g. `https://*.example.com`"
        ),
        OriginConfigError::WildcardNotLeftmostLabel => format!(
            "`{origin}`: `*` must be the whole leftmost label of the host, e.g. `https://*.example.com`"
        ),
        OriginConfigError::WildcardOverAddress => format!(
            "`{origin}`: `*` over an IP address (or a host ending in a number, which browsers read \
             as an IPv4 address) would match addresses, not subdomains; put `*` over a domain name, \
             e.g. `https://*.example.com`, or list each address, e.g. `https://10.0.0.1`"
        ),
        OriginConfigError::WildcardInPort => format!(
            "`{origin}`: `*` in a port stands for the whole port, any port, e.g. `http://localhost:*`; \
             list the ports otherwise, e.g. `http://localhost:5173`"
        ),
    };
    CorsConfigError::new("origin", Some(origin), message)
}

/// What else decides whether a configured origin may be allowed: other options.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OriginChecks<'a> {
    /// [`CorsOptions::allow_null_origin`](crate::CorsOptions::allow_null_origin).
    pub(crate) allow_null: bool,
    /// [`CorsOptions::owned_public_suffixes`](crate::CorsOptions::owned_public_suffixes).
    pub(crate) owned_suffixes: &'a OwnedSuffixes,
    /// Whether plain-HTTP origins may be allowed, given the credentials of the list.
    pub(crate) credentials_to_insecure: CredentialsToInsecure,
    /// Whether the plain-HTTP entries of an origin set are refused, given its credentials.
    pub(crate) set_refuses_insecure: bool,
    /// Whether the plain-HTTP entries of a tenant set are refused, given its credentials.
    pub(crate) tenants_refuse_insecure: bool,
}

/// Whether a plain-HTTP origin that is not loopback may be allowed, given
/// [`CorsOptions::credentials`](crate::CorsOptions::credentials) and
/// [`CorsOptions::dangerously_allow_insecure_origins`](crate::CorsOptions::dangerously_allow_insecure_origins).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CredentialsToInsecure {
    /// No credentials: nothing to protect.
    NoCredentials,
    /// Credentials, and plain-HTTP origins refused.
    Refused,
    /// Credentials, and plain-HTTP origins allowed deliberately.
    Tolerated,
}

impl OriginChecks<'_> {
    /// Refuses a plain-HTTP origin with credentials unless tolerated, and a pattern over a
    /// public suffix that the user does not own.
    pub(crate) fn check(
        &self,
        origin: &str,
        configured: &ConfiguredOrigin,
    ) -> Result<(), CorsConfigError> {
        if self.credentials_to_insecure == CredentialsToInsecure::Refused
            && configured.is_insecure()
        {
            return Err(insecure_error(origin));
        }
        let ConfiguredOrigin::Pattern(pattern) = configured else {
            return Ok(());
        };
        let refused = pattern
            .subdomains_of()
            .and_then(|domain| public_suffix::refused_pattern(origin, domain, self.owned_suffixes));
        match refused {
            Some(message) => Err(CorsConfigError::new("origin", Some(origin), message)),
            None => Ok(()),
        }
    }
}

fn insecure_error(origin: &str) -> CorsConfigError {
    let secure = match origin.get(..7) {
        Some(scheme) if scheme.eq_ignore_ascii_case("http://") => {
            format!("https://{}", &origin[7..])
        }
        _ => origin.to_owned(),
    };
    CorsConfigError::new(
        "origin",
        Some(origin),
        format!(
            "`{origin}` is plain HTTP and `credentials(true)` shares credentialed responses with it: a \
             network attacker can impersonate a plain-HTTP origin and read them. Allow `{secure}` \
             instead (plain HTTP is accepted on loopback: `localhost`, `*.localhost`, `127.0.0.0/8`, \
             `[::1]`), or accept the risk with `dangerously_allow_insecure_origins(true)`"
        ),
    )
}
