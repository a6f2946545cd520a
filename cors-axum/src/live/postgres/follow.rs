//! The follow: one task that connects, reads the table, applies its notifications, checks the
//! connection and the table's triggers, and starts again after a failure.

use std::collections::HashSet;
use std::pin::pin;
use std::time::{Duration, Instant};

use futures_core::Stream;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::{timeout, timeout_at};
use tokio_postgres::types::ToSql;
use tokio_postgres::{AsyncMessage, Client, Connection, Socket};
use tracing::instrument::WithSubscriber as _;

use super::connect::{Connect, Opened, TlsStream};
use super::error::{PgError, reason};
use super::hosts::Hosts;
use super::spelling::{Refused, Rows};
use super::table::{Health, Table};

/// The first wait before reconnecting; it doubles up to [`MAX_BACKOFF`].
const MIN_BACKOFF: Duration = Duration::from_millis(100);
/// The longest wait between two attempts to reconnect.
const MAX_BACKOFF: Duration = Duration::from_secs(2);
/// The least time between two full reads asked by notifications: a flood of `NOTIFY t, '*'`
/// reads the table once a second.
const FULL_READ_GAP: Duration = Duration::from_secs(1);
/// The most notifications applied in one look-up.
const BATCH: usize = 10_000;

/// What a follow needs, given by [`PgOrigins::spawn`](super::PgOrigins::spawn).
pub(crate) struct Setup {
    pub(crate) connect: Connect,
    pub(crate) table: Table,
    pub(crate) rows: Rows,
    /// The hosts' table, followed on the same connection.
    pub(crate) hosts: Option<Hosts>,
    pub(crate) check_every: Duration,
}

/// Where the follow stands, for an application's readiness: see [`PgFollow::status`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct PgStatus {
    /// Whether the table has been read whole: until then the set holds none of its origins.
    pub loaded: bool,
    /// Whether the set is in step with the table now: connected, listening, the last check
    /// answered, the table there and its triggers firing.
    pub following: bool,
    /// Since when it is not in step (since the start, until the first read); `None` while it is.
    pub stale_since: Option<Instant>,
    /// Why it is not in step, the last reason.
    pub reason: Option<String>,
    /// How many times the table has been read whole: at start, after each reconnection, and
    /// for notifications that ask for it (at most once a second).
    pub full_reads: u64,
}

impl PgStatus {
    /// Whether the set may serve: read, and in step or stale for at most `max_stale` (a
    /// database restarting for a second need not take every replica out of service).
    pub fn is_ready(&self, max_stale: Duration) -> bool {
        self.loaded
            && self
                .stale_since
                .is_none_or(|since| since.elapsed() <= max_stale)
    }
}

/// The task of [`PgOrigins::spawn`](super::PgOrigins::spawn), following the table while this
/// handle lives: dropping it stops the follow (its connection is closed; the set keeps the
/// origins it holds, no longer changed).
#[must_use = "the table is followed only while the `PgFollow` lives"]
#[derive(Debug)]
pub struct PgFollow {
    status: watch::Receiver<PgStatus>,
    task: JoinHandle<()>,
}

impl Drop for PgFollow {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl PgFollow {
    /// Waits until the table has been read once, at most `timeout`; the error says why it was
    /// not (the last connection's failure). The follow goes on either way: serve without the
    /// table's origins meanwhile (they are refused until it is read), or stop, as the
    /// application decides.
    pub async fn ready(&self, timeout: Duration) -> Result<(), PgError> {
        let mut status = self.status.clone();
        let loaded = tokio::time::timeout(timeout, status.wait_for(|s| s.loaded)).await;
        if matches!(loaded, Ok(Ok(_))) {
            return Ok(());
        }
        let why = self.status.borrow().reason.clone();
        Err(PgError::database(
            format!(
                "the table was not read within {timeout:?}: {}; the follow keeps trying",
                why.as_deref().unwrap_or("no answer yet")
            ),
            None,
        ))
    }

    /// Where the follow stands now: whether the table was read, whether the set is in step,
    /// since when not, and why.
    pub fn status(&self) -> PgStatus {
        self.status.borrow().clone()
    }
}

/// Starts the follow on the current runtime; it logs through the subscriber of the caller.
pub(crate) fn spawn(setup: Setup) -> PgFollow {
    let (sender, status) = watch::channel(PgStatus {
        loaded: false,
        following: false,
        stale_since: Some(Instant::now()),
        reason: None,
        full_reads: 0,
    });
    let follow = Follow {
        setup,
        status: sender,
        last_full_read: None,
        fingerprint: None,
        failing: false,
        drift: Health::InStep,
        warned_plain_text: false,
    };
    let task = tokio::spawn(follow.run().with_current_subscriber());
    PgFollow { status, task }
}

struct Follow {
    setup: Setup,
    status: watch::Sender<PgStatus>,
    last_full_read: Option<Instant>,
    /// The tables' fingerprints taken just before the last full read: a notification that asks
    /// for one (`*`, which any role may send) reads the tables again only if they differ.
    fingerprint: Option<Vec<(i64, i64)>>,
    /// Whether a failure was logged and no recovery since.
    failing: bool,
    /// The table's state last logged.
    drift: Health,
    warned_plain_text: bool,
}

/// One connection's notifications, in order: a channel and a payload, or why the connection
/// ended.
type Notified = mpsc::UnboundedReceiver<Result<(String, String), tokio_postgres::Error>>;

impl Follow {
    /// Connects, reads, follows; on failure, waits and starts again. Logs the first failure of
    /// a series and the recovery after it.
    async fn run(mut self) {
        let mut backoff = MIN_BACKOFF;
        loop {
            let reason = self.session(&mut backoff).await;
            self.stale(&reason);
            if !self.failing {
                self.failing = true;
                let table = &self.setup.table.name;
                if self.status.borrow().loaded {
                    tracing::error!(table = %table, reason = %reason,
                        "origins: the database is unreachable; the last origins keep being \
                         served, and the connection is retried every {MAX_BACKOFF:?} at most");
                } else {
                    tracing::error!(table = %table, reason = %reason,
                        "origins: the database is unreachable, the table is not read yet: none \
                         of its origins is allowed until it is; the connection is retried \
                         every {MAX_BACKOFF:?} at most");
                }
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }

    /// One connection: `LISTEN`, read the table, then apply notifications and check, until
    /// something fails; returns why.
    async fn session(&mut self, backoff: &mut Duration) -> String {
        let opened = match self.setup.connect.open().await {
            Ok(opened) => opened,
            Err(reason) => return reason,
        };
        let Opened {
            client,
            connection,
            host,
        } = opened;
        let (mut notified, _driver) = drive(connection);
        if !self.warned_plain_text
            && self
                .setup
                .connect
                .plain_text_to_another_machine(&client, &host)
                .await
        {
            self.warned_plain_text = true;
            tracing::warn!(table = %self.setup.table.name, host = %host.label,
                "origins: the connection to the database is plain text, to another machine: \
                 anyone on the path can read it and grant origins by changing what it carries; \
                 use TLS (`sslmode=verify-full`, see the guide)");
        }
        let mut listen = self.setup.table.listen_sql();
        if let Some(hosts) = &self.setup.hosts {
            listen = format!("{listen}; {}", hosts.table.listen_sql());
        }
        if let Err(why) = self.bounded(client.batch_execute(&listen)).await {
            return why;
        }
        match self.check(&client).await {
            Ok(Health::NoTable) => {}
            Ok(_) => {
                if let Err(why) = self.full_read(&client).await {
                    return why;
                }
            }
            Err(why) => return why,
        }
        *backoff = MIN_BACKOFF;
        if std::mem::take(&mut self.failing) {
            tracing::info!(table = %self.setup.table.name, host = %host.label, origins = self.setup.rows.len(),
                "origins: the database is back, the table was read again");
        }
        self.follow(&client, &mut notified).await
    }

    /// Applies notifications as they come, and checks every `check_every`.
    async fn follow(&mut self, client: &Client, notified: &mut Notified) -> String {
        let every = self.setup.check_every;
        let mut next_check = Instant::now() + every;
        let mut full_read_due: Option<Instant> = None;
        loop {
            let wake = full_read_due.map_or(next_check, |due| due.min(next_check));
            match timeout_at(wake.into(), notified.recv()).await {
                Ok(Some(first)) => {
                    let hosts_channel = self.setup.hosts.as_ref().map(Hosts::name);
                    let (rows, hosts, full) = match batch(first, notified, hosts_channel) {
                        Ok(batch) => batch,
                        Err(why) => return why,
                    };
                    if full {
                        full_read_due.get_or_insert_with(|| self.next_full_read());
                    }
                    if !rows.is_empty()
                        && let Err(why) = self.patch(client, rows).await
                    {
                        return why;
                    }
                    if !hosts.is_empty()
                        && let Err(why) = self.patch_hosts(client, hosts).await
                    {
                        return why;
                    }
                }
                Ok(None) => return "the server closed the connection".to_owned(),
                Err(_) => {}
            }
            let now = Instant::now();
            if next_check <= now {
                next_check = now + every;
                match self.check(client).await {
                    Ok(Health::TriggersOff) => {
                        full_read_due.get_or_insert_with(|| self.next_full_read());
                    }
                    Ok(_) => {}
                    Err(why) => return why,
                }
            }
            if full_read_due.is_some_and(|due| due <= now) {
                full_read_due = None;
                if let Err(why) = self.full_read_if_changed(client).await {
                    return why;
                }
            }
        }
    }

    /// Asks whether the table is there and its triggers fire, which also proves the
    /// connection alive; logs a change of the table's state once, and reads it whole when it
    /// comes back in step.
    async fn check(&mut self, client: &Client) -> Result<Health, String> {
        let mut table = &self.setup.table;
        let mut health = self.health(client, table).await?;
        if let Some(hosts) = &self.setup.hosts
            && health == Health::InStep
        {
            table = &hosts.table;
            health = self.health(client, table).await?;
        }
        let (name, why) = (table.name.clone(), table.drift_message(health));
        if health != self.drift {
            if health == Health::InStep {
                tracing::info!(table = %name,
                    "origins: the table and its triggers are back; the table is read again");
                self.drift = health;
                self.full_read(client).await?;
            } else {
                tracing::error!(table = %name, "origins: {why}");
                self.drift = health;
            }
        }
        if health != Health::InStep {
            self.status.send_modify(|s| {
                s.following = false;
                s.stale_since.get_or_insert_with(Instant::now);
                s.reason = Some(why);
            });
        }
        Ok(health)
    }

    /// Whether `table` is there and its triggers fire.
    async fn health(&self, client: &Client, table: &Table) -> Result<Health, String> {
        let sql = table.health_sql();
        let row = self.bounded(client.query_one(&sql, &[])).await?;
        match (row.try_get(0), row.try_get(1)) {
            (Ok(exists), Ok(always)) => Ok(table.health(exists, always)),
            _ => Err("the check of the table answered something else".to_owned()),
        }
    }

    /// When a full read may come: now, or a second after the last one.
    fn next_full_read(&self) -> Instant {
        let now = Instant::now();
        self.last_full_read
            .map_or(now, |last| (last + FULL_READ_GAP).max(now))
    }

    /// The full read a notification asks for, made only if the tables' fingerprints differ
    /// from those of the last one: a flood of `NOTIFY t, '*'` from any role costs one pass of
    /// the server over the tables a second, and nothing here. The fingerprints are taken before
    /// a full read, so a change made meanwhile makes the next ones differ, and its own
    /// notification patches the set anyway.
    async fn full_read_if_changed(&mut self, client: &Client) -> Result<(), String> {
        let fingerprint = self.fingerprint(client).await?;
        if self.fingerprint.as_ref() == Some(&fingerprint) {
            self.last_full_read = Some(Instant::now());
            return Ok(());
        }
        self.full_read(client).await
    }

    /// How many rows each table has, and the sum of their hashes.
    async fn fingerprint(&self, client: &Client) -> Result<Vec<(i64, i64)>, String> {
        let sqls = std::iter::once(self.setup.table.fingerprint_sql())
            .chain(self.setup.hosts.as_ref().map(Hosts::fingerprint_sql));
        let mut fingerprint = Vec::with_capacity(2);
        for sql in sqls {
            let row = self.bounded(client.query_one(&sql, &[])).await?;
            match (row.try_get(0), row.try_get(1)) {
                (Ok(count), Ok(sum)) => fingerprint.push((count, sum)),
                _ => return Err("the fingerprint of the table answered something else".to_owned()),
            }
        }
        Ok(fingerprint)
    }

    /// Replaces the set with the whole table.
    async fn full_read(&mut self, client: &Client) -> Result<(), String> {
        self.fingerprint = Some(self.fingerprint(client).await?);
        let sql = self.setup.table.select_all_sql();
        let (rows, not_utf8) = self.read(client, &sql, &[]).await?;
        let refused = self.setup.rows.replace(&rows, not_utf8);
        self.log(&self.setup.table.name, refused);
        if let Some(sql) = self.setup.hosts.as_ref().map(Hosts::select_all_sql) {
            let (rows, not_utf8) = self.read(client, &sql, &[]).await?;
            if let Some(hosts) = &mut self.setup.hosts {
                let refused = hosts.replace(&rows, not_utf8);
                let name = hosts.name().to_owned();
                self.log(&name, refused);
            }
        }
        self.last_full_read = Some(Instant::now());
        let in_step = self.drift == Health::InStep;
        self.status.send_modify(|s| {
            s.loaded = true;
            s.full_reads += 1;
            if in_step {
                s.following = true;
                s.stale_since = None;
                s.reason = None;
            }
        });
        Ok(())
    }

    /// Looks the changed rows up (the notifications name them) and patches the set.
    async fn patch(&mut self, client: &Client, changed: HashSet<String>) -> Result<(), String> {
        let lookups = Rows::lookups(&changed);
        let sql = self.setup.table.select_some_sql();
        let (present, _) = self.read(client, &sql, &[&lookups]).await?;
        let present: HashSet<String> = present.into_iter().collect();
        let refused = self.setup.rows.patch(&changed, &present);
        self.log(&self.setup.table.name, refused);
        Ok(())
    }

    /// Reads the rows of the notified hosts again and replaces their origins.
    async fn patch_hosts(
        &mut self,
        client: &Client,
        changed: HashSet<String>,
    ) -> Result<(), String> {
        let Some(hosts) = &mut self.setup.hosts else {
            return Ok(());
        };
        let (keys, refused) = hosts.keys(&changed);
        let (sql, name) = (hosts.select_some_sql(), hosts.name().to_owned());
        self.log(&name, refused);
        let (rows, _) = self.read(client, &sql, &[&keys]).await?;
        if let Some(hosts) = &mut self.setup.hosts {
            let refused = hosts.patch(&keys, &rows);
            self.log(&name, refused);
        }
        Ok(())
    }

    /// The rows of a query, each awaited at most `check_every`: a server that stops sending in
    /// the middle is noticed as a silent one is. Rows that are not UTF-8 come apart, as lossy
    /// text.
    async fn read(
        &self,
        client: &Client,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<(Vec<String>, Vec<String>), String> {
        let stream = self
            .bounded(client.query_raw(sql, params.iter().copied()))
            .await?;
        let mut stream = pin!(stream);
        let (mut rows, mut not_utf8) = (Vec::new(), Vec::new());
        let every = self.setup.check_every;
        loop {
            let next = std::future::poll_fn(|cx| stream.as_mut().poll_next(cx));
            let row = match timeout(every, next).await {
                Err(_) => return Err(silent(every)),
                Ok(None) => return Ok((rows, not_utf8)),
                Ok(Some(Err(error))) => return Err(reason(&error)),
                Ok(Some(Ok(row))) => row,
            };
            match row.try_get::<_, Option<&[u8]>>(0) {
                Ok(Some(bytes)) => match std::str::from_utf8(bytes) {
                    Ok(text) => rows.push(text.to_owned()),
                    Err(_) => not_utf8.push(String::from_utf8_lossy(bytes).into_owned()),
                },
                Ok(None) => {}
                Err(error) => return Err(reason(&error)),
            }
        }
    }

    /// `future`, a request to the server, given `check_every` to answer.
    async fn bounded<T>(
        &self,
        future: impl Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> Result<T, String> {
        match timeout(self.setup.check_every, future).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(error)) => Err(reason(&error)),
            Err(_) => Err(silent(self.setup.check_every)),
        }
    }

    fn stale(&self, reason: &str) {
        self.status.send_modify(|s| {
            s.following = false;
            s.stale_since.get_or_insert_with(Instant::now);
            s.reason = Some(reason.to_owned());
        });
    }

    fn log(&self, table: &str, refused: Refused) {
        for (row, why) in refused.0 {
            tracing::warn!(table = %table, row = %row.escape_debug(),
                "origins: a row is skipped: {}", why.escape_debug());
        }
    }
}

fn silent(every: Duration) -> String {
    format!("the server did not answer within {every:?}: the connection is taken for lost")
}

/// The notifications that came together: the rows they name, the hosts those on the channel
/// of the hosts' table name, and whether one asks for a full read (`*`, or no payload).
fn batch(
    first: Result<(String, String), tokio_postgres::Error>,
    notified: &mut Notified,
    hosts_channel: Option<&str>,
) -> Result<(HashSet<String>, HashSet<String>, bool), String> {
    let (mut rows, mut hosts) = (HashSet::new(), HashSet::new());
    let mut full = false;
    let mut next = Some(first);
    while let Some(message) = next {
        match message {
            Ok((_, payload)) if payload.is_empty() || payload == "*" => full = true,
            Ok((channel, payload)) if Some(channel.as_str()) == hosts_channel => {
                hosts.insert(payload);
            }
            Ok((_, payload)) => {
                rows.insert(payload);
            }
            Err(error) => return Err(reason(&error)),
        }
        next = (rows.len() + hosts.len() < BATCH)
            .then(|| notified.try_recv().ok())
            .flatten();
    }
    Ok((rows, hosts, full))
}

/// Drives the connection in a task of its own (stopped when the returned guard drops), its
/// notifications sent to the receiver.
fn drive(mut connection: Connection<Socket, TlsStream>) -> (Notified, AbortOnDrop) {
    let (tx, notified) = mpsc::unbounded_channel();
    let driver = tokio::spawn(async move {
        loop {
            let message = std::future::poll_fn(|cx| connection.poll_message(cx)).await;
            let sent = match message {
                Some(Ok(AsyncMessage::Notification(n))) => {
                    tx.send(Ok((n.channel().to_owned(), n.payload().to_owned())))
                }
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
    (notified, AbortOnDrop(driver))
}

/// Stops the connection's task when the session ends.
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
