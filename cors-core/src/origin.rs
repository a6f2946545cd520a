//! Serialized origins (`scheme://host[:port]`): the one parser, for configured origins and
//! requests' alike; configured patterns; and the list of configured origins a policy matches.
//!
//! Configured origins are parsed once, when a policy is compiled, and stored normalised: scheme
//! and host lowercase, the default port (`:443` for `https`, `:80` for `http`) dropped. A
//! request's `Origin` is looked up as sent (browsers send it normalised), and only otherwise
//! parsed and normalised into a stack buffer, so matching it never allocates.

use hashbrown::HashMap;
use http::HeaderValue;

/// Longest `Origin` value considered. Real origins are far shorter (a DNS name is at most 253
/// bytes); anything longer is refused rather than buffered.
pub(crate) const MAX_ORIGIN_LEN: usize = 256;

/// Why a string is not a serialized origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OriginSyntaxError {
    NotAnOrigin,
    Path,
    QueryOrFragment,
    Userinfo,
    EmptyHost,
    InvalidHost,
    InvalidPort,
    TooLong,
}

/// The parts of a serialized origin, borrowed from the input, not yet lowercased.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ParsedOrigin<'a> {
    pub(crate) scheme: &'a [u8],
    pub(crate) host: &'a [u8],
    /// `None` when absent or equal to the scheme's default port.
    pub(crate) port: Option<u16>,
    /// The input, when it is already in normalised form (as browsers send it).
    pub(crate) canonical: Option<&'a [u8]>,
}

/// Bytes of a scheme, in [`BYTE_CLASS`].
const SCHEME: u8 = 1;
/// Bytes of a host name's labels, in [`BYTE_CLASS`].
const HOST: u8 = 2;
/// Uppercase letters, in [`BYTE_CLASS`].
const UPPER: u8 = 4;

/// What each byte may be part of: a table, as this runs for every byte of every `Origin`.
const BYTE_CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() {
            table[b] = SCHEME | HOST;
        }
        if c.is_ascii_uppercase() {
            table[b] |= UPPER;
        }
        b += 1;
    }
    table[b'+' as usize] = SCHEME;
    table[b'.' as usize] = SCHEME;
    table[b'-' as usize] = SCHEME | HOST;
    table[b'_' as usize] = HOST;
    table
};

fn default_port(scheme: &[u8]) -> Option<u16> {
    if scheme.eq_ignore_ascii_case(b"https") {
        Some(443)
    } else if scheme.eq_ignore_ascii_case(b"http") {
        Some(80)
    } else {
        None
    }
}

/// Parses `scheme://host[:port]` in one pass, refusing anything a browser would not send as an
/// `Origin`: the parser of configured origins and of requests' alike.
pub(crate) fn parse(input: &[u8]) -> Result<ParsedOrigin<'_>, OriginSyntaxError> {
    if input.len() > MAX_ORIGIN_LEN {
        return Err(OriginSyntaxError::TooLong);
    }
    if !input.first().is_some_and(u8::is_ascii_alphabetic) {
        return Err(OriginSyntaxError::NotAnOrigin);
    }
    // Every byte's classes, or-ed: an uppercase letter anywhere makes the spelling not canonical.
    let mut seen = 0u8;
    // Browsers send `https` and `http` lowercase: those are known without a look at each byte.
    let mut i = if input.starts_with(b"https:") {
        5
    } else if input.starts_with(b"http:") {
        4
    } else {
        0
    };
    while i < input.len() && BYTE_CLASS[usize::from(input[i])] & SCHEME != 0 {
        seen |= BYTE_CLASS[usize::from(input[i])];
        i += 1;
    }
    let scheme = &input[..i];
    let rest = input[i..]
        .strip_prefix(b"://")
        .ok_or(OriginSyntaxError::NotAnOrigin)?;
    let host_len = if rest.first() == Some(&b'[') {
        ipv6_len(rest).inspect(|&len| {
            if rest[..len].iter().any(u8::is_ascii_uppercase) {
                seen |= UPPER;
            }
        })
    } else {
        name_len(rest).map(|(len, classes)| {
            seen |= classes;
            len
        })
    };
    let host_len = host_len.ok_or_else(|| authority_error(rest, false))?;
    let (host, after) = rest.split_at(host_len);
    let (port, canonical_port) = match after {
        [] => (None, true),
        [b':', digits @ ..] => match port_number(digits) {
            Some(value) if default_port(scheme) == Some(value) => (None, false),
            Some(value) => (Some(value), digits[0] != b'0'),
            None => return Err(authority_error(rest, true)),
        },
        _ => return Err(authority_error(rest, false)),
    };
    Ok(ParsedOrigin {
        scheme,
        host,
        port,
        canonical: (canonical_port && seen & UPPER == 0).then_some(input),
    })
}

/// Whether `origin` is an origin as browsers serialize it into `Origin`: `scheme://host[:port]`,
/// scheme and host lowercase, without the scheme's default port (`null` is not one).
///
/// ```
/// use cors_axum_core::is_serialized_origin;
///
/// assert!(is_serialized_origin("https://app.example"));
/// assert!(!is_serialized_origin("https://App.example:443"));
/// ```
pub fn is_serialized_origin(origin: &str) -> bool {
    parse(origin.as_bytes()).is_ok_and(|parsed| parsed.canonical.is_some())
}

/// Why the authority that starts `rest` is not an origin's, parsing having stopped in its port
/// (`in_port`) or its host: whatever follows the authority, or user information, first, as the
/// fix is to remove them.
#[cold]
fn authority_error(rest: &[u8], in_port: bool) -> OriginSyntaxError {
    let end = rest.iter().position(|&b| matches!(b, b'/' | b'?' | b'#'));
    match end.map(|at| rest[at]) {
        Some(b'/') => OriginSyntaxError::Path,
        Some(_) => OriginSyntaxError::QueryOrFragment,
        None if rest.contains(&b'@') => OriginSyntaxError::Userinfo,
        None if in_port => OriginSyntaxError::InvalidPort,
        None if matches!(rest.first(), None | Some(b':')) => OriginSyntaxError::EmptyHost,
        None => OriginSyntaxError::InvalidHost,
    }
}

/// The length of the IPv6 address in brackets that starts `rest`: hex digits, `:` and `.`.
fn ipv6_len(rest: &[u8]) -> Option<usize> {
    let inner = rest[1..]
        .iter()
        .position(|&b| !(b.is_ascii_hexdigit() || b == b':' || b == b'.'))?;
    (inner != 0 && rest.get(inner + 1) == Some(&b']')).then_some(inner + 2)
}

/// The length of the host name that starts `rest`: labels of host bytes (letters, digits, `-`,
/// `_`), none empty, separated by dots; and the classes of its bytes, or-ed.
fn name_len(rest: &[u8]) -> Option<(usize, u8)> {
    let (mut i, mut seen, mut label) = (0, 0u8, 0usize);
    while i < rest.len() {
        let b = rest[i];
        let class = BYTE_CLASS[usize::from(b)];
        if class & HOST != 0 {
            label += 1;
        } else if b == b'.' && label != 0 {
            label = 0;
        } else if b == b'.' {
            return None;
        } else {
            break;
        }
        seen |= class;
        i += 1;
    }
    (label != 0).then_some((i, seen))
}

/// A port written in an origin: one to five digits, from 1 to 65535.
fn port_number(digits: &[u8]) -> Option<u16> {
    if digits.is_empty() || digits.len() > 5 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let value = digits
        .iter()
        .fold(0u32, |acc, &d| acc * 10 + u32::from(d - b'0'));
    u16::try_from(value).ok().filter(|&v| v != 0)
}

impl ParsedOrigin<'_> {
    /// Writes the normalised form (`scheme://host[:port]`, lowercase, default port dropped) into
    /// `buf` and returns it.
    pub(crate) fn normalize_into<'b>(&self, buf: &'b mut [u8; MAX_ORIGIN_LEN]) -> Option<&'b [u8]> {
        let mut port = [0u8; 6];
        let port = match self.port {
            Some(value) => {
                let mut w = &mut port[..];
                std::io::Write::write_fmt(&mut w, format_args!(":{value}")).ok()?;
                let left = w.len();
                &port[..6 - left]
            }
            None => &[][..],
        };
        let mut len = 0;
        for part in [self.scheme, b"://", self.host, port] {
            let dest = buf.get_mut(len..len + part.len())?;
            for (d, s) in dest.iter_mut().zip(part) {
                *d = s.to_ascii_lowercase();
            }
            len += part.len();
        }
        Some(&buf[..len])
    }

    /// Whether it is plain HTTP outside the loopback interface: one a network attacker can
    /// impersonate.
    pub(crate) fn is_insecure(&self) -> bool {
        self.scheme.eq_ignore_ascii_case(b"http")
            && !is_loopback_host(&self.host.to_ascii_lowercase())
    }
}

/// Whether a request's `Origin` names the request's own host: its `host[:port]` equals `host`
/// (a `Host` header value, or the URI authority of an HTTP/2 request), host case-insensitively,
/// a port equal to the default of the origin's scheme (`:443` for `https`, `:80` for `http`)
/// equal to none. The schemes are not compared: the server's own is often unknown, TLS
/// ending at a proxy. `null` and malformed origins name no host.
pub(crate) fn names_host(origin: &[u8], host: &[u8]) -> bool {
    let Ok(origin) = parse(origin) else {
        return false;
    };
    let host_end = match host.first() {
        Some(b'[') => match host.iter().position(|&b| b == b']') {
            Some(close) => close + 1,
            None => return false,
        },
        _ => host.iter().position(|&b| b == b':').unwrap_or(host.len()),
    };
    let (name, port) = host.split_at(host_end);
    let port = match port.split_first() {
        None => None,
        // Port 0 names no host an origin can have.
        Some((b':', digits)) => {
            let Some(value) = port_number(digits) else {
                return false;
            };
            (default_port(origin.scheme) != Some(value)).then_some(value)
        }
        Some(_) => return false,
    };
    origin.host.eq_ignore_ascii_case(name) && origin.port == port
}

/// Whether one source of origins holds a request's `Origin` value: looked up as sent, else
/// parsed and looked up normalised, else matched against its patterns.
pub(crate) fn holds(
    input: &[u8],
    exact: impl Fn(&[u8]) -> bool,
    pattern: impl Fn(&ParsedOrigin<'_>) -> bool,
) -> bool {
    if exact(input) {
        return true;
    }
    let Ok(origin) = parse(input) else {
        return false;
    };
    let mut buf = [0u8; MAX_ORIGIN_LEN];
    origin.canonical.is_none() && origin.normalize_into(&mut buf).is_some_and(&exact)
        || pattern(&origin)
}

/// A configured pattern: `scheme://*.domain[:port]` (every subdomain),
/// `scheme://host:*` (every explicit port), or both, `scheme://*.domain:*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OriginPattern {
    /// Lowercase.
    scheme: Box<[u8]>,
    host: HostPattern,
    port: PortPattern,
}

/// The host of an [`OriginPattern`], lowercase.
#[derive(Debug, Clone, PartialEq, Eq)]
enum HostPattern {
    /// This host only.
    Exact(Box<[u8]>),
    /// Every host that ends in `.domain`, one or more labels deep: holds `.domain`, with the
    /// leading dot.
    Subdomains(Box<[u8]>),
}

/// The port of an [`OriginPattern`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PortPattern {
    /// This port (`None`: the scheme's default, which browsers leave out).
    Is(Option<u16>),
    /// Any port written in the origin. Not the default port, which a browser never writes: an
    /// origin without a port is not matched.
    AnyExplicit,
}

impl OriginPattern {
    /// The domain whose subdomains the pattern matches (`example.com` of
    /// `https://*.example.com`), lowercase; `None` for a pattern of one host.
    pub(crate) fn subdomains_of(&self) -> Option<&[u8]> {
        match &self.host {
            HostPattern::Subdomains(suffix) => suffix.get(1..),
            HostPattern::Exact(_) => None,
        }
    }

    pub(crate) fn matches(&self, origin: &ParsedOrigin<'_>) -> bool {
        let port = match self.port {
            PortPattern::Is(port) => origin.port == port,
            PortPattern::AnyExplicit => origin.port.is_some(),
        };
        port && origin.scheme.eq_ignore_ascii_case(&self.scheme)
            && match &self.host {
                HostPattern::Exact(host) => origin.host.eq_ignore_ascii_case(host),
                // `parse` guarantees the host has no empty label, so a longer host ending in
                // `.domain` has at least one whole label before the suffix.
                HostPattern::Subdomains(suffix) => {
                    origin.host.len() > suffix.len()
                        && origin.host[origin.host.len() - suffix.len()..]
                            .eq_ignore_ascii_case(suffix)
                }
            }
    }

    /// Whether one of `patterns` matches `origin`, leaving out those that allow plain-HTTP
    /// origins off the loopback interface where `refuse_insecure` (credentials given).
    pub(crate) fn any_matches(
        patterns: &[OriginPattern],
        refuse_insecure: bool,
        origin: &ParsedOrigin<'_>,
    ) -> bool {
        patterns
            .iter()
            .any(|p| !(refuse_insecure && p.is_insecure()) && p.matches(origin))
    }

    /// Whether it allows a plain-HTTP origin that is not on the loopback interface.
    pub(crate) fn is_insecure(&self) -> bool {
        *self.scheme == *b"http"
            && match &self.host {
                HostPattern::Exact(host) => !is_loopback_host(host),
                HostPattern::Subdomains(suffix) => !is_loopback_host(&suffix[1..]),
            }
    }
}

/// Why a configured origin or pattern is rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OriginConfigError {
    Syntax(OriginSyntaxError),
    SeveralWildcards,
    WildcardNotLeftmostLabel,
    /// `*.` over an IP address, which has no subdomains: an IPv6 address, or a host ending in
    /// a number (`*.0.0.1`), which browsers read as an IPv4 address (`https://127.0.0.1`,
    /// `https://10.0.0.1`), never as a domain name.
    WildcardOverAddress,
    /// A `*` in the port other than the whole port (`:8*`).
    WildcardInPort,
}

/// A configured origin: exact (normalised) or a wildcard pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ConfiguredOrigin {
    Exact(Box<[u8]>),
    Pattern(OriginPattern),
}

impl ConfiguredOrigin {
    /// Whether it allows a plain-HTTP origin that is not on the loopback interface: one a
    /// network attacker can impersonate.
    pub(crate) fn is_insecure(&self) -> bool {
        match self {
            ConfiguredOrigin::Exact(origin) => parse(origin).is_ok_and(|o| o.is_insecure()),
            ConfiguredOrigin::Pattern(pattern) => pattern.is_insecure(),
        }
    }
}

/// Whether a host (lowercase) names the loopback interface: `localhost` and its subdomains
/// (RFC 6761), an IPv4 address in `127.0.0.0/8`, or `[::1]`.
pub(crate) fn is_loopback_host(host: &[u8]) -> bool {
    if host == b"localhost" || host.ends_with(b".localhost") || host == b"[::1]" {
        return true;
    }
    let mut octets = host.split(|&b| b == b'.');
    let is_octet = |octet: &[u8]| {
        (1..=3).contains(&octet.len())
            && octet.iter().all(u8::is_ascii_digit)
            && octet
                .iter()
                .fold(0u16, |n, &d| n * 10 + u16::from(d - b'0'))
                <= 255
    };
    octets.next() == Some(b"127")
        && (0..3).all(|_| octets.next().is_some_and(is_octet))
        && octets.next().is_none()
}

/// Parses one configured origin or pattern: a `*.` before the host and a `:*` port are taken
/// out, what is left is parsed as an origin, and any other `*` is an error that says where.
pub(crate) fn parse_configured(input: &str) -> Result<ConfiguredOrigin, OriginConfigError> {
    let syntax = OriginConfigError::Syntax;
    let Some((scheme, rest)) = input.split_once("://") else {
        return Err(syntax(OriginSyntaxError::NotAnOrigin));
    };
    let subdomains = rest.starts_with("*.");
    let rest = rest.strip_prefix("*.").unwrap_or(rest);
    let (authority, tail) = rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
    let any_port = authority.ends_with(":*");
    let authority = authority
        .strip_suffix('*')
        .filter(|_| any_port)
        .unwrap_or(authority);
    if let Some(star) = authority.find('*') {
        // After the last `:` that is not in an IPv6 address's brackets: the port.
        let port_at = authority
            .rfind(':')
            .filter(|&c| c > authority.rfind(']').unwrap_or(0));
        return Err(if port_at.is_some_and(|c| star > c) {
            OriginConfigError::WildcardInPort
        } else if subdomains || authority[star + 1..].contains('*') {
            OriginConfigError::SeveralWildcards
        } else {
            OriginConfigError::WildcardNotLeftmostLabel
        });
    }
    if !subdomains && !any_port {
        let parsed = parse(input.as_bytes()).map_err(syntax)?;
        let mut buf = [0u8; MAX_ORIGIN_LEN];
        let normalized = parsed.normalize_into(&mut buf);
        return Ok(ConfiguredOrigin::Exact(
            normalized
                .map(Box::from)
                .ok_or(syntax(OriginSyntaxError::TooLong))?,
        ));
    }
    // A wildcard port is given a number, so that the rest is checked as an origin.
    let probe = format!(
        "{scheme}://{authority}{}{tail}",
        if any_port { "1" } else { "" }
    );
    let parsed = parse(probe.as_bytes()).map_err(syntax)?;
    let host = parsed.host.to_ascii_lowercase();
    let host = if subdomains {
        if host.first() == Some(&b'[') || ends_in_a_number(&host) {
            return Err(OriginConfigError::WildcardOverAddress);
        }
        HostPattern::Subdomains([&b"."[..], &host].concat().into_boxed_slice())
    } else {
        HostPattern::Exact(host.into_boxed_slice())
    };
    Ok(ConfiguredOrigin::Pattern(OriginPattern {
        scheme: parsed.scheme.to_ascii_lowercase().into_boxed_slice(),
        host,
        port: if any_port {
            PortPattern::AnyExplicit
        } else {
            PortPattern::Is(parsed.port)
        },
    }))
}

/// Whether `host` ends in a number, as the URL standard's host parser asks ("ends in a number
/// checker"): its last label (a trailing dot ignored) is decimal digits, or `0x` and hex digits.
/// Browsers parse such a host as an IPv4 address, so `x.0.0.1` is never a subdomain of `0.0.1`.
fn ends_in_a_number(host: &[u8]) -> bool {
    let host = host.strip_suffix(b".").unwrap_or(host);
    let last = host.rsplit(|&b| b == b'.').next().unwrap_or(host);
    let hex = last
        .strip_prefix(b"0x")
        .or_else(|| last.strip_prefix(b"0X"));
    match hex {
        Some(digits) => digits.iter().all(u8::is_ascii_hexdigit),
        None => !last.is_empty() && last.iter().all(u8::is_ascii_digit),
    }
}

/// Exact origins compared one by one, which costs less than hashing a request's origin; more
/// are hashed.
const LINEAR_MAX: usize = 8;

/// The configured origins of a list: exact ones, normalised, each with its value prebuilt for
/// reflection (so reflecting one clones no request bytes), and patterns.
#[derive(Debug, Clone, Default)]
pub(crate) struct OriginList {
    /// The first [`LINEAR_MAX`] exact origins; once there are more, none (all are `hashed`).
    few: Vec<(Box<[u8]>, HeaderValue)>,
    hashed: HashMap<Box<[u8]>, HeaderValue>,
    patterns: Vec<OriginPattern>,
}

impl OriginList {
    pub(crate) fn insert(&mut self, origin: ConfiguredOrigin) {
        match origin {
            ConfiguredOrigin::Exact(bytes) if self.exact(&bytes).is_some() => {}
            ConfiguredOrigin::Exact(bytes) => {
                let value = std::str::from_utf8(&bytes)
                    .ok()
                    .and_then(crate::intern::static_value)
                    .expect("a parsed origin is ASCII, a header value");
                self.few.push((bytes, value));
                if self.few.len() > LINEAR_MAX || !self.hashed.is_empty() {
                    self.hashed.extend(self.few.drain(..));
                }
            }
            ConfiguredOrigin::Pattern(pattern) => {
                if !self.patterns.contains(&pattern) {
                    self.patterns.push(pattern);
                }
            }
        }
    }

    /// The configured exact origin equal to `origin` (normalised) byte for byte.
    #[inline]
    pub(crate) fn exact(&self, origin: &[u8]) -> Option<&HeaderValue> {
        if self.hashed.is_empty() {
            self.few
                .iter()
                .find(|(o, _)| **o == *origin)
                .map(|(_, v)| v)
        } else {
            self.hashed.get(origin)
        }
    }

    /// Whether the list has patterns.
    pub(crate) fn has_patterns(&self) -> bool {
        !self.patterns.is_empty()
    }

    /// Whether a pattern of the list matches the origin.
    pub(crate) fn pattern_matches(&self, origin: &ParsedOrigin<'_>) -> bool {
        self.patterns.iter().any(|p| p.matches(origin))
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str) -> Option<Vec<u8>> {
        let parsed = parse(s.as_bytes()).ok()?;
        let mut buf = [0u8; MAX_ORIGIN_LEN];
        parsed.normalize_into(&mut buf).map(<[u8]>::to_vec)
    }

    #[test]
    fn normalises_case_and_default_ports() {
        assert_eq!(norm("HTTPS://Example.COM").unwrap(), b"https://example.com");
        assert_eq!(
            norm("https://example.com:443").unwrap(),
            b"https://example.com"
        );
        assert_eq!(
            norm("http://example.com:80").unwrap(),
            b"http://example.com"
        );
        assert_eq!(
            norm("http://example.com:443").unwrap(),
            b"http://example.com:443"
        );
        assert_eq!(
            norm("https://example.com:8443").unwrap(),
            b"https://example.com:8443"
        );
        assert_eq!(
            norm("https://example.com:08443").unwrap(),
            b"https://example.com:8443"
        );
        assert_eq!(norm("http://[::1]:3000").unwrap(), b"http://[::1]:3000");
        assert_eq!(
            norm("http://127.0.0.1:3000").unwrap(),
            b"http://127.0.0.1:3000"
        );
    }

    #[test]
    fn recognises_canonical_input() {
        let canonical = |s: &str| parse(s.as_bytes()).unwrap().canonical.is_some();
        assert!(canonical("https://example.com"));
        assert!(canonical("https://example.com:8443"));
        assert!(canonical("http://[::1]:3000"));
        assert!(!canonical("https://Example.com"));
        assert!(!canonical("https://example.com:443"));
        assert!(!canonical("https://example.com:08443"));
        for s in [
            "https://example.com",
            "https://example.com:8443",
            "http://a.b:1",
        ] {
            assert_eq!(
                norm(s).unwrap(),
                s.as_bytes(),
                "canonical input is its own normal form"
            );
        }
    }

    #[test]
    fn rejects_non_origins() {
        use OriginSyntaxError::*;
        let cases: &[(&str, OriginSyntaxError)] = &[
            ("example.com", NotAnOrigin),
            ("://example.com", NotAnOrigin),
            ("1http://example.com", NotAnOrigin),
            ("https://example.com/", Path),
            ("https://example.com/a", Path),
            ("https://example.com?a", QueryOrFragment),
            ("https://example.com#a", QueryOrFragment),
            ("https://user@example.com", Userinfo),
            ("https://", EmptyHost),
            ("https://:443", EmptyHost),
            ("https://exa mple.com", InvalidHost),
            ("https://example..com", InvalidHost),
            ("https://.example.com", InvalidHost),
            ("https://example.com.", InvalidHost),
            ("https://a.com,https://b.com", Path),
            ("https://a.com, b", InvalidHost),
            ("https://example.com:", InvalidPort),
            ("https://example.com:0", InvalidPort),
            ("https://example.com:65536", InvalidPort),
            ("https://example.com:123456", InvalidPort),
            ("https://example.com:8a", InvalidPort),
            ("http://[::1", InvalidHost),
            ("http://[]", InvalidHost),
            ("http://[::1]x", InvalidHost),
        ];
        for (input, expected) in cases {
            assert_eq!(parse(input.as_bytes()).err(), Some(*expected), "{input}");
        }
        let long = format!("https://{}.com", "a".repeat(300));
        assert_eq!(parse(long.as_bytes()).err(), Some(TooLong));
    }

    #[test]
    fn patterns_match_whole_labels_only() {
        let p = pattern("https://*.Example.com");
        let m = |s: &str| parse(s.as_bytes()).is_ok_and(|o| p.matches(&o));
        assert!(m("https://a.example.com"));
        assert!(m("https://a.b.example.com"));
        assert!(m("https://A.EXAMPLE.COM:443"));
        assert!(!m("https://example.com"));
        assert!(!m("https://example.com.evil.net"));
        assert!(!m("https://evil-example.com"));
        assert!(!m("https://aexample.com"));
        assert!(!m("http://a.example.com"));
        assert!(!m("https://a.example.com:8443"));
    }

    fn pattern(s: &str) -> OriginPattern {
        match parse_configured(s) {
            Ok(ConfiguredOrigin::Pattern(p)) => p,
            other => panic!("{s}: expected a pattern, got {other:?}"),
        }
    }

    #[test]
    fn port_wildcards_match_every_explicit_port_of_that_scheme_and_host() {
        let p = pattern("http://localhost:*");
        let m = |s: &str| parse(s.as_bytes()).is_ok_and(|o| p.matches(&o));
        assert!(m("http://localhost:5173"));
        assert!(m("http://localhost:1"));
        assert!(m("http://LOCALHOST:65535"));
        assert!(
            m("http://localhost:443"),
            "443 is not the default port of http"
        );
        assert!(!m("http://localhost"), "no port: not matched");
        assert!(
            !m("http://localhost:80"),
            "the default port is the origin without a port"
        );
        assert!(!m("https://localhost:5173"));
        assert!(!m("ws://localhost:5173"));
        assert!(!m("http://localhost.evil.test:5173"));
        assert!(!m("http://evil-localhost:5173"));
        assert!(!m("http://a.localhost:5173"));

        let p = pattern("http://[::1]:*");
        assert!(parse(b"http://[::1]:3000").is_ok_and(|o| p.matches(&o)));
        assert!(parse(b"http://[::1]").is_ok_and(|o| !p.matches(&o)));
        let p = pattern("https://127.0.0.1:*");
        assert!(parse(b"https://127.0.0.1:8443").is_ok_and(|o| p.matches(&o)));
        assert!(parse(b"https://127.0.0.1:443").is_ok_and(|o| !p.matches(&o)));
    }

    #[test]
    fn both_wildcards_match_every_subdomain_on_every_explicit_port() {
        let p = pattern("https://*.Example.com:*");
        let m = |s: &str| parse(s.as_bytes()).is_ok_and(|o| p.matches(&o));
        assert!(m("https://a.example.com:8443"));
        assert!(m("https://a.b.example.com:1"));
        assert!(!m("https://a.example.com"));
        assert!(!m("https://example.com:8443"));
        assert!(!m("http://a.example.com:8443"));
        assert!(!m("https://a.example.com.evil.test:8443"));
        assert!(!m("https://aexample.com:8443"));
    }

    #[test]
    fn origins_name_their_host() {
        let same = [
            ("https://example.com", "example.com"),
            ("https://example.com", "EXAMPLE.com"),
            ("https://Example.com", "example.com"),
            ("https://example.com", "example.com:443"),
            ("http://example.com", "example.com:80"),
            ("https://example.com:443", "example.com"),
            // The scheme is not the server's: TLS may end at a proxy.
            ("http://example.com", "example.com"),
            ("https://example.com:8443", "example.com:8443"),
            ("http://localhost:3000", "localhost:3000"),
            ("http://[::1]:8080", "[::1]:8080"),
            ("http://[::1]", "[::1]"),
            ("https://[::1]", "[::1]:443"),
        ];
        for (origin, host) in same {
            assert!(
                names_host(origin.as_bytes(), host.as_bytes()),
                "{origin} {host}"
            );
        }
        let other = [
            ("https://example.com", "example.com:8443"),
            ("https://example.com:8443", "example.com"),
            ("https://example.com", "example.com:80"),
            ("http://example.com", "example.com:443"),
            ("https://example.com", "www.example.com"),
            ("https://example.com", "example.com."),
            ("https://example.com", "example.com:"),
            ("https://example.com", "example.com:44x"),
            ("https://example.com", "example.com:443:443"),
            ("https://example.com", "example.com:100000"),
            ("https://example.com", "user@example.com"),
            ("https://example.com", ""),
            ("https://example.com.evil.test", "example.com"),
            ("http://[::1]", "[::1"),
            ("http://[::1]:8080", "[::1]8080"),
            ("null", "null"),
            ("https://example.com/", "example.com"),
            ("example.com", "example.com"),
        ];
        for (origin, host) in other {
            assert!(
                !names_host(origin.as_bytes(), host.as_bytes()),
                "{origin} {host}"
            );
        }
    }

    #[test]
    fn loopback_hosts() {
        for host in [
            "localhost",
            "app.localhost",
            "a.b.localhost",
            "127.0.0.1",
            "127.1.2.3",
            "127.255.255.255",
            "[::1]",
        ] {
            assert!(is_loopback_host(host.as_bytes()), "{host}");
        }
        for host in [
            "localhost.evil.test",
            "evil-localhost",
            "xlocalhost",
            "127.0.0.1.evil.test",
            "127.0.0",
            "127.0.0.256",
            "127.0.0.1.2",
            "128.0.0.1",
            "10.0.0.1",
            "[::2]",
            "[::ffff:127.0.0.1]",
            "example.com",
        ] {
            assert!(!is_loopback_host(host.as_bytes()), "{host}");
        }
    }

    #[test]
    fn insecure_origins_are_plain_http_beyond_loopback() {
        let insecure = |s: &str| parse_configured(s).unwrap().is_insecure();
        assert!(insecure("http://example.com"));
        assert!(insecure("HTTP://Example.com:8080"));
        assert!(insecure("http://*.example.com"));
        assert!(insecure("http://example.com:*"));
        assert!(insecure("http://10.0.0.1:3000"));
        assert!(insecure("http://localhost.evil.test"));
        assert!(!insecure("https://example.com"));
        assert!(!insecure("https://*.example.com:*"));
        assert!(!insecure("http://localhost:3000"));
        assert!(!insecure("http://LOCALHOST:*"));
        assert!(!insecure("http://*.localhost"));
        assert!(!insecure("http://app.localhost:5173"));
        assert!(!insecure("http://127.0.0.1:8080"));
        assert!(!insecure("http://[::1]:*"));
        assert!(!insecure("ws://example.com"));
    }

    #[test]
    fn pattern_errors() {
        use OriginConfigError::*;
        assert_eq!(
            parse_configured("https://*.*.example.com"),
            Err(SeveralWildcards)
        );
        assert_eq!(
            parse_configured("https://a*.example.com"),
            Err(WildcardNotLeftmostLabel)
        );
        assert_eq!(
            parse_configured("https://a.*.example.com"),
            Err(WildcardNotLeftmostLabel)
        );
        assert_eq!(
            parse_configured("https://*example.com"),
            Err(WildcardNotLeftmostLabel)
        );
        assert_eq!(
            parse_configured("https://*.[::1]"),
            Err(WildcardOverAddress)
        );
        assert_eq!(
            parse_configured("https://*.[::1]:*"),
            Err(WildcardOverAddress)
        );
        // A host that ends in a number is an IPv4 address to browsers: `*.0.0.1` would grant
        // `https://127.0.0.1` and `https://10.0.0.1`.
        for pattern in [
            "https://*.0.0.1",
            "https://*.0.1:*",
            "http://*.1",
            "https://*.example.0x7f",
            "https://*.example.255",
        ] {
            assert_eq!(
                parse_configured(pattern),
                Err(WildcardOverAddress),
                "{pattern}"
            );
        }
        for pattern in ["https://*.1password.com", "https://*.example.x1"] {
            assert!(parse_configured(pattern).is_ok(), "{pattern}");
        }
        assert_eq!(
            parse_configured("https://*.example.com/"),
            Err(Syntax(OriginSyntaxError::Path))
        );
        assert_eq!(parse_configured("http://localhost:8*"), Err(WildcardInPort));
        assert_eq!(parse_configured("http://localhost:*8"), Err(WildcardInPort));
        assert_eq!(parse_configured("http://localhost:**"), Err(WildcardInPort));
        assert_eq!(parse_configured("http://[::1]:1*"), Err(WildcardInPort));
        assert_eq!(
            parse_configured("http://localhost:*/"),
            Err(Syntax(OriginSyntaxError::Path))
        );
        assert_eq!(
            parse_configured("http://localhost:*?a"),
            Err(Syntax(OriginSyntaxError::QueryOrFragment))
        );
        assert_eq!(
            parse_configured("http://local host:*"),
            Err(Syntax(OriginSyntaxError::InvalidHost))
        );
        assert_eq!(
            parse_configured("http://:*"),
            Err(Syntax(OriginSyntaxError::EmptyHost))
        );
        assert_eq!(
            parse_configured("*://localhost:*"),
            Err(Syntax(OriginSyntaxError::NotAnOrigin))
        );
        assert_eq!(
            parse_configured("https://*.*.example.com:*"),
            Err(SeveralWildcards)
        );
    }
}
