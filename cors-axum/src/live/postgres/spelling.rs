//! Rows of the table in the set, spellings counted: `https://t1.example` and
//! `HTTPS://T1.EXAMPLE:443` are one origin, granted while any row spells it.
//!
//! Most rows are written as the set writes their origin, and the table itself says whether such
//! a row exists (one look-up by its primary key). Only the rows spelled otherwise are kept here,
//! by origin; a change of one of them is notified with its text like any other, so what is kept
//! stays in step with the table, on every replica alike.

use std::collections::{HashMap, HashSet};

use cors_axum_core::OriginSet;

use super::table::{Followed, Skipped, Table};

/// The spelling that every spelling of an origin or pattern shares, as the set compares them:
/// lowercase, a port given only when not the scheme's default, without leading zeros. A text
/// that is not an origin is returned lowercase; the set refuses it anyway.
pub(crate) fn canonical(row: &str) -> String {
    let lower = row.to_ascii_lowercase();
    let Some((scheme, authority)) = lower.split_once("://") else {
        return lower;
    };
    if authority.contains(['/', '?', '#']) {
        return lower;
    }
    // An IPv6 address's colons are inside its brackets.
    let host_end = authority.rfind(']').map_or(0, |at| at + 1);
    let Some(colon) = authority[host_end..].rfind(':').map(|at| at + host_end) else {
        return lower;
    };
    let digits = &authority[colon + 1..];
    let port = match digits.parse::<u16>() {
        Ok(port) if digits.bytes().all(|b| b.is_ascii_digit()) => port,
        _ => return lower,
    };
    let host = &authority[..colon];
    let default = match scheme {
        "https" => Some(443),
        "http" => Some(80),
        _ => None,
    };
    if default == Some(port) {
        format!("{scheme}://{host}")
    } else {
        format!("{scheme}://{host}:{port}")
    }
}

/// The table of origins, its set, and its rows spelled otherwise than their origin.
pub(crate) struct Rows {
    table: Table,
    set: OriginSet,
    /// Canonical spelling → the other spellings of it that rows hold.
    others: HashMap<String, HashSet<String>>,
    skipped: Skipped,
}

impl Rows {
    pub(crate) fn new(table: Table, set: &OriginSet) -> Self {
        Rows {
            table,
            set: set.clone(),
            others: HashMap::new(),
            skipped: Skipped::default(),
        }
    }
}

impl Followed for Rows {
    fn table(&self) -> &Table {
        &self.table
    }

    fn replace(&mut self, rows: &[String], not_utf8: Vec<String>) {
        self.others.clear();
        for row in rows {
            let key = canonical(row);
            if key != *row {
                self.others.entry(key).or_default().insert(row.clone());
            }
        }
        let errors = self.set.replace_all(rows);
        self.skipped.log(&self.table.name, errors, not_utf8, true);
    }

    /// Each changed row, and its canonical spelling.
    fn lookups(&mut self, changed: &HashSet<String>) -> Vec<String> {
        let mut texts: HashSet<String> = changed.iter().map(|row| canonical(row)).collect();
        texts.extend(changed.iter().cloned());
        texts.into_iter().collect()
    }

    /// A row found has its origin granted, and an origin is revoked when no row spells it.
    fn patch(&mut self, changed: &HashSet<String>, _: &[String], found: Vec<String>) {
        let present: HashSet<String> = found.into_iter().collect();
        let mut keys = HashSet::new();
        for row in changed {
            if !present.contains(row) {
                // A refused row is logged again only after it has left the table.
                self.skipped.forget(row);
            }
            let key = canonical(row);
            if key != *row {
                let others = self.others.entry(key.clone()).or_default();
                if present.contains(row) {
                    others.insert(row.clone());
                } else {
                    others.remove(row);
                    if others.is_empty() {
                        self.others.remove(&key);
                    }
                }
            }
            keys.insert(key);
        }
        let revoked = keys
            .into_iter()
            .filter(|key| !present.contains(key) && !self.others.contains_key(key));
        let errors = self.set.patch(&present, revoked);
        self.skipped
            .log(&self.table.name, errors, Vec::new(), false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPELLINGS: [&str; 14] = [
        "https://t1.example",
        "HTTPS://T1.Example",
        "https://t1.example:443",
        "https://t1.example:0443",
        "https://t1.example:8443",
        "https://T1.EXAMPLE:08443",
        "http://t1.example",
        "http://t1.example:80",
        "http://t1.example:443",
        "https://*.T1.example",
        "https://*.t1.example:443",
        "http://localhost:*",
        "http://[::1]:8080",
        "http://[::1]:08080",
    ];

    /// Two spellings share a canonical form exactly when the set takes them for one entry.
    #[test]
    fn canonical_spellings_agree_with_the_set() {
        for a in SPELLINGS {
            for b in SPELLINGS {
                let set = OriginSet::new("t");
                set.insert(a).unwrap();
                assert_eq!(
                    set.remove(b),
                    canonical(a) == canonical(b),
                    "`{a}` and `{b}`: {} and {}",
                    canonical(a),
                    canonical(b)
                );
            }
        }
    }

    /// An origin stays granted while any row spells it, whatever order the rows go in.
    #[test]
    fn an_origin_is_revoked_with_its_last_spelling() {
        let set = OriginSet::new("t");
        let mut rows = Rows::new(Table::new("t", "origin").unwrap(), &set);
        let all = |texts: &[&str]| {
            texts
                .iter()
                .map(|t| (*t).to_owned())
                .collect::<HashSet<_>>()
        };
        let found = |texts: &[&str]| all(texts).into_iter().collect::<Vec<_>>();
        let both = [
            "https://t1.example".to_owned(),
            "HTTPS://T1.EXAMPLE".to_owned(),
        ];
        rows.replace(&both, Vec::new());
        // The canonical row deleted: the other spelling holds it.
        rows.patch(&all(&["https://t1.example"]), &[], found(&[]));
        assert!(set.contains("https://t1.example"));
        // A third spelling added, then the second deleted.
        rows.patch(
            &all(&["https://t1.example:443"]),
            &[],
            found(&["https://t1.example:443"]),
        );
        rows.patch(&all(&["HTTPS://T1.EXAMPLE"]), &[], found(&[]));
        assert!(set.contains("https://t1.example"));
        rows.patch(&all(&["https://t1.example:443"]), &[], found(&[]));
        assert!(!set.contains("https://t1.example"));
        assert!(set.is_empty());
    }
}
