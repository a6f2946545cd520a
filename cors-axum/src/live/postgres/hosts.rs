//! Each tenant's origins on its own host, from a second table,
//! `tenant_host_origins(host text, origin text, primary key (host, origin))`, followed on the
//! connection of the first: a trigger sends the changed row's host with `NOTIFY`, and every
//! replica re-reads the rows of that host and replaces its origins in its [`TenantOrigins`].
//!
//! A host is the set's key as [`TenantKey::host`](cors_axum_core::TenantKey::host) writes it
//! (lowercase, without a trailing dot); the table's rows of one host are found by that form,
//! with an index on it, so that `ACME.api.example` and `acme.api.example` are one tenant.
//! Re-reading a host's rows whole keeps every spelling of an origin granted while any row
//! holds it, on every replica alike.

use std::collections::HashSet;

use cors_axum_core::TenantOrigins;

use super::error::PgError;
use super::spelling::Refused;
use super::table::Table;

/// The table's name, and its channel's.
const TABLE: &str = "tenant_host_origins";

/// The table of hosts' origins and the set it fills.
#[derive(Clone)]
pub(crate) struct Hosts {
    /// Its name, for the checks and messages the first table's follow makes.
    pub(crate) table: Table,
    set: TenantOrigins,
    /// Rows refused by the set and already logged, so that each is logged once.
    logged: HashSet<String>,
}

impl Hosts {
    /// The table for `set`, whose keys must be hosts.
    pub(crate) fn new(set: &TenantOrigins) -> Result<Self, PgError> {
        if !set.key().is_host() {
            return Err(PgError::setting(
                "tenant_origins",
                format!(
                    "the set `{}` is keyed by {:?}: the table `{TABLE}` holds hosts, for a set \
                     made with `TenantOrigins::new`",
                    set.name(),
                    set.key()
                ),
            ));
        }
        Ok(Hosts {
            table: Table::new(TABLE, "host").expect("the table's names are checked"),
            set: set.clone(),
            logged: HashSet::new(),
        })
    }

    pub(crate) fn name(&self) -> &str {
        &self.table.name
    }

    /// The statements that create the table, its index of hosts as keys, its notifying
    /// function and its triggers when missing; safe to run from several replicas at once. A
    /// notification carries the row's host when it is printable ASCII of at most 253 bytes,
    /// else `*`, which asks for a full read.
    pub(crate) fn schema_sql(&self) -> String {
        format!(
            "BEGIN;
             SELECT pg_advisory_xact_lock(hashtext('{TABLE}'));
             CREATE TABLE IF NOT EXISTS {TABLE} (host text, origin text, PRIMARY KEY (host, origin));
             CREATE INDEX IF NOT EXISTS {TABLE}_key ON {TABLE} ({key});
             CREATE OR REPLACE FUNCTION {TABLE}_notify() RETURNS trigger LANGUAGE plpgsql AS $$
             DECLARE
                 changed text;
             BEGIN
                 IF TG_OP = 'TRUNCATE' THEN
                     PERFORM pg_notify('{TABLE}', '*');
                     RETURN NULL;
                 END IF;
                 FOREACH changed IN ARRAY CASE TG_OP
                     WHEN 'INSERT' THEN ARRAY[NEW.host]
                     WHEN 'DELETE' THEN ARRAY[OLD.host]
                     ELSE ARRAY[OLD.host, NEW.host] END
                 LOOP
                     PERFORM pg_notify('{TABLE}', CASE
                         WHEN length(changed) BETWEEN 1 AND 253 AND changed !~ '[^!-~]' THEN changed
                         ELSE '*' END);
                 END LOOP;
                 RETURN NULL;
             END $$;
             {triggers}",
            key = KEY_SQL,
            triggers = super::table::triggers_sql(TABLE)
        )
    }

    /// Every row, as `host origin` (neither holds a space), the bytes stored.
    pub(crate) fn select_all_sql(&self) -> String {
        format!("SELECT {ROW_SQL} FROM {TABLE}")
    }

    /// The table's fingerprint, as [`Table::fingerprint_sql`](super::table::Table::fingerprint_sql).
    pub(crate) fn fingerprint_sql(&self) -> String {
        super::table::fingerprint_sql(TABLE, "host || ' ' || origin")
    }

    /// The rows of the hosts whose keys are `$1`, a text array, found by the index.
    pub(crate) fn select_some_sql(&self) -> String {
        format!("SELECT {ROW_SQL} FROM {TABLE} WHERE {KEY_SQL} = ANY($1)")
    }

    /// The keys of the notified hosts, and the hosts that are not hosts, not logged before.
    pub(crate) fn keys(&mut self, changed: &HashSet<String>) -> (Vec<String>, Refused) {
        let (mut keys, mut refused) = (HashSet::new(), Vec::new());
        for host in changed {
            match self.set.key().normalize(host) {
                Ok(key) => {
                    keys.insert(key);
                }
                Err(error) => refused.push((host.clone(), error.reason().to_owned())),
            }
        }
        (keys.into_iter().collect(), self.refused(refused, false))
    }

    /// The set made of these rows, whole; `not_utf8` are rows skipped as not UTF-8.
    pub(crate) fn replace(&mut self, rows: &[String], not_utf8: Vec<String>) -> Refused {
        let errors = self.set.replace_all(rows.iter().map(|row| split(row)));
        self.refused(with_rows(errors, not_utf8), true)
    }

    /// The origins of the hosts with these `keys` replaced by `rows`, theirs.
    pub(crate) fn patch(&mut self, keys: &[String], rows: &[String]) -> Refused {
        let errors = self
            .set
            .replace_tenants(keys, rows.iter().map(|row| split(row)));
        self.refused(with_rows(errors, Vec::new()), false)
    }

    /// The rows refused (each with why) that were not logged since the last full read;
    /// `whole` when they are all the table's.
    fn refused(&mut self, refused: Vec<(String, String)>, whole: bool) -> Refused {
        if whole {
            self.logged.clear();
        }
        Refused(
            refused
                .into_iter()
                .filter(|(row, _)| self.logged.insert(row.clone()))
                .collect(),
        )
    }
}

/// A host's key as SQL writes it, as [`TenantKey::host`](cors_axum_core::TenantKey::host)
/// does for the hosts it takes.
const KEY_SQL: &str = "lower(rtrim(host, '.'))";

/// A row as one text, `host origin`, the bytes stored (a row that is not UTF-8, possible in a
/// `SQL_ASCII` database, would make the server refuse to send it as text).
const ROW_SQL: &str = "convert_to(host || ' ' || origin, current_setting('server_encoding'))";

/// A row's host and origin.
fn split(row: &str) -> (&str, &str) {
    row.split_once(' ').unwrap_or((row, ""))
}

/// The rows the set refused, each with why, and those that are not UTF-8.
fn with_rows(
    errors: Vec<cors_axum_core::CorsConfigError>,
    not_utf8: Vec<String>,
) -> Vec<(String, String)> {
    errors
        .into_iter()
        .map(|error| {
            let value = error.value().unwrap_or_default().to_owned();
            (value, error.reason().to_owned())
        })
        .chain(
            not_utf8
                .into_iter()
                .map(|row| (row, "it is not UTF-8 text".to_owned())),
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(rows: &[&str]) -> Vec<String> {
        rows.iter().map(|row| (*row).to_owned()).collect()
    }

    /// Rows read whole, then a host's rows read again: its origins replaced, every spelling of
    /// host and origin one tenant and one origin, refused rows logged once.
    #[test]
    fn a_hosts_rows_replace_its_origins() {
        let set = TenantOrigins::new("tenant_hosts");
        let mut hosts = Hosts::new(&set).unwrap();
        let refused = hosts.replace(
            &texts(&[
                "acme.api.example https://app.acme.example",
                "ACME.api.example. HTTPS://APP.acme.example:443",
                "globex.api.example https://globex.example",
                "acme.api.example:8443 https://x.example",
                "acme.api.example nope",
            ]),
            Vec::new(),
        );
        assert_eq!(refused.0.len(), 2, "{:?}", refused.0);
        assert!(set.contains("acme.api.example", "https://app.acme.example"));
        assert!(!set.contains("globex.api.example", "https://app.acme.example"));

        let changed = ["ACME.api.example.".to_owned(), "a b".to_owned()].into();
        let (keys, refused) = hosts.keys(&changed);
        assert_eq!(keys, ["acme.api.example"]);
        assert_eq!(refused.0.len(), 1, "{:?}", refused.0);
        // One spelling deleted: the other row still holds the origin.
        let rows = texts(&["ACME.api.example. HTTPS://APP.acme.example:443"]);
        let refused = hosts.patch(&keys, &rows);
        assert!(refused.0.is_empty());
        assert!(set.contains("acme.api.example", "https://app.acme.example"));
        // Both deleted: revoked on that host, the other host untouched.
        let _ = hosts.patch(&keys, &[]);
        assert!(!set.contains("acme.api.example", "https://app.acme.example"));
        assert!(set.contains("globex.api.example", "https://globex.example"));
        assert_eq!(set.len(), 1);
    }
}
