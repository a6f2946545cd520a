//! The table of origins: its names, checked, and the SQL that creates it, reads it and checks
//! that its changes still notify.

use super::error::PgError;

/// PostgreSQL's longest identifier, in bytes; a longer one is cut there, silently.
const LONGEST_IDENTIFIER: usize = 63;

/// The longest name made from the table's: its statement trigger, `<table>_notify_truncate`.
const LONGEST_SUFFIX: &str = "_notify_truncate";

/// The table and its column, each a plain identifier short enough that no name made from it is
/// cut by PostgreSQL.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    pub(crate) name: String,
    pub(crate) column: String,
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
            if !is_identifier(name) {
                return Err(PgError::setting(
                    field,
                    format!(
                        "`{}` is not a lowercase identifier: letters, digits and `_`, not \
                         starting with a digit",
                        name.escape_debug()
                    ),
                ));
            }
            if name.len() > longest {
                let why = if field == "table" {
                    format!(
                        "its trigger `{name}{LONGEST_SUFFIX}` would be cut to PostgreSQL's \
                         {LONGEST_IDENTIFIER} bytes and replace another"
                    )
                } else {
                    format!("PostgreSQL cuts identifiers at {LONGEST_IDENTIFIER} bytes")
                };
                return Err(PgError::setting(
                    field,
                    format!(
                        "`{name}` is {} bytes long, {why}: choose a name of at most {longest} \
                         bytes",
                        name.len()
                    ),
                ));
            }
        }
        Ok(Table {
            name: table.to_owned(),
            column: column.to_owned(),
        })
    }

    /// The statements that create the table, its notifying function and its triggers when
    /// missing; safe to run from several replicas at once.
    ///
    /// A notification carries the changed row's text when it is printable ASCII (as every
    /// origin is) of at most 2,000 bytes, else `*`, which asks for a full read: a byte that is
    /// not UTF-8 (possible in a `SQL_ASCII` database) would break the listeners' connection.
    /// The triggers fire `ALWAYS`, so also for sessions with `session_replication_role =
    /// replica` (logical replication's, `pg_restore --disable-triggers`' own writes).
    pub(crate) fn schema_sql(&self) -> String {
        let Table { name, column } = self;
        format!(
            "BEGIN;
             SELECT pg_advisory_xact_lock(hashtext('{name}'));
             CREATE TABLE IF NOT EXISTS {name} ({column} text PRIMARY KEY);
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
                         WHEN length(changed) <= 2000 AND changed !~ '[^ -~]' THEN changed
                         ELSE '*' END);
                 END LOOP;
                 RETURN NULL;
             END $$;
             {triggers}",
            triggers = triggers_sql(name)
        )
    }

    pub(crate) fn listen_sql(&self) -> String {
        format!("LISTEN {}", self.name)
    }

    /// Every row, as the bytes stored: a row that is not UTF-8 (possible in a `SQL_ASCII`
    /// database) would make the server refuse to send it as text, failing the whole read.
    pub(crate) fn select_all_sql(&self) -> String {
        format!(
            "SELECT convert_to({}, current_setting('server_encoding')) FROM {}",
            self.column, self.name
        )
    }

    /// The table's fingerprint: how many rows, and the sum of their hashes, computed by the
    /// server (one pass over the table, nothing sent but two numbers).
    pub(crate) fn fingerprint_sql(&self) -> String {
        fingerprint_sql(&self.name, &self.column)
    }

    /// The rows of `$1`, a text array: found by the primary key; the bytes stored, as above.
    pub(crate) fn select_some_sql(&self) -> String {
        format!(
            "SELECT convert_to({column}, current_setting('server_encoding')) FROM {name} \
             WHERE {column} = ANY($1)",
            name = self.name,
            column = self.column
        )
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

/// The two triggers of table `name` on its function `<name>_notify`, one for each changed row,
/// one for `TRUNCATE`, firing `ALWAYS`, and the end of the transaction that makes them.
pub(crate) fn triggers_sql(name: &str) -> String {
    format!(
        "CREATE OR REPLACE TRIGGER {name}_notify AFTER INSERT OR UPDATE OR DELETE ON {name}
                 FOR EACH ROW EXECUTE FUNCTION {name}_notify();
             CREATE OR REPLACE TRIGGER {name}_notify_truncate AFTER TRUNCATE ON {name}
                 FOR EACH STATEMENT EXECUTE FUNCTION {name}_notify();
             ALTER TABLE {name} ENABLE ALWAYS TRIGGER {name}_notify;
             ALTER TABLE {name} ENABLE ALWAYS TRIGGER {name}_notify_truncate;
             COMMIT;"
    )
}

/// The fingerprint of table `name` whose rows are the text `row`: see
/// [`Table::fingerprint_sql`].
pub(crate) fn fingerprint_sql(name: &str, row: &str) -> String {
    format!("SELECT count(*), coalesce(sum(hashtext({row})), 0)::bigint FROM {name}")
}
