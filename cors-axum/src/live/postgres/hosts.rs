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
use super::table::{Followed, HOSTS, Skipped, Table};

/// The table of hosts' origins and the set it fills.
#[derive(Clone, Debug)]
pub(crate) struct Hosts {
    pub(crate) table: Table,
    set: TenantOrigins,
    skipped: Skipped,
}

impl Hosts {
    /// The table for `set`, whose keys must be hosts.
    pub(crate) fn new(set: &TenantOrigins) -> Result<Self, PgError> {
        if !set.key().is_host() {
            return Err(PgError::setting(
                "tenant_origins",
                format!(
                    "the set `{}` is keyed by {:?}: the table `{HOSTS}` holds hosts, for a set \
                     made with `TenantOrigins::new`",
                    set.name(),
                    set.key()
                ),
            ));
        }
        Ok(Hosts {
            table: Table::hosts(),
            set: set.clone(),
            skipped: Skipped::default(),
        })
    }
}

impl Followed for Hosts {
    fn table(&self) -> &Table {
        &self.table
    }

    fn replace(&mut self, rows: &[String], not_utf8: Vec<String>) {
        let errors = self.set.replace_all(rows.iter().map(|row| split(row)));
        self.skipped.log(&self.table.name, errors, not_utf8, true);
    }

    /// The keys of the notified hosts; those that are not hosts are logged.
    fn lookups(&mut self, changed: &HashSet<String>) -> Vec<String> {
        let (mut keys, mut errors) = (HashSet::new(), Vec::new());
        for host in changed {
            match self.set.key().normalize(host) {
                Ok(key) => {
                    keys.insert(key);
                }
                Err(error) => errors.push(error),
            }
        }
        self.skipped
            .log(&self.table.name, errors, Vec::new(), false);
        keys.into_iter().collect()
    }

    /// The origins of the hosts with these keys replaced by the rows found, theirs.
    fn patch(&mut self, _: &HashSet<String>, keys: &[String], found: Vec<String>) {
        let rows = found.iter().map(|row| split(row));
        let errors = self.set.replace_tenants(keys, rows);
        self.skipped
            .log(&self.table.name, errors, Vec::new(), false);
    }
}

/// A row's host and origin.
fn split(row: &str) -> (&str, &str) {
    row.split_once(' ').unwrap_or((row, ""))
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
        hosts.replace(
            &texts(&[
                "acme.api.example https://app.acme.example",
                "ACME.api.example. HTTPS://APP.acme.example:443",
                "globex.api.example https://globex.example",
                "acme.api.example:8443 https://x.example",
                "acme.api.example nope",
            ]),
            Vec::new(),
        );
        let logged = |hosts: &Hosts| hosts.skipped.logged().len();
        assert_eq!(logged(&hosts), 2);
        assert!(set.contains("acme.api.example", "https://app.acme.example"));
        assert!(!set.contains("globex.api.example", "https://app.acme.example"));

        let changed = ["ACME.api.example.".to_owned(), "a b".to_owned()].into();
        let keys = hosts.lookups(&changed);
        assert_eq!(keys, ["acme.api.example"]);
        assert_eq!(logged(&hosts), 3);
        // One spelling deleted: the other row still holds the origin.
        let rows = texts(&["ACME.api.example. HTTPS://APP.acme.example:443"]);
        hosts.patch(&changed, &keys, rows);
        assert_eq!(logged(&hosts), 3);
        assert!(set.contains("acme.api.example", "https://app.acme.example"));
        // Both deleted: revoked on that host, the other host untouched.
        hosts.patch(&changed, &keys, Vec::new());
        assert!(!set.contains("acme.api.example", "https://app.acme.example"));
        assert!(set.contains("globex.api.example", "https://globex.example"));
        assert_eq!(set.len(), 1);
    }
}
