//! [`PgError`]: a setting refused, a database that could not be reached, or a table not read
//! in time.

use std::fmt;

/// Why [`PgOrigins`](super::PgOrigins) refused a setting, could not create the table, or why
/// [`PgFollow::ready`](super::PgFollow::ready) gave up waiting.
#[derive(Debug)]
pub struct PgError {
    field: Option<&'static str>,
    message: String,
    source: Option<tokio_postgres::Error>,
}

impl PgError {
    /// A setting refused: its name (`url`, `sslmode`, `sslrootcert`, `table`, `column`) and
    /// why, with the fix.
    pub(crate) fn setting(field: &'static str, message: impl Into<String>) -> Self {
        PgError {
            field: Some(field),
            message: message.into(),
            source: None,
        }
    }

    /// The database did not do what was asked; `message` says what was asked and why not.
    pub(crate) fn database(
        message: impl Into<String>,
        source: Option<tokio_postgres::Error>,
    ) -> Self {
        PgError {
            field: None,
            message: message.into(),
            source,
        }
    }

    /// The setting at fault (`url`, `sslmode`, `sslrootcert`, `table` or `column`), if a
    /// setting is.
    pub fn field(&self) -> Option<&'static str> {
        self.field
    }
}

impl fmt::Display for PgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.field {
            Some(field) => write!(f, "{field}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for PgError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_ref().map(|e| e as _)
    }
}

/// An error of the client with its cause (the server's message, the socket's or TLS's error),
/// on one line with control characters escaped, for logs and messages.
pub(crate) fn reason(error: &tokio_postgres::Error) -> String {
    let text = match std::error::Error::source(error) {
        Some(source) => format!("{error}: {source}"),
        None => error.to_string(),
    };
    text.escape_debug().to_string()
}
