//! Allowed origins from a PostgreSQL table, kept in step on every replica (feature `postgres`).
//!
//! [`PgOrigins`] fills an [`OriginSet`] from a table of one text column, then follows it: a
//! trigger on the table (made by [`PgOrigins::create_table`]) sends the changed origin with
//! `NOTIFY`, and every replica listening re-reads that row and patches its set, within
//! milliseconds, without polling. Requests never wait on the database: they read the set in
//! memory.
//!
//! The follow checks the connection and the table every few seconds
//! ([`check_every`](PgOrigins::check_every)): a server that stops answering (a network
//! partition, a frozen host) is noticed within twice that, a dropped table or a disabled
//! trigger within once, each logged once. While the database is unreachable the last set keeps
//! being served and the connection is retried with backoff (100 ms doubling to 2 s), each host
//! of a multi-host URL in turn; after reconnecting the whole table is read again, so no change
//! made in between is lost. [`PgFollow::status`] tells an application whether the set is in
//! step, and since when not.
//!
//! TLS is rustls', with libpq's `sslmode` and `sslrootcert` ([`SslMode`]).
//!
//! ```no_run
//! use std::time::Duration;
//!
//! use cors_axum::cors::OriginSet;
//! use cors_axum::cors::postgres::{PgError, PgOrigins};
//!
//! # async fn run() -> Result<(), PgError> {
//! let tenants = OriginSet::new("tenants");
//! let source = PgOrigins::new("postgres://app@db.internal/app?sslmode=verify-full", &tenants)?;
//! source.create_table().await?;
//! let follow = source.spawn(); // followed while `follow` lives
//! follow.ready(Duration::from_secs(10)).await?;
//! # Ok(()) }
//! ```
//!
//! A table or column name that is not a plain identifier, or so long that PostgreSQL would cut
//! a name made from it, is refused; so is a password shown by `Debug`:
//!
//! ```
//! use cors_axum::cors::OriginSet;
//! use cors_axum::cors::postgres::PgOrigins;
//!
//! let source = PgOrigins::new("postgres://app:hunter2@db/app", &OriginSet::new("tenants"))?;
//! assert!(!format!("{source:?}").contains("hunter2"));
//! assert_eq!(source.clone().table("origins; DROP", "origin").unwrap_err().field(), Some("table"));
//! assert!(source.clone().table(&"t".repeat(47), "origin").is_ok());
//! assert!(source.clone().table(&"t".repeat(48), "origin").is_err());
//! assert!(source.table("customer_origins", "origin").is_ok());
//! # Ok::<(), cors_axum::cors::postgres::PgError>(())
//! ```
//!
//! See the guide's section "Origins from a database" for the table, the trigger, TLS with a
//! managed database, and what happens on a partition and a failover.

mod connect;
mod error;
mod follow;
mod hosts;
mod spelling;
mod table;
mod tls;

use std::time::Duration;

use cors_axum_core::{OriginSet, TenantOrigins};

pub use error::PgError;
pub use follow::{PgFollow, PgStatus};
pub use tls::SslMode;
/// The PostgreSQL client this module uses, for its [`Config`](tokio_postgres::Config) and
/// [`Error`](tokio_postgres::Error) at the same version.
pub use tokio_postgres;

use connect::Connect;
use hosts::Hosts;
use spelling::Rows;
use table::{Followed, Table};

/// How often the follow checks the connection and the table unless told otherwise.
const CHECK_EVERY: Duration = Duration::from_secs(5);

/// An [`OriginSet`] loaded from a PostgreSQL table and kept in step with it: see the
/// [module](self). The table is `tenant_origins(origin text primary key)` unless set with
/// [`table`](Self::table); its notification channel has the table's name. With
/// [`tenant_hosts`](Self::tenant_hosts), each tenant's origins on its own host too, from a
/// second table followed on the same connection.
#[derive(Clone, Debug)]
pub struct PgOrigins {
    connect: Connect,
    set: OriginSet,
    table: Table,
    hosts: Option<Hosts>,
    check_every: Duration,
}

impl PgOrigins {
    /// Origins of the table `tenant_origins`, column `origin`, of the database at `url`, into
    /// `set`. `url` is a connection string, `postgres://user:password@host:port/database?..`
    /// or `host=.. user=..`, with tokio-postgres's options (several hosts and
    /// `target_session_attrs=read-write` for a failover, `connect_timeout`, keepalives) and
    /// libpq's `sslmode` (all five, [`SslMode`]) and `sslrootcert` (a PEM file, or `system`).
    ///
    /// Timeouts left out are filled in: the connect timeout, 5 s, bounds each host's whole
    /// set-up (TCP, TLS, start-up, authentication); keepalives after 10 s idle, every 2 s, 3
    /// times; unacknowledged data given up after 15 s. An error names the setting at fault.
    pub fn new(url: impl AsRef<str>, set: &OriginSet) -> Result<Self, PgError> {
        Connect::from_url(url.as_ref()).map(|connect| PgOrigins::with_connect(connect, set))
    }

    /// The same with a configuration the application has already (its pool's, say): its
    /// settings are kept, timeouts it leaves out filled in as [`new`](Self::new) does. Its
    /// `ssl_mode` is the mode (`prefer` by default), which [`ssl_mode`](Self::ssl_mode) can
    /// make `verify-ca` or `verify-full`.
    pub fn from_config(config: tokio_postgres::Config, set: &OriginSet) -> Result<Self, PgError> {
        Connect::new(config, Default::default())
            .map(|connect| PgOrigins::with_connect(connect, set))
    }

    fn with_connect(connect: Connect, set: &OriginSet) -> Self {
        PgOrigins {
            connect,
            set: set.clone(),
            table: Table::new("tenant_origins", "origin").expect("the default names are checked"),
            hosts: None,
            check_every: CHECK_EVERY,
        }
    }

    /// Another TLS mode, as `sslmode=` in the URL.
    pub fn ssl_mode(mut self, mode: SslMode) -> Result<Self, PgError> {
        self.connect = self.connect.with_ssl(|ssl| ssl.mode = Some(mode))?;
        Ok(self)
    }

    /// The certificates trusted, as `sslrootcert=` in the URL: a PEM file, read now, or
    /// `system` for the system's store (which `verify-ca` and `verify-full` use when none is
    /// given).
    pub fn ssl_root_cert(mut self, root_cert: impl Into<String>) -> Result<Self, PgError> {
        let root_cert = Some(root_cert.into());
        self.connect = self.connect.with_ssl(|ssl| ssl.root_cert = root_cert)?;
        Ok(self)
    }

    /// Another table and column (the channel takes the table's name): lowercase identifiers
    /// of letters, digits and `_`, the table's at most 47 bytes (its trigger
    /// `<table>_notify_truncate` must fit PostgreSQL's 63), the column's at most 63; anything
    /// else is an error naming `table` or `column`.
    pub fn table(mut self, table: &str, column: &str) -> Result<Self, PgError> {
        self.table = Table::new(table, column)?;
        Ok(self)
    }

    /// Also each tenant's origins on its own host, into `tenants` (a set keyed by host, made
    /// with [`TenantOrigins::new`]), from the table
    /// `tenant_host_origins(host text, origin text, primary key (host, origin))`, followed on
    /// the same connection, with the same guarantees: a changed row's host is sent with
    /// `NOTIFY` and its rows read again, the whole table after a reconnection, no query per
    /// request. A host is written as the set writes it (`ACME.api.example.` is
    /// `acme.api.example`); a row whose host has a port, or whose origin a list would refuse,
    /// is skipped and logged. A set keyed otherwise is an error naming `tenant_origins`.
    ///
    /// ```
    /// use cors_axum::cors::postgres::PgOrigins;
    /// use cors_axum::cors::{OriginSet, TenantKey, TenantOrigins};
    /// use http::HeaderName;
    ///
    /// let source = PgOrigins::new("postgres://app@db/app", &OriginSet::new("tenants"))?;
    /// let source = source.tenant_hosts(&TenantOrigins::new("tenant_hosts"))?;
    /// assert!(source.schema_sql().contains("CREATE TABLE IF NOT EXISTS tenant_host_origins"));
    /// let by_header = TenantKey::header(HeaderName::from_static("x-tenant"));
    /// let err = source.tenant_hosts(&TenantOrigins::keyed_by("t", by_header)).unwrap_err();
    /// assert_eq!(err.field(), Some("tenant_origins"));
    /// # Ok::<(), cors_axum::cors::postgres::PgError>(())
    /// ```
    pub fn tenant_hosts(mut self, tenants: &TenantOrigins) -> Result<Self, PgError> {
        self.hosts = Some(Hosts::new(tenants)?);
        Ok(self)
    }

    /// How often the follow checks that the server answers and that the table and its
    /// triggers are there (5 s unless set; each question must be answered within the same
    /// time, so a silent server is noticed within twice it). A tenth of a second at least.
    #[must_use]
    pub fn check_every(mut self, every: Duration) -> Self {
        self.check_every = every.max(Duration::from_millis(100));
        self
    }

    /// The statements that create the table, its notifying function and its triggers when
    /// missing (and make the triggers fire always), and the same of the hosts' table with
    /// [`tenant_hosts`](Self::tenant_hosts); safe to run from several replicas at once.
    pub fn schema_sql(&self) -> String {
        let hosts = self.hosts.as_ref().map(|hosts| hosts.table.schema_sql());
        self.table.schema_sql() + &hosts.unwrap_or_default()
    }

    /// Creates the table and its triggers if missing ([`schema_sql`](Self::schema_sql)), over
    /// a connection of its own, bounded by the connect timeout.
    pub async fn create_table(&self) -> Result<(), PgError> {
        let failed =
            |why, source| PgError::database(format!("cannot create the table: {why}"), source);
        let (client, connection, _) = self.connect.open().await.map_err(|why| failed(why, None))?;
        let driver = tokio::spawn(connection);
        let (limit, sql) = (self.connect.timeout(), self.schema_sql());
        let done = tokio::time::timeout(limit, client.batch_execute(&sql)).await;
        drop(client);
        let _ = driver.await;
        match done {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => Err(failed(error::reason(&error), Some(error))),
            Err(_) => {
                let why = format!("no answer within the connect timeout ({limit:?})");
                Err(failed(why, None))
            }
        }
    }

    /// Reads the table into the set, then follows it, in a task of its own on the current
    /// runtime, while the returned [`PgFollow`] lives. Its logs go to the subscriber in force
    /// here.
    pub fn spawn(self) -> PgFollow {
        let mut tables: Vec<Box<dyn Followed>> = vec![Box::new(Rows::new(self.table, &self.set))];
        tables.extend(self.hosts.map(|hosts| Box::new(hosts) as Box<dyn Followed>));
        follow::spawn(self.connect, self.set, tables, self.check_every)
    }
}
