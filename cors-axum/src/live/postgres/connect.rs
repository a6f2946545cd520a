//! Connecting: the connection string read (its TLS settings by this module, the rest by
//! tokio-postgres), the timeouts the user left out filled in, and each host tried in turn, its
//! whole set-up (TCP, TLS, start-up, authentication) bounded by the connect timeout.

use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

use percent_encoding::percent_decode_str;
use tokio_postgres::config::Host;
use tokio_postgres::tls::MakeTlsConnect;
use tokio_postgres::{Client, Config, Connection, Socket};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::error::{PgError, reason};
use super::tls::{Ssl, SslMode};

/// The connect timeout unless the user gives one: per host, the whole set-up.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// tokio-postgres's idle time before keepalives, which means "not set".
const DEFAULT_KEEPALIVES_IDLE: Duration = Duration::from_secs(2 * 60 * 60);

/// The stream of a connection, plain or TLS.
pub(crate) type TlsStream = <MakeRustlsConnect as MakeTlsConnect<Socket>>::Stream;

/// A connection made: the client, the connection to drive, and the host it reached.
pub(crate) type Opened = (Client, Connection<Socket, TlsStream>, Reached);

/// The host a connection reached: `host:port`, and whether it is this machine.
#[derive(Clone, Debug)]
pub(crate) struct Reached {
    pub(crate) label: String,
    loopback: bool,
}

/// How to connect, checked once.
#[derive(Clone)]
pub(crate) struct Connect {
    /// The configuration as given.
    config: Config,
    ssl: Ssl,
    tls: MakeRustlsConnect,
    /// One configuration per host, tried in order.
    hosts: Vec<(Config, Reached)>,
}

impl fmt::Debug for Connect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // tokio-postgres's `Debug` of a configuration hides its password.
        f.debug_struct("Connect")
            .field("sslmode", &self.ssl.mode().name())
            .field("sslrootcert", &self.ssl.root_cert)
            .field("config", &self.config)
            .finish()
    }
}

impl Connect {
    /// From a connection string: `postgres://..` or `host=.. user=..`, with libpq's `sslmode`
    /// (all five) and `sslrootcert`.
    pub(crate) fn from_url(url: &str) -> Result<Self, PgError> {
        let (rest, ssl) = take_ssl(url)?;
        let config: Config = rest.parse().map_err(|e: tokio_postgres::Error| {
            PgError::setting(
                "url",
                format!(
                    "{}; write `postgres://user:password@host:port/database?option=value` or \
                     `host=.. user=..`",
                    reason(&e)
                ),
            )
        })?;
        Connect::new(config, ssl)
    }

    /// From a configuration; its `ssl_mode` is the mode unless `ssl` names one.
    pub(crate) fn new(mut config: Config, mut ssl: Ssl) -> Result<Self, PgError> {
        ssl.mode.get_or_insert(match config.get_ssl_mode() {
            tokio_postgres::config::SslMode::Disable => SslMode::Disable,
            tokio_postgres::config::SslMode::Require => SslMode::Require,
            _ => SslMode::Prefer,
        });
        let tls = ssl.connector()?;
        config.ssl_mode(ssl.mode().negotiation());
        let hosts = one_per_host(&config);
        Ok(Connect {
            config,
            ssl,
            tls,
            hosts,
        })
    }

    /// The same, with TLS settings changed by `change`.
    pub(crate) fn with_ssl(&self, change: impl FnOnce(&mut Ssl)) -> Result<Self, PgError> {
        let mut ssl = self.ssl.clone();
        change(&mut ssl);
        Connect::new(self.config.clone(), ssl)
    }

    /// The connect timeout: per host, the whole set-up.
    pub(crate) fn timeout(&self) -> Duration {
        self.config
            .get_connect_timeout()
            .copied()
            .unwrap_or(CONNECT_TIMEOUT)
    }

    /// Connects to the first host that accepts, each tried at most the connect timeout; why
    /// none did, host by host.
    pub(crate) async fn open(&self) -> Result<Opened, String> {
        let limit = self.timeout();
        let mut reasons = Vec::new();
        for (config, host) in &self.hosts {
            let label = &host.label;
            match tokio::time::timeout(limit, config.connect(self.tls.clone())).await {
                Ok(Ok((client, connection))) => return Ok((client, connection, host.clone())),
                Ok(Err(error)) => reasons.push(format!("{label}: {}", reason(&error))),
                Err(_) => reasons.push(format!(
                    "{label}: no answer within the connect timeout ({limit:?}) for the \
                     connection, TLS, start-up and authentication"
                )),
            }
        }
        if reasons.is_empty() {
            reasons.push("no host to connect to: give one in the URL".to_owned());
        }
        Err(reasons.join("; "))
    }

    /// Whether the connection of `client` (which must be driven) to `host` speaks plain text
    /// to another machine: asked of the server where TLS was only preferred.
    pub(crate) async fn plain_text_to_another_machine(
        &self,
        client: &Client,
        host: &Reached,
    ) -> bool {
        if host.loopback {
            return false;
        }
        match self.ssl.mode() {
            SslMode::Disable => true,
            SslMode::Prefer => {
                let sql = "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()";
                let asked = tokio::time::timeout(self.timeout(), client.query_one(sql, &[]));
                matches!(asked.await, Ok(Ok(row)) if row.try_get(0).is_ok_and(|ssl: bool| !ssl))
            }
            _ => false,
        }
    }
}

/// One configuration per host of `config`, as libpq tries them: each in turn, each with its
/// own connect timeout (tokio-postgres would spend the whole timeout on a first host that
/// accepts and never answers).
fn one_per_host(config: &Config) -> Vec<(Config, Reached)> {
    let hosts = config.get_hosts();
    let addrs = config.get_hostaddrs();
    let ports = config.get_ports();
    (0..hosts.len().max(addrs.len()))
        .map(|i| {
            let mut one = settings_of(config);
            let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
            one.port(port);
            let mut label = String::new();
            let mut loopback = false;
            match hosts.get(i) {
                Some(Host::Tcp(name)) => {
                    one.host(name);
                    label.clone_from(name);
                    let ip = name.parse::<IpAddr>();
                    loopback = name == "localhost" || ip.is_ok_and(|ip| ip.is_loopback());
                }
                #[cfg(unix)]
                Some(Host::Unix(path)) => {
                    one.host_path(path);
                    label = path.display().to_string();
                    loopback = true;
                }
                None => {}
            }
            if let Some(&addr) = addrs.get(i) {
                one.hostaddr(addr);
                if label.is_empty() {
                    label = addr.to_string();
                }
                loopback = addr.is_loopback();
            }
            let label = format!("{label}:{port}");
            (one, Reached { label, loopback })
        })
        .collect()
}

/// Every setting of `config` but its hosts and ports, and the timeouts it leaves out: the
/// connect timeout, keepalives probing after 10 s idle every 2 s, 3 times, and unacknowledged
/// data given up after 15 s (as backstops: the follow's own check notices a silent server
/// first).
fn settings_of(config: &Config) -> Config {
    let mut one = Config::new();
    if let Some(user) = config.get_user() {
        one.user(user);
    }
    if let Some(password) = config.get_password() {
        one.password(password);
    }
    if let Some(dbname) = config.get_dbname() {
        one.dbname(dbname);
    }
    if let Some(options) = config.get_options() {
        one.options(options);
    }
    if let Some(name) = config.get_application_name() {
        one.application_name(name);
    }
    let seconds = Duration::from_secs;
    let connect_timeout = config.get_connect_timeout().copied();
    let tcp_user_timeout = config.get_tcp_user_timeout().copied();
    let idle = Some(config.get_keepalives_idle()).filter(|&idle| idle != DEFAULT_KEEPALIVES_IDLE);
    one.connect_timeout(connect_timeout.unwrap_or(CONNECT_TIMEOUT))
        .tcp_user_timeout(tcp_user_timeout.unwrap_or(seconds(15)))
        .keepalives_idle(idle.unwrap_or(seconds(10)))
        .keepalives_interval(config.get_keepalives_interval().unwrap_or(seconds(2)))
        .keepalives_retries(config.get_keepalives_retries().unwrap_or(3))
        .ssl_mode(config.get_ssl_mode())
        .ssl_negotiation(config.get_ssl_negotiation())
        .keepalives(config.get_keepalives())
        .target_session_attrs(config.get_target_session_attrs())
        .channel_binding(config.get_channel_binding());
    one
}

/// The connection string without `sslmode` and `sslrootcert`, which tokio-postgres does not
/// know all of, and their values.
fn take_ssl(url: &str) -> Result<(String, Ssl), PgError> {
    let is_url = url.starts_with("postgres://") || url.starts_with("postgresql://");
    let (base, pairs) = match is_url {
        true => query(url)?,
        false => ("", pairs(url)?),
    };
    let mut ssl = Ssl::default();
    let mut kept = Vec::new();
    for (key, value, written) in pairs {
        match key.as_str() {
            "sslmode" => ssl.mode = Some(SslMode::parse(&value)?),
            "sslrootcert" => ssl.root_cert = Some(value),
            _ => kept.push(written),
        }
    }
    let rest = match (is_url, kept.is_empty()) {
        (false, _) => kept.join(" "),
        (true, true) => base.to_owned(),
        (true, false) => format!("{base}?{}", kept.join("&")),
    };
    Ok((rest, ssl))
}

/// A pair of a connection string: its key and value, decoded, and the pair as written.
type Pair<'a> = (String, String, &'a str);

/// A URL without its query, and the query's parameters.
fn query(url: &str) -> Result<(&str, Vec<Pair<'_>>), PgError> {
    // The query starts at the first `?` after the credentials.
    let after_credentials = url.rfind('@').unwrap_or(0);
    let Some(at) = url[after_credentials..].find('?') else {
        return Ok((url, Vec::new()));
    };
    let (base, query) = url.split_at(after_credentials + at);
    let decoded = |text: &str| match percent_decode_str(text).decode_utf8() {
        Ok(text) => Ok(text.into_owned()),
        Err(_) => Err(PgError::setting("url", "the query is not UTF-8")),
    };
    let pairs = query[1..].split('&').map(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        Ok((decoded(key)?, decoded(value)?, pair))
    });
    Ok((base, pairs.collect::<Result<_, PgError>>()?))
}

/// `key=value` pairs, values possibly quoted (`'a b'`, with `\'` and `\\`).
fn pairs(text: &str) -> Result<Vec<Pair<'_>>, PgError> {
    let mut pairs = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let key_end = rest.find(|c: char| c == '=' || c.is_ascii_whitespace());
        let key = &rest[..key_end.unwrap_or(rest.len())];
        let Some(after) = rest[key.len()..].trim_start().strip_prefix('=') else {
            let key = key.escape_debug();
            let why = format!("`{key}` is not followed by `=` and a value");
            return Err(PgError::setting("url", why));
        };
        let after = after.trim_start();
        let quoted = after.starts_with('\'');
        let (mut value, mut chars) = (String::new(), after.char_indices().skip(quoted.into()));
        let end = loop {
            match chars.next() {
                None if quoted => {
                    let why = "a quoted value is not closed with `'`";
                    return Err(PgError::setting("url", why));
                }
                None => break after.len(),
                Some((at, '\'')) if quoted => break at + 1,
                Some((at, c)) if !quoted && c.is_ascii_whitespace() => break at,
                Some((_, '\\')) => value.push(chars.next().map_or('\\', |(_, c)| c)),
                Some((_, c)) => value.push(c),
            }
        };
        let (written, next) = rest.split_at(rest.len() - after.len() + end);
        pairs.push((key.to_owned(), value, written));
        rest = next.trim_start();
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rest_and_ssl(url: &str) -> (String, Option<SslMode>, Option<String>) {
        let (rest, ssl) = take_ssl(url).unwrap();
        (rest, ssl.mode, ssl.root_cert)
    }

    #[test]
    fn takes_the_tls_settings_out_of_a_url() {
        assert_eq!(
            rest_and_ssl(
                "postgres://u:p%3F@h:5/db?sslmode=verify-full&connect_timeout=3&sslrootcert=%2Fca.pem"
            ),
            (
                "postgres://u:p%3F@h:5/db?connect_timeout=3".to_owned(),
                Some(SslMode::VerifyFull),
                Some("/ca.pem".to_owned())
            )
        );
        assert_eq!(
            rest_and_ssl("postgresql://h/db?sslmode=require").0,
            "postgresql://h/db"
        );
        assert_eq!(
            rest_and_ssl("postgres://h/db"),
            ("postgres://h/db".to_owned(), None, None)
        );
    }

    #[test]
    fn takes_the_tls_settings_out_of_pairs() {
        assert_eq!(
            rest_and_ssl(
                "host=h  sslmode = verify-ca user='a b' sslrootcert='/x y/ca\\'s.pem' dbname=d"
            ),
            (
                "host=h user='a b' dbname=d".to_owned(),
                Some(SslMode::VerifyCa),
                Some("/x y/ca's.pem".to_owned())
            )
        );
        assert_eq!(
            take_ssl("host=h sslmode=bogus").unwrap_err().field(),
            Some("sslmode")
        );
        assert_eq!(take_ssl("host=h user='x").unwrap_err().field(), Some("url"));
    }

    #[test]
    fn keeps_the_users_timeouts() {
        let connect = Connect::from_url(
            "postgres://h/db?connect_timeout=9&keepalives_idle=77&tcp_user_timeout=4",
        )
        .unwrap();
        let used = &connect.hosts[0].0;
        assert_eq!(connect.timeout(), Duration::from_secs(9));
        assert_eq!(used.get_connect_timeout(), Some(&Duration::from_secs(9)));
        assert_eq!(used.get_keepalives_idle(), Duration::from_secs(77));
        assert_eq!(used.get_tcp_user_timeout(), Some(&Duration::from_secs(4)));
        let filled = Connect::from_url("postgres://h/db").unwrap();
        let used = &filled.hosts[0].0;
        assert_eq!(filled.timeout(), CONNECT_TIMEOUT);
        assert_eq!(used.get_connect_timeout(), Some(&CONNECT_TIMEOUT));
        assert_eq!(used.get_keepalives_idle(), Duration::from_secs(10));
        assert_eq!(used.get_keepalives_interval(), Some(Duration::from_secs(2)));
        assert_eq!(used.get_keepalives_retries(), Some(3));
        assert_eq!(used.get_tcp_user_timeout(), Some(&Duration::from_secs(15)));
    }

    #[test]
    fn tries_each_host_with_its_own_settings() {
        let connect = Connect::from_url(
            "postgres://u:secret@10.0.0.1:5433,localhost:5434/db?target_session_attrs=read-write",
        )
        .unwrap();
        let labels: Vec<_> = connect
            .hosts
            .iter()
            .map(|(_, host)| (host.label.as_str(), host.loopback))
            .collect();
        assert_eq!(labels, [("10.0.0.1:5433", false), ("localhost:5434", true)]);
        for (one, _) in &connect.hosts {
            assert_eq!(one.get_hosts().len(), 1);
            assert_eq!(one.get_password(), Some(&b"secret"[..]));
            assert_eq!(
                one.get_target_session_attrs(),
                tokio_postgres::config::TargetSessionAttrs::ReadWrite
            );
        }
        assert!(!format!("{connect:?}").contains("secret"));
    }
}
