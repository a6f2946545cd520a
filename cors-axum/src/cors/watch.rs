//! [`CorsReload::watch_file`]: CORS options reloaded from their file when it changes.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use cors_axum_core::{BoxError, CorsOptions};
use notify_debouncer_mini::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{DebounceEventResult, Debouncer, new_debouncer};

use super::reload::CorsReload;

/// How long the file must rest before it is read: an editor's save is several events.
const SETTLE: Duration = Duration::from_millis(100);

/// Watches a file for [`CorsReload::watch_file`]; dropping it stops the watch.
#[must_use = "the file is watched only while the `FileWatch` lives"]
pub struct FileWatch {
    _debouncer: Debouncer<RecommendedWatcher>,
}

impl fmt::Debug for FileWatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileWatch").finish_non_exhaustive()
    }
}

/// Why [`CorsReload::watch_file`] could not watch a file: it has no folder that exists, or the
/// system refused the watch (for example, too many watches).
#[derive(Debug)]
pub struct WatchError {
    path: PathBuf,
    source: notify_debouncer_mini::notify::Error,
}

impl fmt::Display for WatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot watch `{}` for changes", self.path.display())
    }
}

impl std::error::Error for WatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

impl CorsReload {
    /// Reloads the options from the file at `path` whenever it changes: `read` turns the
    /// file's text into options (for example `serde_json::from_str`, or the `cors` part of a
    /// larger configuration). A file that cannot be read, that `read` refuses, or whose options
    /// are invalid is logged (warn level, target `cors_axum`) and the options in force stay; a
    /// valid one replaces them, logged at info level.
    ///
    /// The file's folder is watched, so that a file replaced by a rename, as editors and
    /// deployment tools save, is seen too. The watch lasts as long as the returned
    /// [`FileWatch`].
    ///
    /// ```no_run
    /// use cors_axum::cors::CorsReload;
    /// use cors_axum::CorsOptions;
    ///
    /// let reload = CorsReload::new();
    /// let _watch = reload.watch_file("cors.json", |text| Ok(serde_json::from_str(text)?))?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "watch")))]
    pub fn watch_file<F>(&self, path: impl AsRef<Path>, read: F) -> Result<FileWatch, WatchError>
    where
        F: Fn(&str) -> Result<CorsOptions, BoxError> + Send + 'static,
    {
        let path = path.as_ref().to_path_buf();
        let error = |source| WatchError {
            path: path.clone(),
            source,
        };
        let folder = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path.file_name().map(ToOwned::to_owned);
        let reload = self.clone();
        let file = path.clone();
        let mut debouncer = new_debouncer(SETTLE, move |events: DebounceEventResult| {
            let changed = match events {
                Ok(events) => events.iter().any(|e| e.path.file_name() == name.as_deref()),
                Err(error) => {
                    tracing::warn!(target: "cors_axum", "watching `{}`: {error}", file.display());
                    false
                }
            };
            if changed {
                reload.reload_file(&file, &read);
            }
        })
        .map_err(error)?;
        debouncer
            .watcher()
            .watch(&folder, RecursiveMode::NonRecursive)
            .map_err(error)?;
        Ok(FileWatch {
            _debouncer: debouncer,
        })
    }

    /// Reads `file` with `read` and reloads its options, logging the outcome.
    fn reload_file(&self, file: &Path, read: &dyn Fn(&str) -> Result<CorsOptions, BoxError>) {
        let shown = file.display();
        let options = std::fs::read_to_string(file)
            .map_err(BoxError::from)
            .and_then(|text| read(&text));
        let outcome = options
            .map_err(|error| error.to_string())
            .and_then(|options| {
                self.reload(options).map_err(|error| {
                    let cause = std::error::Error::source(&error).map(ToString::to_string);
                    format!("{error}: {}", cause.unwrap_or_default())
                })
            });
        match outcome {
            Ok(()) => tracing::info!(target: "cors_axum", "CORS options reloaded from `{shown}`"),
            Err(why) => tracing::warn!(
                target: "cors_axum",
                "CORS options not reloaded from `{shown}`, the options in force stay: {}",
                why.escape_debug()
            ),
        }
    }
}
