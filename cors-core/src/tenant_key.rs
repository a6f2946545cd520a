//! [`TenantKey`]: which tenant a request is for, as a [`TenantOrigins`](crate::TenantOrigins)
//! set keys its entries.

use std::fmt;
use std::sync::Arc;

use http::{HeaderName, header};

use crate::error::CorsConfigError;
use crate::request::{CorsRequest, Lines};

/// Longest tenant key: a DNS name is at most 253 bytes.
pub(crate) const MAX_KEY_LEN: usize = 253;

type KeyFn = Arc<dyn for<'a> Fn(&CorsRequest<'a>) -> Option<&'a [u8]> + Send + Sync>;

/// Which tenant a request is for: the key a [`TenantOrigins`](crate::TenantOrigins) set files
/// its origins under.
///
/// - [`host()`](Self::host), the default: the request's `Host` (HTTP/1.1), or its URI's
///   authority (HTTP/2), lower-cased, the port and a trailing dot left out, so that
///   `ACME.api.example.:8443` is the tenant `acme.api.example`. Keys are written the same way
///   (a key with a port is refused). A cache keys its answers on the host already, so the
///   answers need no `Vary` for it.
/// - [`header(name)`](Self::header): one request header's value (a request sending it twice has
///   no tenant), compared byte for byte; every answer names the header in `Vary`. For a
///   proxy that forwards the tenant's host in `X-Forwarded-Host`, say.
/// - [`request(f)`](Self::request): what `f` reads from the request's head (method, URI,
///   headers, and with cors-axum its extensions, where an earlier layer may have put the
///   tenant), compared byte for byte; name the headers it reads with
///   [`varying_on`](Self::varying_on).
///
/// A request without a key (no `Host`, one that is not a host, a missing header) is granted no
/// tenant's origin.
///
/// ```
/// use cors_axum_core::TenantKey;
/// use http::HeaderName;
///
/// let _ = TenantKey::host();
/// let _ = TenantKey::header(HeaderName::from_static("x-tenant"));
/// // The first segment of the path, `/acme/orders` being tenant `acme`'s.
/// let _ = TenantKey::request(|request| {
///     let path = request.uri()?.path().strip_prefix('/')?;
///     Some(path.split('/').next()?.as_bytes())
/// });
/// ```
#[must_use]
#[derive(Clone)]
pub struct TenantKey {
    kind: KeyKind,
    /// Request headers the key is read from, for `Vary`.
    varying_on: Vec<HeaderName>,
}

#[derive(Clone)]
enum KeyKind {
    Host,
    Header(HeaderName),
    Request(KeyFn),
}

impl TenantKey {
    /// The request's host (the default): see [`TenantKey`].
    pub fn host() -> Self {
        TenantKey {
            kind: KeyKind::Host,
            varying_on: Vec::new(),
        }
    }

    /// One request header's value, named in `Vary`: see [`TenantKey`].
    pub fn header(name: HeaderName) -> Self {
        TenantKey {
            kind: KeyKind::Header(name.clone()),
            varying_on: vec![name],
        }
    }

    /// What `f` reads from the request, borrowed from it (a header's value, a part of the
    /// path, a field of an extension): see [`TenantKey`]. `f` runs on every CORS request whose
    /// origin the list and the [`OriginSet`](crate::OriginSet) do not hold, so keep it cheap;
    /// a panic in it refuses the request's origin.
    pub fn request<F>(f: F) -> Self
    where
        F: for<'a> Fn(&CorsRequest<'a>) -> Option<&'a [u8]> + Send + Sync + 'static,
    {
        TenantKey {
            kind: KeyKind::Request(Arc::new(f)),
            varying_on: Vec::new(),
        }
    }

    /// Request headers the key is read from, beside those it names already: every answer then
    /// names them in `Vary`, so that a cache does not give one tenant's answer to another.
    pub fn varying_on(mut self, names: impl IntoIterator<Item = HeaderName>) -> Self {
        self.varying_on.extend(names);
        self
    }

    /// The request headers answers vary on.
    pub(crate) fn vary(&self) -> &[HeaderName] {
        &self.varying_on
    }

    /// Whether keys are hosts, normalised as [`host()`](Self::host) says.
    pub fn is_host(&self) -> bool {
        matches!(self.kind, KeyKind::Host)
    }

    /// `tenant` as the entries of a set so keyed write it: a host lower-cased, without a
    /// trailing dot; any other key as it is. An error of `tenant_origins` says why it is not
    /// a key (a host with a port, say).
    ///
    /// ```
    /// use cors_axum_core::TenantKey;
    ///
    /// assert_eq!(TenantKey::host().normalize("ACME.api.example.")?, "acme.api.example");
    /// assert!(TenantKey::host().normalize("acme.api.example:443").is_err());
    /// # Ok::<(), cors_axum_core::CorsConfigError>(())
    /// ```
    pub fn normalize(&self, tenant: &str) -> Result<String, CorsConfigError> {
        let key = self.entry(tenant)?;
        Ok(String::from_utf8_lossy(&key).into_owned())
    }

    /// A key as an entry of the set writes it, checked, normalised when it is a host.
    pub(crate) fn entry(&self, key: &str) -> Result<Box<[u8]>, CorsConfigError> {
        let error = |why: String| Err(CorsConfigError::new("tenant_origins", Some(key), why));
        if key.is_empty() || key.len() > MAX_KEY_LEN {
            return error(format!(
                "a tenant's key is 1 to {MAX_KEY_LEN} bytes long, `{key}` is {}",
                key.len()
            ));
        }
        if !self.is_host() {
            return Ok(key.as_bytes().into());
        }
        let mut buf = [0u8; MAX_KEY_LEN];
        match host_key(key.as_bytes(), &mut buf) {
            Some(host) if host.len() + usize::from(key.ends_with('.')) == key.len() => {
                let labels = !host.starts_with(b".")
                    && !host.ends_with(b".")
                    && !host.windows(2).any(|pair| pair == b"..");
                if labels && host.iter().all(|&b| is_host_byte(b)) || is_ipv6_literal(host) {
                    Ok(host.into())
                } else {
                    error(format!(
                        "`{key}` is not a host: a tenant's key is its host, such as \
                         `acme.api.example`"
                    ))
                }
            }
            _ => error(format!(
                "`{key}` is not a host: a tenant's key is its host alone, such as \
                 `acme.api.example`, without a scheme, a port or a path"
            )),
        }
    }

    /// The key of `request` as sent; `None` when it has none. A `request` function that
    /// panics gives none.
    #[inline]
    pub(crate) fn of<'a>(&self, request: &CorsRequest<'a>) -> Option<&'a [u8]> {
        match &self.kind {
            KeyKind::Host => match Lines::of(request.headers(), &header::HOST) {
                Lines::One(host) => Some(host.as_bytes()),
                Lines::Several => None,
                Lines::Absent => Some(request.uri()?.authority()?.as_str().as_bytes()),
            },
            KeyKind::Header(name) => match Lines::of(request.headers(), name) {
                Lines::One(value) => Some(value.as_bytes()),
                Lines::Absent | Lines::Several => None,
            },
            KeyKind::Request(f) => {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(request)))
                    .ok()
                    .flatten()
            }
        }
    }

    /// A key as sent (`sent`, which no entry holds) written as entries are: a host lower-cased
    /// into `buf`, its port and a trailing dot left out; `None` when that changes nothing or
    /// it is not a host, and for keys compared as sent.
    #[cold]
    pub(crate) fn normalized<'b>(
        &self,
        sent: &[u8],
        buf: &'b mut [u8; MAX_KEY_LEN],
    ) -> Option<&'b [u8]> {
        if !self.is_host() {
            return None;
        }
        host_key(sent, buf).filter(|host| *host != sent)
    }
}

impl Default for TenantKey {
    fn default() -> Self {
        Self::host()
    }
}

impl fmt::Debug for TenantKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            KeyKind::Host => f.write_str("TenantKey::Host"),
            KeyKind::Header(name) => write!(f, "TenantKey::Header({name})"),
            KeyKind::Request(_) => f.write_str("TenantKey::Request(..)"),
        }
    }
}

/// Bytes of a host name.
fn is_host_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_')
}

/// Whether `host` is `[` hex digits, colons and dots `]`.
fn is_ipv6_literal(host: &[u8]) -> bool {
    matches!(host, [b'[', inner @ .., b']']
        if !inner.is_empty() && inner.iter().all(|&b| b.is_ascii_hexdigit() || b == b':' || b == b'.'))
}

/// The host of a `Host` value or an authority (`host[:port]`, `[v6][:port]`), lower-cased into
/// `buf`, the port and one trailing dot left out; `None` when it is not of that form or longer
/// than [`MAX_KEY_LEN`].
fn host_key<'b>(value: &[u8], buf: &'b mut [u8; MAX_KEY_LEN]) -> Option<&'b [u8]> {
    let end = match value.first()? {
        b'[' => value.iter().position(|&b| b == b']')? + 1,
        _ => value.iter().position(|&b| b == b':').unwrap_or(value.len()),
    };
    let (host, port) = value.split_at(end);
    match port {
        [] => {}
        [b':', digits @ ..] if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) => {}
        _ => return None,
    }
    let host = match host {
        [name @ .., b'.'] if !name.starts_with(b"[") => name,
        _ => host,
    };
    if host.is_empty() || host.len() > MAX_KEY_LEN {
        return None;
    }
    let lower = &mut buf[..host.len()];
    lower.copy_from_slice(host);
    lower.make_ascii_lowercase();
    Some(lower)
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::{HeaderMap, HeaderValue, Method, Uri};

    fn key_of(key: &TenantKey, host: Option<&'static str>, uri: &'static str) -> Option<Vec<u8>> {
        let mut headers = HeaderMap::new();
        if let Some(host) = host {
            headers.insert(header::HOST, HeaderValue::from_static(host));
        }
        let uri = Uri::from_static(uri);
        let request = CorsRequest::new(&Method::GET, &headers).with_uri(&uri);
        let sent = key.of(&request)?;
        let mut buf = [0u8; MAX_KEY_LEN];
        match key.normalized(sent, &mut buf) {
            Some(normalized) => Some(normalized.to_vec()),
            None if key.is_host() => host_key(sent, &mut buf).map(<[u8]>::to_vec),
            None => Some(sent.to_vec()),
        }
    }

    #[test]
    fn hosts_are_lowercased_without_port_or_trailing_dot() {
        let host = TenantKey::host();
        let of = |h| key_of(&host, Some(h), "/");
        assert_eq!(
            of("ACME.api.example.:8443"),
            Some(b"acme.api.example".to_vec())
        );
        assert_eq!(of("acme.api.example"), Some(b"acme.api.example".to_vec()));
        assert_eq!(of("[::1]:80"), Some(b"[::1]".to_vec()));
        assert_eq!(of("acme.example:"), None);
        assert_eq!(of("acme.example:8x"), None);
        assert_eq!(of(""), None);
        assert_eq!(of("."), None);
        // HTTP/2: the authority of the URI, when there is no `Host`.
        assert_eq!(
            key_of(&host, None, "https://Acme.Example:443/x"),
            Some(b"acme.example".to_vec())
        );
        assert_eq!(key_of(&host, None, "/x"), None);
        let long = format!("{}.example", "a".repeat(250));
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_str(&long).unwrap());
        let request = CorsRequest::new(&Method::GET, &headers);
        assert!(host_key(host.of(&request).unwrap(), &mut [0; MAX_KEY_LEN]).is_none());
    }

    #[test]
    fn entries_are_hosts_written_as_requests_are_keyed() {
        let host = TenantKey::host();
        assert_eq!(&*host.entry("ACME.example.").unwrap(), b"acme.example");
        for bad in [
            "",
            "acme.example..",
            ".acme.example",
            "acme..example",
            "acme.example:443",
            "https://acme.example",
            "acme.example/x",
            "a b",
        ] {
            let err = host.entry(bad).unwrap_err();
            assert_eq!(err.field(), "tenant_origins", "{bad}");
        }
        let header = TenantKey::header(HeaderName::from_static("x-tenant"));
        assert_eq!(&*header.entry("Acme").unwrap(), b"Acme");
        assert_eq!(header.vary(), [HeaderName::from_static("x-tenant")]);
    }

    #[test]
    fn a_key_function_that_panics_gives_no_key() {
        let key = TenantKey::request(|_| panic!("the key's bug"));
        assert_eq!(key_of(&key, Some("acme.example"), "/"), None);
    }
}
