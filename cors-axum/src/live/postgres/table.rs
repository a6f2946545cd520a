//! The tables followed: their names, checked, the SQL that creates them, reads them and checks
//! that their changes still notify, and what a table fills ([`Followed`]).

use std::collections::HashSet;

use cors_axum_core::CorsConfigError;

use super::error::PgError;

/// PostgreSQL's longest identifier, in bytes; a longer one is cut there, silently.
const LONGEST_IDENTIFIER: usize = 63;

/// The longest name made from the table's: its statement trigger, `<table>_notify_truncate`.
const LONGEST_SUFFIX: &str = "_notify_truncate";

/// The hosts' table, and its channel.
pub(crate) const HOSTS: &str = "tenant_host_origins";

/// A host's key as SQL writes it, as [`TenantKey::host`](cors_axum_core::TenantKey::host)
/// does for the hosts it takes.
const HOST_KEY_SQL: &str = "lower(rtrim(host, '.'))";

/// A followed table: one of origins, its column a plain identifier, or the hosts' table of
/// `(host, origin)` rows; each name short enough that no name made from it is cut by
/// PostgreSQL.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    pub(crate) name: String,
    /// The column of origins, or `host` in the hosts' table.
    pub(crate) column: String,
    /// Whether it is the hosts' table.
    of_hosts: bool,
}

/// Whether `name` may be written unquoted as a PostgreSQL identifier.
fn is_identifier(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b == b'_')
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

impl Table {
    /// Checks both names; an error names the field, what is wrong and how long it may be.
    pub(crate) fn new(table: &str, column: &str) -> Result<Self, PgError> {
        let longest_table = LONGEST_IDENTIFIER - LONGEST_SUFFIX.len();
        for (field, name, longest) in [
            ("table", table, longest_table),
            ("column", column, LONGEST_IDENTIFIER),
        ] {
            let why = if !is_identifier(name) {
                format!(
                    "`{}` is not a lowercase identifier: letters, digits and `_`, not starting \
                     with a digit",
                    name.escape_debug()
                )
            } else if name.len() > longest {
                let cut = match field {
                    "table" => format!(
                        "its trigger `{name}{LONGEST_SUFFIX}` would be cut to PostgreSQL's \
                         {LONGEST_IDENTIFIER} bytes and replace another"
                    ),
                    _ => format!("PostgreSQL cuts identifiers at {LONGEST_IDENTIFIER} bytes"),
                };
                let length = name.len();
                format!(
                    "`{name}` is {length} bytes long, {cut}: choose a name of at most {longest} \
                     bytes"
                )
            } else {
                continue;
            };
            return Err(PgError::setting(field, why));
        }
        Ok(Table {
            name: table.to_owned(),
            column: column.to_owned(),
            of_hosts: false,
        })
    }

    /// The hosts' table, `tenant_host_origins(host text, origin text, primary key (host,
    /// origin))`.
    pub(crate) fn hosts() -> Self {
        let table = Table::new(HOSTS, "host").expect("the table's names are checked");
        Table {
            of_hosts: true,
            ..table
        }
    }

    /// A row as one text: its origin, or `host origin` in the hosts' table (neither holds a
    /// space).
    fn row(&self) -> &str {
        match self.of_hosts {
            true => "host || ' ' || origin",
            false => &self.column,
        }
    }

    /// A row as the bytes stored: a row that is not UTF-8 (possible in a `SQL_ASCII` database)
    /// would make the server refuse to send it as text, failing the whole read.
    fn row_sql(&self) -> String {
        format!(
            "convert_to({}, current_setting('server_encoding'))",
            self.row()
        )
    }

    /// What the rows a notification names are found by: the origin, by the primary key, or
    /// the host's key, by the index on it.
    fn key_sql(&self) -> &str {
        match self.of_hosts {
            true => HOST_KEY_SQL,
            false => &self.column,
        }
    }

    /// The statements that create the table, its notifying function and its triggers when
    /// missing (and, for the hosts' table, its index of hosts as keys); safe to run from
    /// several replicas at once.
    ///
    /// A notification carries the changed row's origin when it is printable ASCII (as every
    /// origin is) of at most 2,000 bytes, or its host when it is printable ASCII without a
    /// space of at most 253, else `*`, which asks for a full read: a byte that is not UTF-8
    /// (possible in a `SQL_ASCII` database) would break the listeners' connection. The
    /// triggers fire `ALWAYS`, so also for sessions with `session_replication_role = replica`
    /// (logical replication's, `pg_restore --disable-triggers`' own writes).
    pub(crate) fn schema_sql(&self) -> String {
        let Table { name, column, .. } = self;
        let (columns, longest, printable) = match self.of_hosts {
            true => (
                format!(
                    "host text, origin text, PRIMARY KEY (host, origin));
             CREATE INDEX IF NOT EXISTS {name}_key ON {name} ({HOST_KEY_SQL}"
                ),
                253,
                "!-~",
            ),
            false => (format!("{column} text PRIMARY KEY"), 2000, " -~"),
        };
        format!(
            "BEGIN;
             SELECT pg_advisory_xact_lock(hashtext('{name}'));
             CREATE TABLE IF NOT EXISTS {name} ({columns});
             CREATE OR REPLACE FUNCTION {name}_notify() RETURNS trigger LANGUAGE plpgsql AS $$
             DECLARE
                 changed text;
             BEGIN
                 IF TG_OP = 'TRUNCATE' THEN
                     PERFORM pg_notify('{name}', '*');
                     RETURN NULL;
                 END IF;
                 FOREACH changed IN ARRAY CASE TG_OP
                     WHEN 'INSERT' THEN ARRAY[NEW.{column}::text]
                     WHEN 'DELETE' THEN ARRAY[OLD.{column}::text]
                     ELSE ARRAY[OLD.{column}::text, NEW.{column}::text] END
                 LOOP
                     PERFORM pg_notify('{name}', CASE
                         WHEN length(changed) BETWEEN 1 AND {longest}
                              AND changed !~ '[^{printable}]' THEN changed
                         ELSE '*' END);
                 END LOOP;
                 RETURN NULL;
             END $$;
             CREATE OR REPLACE TRIGGER {name}_notify AFTER INSERT OR UPDATE OR DELETE ON {name}
                 FOR EACH ROW EXECUTE FUNCTION {name}_notify();
             CREATE OR REPLACE TRIGGER {name}_notify_truncate AFTER TRUNCATE ON {name}
                 FOR EACH STATEMENT EXECUTE FUNCTION {name}_notify();
             ALTER TABLE {name} ENABLE ALWAYS TRIGGER {name}_notify;
             ALTER TABLE {name} ENABLE ALWAYS TRIGGER {name}_notify_truncate;
             COMMIT;"
        )
    }

    /// Every row.
    pub(crate) fn select_all_sql(&self) -> String {
        format!("SELECT {} FROM {}", self.row_sql(), self.name)
    }

    /// The rows whose keys are `$1`, a text array.
    pub(crate) fn select_some_sql(&self) -> String {
        let (row, name, key) = (self.row_sql(), &self.name, self.key_sql());
        format!("SELECT {row} FROM {name} WHERE {key} = ANY($1)")
    }

    /// The table's fingerprint: how many rows, and the sum of their hashes, computed by the
    /// server (one pass over the table, nothing sent but two numbers).
    pub(crate) fn fingerprint_sql(&self) -> String {
        let (row, name) = (self.row(), &self.name);
        format!("SELECT count(*), coalesce(sum(hashtext({row})), 0)::bigint FROM {name}")
    }

    /// Whether the table exists, and how many of its two triggers fire always: two catalog
    /// look-ups, whatever the size of the table.
    pub(crate) fn health_sql(&self) -> String {
        format!(
            "SELECT to_regclass('{name}') IS NOT NULL,
                    (SELECT count(*) FROM pg_trigger
                      WHERE tgrelid = to_regclass('{name}')
                        AND tgname IN ('{name}_notify', '{name}_notify_truncate')
                        AND tgenabled = 'A')",
            name = self.name
        )
    }

    /// What [`health_sql`](Self::health_sql) answered.
    pub(crate) fn health(&self, exists: bool, always_triggers: i64) -> Health {
        match (exists, always_triggers) {
            (false, _) => Health::NoTable,
            (true, 2) => Health::InStep,
            _ => Health::TriggersOff,
        }
    }

    /// Why the table is not in step, with the fix, for the log.
    pub(crate) fn drift_message(&self, health: Health) -> String {
        let name = &self.name;
        match health {
            Health::InStep => String::new(),
            Health::NoTable => format!(
                "the table `{name}` does not exist (dropped or renamed): the last origins keep \
                 being served; create it again (`PgOrigins::create_table`) and it is read"
            ),
            Health::TriggersOff => format!(
                "the triggers `{name}_notify` and `{name}_notify_truncate` do not both fire \
                 always (missing, disabled, or enabled only outside replication, as `ALTER \
                 TABLE .. ENABLE TRIGGER` and `pg_restore --disable-triggers` leave them): \
                 changes no longer reach the replicas at once, so the table is read whole at \
                 every check until they do; run `PgOrigins::create_table` again, or `ALTER \
                 TABLE {name} ENABLE ALWAYS TRIGGER {name}_notify` and the same for \
                 `{name}_notify_truncate`"
            ),
        }
    }
}

/// Whether changes of the table reach the follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Health {
    InStep,
    NoTable,
    TriggersOff,
}

/// A followed table and the set it fills: the origins of an
/// [`OriginSet`](cors_axum_core::OriginSet), or each host's of a
/// [`TenantOrigins`](cors_axum_core::TenantOrigins).
pub(crate) trait Followed: Send + Sync {
    fn table(&self) -> &Table;

    /// The set made of these rows, whole; `not_utf8` are the rows skipped as not UTF-8 (as
    /// lossy text).
    fn replace(&mut self, rows: &[String], not_utf8: Vec<String>);

    /// The keys to look up (`$1` of [`Table::select_some_sql`]) for the rows notifications
    /// named.
    fn lookups(&mut self, changed: &HashSet<String>) -> Vec<String>;

    /// The set patched for the `changed` rows, whose `lookups` found the rows `found`.
    fn patch(&mut self, changed: &HashSet<String>, lookups: &[String], found: Vec<String>);
}

/// The rows of a table that its set skipped (refused, or not UTF-8) and that were logged, so
/// that each is logged once while it stays in the table.
#[derive(Clone, Debug, Default)]
pub(crate) struct Skipped(HashSet<String>);

impl Skipped {
    /// Logs the rows skipped (those the set's `errors` name, and `not_utf8`) that were not
    /// logged before; `whole` when they are all the table's, so that a row gone from the table
    /// is logged again should it come back.
    pub(crate) fn log(
        &mut self,
        table: &str,
        errors: Vec<CorsConfigError>,
        not_utf8: Vec<String>,
        whole: bool,
    ) {
        let before = match whole {
            true => std::mem::take(&mut self.0),
            false => HashSet::new(),
        };
        let errors = errors.into_iter().map(|error| {
            let row = error.value().unwrap_or_default().to_owned();
            (row, error.reason().to_owned())
        });
        let not_utf8 = not_utf8
            .into_iter()
            .map(|row| (row, "it is not UTF-8 text".to_owned()));
        for (row, why) in errors.chain(not_utf8) {
            let fresh = !before.contains(&row);
            if self.0.insert(row.clone()) && fresh {
                tracing::warn!(table = %table, row = %row.escape_debug(),
                    "origins: a row is skipped: {}", why.escape_debug());
            }
        }
    }

    /// Forgets that `row` was logged: it left the table.
    pub(crate) fn forget(&mut self, row: &str) {
        self.0.remove(row);
    }

    #[cfg(test)]
    pub(crate) fn logged(&self) -> &HashSet<String> {
        &self.0
    }
}
