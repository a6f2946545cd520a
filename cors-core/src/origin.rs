//! Parsing, normalising and matching serialized origins (`scheme://host[:port]`).
//!
//! Configured origins are parsed once, when a policy is compiled, and stored normalised: scheme
//! and host lowercase, the default port (`:443` for `https`, `:80` for `http`) dropped. A request's
//! `Origin` is parsed the same way into a stack buffer, so comparing it never allocates.

use std::borrow::Borrow;
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hash, Hasher};

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
    /// The input, when it is already in normalised form (as browsers send it): then it is
    /// looked up as is, without copying.
    pub(crate) canonical: Option<&'a [u8]>,
}

fn is_scheme_byte(b: u8) -> bool {
    BYTE_CLASS[usize::from(b)] & SCHEME != 0
}

fn is_host_byte(b: u8) -> bool {
    BYTE_CLASS[usize::from(b)] & HOST != 0
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

/// [`parse`] in one pass, for request origins: the same answer, without the error kind (which
/// only configuration messages need). `tests::fast_parse_agrees` checks they agree.
pub(crate) fn parse_request(input: &[u8]) -> Option<ParsedOrigin<'_>> {
    if input.len() > MAX_ORIGIN_LEN || !input.first()?.is_ascii_alphabetic() {
        return None;
    }
    // Every byte's classes, or-ed: an uppercase letter anywhere makes the spelling not canonical.
    let mut seen = 0u8;
    // Scheme: a letter, then letters, digits, `+`, `-`, `.`; it ends at the `:` of `://`.
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
    let rest = input[i..].strip_prefix(b"://")?;
    let host_len = if rest.first() == Some(&b'[') {
        let len = ipv6_len(rest)?;
        if rest[..len].iter().any(u8::is_ascii_uppercase) {
            seen |= UPPER;
        }
        len
    } else {
        let (len, classes) = name_len(rest)?;
        seen |= classes;
        len
    };
    let (host, port_part) = rest.split_at(host_len);
    let (port, canonical_port) = match port_part {
        [] => (None, true),
        [b':', digits @ ..] => {
            let value = port_number(digits)?;
            if default_port(scheme) == Some(value) {
                (None, false)
            } else {
                (Some(value), digits[0] != b'0')
            }
        }
        _ => return None,
    };
    let uppercase = seen & UPPER != 0;
    Some(ParsedOrigin {
        scheme,
        host,
        port,
        canonical: (canonical_port && !uppercase).then_some(input),
    })
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

/// The host of a configured origin's authority, checked, and what follows it (`:port` or
/// nothing).
fn split_host(authority: &[u8]) -> Result<(&[u8], &[u8]), OriginSyntaxError> {
    if authority.first() == Some(&b'[') {
        let close = authority
            .iter()
            .position(|&b| b == b']')
            .ok_or(OriginSyntaxError::InvalidHost)?;
        let inner = &authority[1..close];
        if inner.is_empty()
            || !inner
                .iter()
                .all(|&b| b.is_ascii_hexdigit() || b == b':' || b == b'.')
        {
            return Err(OriginSyntaxError::InvalidHost);
        }
        return Ok((&authority[..=close], &authority[close + 1..]));
    }
    let colon = authority
        .iter()
        .position(|&b| b == b':')
        .unwrap_or(authority.len());
    let host = &authority[..colon];
    if host.is_empty() {
        return Err(OriginSyntaxError::EmptyHost);
    }
    if !host
        .split(|&b| b == b'.')
        .all(|label| !label.is_empty() && label.iter().all(|&b| is_host_byte(b)))
    {
        return Err(OriginSyntaxError::InvalidHost);
    }
    Ok((host, &authority[colon..]))
}

/// Parses `scheme://host[:port]`, rejecting anything a browser would not send as an `Origin`.
pub(crate) fn parse(input: &[u8]) -> Result<ParsedOrigin<'_>, OriginSyntaxError> {
    if input.len() > MAX_ORIGIN_LEN {
        return Err(OriginSyntaxError::TooLong);
    }
    // A scheme has no `:`, so the first one ends it.
    let sep = input
        .iter()
        .position(|&b| b == b':')
        .filter(|&colon| input[colon..].starts_with(b"://"))
        .ok_or(OriginSyntaxError::NotAnOrigin)?;
    let scheme = &input[..sep];
    match scheme.split_first() {
        Some((first, rest))
            if first.is_ascii_alphabetic() && rest.iter().all(|&b| is_scheme_byte(b)) => {}
        _ => return Err(OriginSyntaxError::NotAnOrigin),
    }
    let rest = &input[sep + 3..];
    let authority_end = rest
        .iter()
        .position(|&b| matches!(b, b'/' | b'?' | b'#'))
        .unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    match rest.get(authority_end) {
        Some(b'/') => return Err(OriginSyntaxError::Path),
        Some(_) => return Err(OriginSyntaxError::QueryOrFragment),
        None => {}
    }
    if authority.contains(&b'@') {
        return Err(OriginSyntaxError::Userinfo);
    }
    let (host, port_part) = split_host(authority)?;
    let port = match port_part.split_first() {
        None => None,
        Some((b':', digits)) => {
            let value = port_number(digits).ok_or(OriginSyntaxError::InvalidPort)?;
            if default_port(scheme) == Some(value) {
                None
            } else {
                Some(value)
            }
        }
        Some(_) => return Err(OriginSyntaxError::InvalidHost),
    };
    // Normalised: lowercase, and a port written only when not the default, without leading zeros.
    let canonical_port = match port_part.get(1) {
        None => true,
        Some(&first) => port.is_some() && first != b'0',
    };
    let canonical = (canonical_port && !input.iter().any(u8::is_ascii_uppercase)).then_some(input);
    Ok(ParsedOrigin {
        scheme,
        host,
        port,
        canonical,
    })
}

impl ParsedOrigin<'_> {
    /// Writes the normalised form (`scheme://host[:port]`, lowercase, default port dropped) into
    /// `buf` and returns it, or `None` if it does not fit.
    pub(crate) fn normalize_into<'b>(&self, buf: &'b mut [u8; MAX_ORIGIN_LEN]) -> Option<&'b [u8]> {
        let mut len = 0;
        let mut push = |bytes: &[u8], buf: &mut [u8; MAX_ORIGIN_LEN]| -> Option<()> {
            let end = len + bytes.len();
            let dest = buf.get_mut(len..end)?;
            for (d, s) in dest.iter_mut().zip(bytes) {
                *d = s.to_ascii_lowercase();
            }
            len = end;
            Some(())
        };
        push(self.scheme, buf)?;
        push(b"://", buf)?;
        push(self.host, buf)?;
        if let Some(port) = self.port {
            let mut digits = [0u8; 6];
            digits[0] = b':';
            let mut n = port;
            let mut count = 0;
            loop {
                count += 1;
                n /= 10;
                if n == 0 {
                    break;
                }
            }
            let mut n = port;
            for i in (1..=count).rev() {
                digits[i] = b'0' + (n % 10) as u8;
                n /= 10;
            }
            push(&digits[..=count], buf)?;
        }
        Some(&buf[..len])
    }

    fn to_normalized_vec(self) -> Option<Box<[u8]>> {
        let mut buf = [0u8; MAX_ORIGIN_LEN];
        self.normalize_into(&mut buf).map(Box::from)
    }
}

/// Whether a request's `Origin` names the request's own host: its `host[:port]` equals `host`
/// (a `Host` header value, or the URI authority of an HTTP/2 request), host case-insensitively,
/// a port equal to the default of the origin's scheme (`:443` for `https`, `:80` for `http`)
/// equal to none. The schemes are not compared: the server's own is often unknown, TLS
/// ending at a proxy. `null` and malformed origins name no host.
pub(crate) fn names_host(origin: &[u8], host: &[u8]) -> bool {
    let Some(origin) = parse_request(origin) else {
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

/// A configured origin: exact or a wildcard pattern.
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
            ConfiguredOrigin::Exact(origin) => {
                parse(origin).is_ok_and(|o| o.scheme == b"http" && !is_loopback_host(o.host))
            }
            ConfiguredOrigin::Pattern(pattern) => {
                *pattern.scheme == *b"http"
                    && match &pattern.host {
                        HostPattern::Exact(host) => !is_loopback_host(host),
                        HostPattern::Subdomains(suffix) => !is_loopback_host(&suffix[1..]),
                    }
            }
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

/// Parses one configured origin or pattern.
pub(crate) fn parse_configured(input: &str) -> Result<ConfiguredOrigin, OriginConfigError> {
    if !input.contains('*') {
        let parsed = parse(input.as_bytes()).map_err(OriginConfigError::Syntax)?;
        return parsed
            .to_normalized_vec()
            .map(ConfiguredOrigin::Exact)
            .ok_or(OriginConfigError::Syntax(OriginSyntaxError::TooLong));
    }
    let sep = input
        .find("://")
        .ok_or(OriginConfigError::Syntax(OriginSyntaxError::NotAnOrigin))?;
    let (scheme, rest) = (&input[..sep], &input[sep + 3..]);
    let (authority, tail) = rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
    let (host, port) = split_port(authority);
    if port.is_some_and(|port| port.contains('*') && port != "*") {
        return Err(OriginConfigError::WildcardInPort);
    }
    let subdomains = match host.matches('*').count() {
        0 => false,
        1 => true,
        _ => return Err(OriginConfigError::SeveralWildcards),
    };
    let base = if subdomains {
        host.strip_prefix("*.")
            .ok_or(OriginConfigError::WildcardNotLeftmostLabel)?
    } else {
        host
    };
    // What is left is an origin once a wildcard port is given a number, and is checked as one.
    let port = match port {
        Some("*") => ":1",
        Some(_) => &authority[host.len()..],
        None => "",
    };
    let probe = format!("{scheme}://{base}{port}{tail}");
    let parsed = parse(probe.as_bytes()).map_err(OriginConfigError::Syntax)?;
    let lowercase = |bytes: &[u8]| bytes.to_ascii_lowercase().into_boxed_slice();
    let host = if subdomains {
        if parsed.host.first() == Some(&b'[') || ends_in_a_number(parsed.host) {
            return Err(OriginConfigError::WildcardOverAddress);
        }
        let mut suffix = Vec::with_capacity(parsed.host.len() + 1);
        suffix.push(b'.');
        suffix.extend(parsed.host.iter().map(u8::to_ascii_lowercase));
        HostPattern::Subdomains(suffix.into_boxed_slice())
    } else {
        HostPattern::Exact(lowercase(parsed.host))
    };
    Ok(ConfiguredOrigin::Pattern(OriginPattern {
        scheme: lowercase(parsed.scheme),
        host,
        port: if authority.ends_with(":*") {
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

/// An authority's host and, after its last `:` (outside an IPv6 address's brackets), port.
fn split_port(authority: &str) -> (&str, Option<&str>) {
    let host_end = match (authority.find('['), authority.find(']')) {
        (Some(open), Some(close)) if open < close => close + 1,
        _ => authority.find(':').unwrap_or(authority.len()),
    };
    match authority[host_end..].strip_prefix(':') {
        Some(port) => (&authority[..host_end], Some(port)),
        None => (authority, None),
    }
}

/// A fast multiplicative hash over 8-byte words, for short byte strings. The set it keys is
/// fixed when the policy is compiled, so a request cannot grow collision chains: hash flooding is
/// not a concern here, and the default SipHash would cost more than the rest of the lookup.
#[derive(Default)]
pub(crate) struct WordHasher(u64);

impl WordHasher {
    const K: u64 = 0xf135_7aea_2e62_a9c5;

    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::K);
    }
}

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        // The table uses the top bits; the multiply leaves the low input bits there.
        self.0.rotate_left(26)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(
                <[u8; 8]>::try_from(chunk).unwrap_or_default(),
            ));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

/// Most exact origins compared one by one; longer lists are hashed. Comparing a few short byte
/// strings (length first) costs less than hashing one, and either way a lookup does a bounded
/// amount of work whatever the request.
const LINEAR_MAX: usize = 8;

/// A configured exact origin, normalised, as the value reflected when a request sends it
/// byte for byte: prebuilt, so reflecting it clones no request bytes. Compared and hashed as
/// bytes. Beside it, the length of its `scheme://host`.
#[derive(Debug, Clone)]
struct ExactOrigin(HeaderValue, usize);

impl ExactOrigin {
    /// `origin`, normalised, as a prebuilt value.
    fn new(origin: &[u8]) -> Self {
        let value = std::str::from_utf8(origin)
            .ok()
            .and_then(crate::intern::static_value)
            .expect("a parsed origin is ASCII, a header value");
        Self(value, scheme_and_host_len(origin))
    }

    /// Whether `input` may be this origin spelled otherwise than byte for byte: every spelling
    /// of it begins with its `scheme://host` but for the case of letters (then comes a port,
    /// or nothing).
    fn may_be_spelled(&self, input: &[u8]) -> bool {
        let head = &self.0.as_bytes()[..self.1];
        input
            .get(..head.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(head))
    }
}

/// The length of the `scheme://host` that begins a normalised origin, before any `:port` (an
/// IPv6 address, whose `:`s are in brackets, ends at its `]`).
fn scheme_and_host_len(origin: &[u8]) -> usize {
    let host = origin
        .windows(3)
        .position(|w| w == b"://")
        .map_or(0, |at| at + 3);
    let end = if origin.get(host) == Some(&b'[') {
        origin[host..]
            .iter()
            .position(|&b| b == b']')
            .map(|at| at + 1)
    } else {
        origin[host..].iter().position(|&b| b == b':')
    };
    end.map_or(origin.len(), |len| host + len)
}

impl PartialEq for ExactOrigin {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_bytes() == other.0.as_bytes()
    }
}

impl Eq for ExactOrigin {}

impl Hash for ExactOrigin {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.as_bytes().hash(state);
    }
}

impl Borrow<[u8]> for ExactOrigin {
    fn borrow(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// Configured exact origins, normalised.
#[derive(Debug, Clone)]
enum ExactOrigins {
    Few(Vec<ExactOrigin>),
    Many(HashSet<ExactOrigin, BuildHasherDefault<WordHasher>>),
}

impl Default for ExactOrigins {
    fn default() -> Self {
        ExactOrigins::Few(Vec::new())
    }
}

impl ExactOrigins {
    fn insert(&mut self, origin: Box<[u8]>) {
        let origin = ExactOrigin::new(&origin);
        match self {
            ExactOrigins::Few(list) if list.contains(&origin) => {}
            ExactOrigins::Few(list) if list.len() < LINEAR_MAX => list.push(origin),
            ExactOrigins::Few(list) => {
                let mut set: HashSet<_, _> = list.drain(..).collect();
                set.insert(origin);
                *self = ExactOrigins::Many(set);
            }
            ExactOrigins::Many(set) => {
                set.insert(origin);
            }
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            ExactOrigins::Few(list) => list.is_empty(),
            ExactOrigins::Many(set) => set.is_empty(),
        }
    }

    /// The configured origin equal to `origin` byte for byte.
    #[inline]
    fn get(&self, origin: &[u8]) -> Option<&HeaderValue> {
        match self {
            ExactOrigins::Few(list) => list.iter().find(|o| o.0.as_bytes() == origin),
            ExactOrigins::Many(set) => set.get(origin),
        }
        .map(|o| &o.0)
    }

    fn contains(&self, origin: &[u8]) -> bool {
        self.get(origin).is_some()
    }

    /// Whether `input` is surely no origin here spelled otherwise than byte for byte: checked
    /// without parsing it among a few origins; among many, not known (`false`).
    fn surely_not_spelled(&self, input: &[u8]) -> bool {
        match self {
            ExactOrigins::Few(list) => !list.iter().any(|o| o.may_be_spelled(input)),
            ExactOrigins::Many(_) => false,
        }
    }
}

/// Exact origins plus wildcard patterns.
#[derive(Debug, Clone, Default)]
pub(crate) struct OriginSet {
    exact: ExactOrigins,
    patterns: Vec<OriginPattern>,
}

impl OriginSet {
    pub(crate) fn insert(&mut self, origin: ConfiguredOrigin) {
        match origin {
            ConfiguredOrigin::Exact(bytes) => self.exact.insert(bytes),
            ConfiguredOrigin::Pattern(pattern) => {
                if !self.patterns.contains(&pattern) {
                    self.patterns.push(pattern);
                }
            }
        }
    }

    /// The configured exact origin equal to `origin` byte for byte.
    #[inline]
    pub(crate) fn exact_get(&self, origin: &[u8]) -> Option<&HeaderValue> {
        self.exact.get(origin)
    }

    /// Whether a pattern of the set matches the origin.
    pub(crate) fn pattern_matches(&self, origin: &ParsedOrigin<'_>) -> bool {
        self.patterns.iter().any(|p| p.matches(origin))
    }

    /// Whether a request's `Origin` value is in the set; `Err` when it is not an origin.
    pub(crate) fn contains<'s>(&'s self, input: &[u8]) -> Result<InSet<'s>, NotAnOrigin> {
        // Configured origins were validated and stored normalised, so a value equal to one of
        // them byte for byte (as browsers send it) is that origin: no need to parse it.
        if let Some(configured) = self.exact.get(input) {
            return Ok(InSet::Exact(configured));
        }
        self.contains_spelled(input)
    }

    /// [`contains`](Self::contains), or [`InSet::Unlisted`] without parsing `input` where no
    /// pattern may match it and it is surely no exact origin spelled otherwise: a refusal
    /// whose precise reason (not an origin, or not allowed) is left to whoever asks for it.
    #[inline]
    pub(crate) fn contains_or_unlisted<'s>(
        &'s self,
        input: &[u8],
    ) -> Result<InSet<'s>, NotAnOrigin> {
        if let Some(configured) = self.exact.get(input) {
            return Ok(InSet::Exact(configured));
        }
        if self.patterns.is_empty() && self.exact.surely_not_spelled(input) {
            return Ok(InSet::Unlisted);
        }
        self.contains_spelled(input)
    }

    /// Whether `input`, which no exact origin is byte for byte, is in the set.
    fn contains_spelled<'s>(&'s self, input: &[u8]) -> Result<InSet<'s>, NotAnOrigin> {
        let origin = parse_request(input).ok_or(NotAnOrigin)?;
        // An origin in normal form is its own canonical spelling, looked up just above; any
        // other spelling of an exact origin is found by its normal form.
        if origin.canonical.is_none() && !self.exact.is_empty() {
            let mut buf = [0u8; MAX_ORIGIN_LEN];
            if origin
                .normalize_into(&mut buf)
                .is_some_and(|normalized| self.exact.contains(normalized))
            {
                return Ok(InSet::Spelled);
            }
        }
        Ok(if self.patterns.iter().any(|p| p.matches(&origin)) {
            InSet::Spelled
        } else {
            InSet::No
        })
    }
}

/// Whether an origin is in an [`OriginSet`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InSet<'s> {
    /// A configured origin, byte for byte: reflect this value, which is prebuilt.
    Exact(&'s HeaderValue),
    /// Another spelling of a configured origin, or an origin a pattern matches.
    Spelled,
    /// An origin of the [`OriginSet`](crate::OriginSet) consulted beside the list.
    InOriginSet,
    No,
    /// Not in the set, and not parsed: perhaps not an origin at all
    /// ([`OriginSet::contains_or_unlisted`]).
    Unlisted,
}

/// A request's `Origin` that is not `scheme://host[:port]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NotAnOrigin;

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str) -> Option<Vec<u8>> {
        let parsed = parse(s.as_bytes()).ok()?;
        let mut buf = [0u8; MAX_ORIGIN_LEN];
        parsed.normalize_into(&mut buf).map(<[u8]>::to_vec)
    }

    #[test]
    fn exact_origins_switch_to_hashing_past_a_few() {
        let mut exact = ExactOrigins::default();
        let origin = |i: usize| {
            format!("https://a{i}.example")
                .into_bytes()
                .into_boxed_slice()
        };
        for i in 0..LINEAR_MAX {
            exact.insert(origin(i));
            exact.insert(origin(i));
        }
        assert!(matches!(&exact, ExactOrigins::Few(list) if list.len() == LINEAR_MAX));
        exact.insert(origin(LINEAR_MAX));
        assert!(matches!(&exact, ExactOrigins::Many(set) if set.len() == LINEAR_MAX + 1));
        for i in 0..=LINEAR_MAX {
            assert!(exact.contains(&origin(i)));
        }
        assert!(!exact.contains(b"https://a99.example"));
        assert!(!exact.contains(b""));
    }

    #[test]
    fn an_origin_is_left_unparsed_only_where_no_spelling_of_a_listed_one_may_be_it() {
        let mut set = OriginSet::default();
        for origin in [
            "https://a.example",
            "http://[::1]:8080",
            "http://b.example:8080",
        ] {
            set.insert(parse_configured(origin).unwrap());
        }
        let samples = [
            "https://a.example",
            "HTTPS://A.Example",
            "https://a.example:443",
            "https://a.example:0443",
            "https://a.example.evil",
            "https://evil.example",
            "http://[::1]:08080",
            "http://[::1]:8080",
            "http://[::2]:8080",
            "http://B.example:8080",
            "http://b.example:8081",
            "not an origin",
            "https://a.example/",
            "",
        ];
        for sample in samples {
            let input = sample.as_bytes();
            let found = set.contains_or_unlisted(input);
            if found == Ok(InSet::Unlisted) {
                // Unparsed, it must be refused all the same.
                assert!(
                    matches!(set.contains(input), Ok(InSet::No) | Err(_)),
                    "{sample}"
                );
            } else {
                assert_eq!(found, set.contains(input), "{sample}");
            }
        }
        assert_eq!(
            set.contains_or_unlisted(b"https://evil.example"),
            Ok(InSet::Unlisted)
        );
        assert_eq!(
            set.contains_or_unlisted(b"HTTPS://A.Example:443"),
            Ok(InSet::Spelled)
        );
        assert_eq!(
            set.contains_or_unlisted(b"http://[::1]:08080"),
            Ok(InSet::Spelled)
        );
        assert_eq!(scheme_and_host_len(b"http://[::1]:8080"), 12);
        assert_eq!(scheme_and_host_len(b"http://b.example:8080"), 16);
        assert_eq!(scheme_and_host_len(b"https://a.example"), 17);
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
    fn fast_parse_agrees() {
        let samples = [
            "https://example.com",
            "HTTPS://EXAMPLE.COM:443",
            "http://localhost:3000",
            "http://localhost:03000",
            "http://[::1]:8080",
            "http://[::1",
            "http://[]",
            "http://[::1]x",
            "https://a.b.c.example.com",
            "https://example.com.",
            "https://.example.com",
            "https://exa_mple.com",
            "https://example.com/",
            "https://example.com?x",
            "https://user@example.com",
            "https://user:pw@example.com",
            "https://example.com:",
            "https://example.com:0",
            "https://example.com:65535",
            "https://example.com:65536",
            "https://example.com:1:2",
            "a+b-c.d://host",
            "1a://host",
            "://host",
            "https:/example.com",
            "https//example.com",
            "",
            "null",
            "https://a.com, https://b.com",
            "https://exa mple.com",
        ];
        for sample in samples {
            let slow = parse(sample.as_bytes()).ok();
            let fast = parse_request(sample.as_bytes());
            assert_eq!(slow.is_some(), fast.is_some(), "{sample}");
            if let (Some(slow), Some(fast)) = (slow, fast) {
                assert_eq!(
                    (slow.scheme, slow.host, slow.port, slow.canonical),
                    (fast.scheme, fast.host, fast.port, fast.canonical),
                    "{sample}"
                );
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]

        #[test]
        fn fast_parse_agrees_on_random_input(input in "(https?|HTTP|ws|1x|)(://|:/|//|)[a-zA-Z0-9.:@/?#\\[\\] _-]{0,24}") {
            let slow = parse(input.as_bytes()).ok();
            let fast = parse_request(input.as_bytes());
            proptest::prop_assert_eq!(slow.is_some(), fast.is_some(), "{}", input);
            if let (Some(slow), Some(fast)) = (slow, fast) {
                proptest::prop_assert_eq!(
                    (slow.scheme, slow.host, slow.port, slow.canonical),
                    (fast.scheme, fast.host, fast.port, fast.canonical)
                );
            }
        }
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
