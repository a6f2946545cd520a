//! Allowed origins from a PostgreSQL table, kept in step on every replica (feature `postgres`).
//!
//! [`PgOrigins`] fills an [`OriginSet`] from a table of one text column, then follows it: a
//! trigger on the table (made by [`PgOrigins::create_table`]) sends the changed origin with
//! `NOTIFY`, and every replica listening re-reads that row and patches its set, within
//! milliseconds, without polling. Requests never wait on the database: they read the set in
//! memory. While the database is unreachable the last set keeps being served and the
//! connection is retried with backoff (100 ms doubling to 2 s); after reconnecting the whole
//! table is read again, so no change made in between is lost. A failure is logged once, with
//! its reason, and the recovery once.
//!
//! ```no_run
//! use cors_axum::cors::OriginSet;
//! use cors_axum::cors::postgres::PgOrigins;
//!
//! # async fn run() -> Result<(), tokio_postgres::Error> {
//! let tenants = OriginSet::new("tenants");
//! let source = PgOrigins::new("postgres://app@db/app", &tenants);
//! source.create_table().await?;
//! let follow = source.spawn();
//! follow.loaded(std::time::Duration::from_secs(5)).await;
//! # Ok(()) }
//! ```
//!
//! A table or column name that is not a plain identifier is refused:
//!
//! ```
//! use cors_axum::cors::OriginSet;
//! use cors_axum::cors::postgres::PgOrigins;
//!
//! let source = PgOrigins::new("postgres://app@db/app", &OriginSet::new("tenants"));
//! assert_eq!(source.clone().table("origins; DROP", "origin").unwrap_err().field(), "table");
//! assert!(source.table("customer_origins", "origin").is_ok());
//! ```
//!
//! See the guide's section "Origins from a database" for the table, the trigger and two
//! replicas.

use std::collections::HashSet;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio_postgres::{AsyncMessage, Client, Config, NoTls};

use crate::cors::OriginSet;
use cors_axum_core::CorsConfigError;

/// The first wait before reconnecting; it doubles up to [`MAX_BACKOFF`].
const MIN_BACKOFF: Duration = Duration::from_millis(100);
/// The longest wait between two attempts to reconnect.
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// An [`OriginSet`] loaded from a PostgreSQL table and kept in step with it: see the
/// [module](self). The table is `tenant_origins(origin text primary key)` unless set with
/// [`table`](Self::table); its notification channel has the table's name.
#[derive(Clone, Debug)]
pub struct PgOrigins {
    url: String,
    set: OriginSet,
    table: String,
    column: String,
}

/// The background task of [`PgOrigins::spawn`]: whether the table was read, and a way to stop.
#[derive(Debug)]
pub struct PgFollow {
    loads: watch::Receiver<u64>,
    task: JoinHandle<()>,
}

impl PgFollow {
    /// Waits until the table has been read once, at most `timeout`; whether it was.
    pub async fn loaded(&self, timeout: Duration) -> bool {
        let mut loads = self.loads.clone();
        tokio::time::timeout(timeout, loads.wait_for(|&n| n > 0))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// How many times the whole table has been read: once at start, once per reconnection.
    pub fn loads(&self) -> u64 {
        *self.loads.borrow()
    }

    /// Stops following the table; the set keeps its origins.
    pub fn stop(self) {
        self.task.abort();
    }
}

/// A table or column name that [`PgOrigins::table`] refuses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameError {
    field: &'static str,
    name: String,
}

impl NameError {
    /// `table` or `column`.
    pub fn field(&self) -> &'static str {
        self.field
    }
}

impl std::fmt::Display for NameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: `{}` is not a lowercase identifier (letters, digits and `_`, not starting with \
             a digit, shorter than 60 bytes)",
            self.field, self.name
        )
    }
}

impl std::error::Error for NameError {}

/// Whether `name` may be written unquoted as a PostgreSQL identifier.
fn is_identifier(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b == b'_')
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && name.len() < 60
}

impl PgOrigins {
    /// Origins of the table `tenant_origins`, column `origin`, of the database at `url` (a
    /// connection string: `postgres://user:password@host:port/database` or
    /// `host=.. user=..`), into `set`.
    pub fn new(url: impl Into<String>, set: &OriginSet) -> Self {
        PgOrigins {
            url: url.into(),
            set: set.clone(),
            table: "tenant_origins".to_owned(),
            column: "origin".to_owned(),
        }
    }

    /// Another table and column (the channel takes the table's name): lowercase identifiers
    /// of letters, digits and `_`, shorter than 60 bytes; anything else is an error naming
    /// `table` or `column`.
    pub fn table(mut self, table: &str, column: &str) -> Result<Self, NameError> {
        for (field, name) in [("table", table), ("column", column)] {
            if !is_identifier(name) {
                return Err(NameError {
                    field,
                    name: name.to_owned(),
                });
            }
        }
        self.table = table.to_owned();
        self.column = column.to_owned();
        Ok(self)
    }

    /// The statements that create the table, its notifying function and its triggers when
    /// missing; safe to run from several replicas at once.
    pub fn schema_sql(&self) -> String {
        let (table, column) = (&self.table, &self.column);
        format!(
            "BEGIN;
             SELECT pg_advisory_xact_lock(hashtext('{table}'));
             CREATE TABLE IF NOT EXISTS {table} ({column} text PRIMARY KEY);
             CREATE OR REPLACE FUNCTION {table}_notify() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
                 IF TG_OP = 'TRUNCATE' THEN
                     PERFORM pg_notify('{table}', '*');
                     RETURN NULL;
                 END IF;
                 IF TG_OP IN ('DELETE', 'UPDATE') THEN
                     PERFORM pg_notify('{table}', OLD.{column});
                 END IF;
                 IF TG_OP IN ('INSERT', 'UPDATE') THEN
                     PERFORM pg_notify('{table}', NEW.{column});
                 END IF;
                 RETURN NULL;
             END $$;
             CREATE OR REPLACE TRIGGER {table}_notify AFTER INSERT OR UPDATE OR DELETE ON {table}
                 FOR EACH ROW EXECUTE FUNCTION {table}_notify();
             CREATE OR REPLACE TRIGGER {table}_notify_truncate AFTER TRUNCATE ON {table}
                 FOR EACH STATEMENT EXECUTE FUNCTION {table}_notify();
             COMMIT;"
        )
    }

    /// Creates the table and its triggers if missing ([`schema_sql`](Self::schema_sql)).
    pub async fn create_table(&self) -> Result<(), tokio_postgres::Error> {
        let (client, connection) = self.config()?.connect(NoTls).await?;
        let driver = tokio::spawn(connection);
        let done = client.batch_execute(&self.schema_sql()).await;
        drop(client);
        let _ = driver.await;
        done
    }

    fn config(&self) -> Result<Config, tokio_postgres::Error> {
        let mut config: Config = self.url.parse()?;
        config
            .connect_timeout(Duration::from_secs(5))
            .keepalives_idle(Duration::from_secs(30));
        Ok(config)
    }

    /// Reads the table into the set, then follows it, in a task of its own, until stopped.
    pub fn spawn(self) -> PgFollow {
        let (loaded, loads) = watch::channel(0);
        let task = tokio::spawn(async move { self.follow(loaded).await });
        PgFollow { loads, task }
    }

    /// Connects, reads, follows; on failure, waits and starts again. Logs the first failure of
    /// a series and the recovery after it.
    async fn follow(self, loaded: watch::Sender<u64>) {
        let mut backoff = MIN_BACKOFF;
        let mut failing = false;
        loop {
            let on_load = || {
                if failing {
                    tracing::info!(table = %self.table, origins = self.set.len(),
                        "origins: the database is back, the table was read again");
                }
                failing = false;
                backoff = MIN_BACKOFF;
                loaded.send_modify(|n| *n += 1);
            };
            let reason = self.session(on_load).await;
            if !failing {
                tracing::error!(table = %self.table, reason = %reason,
                    "origins: the database is unreachable; the last origins keep being \
                     served, and the connection is retried");
                failing = true;
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }

    /// One connection: `LISTEN`, read the table, then apply the notifications until the
    /// connection fails; returns why.
    async fn session(&self, on_load: impl FnOnce()) -> String {
        let connected = match self.config() {
            Ok(config) => config.connect(NoTls).await,
            Err(error) => Err(error),
        };
        let (client, mut connection) = match connected {
            Ok(connected) => connected,
            Err(error) => return reason(&error),
        };
        let (tx, mut notified) = mpsc::unbounded_channel();
        let driver = tokio::spawn(async move {
            loop {
                let message = std::future::poll_fn(|cx| connection.poll_message(cx)).await;
                let sent = match message {
                    Some(Ok(AsyncMessage::Notification(n))) => tx.send(Ok(n.payload().to_owned())),
                    Some(Ok(_)) => Ok(()),
                    Some(Err(error)) => {
                        let _ = tx.send(Err(error));
                        break;
                    }
                    None => break,
                };
                if sent.is_err() {
                    break;
                }
            }
        });
        let _stop = AbortOnDrop(driver);
        if let Err(error) = self.listen_and_load(&client).await {
            return reason(&error);
        }
        on_load();
        loop {
            let Some(first) = notified.recv().await else {
                return "the server closed the connection".to_owned();
            };
            let mut changed = HashSet::new();
            let mut next = Some(first);
            while let Some(message) = next {
                match message {
                    Ok(origin) => changed.insert(origin),
                    Err(error) => return reason(&error),
                };
                next = notified.try_recv().ok();
            }
            if let Err(error) = self.apply(&client, changed).await {
                return reason(&error);
            }
        }
    }

    async fn listen_and_load(&self, client: &Client) -> Result<(), tokio_postgres::Error> {
        client
            .batch_execute(&format!("LISTEN {}", self.table))
            .await?;
        self.load(client).await
    }

    /// Replaces the set with the whole table.
    async fn load(&self, client: &Client) -> Result<(), tokio_postgres::Error> {
        let query = format!("SELECT {} FROM {}", self.column, self.table);
        let rows = client.query(&query, &[]).await?;
        let origins = rows.iter().filter_map(|row| row.get::<_, Option<&str>>(0));
        self.log_rejected(self.set.replace_all(origins));
        Ok(())
    }

    /// Re-reads the changed origins (the notifications name them) and patches the set: present
    /// rows are added, absent ones removed, whatever order the changes came in.
    async fn apply(
        &self,
        client: &Client,
        changed: HashSet<String>,
    ) -> Result<(), tokio_postgres::Error> {
        if changed.contains("*") {
            return self.load(client).await;
        }
        let changed: Vec<String> = changed.into_iter().collect();
        let query = format!(
            "SELECT {column} FROM {table} WHERE {column} = ANY($1)",
            table = self.table,
            column = self.column
        );
        let rows = client.query(&query, &[&changed]).await?;
        let present: HashSet<&str> = rows.iter().map(|row| row.get::<_, &str>(0)).collect();
        let absent = changed.iter().filter(|o| !present.contains(o.as_str()));
        self.log_rejected(self.set.patch(&present, absent));
        Ok(())
    }

    fn log_rejected(&self, rejected: Vec<CorsConfigError>) {
        for error in rejected {
            tracing::warn!(table = %self.table, %error, "origins: a row is not an allowed origin; skipped");
        }
    }
}

/// Stops the connection's task when the session ends.
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// An error of the client with its cause (the server's message, the socket's error).
fn reason(error: &tokio_postgres::Error) -> String {
    match std::error::Error::source(error) {
        Some(source) => format!("{error}: {source}"),
        None => error.to_string(),
    }
}
