//! The follow: one task that connects, reads the table, applies its notifications, checks the
//! connection and the table's triggers, and starts again after a failure.

use std::collections::HashSet;
use std::convert::Infallible;
use std::pin::pin;
use std::time::{Duration, Instant};

use cors_axum_core::OriginSet;
use futures_core::Stream;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;
use tokio::time::{timeout, timeout_at};
use tokio_postgres::types::{FromSqlOwned, ToSql};
use tokio_postgres::{AsyncMessage, Client, Connection, Socket};
use tracing::instrument::WithSubscriber as _;

use super::connect::{Connect, TlsStream};
use super::error::{PgError, reason};
use super::table::{Followed, Health};

/// The first wait before reconnecting; it doubles up to [`MAX_BACKOFF`].
const MIN_BACKOFF: Duration = Duration::from_millis(100);
/// The longest wait between two attempts to reconnect.
const MAX_BACKOFF: Duration = Duration::from_secs(2);
/// The least time between two full reads asked by notifications: a flood of `NOTIFY t, '*'`
/// reads the table once a second.
const FULL_READ_GAP: Duration = Duration::from_secs(1);
/// The most notifications applied in one look-up.
const BATCH: usize = 10_000;

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
    /// The follow's task, stopped when this drops.
    _task: JoinSet<()>,
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

/// Starts the follow of `tables` (the table of origins, filling `set`, first) on the current
/// runtime; it logs through the subscriber of the caller.
pub(crate) fn spawn(
    connect: Connect,
    set: OriginSet,
    tables: Vec<Box<dyn Followed>>,
    check_every: Duration,
) -> PgFollow {
    let (sender, status) = watch::channel(PgStatus {
        loaded: false,
        following: false,
        stale_since: Some(Instant::now()),
        reason: None,
        full_reads: 0,
    });
    let follow = Follow {
        connect,
        set,
        tables,
        check_every,
        status: sender,
        last_full_read: None,
        fingerprint: None,
        failing: false,
        drift: Health::InStep,
        warned_plain_text: false,
    };
    let mut task = JoinSet::new();
    task.spawn(follow.run().with_current_subscriber());
    PgFollow {
        status,
        _task: task,
    }
}

struct Follow {
    connect: Connect,
    /// The set of the table of origins, for the logs.
    set: OriginSet,
    /// The table of origins, then the hosts' table if followed.
    tables: Vec<Box<dyn Followed>>,
    check_every: Duration,
    status: watch::Sender<PgStatus>,
    last_full_read: Option<Instant>,
    /// The tables' fingerprints taken just before the last full read: a notification that asks
    /// for one (`*`, which any role may send) reads the tables again only if they differ.
    fingerprint: Option<Vec<(i64, i64)>>,
    /// Whether a failure was logged and no recovery since.
    failing: bool,
    /// The tables' state last logged.
    drift: Health,
    warned_plain_text: bool,
}

/// One connection's notifications, in order: a channel and a payload, or why the connection
/// ended.
type Notified = mpsc::UnboundedReceiver<Result<(String, String), tokio_postgres::Error>>;

impl Follow {
    /// The table of origins' name, for the logs.
    fn name(&self) -> &str {
        &self.tables[0].table().name
    }

    /// Connects, reads, follows; on failure, waits and starts again. Logs the first failure of
    /// a series and the recovery after it.
    async fn run(mut self) {
        let mut backoff = MIN_BACKOFF;
        loop {
            let Err(reason) = self.session(&mut backoff).await;
            self.stale(reason.clone());
            if !std::mem::replace(&mut self.failing, true) {
                let served = match self.status.borrow().loaded {
                    true => "the last origins keep being served",
                    false => {
                        "the table is not read yet: none of its origins is allowed until it is"
                    }
                };
                tracing::error!(table = %self.name(), reason = %reason,
                    "origins: the database is unreachable; {served}; the connection is retried \
                     every {MAX_BACKOFF:?} at most");
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }

    /// One connection: `LISTEN`, read the tables, then apply notifications and check, until
    /// something fails; returns why.
    async fn session(&mut self, backoff: &mut Duration) -> Result<Infallible, String> {
        let (client, connection, host) = self.connect.open().await?;
        let (mut notified, _driver) = drive(connection);
        if !self.warned_plain_text
            && self
                .connect
                .plain_text_to_another_machine(&client, &host)
                .await
        {
            self.warned_plain_text = true;
            tracing::warn!(table = %self.name(), host = %host.label,
                "origins: the connection to the database is plain text, to another machine: \
                 anyone on the path can read it and grant origins by changing what it carries; \
                 use TLS (`sslmode=verify-full`, see the guide)");
        }
        let listen: String = self
            .tables
            .iter()
            .map(|t| format!("LISTEN {};", t.table().name))
            .collect();
        bounded(self.check_every, client.batch_execute(&listen)).await?;
        if self.check(&client).await? != Health::NoTable {
            self.full_read(&client, false).await?;
        }
        *backoff = MIN_BACKOFF;
        if std::mem::take(&mut self.failing) {
            tracing::info!(table = %self.name(), host = %host.label, origins = self.set.len(),
                "origins: the database is back, the table was read again");
        }
        self.follow(&client, &mut notified).await
    }

    /// Applies notifications as they come, and checks every `check_every`.
    async fn follow(
        &mut self,
        client: &Client,
        notified: &mut Notified,
    ) -> Result<Infallible, String> {
        let every = self.check_every;
        let mut next_check = Instant::now() + every;
        let mut full_read_due: Option<Instant> = None;
        loop {
            let wake = full_read_due.map_or(next_check, |due| due.min(next_check));
            match timeout_at(wake.into(), notified.recv()).await {
                Ok(Some(first)) => {
                    let (changed, full) = self.batch(first, notified)?;
                    if full {
                        full_read_due.get_or_insert_with(|| self.next_full_read());
                    }
                    self.patch(client, changed).await?;
                }
                Ok(None) => return Err("the server closed the connection".to_owned()),
                Err(_) => {}
            }
            let now = Instant::now();
            if next_check <= now {
                next_check = now + every;
                if self.check(client).await? == Health::TriggersOff {
                    full_read_due.get_or_insert_with(|| self.next_full_read());
                }
            }
            if full_read_due.is_some_and(|due| due <= now) {
                full_read_due = None;
                self.full_read(client, true).await?;
            }
        }
    }

    /// Asks whether the tables are there and their triggers fire, which also proves the
    /// connection alive; logs a change of their state once, and reads them whole when they
    /// come back in step.
    async fn check(&mut self, client: &Client) -> Result<Health, String> {
        let mut drift = (Health::InStep, String::new(), self.name().to_owned());
        for followed in &self.tables {
            let table = followed.table();
            let (exists, always) = self.ask_pair(client, &table.health_sql()).await?;
            let health = table.health(exists, always);
            if health != Health::InStep {
                drift = (health, table.drift_message(health), table.name.clone());
                break;
            }
        }
        let (health, why, name) = drift;
        if health != self.drift {
            self.drift = health;
            if health == Health::InStep {
                tracing::info!(table = %name,
                    "origins: the table and its triggers are back; the table is read again");
                self.full_read(client, false).await?;
            } else {
                tracing::error!(table = %name, "origins: {why}");
            }
        }
        if health != Health::InStep {
            self.stale(why);
        }
        Ok(health)
    }

    /// When a full read may come: now, or a second after the last one.
    fn next_full_read(&self) -> Instant {
        let now = Instant::now();
        self.last_full_read
            .map_or(now, |last| (last + FULL_READ_GAP).max(now))
    }

    /// How many rows each table has, and the sum of their hashes.
    async fn fingerprint(&self, client: &Client) -> Result<Vec<(i64, i64)>, String> {
        let mut fingerprint = Vec::with_capacity(self.tables.len());
        for followed in &self.tables {
            let sql = followed.table().fingerprint_sql();
            fingerprint.push(self.ask_pair(client, &sql).await?);
        }
        Ok(fingerprint)
    }

    /// Replaces the sets with the whole tables; `if_changed` (the full read a notification
    /// asks for) only if the tables' fingerprints differ from those of the last one: a flood of
    /// `NOTIFY t, '*'` from any role costs one pass of the server over the tables a second, and
    /// nothing here. The fingerprints are taken before a full read, so a change made meanwhile
    /// makes the next ones differ, and its own notification patches the set anyway.
    async fn full_read(&mut self, client: &Client, if_changed: bool) -> Result<(), String> {
        let fingerprint = Some(self.fingerprint(client).await?);
        if if_changed && self.fingerprint == fingerprint {
            self.last_full_read = Some(Instant::now());
            return Ok(());
        }
        self.fingerprint = fingerprint;
        let every = self.check_every;
        for followed in &mut self.tables {
            let sql = followed.table().select_all_sql();
            let (rows, not_utf8) = read(client, &sql, &[], every).await?;
            followed.replace(&rows, not_utf8);
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

    /// Looks up the rows the notifications named, table by table, and patches the sets.
    async fn patch(
        &mut self,
        client: &Client,
        changed: Vec<HashSet<String>>,
    ) -> Result<(), String> {
        let every = self.check_every;
        for (followed, changed) in self.tables.iter_mut().zip(changed) {
            if changed.is_empty() {
                continue;
            }
            let lookups = followed.lookups(&changed);
            let sql = followed.table().select_some_sql();
            let (found, _) = read(client, &sql, &[&lookups], every).await?;
            followed.patch(&changed, &lookups, found);
        }
        Ok(())
    }

    /// The notifications that came together: for each table, the rows they name (on its
    /// channel), and whether one asks for a full read (`*`, or no payload).
    fn batch(
        &self,
        first: Result<(String, String), tokio_postgres::Error>,
        notified: &mut Notified,
    ) -> Result<(Vec<HashSet<String>>, bool), String> {
        let mut changed = vec![HashSet::new(); self.tables.len()];
        let (mut full, mut count) = (false, 0usize);
        let mut next = Some(first);
        while let Some(message) = next {
            let (channel, payload) = message.map_err(|error| reason(&error))?;
            if payload.is_empty() || payload == "*" {
                full = true;
            } else {
                let table = self.tables.iter().position(|t| t.table().name == channel);
                count += usize::from(changed[table.unwrap_or(0)].insert(payload));
            }
            next = (count < BATCH).then(|| notified.try_recv().ok()).flatten();
        }
        Ok((changed, full))
    }

    /// The two values of the one row `sql` answers.
    async fn ask_pair<A: FromSqlOwned, B: FromSqlOwned>(
        &self,
        client: &Client,
        sql: &str,
    ) -> Result<(A, B), String> {
        let row = bounded(self.check_every, client.query_one(sql, &[])).await?;
        let pair = row.try_get(0).and_then(|a| Ok((a, row.try_get(1)?)));
        pair.map_err(|error| reason(&error))
    }

    fn stale(&self, reason: String) {
        self.status.send_modify(|s| {
            s.following = false;
            s.stale_since.get_or_insert_with(Instant::now);
            s.reason = Some(reason);
        });
    }
}

/// `future`, a request to the server, given `every` to answer.
async fn bounded<T>(
    every: Duration,
    future: impl Future<Output = Result<T, tokio_postgres::Error>>,
) -> Result<T, String> {
    match timeout(every, future).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(error)) => Err(reason(&error)),
        Err(_) => Err(format!(
            "the server did not answer within {every:?}: the connection is taken for lost"
        )),
    }
}

/// The rows of a query, each awaited at most `every`: a server that stops sending in the
/// middle is noticed as a silent one is. Rows that are not UTF-8 come apart, as lossy text.
async fn read(
    client: &Client,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
    every: Duration,
) -> Result<(Vec<String>, Vec<String>), String> {
    let stream = bounded(every, client.query_raw(sql, params.iter().copied())).await?;
    let mut stream = pin!(stream);
    let (mut rows, mut not_utf8) = (Vec::new(), Vec::new());
    loop {
        let next = std::future::poll_fn(|cx| stream.as_mut().poll_next(cx));
        let Some(row) = bounded(every, async { next.await.transpose() }).await? else {
            return Ok((rows, not_utf8));
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

/// Drives the connection in a task of its own (stopped when the returned set drops), its
/// notifications sent to the receiver.
fn drive(mut connection: Connection<Socket, TlsStream>) -> (Notified, JoinSet<()>) {
    let (tx, notified) = mpsc::unbounded_channel();
    let mut driver = JoinSet::new();
    driver.spawn(async move {
        while let Some(message) = std::future::poll_fn(|cx| connection.poll_message(cx)).await {
            let notification = match message {
                Ok(AsyncMessage::Notification(n)) => {
                    Ok((n.channel().to_owned(), n.payload().to_owned()))
                }
                Ok(_) => continue,
                Err(error) => Err(error),
            };
            let ended = notification.is_err();
            if tx.send(notification).is_err() || ended {
                break;
            }
        }
    });
    (notified, driver)
}
