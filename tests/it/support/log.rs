//! What the process logs, captured for the tests that assert on it.

use std::io::Write;
use std::sync::{Arc, Mutex};

use tracing_subscriber::EnvFilter;

/// Collects what a subscriber writes.
#[derive(Clone, Default)]
pub(crate) struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    /// A subscriber that writes here what `filter` (as in `RUST_LOG`) lets through, one line
    /// per event, without colours or times.
    pub(crate) fn subscriber(&self, filter: &str) -> impl tracing::Subscriber + Send + Sync {
        let writer = self.clone();
        tracing_subscriber::fmt()
            .with_env_filter(EnvFilter::new(filter))
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .without_time()
            .finish()
    }

    /// Captures what this thread logs under `filter` until the guard is dropped.
    pub(crate) fn on_this_thread(filter: &str) -> (Self, tracing::subscriber::DefaultGuard) {
        let captured = Self::default();
        let guard = tracing::subscriber::set_default(captured.subscriber(filter));
        (captured, guard)
    }

    /// The lines written since the last call.
    pub(crate) fn take(&self) -> Vec<String> {
        let bytes = std::mem::take(&mut *self.0.lock().unwrap());
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}
