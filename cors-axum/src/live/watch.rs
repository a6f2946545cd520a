//! [`CorsReload::watch_file`]: CORS options reloaded from their file when it changes.
//!
//! Deployments change a file in many ways: an editor writes it in place or renames a new file
//! over it, a Kubernetes ConfigMap swaps the `..data` symlink its path goes through, a release
//! replaces the whole folder. Rather than guess from an event's name which of these happened,
//! any change in a folder the path goes through is a reason to read the file again through its
//! path, and the text decides: options are reloaded only when it differs from the text in force.

use std::collections::VecDeque;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use cors_axum_core::{BoxError, CorsOptions};
use notify::event::{AccessKind, AccessMode};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use crate::cors::CorsReload;
use crate::unwind::panic_message;

/// How long the folders must rest before the file is read: an editor's save, or a ConfigMap's
/// swap, is several events.
const SETTLE: Duration = Duration::from_millis(100);

/// The longest wait for the folders to rest, so that a folder that never rests is read anyway.
const LONGEST_SETTLE: Duration = Duration::from_secs(1);

/// The most symlinks followed from the watched path, as the kernel's own limit.
const MOST_LINKS: usize = 40;

/// Watches a file for [`CorsReload::watch_file`]; dropping it stops the watch.
#[must_use = "the file is watched only while the `FileWatch` lives"]
#[derive(Debug)]
pub struct FileWatch {
    stop: Sender<Message>,
}

impl Drop for FileWatch {
    fn drop(&mut self) {
        // The watch's thread may have ended already; then there is nothing to stop.
        let _ = self.stop.send(Message::Stop);
    }
}

/// Why [`CorsReload::watch_file`] could not watch a file: its folder does not exist, or the
/// system refused the watch (for example, too many watches).
#[derive(Debug)]
pub struct WatchError {
    path: PathBuf,
    source: notify::Error,
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
    /// Reloads the options from the file at `path` whenever its text changes: `read` turns the
    /// text into options (for example `serde_json::from_str`, or the `cors` part of a larger
    /// configuration).
    ///
    /// The text of the file when the watch starts is taken to be in force. Each new text is
    /// read once: valid options replace those in force, logged once at info level (target
    /// `cors_axum`). A file that cannot be read, that `read` refuses or panics on, whose
    /// options are invalid, or whose options would widen those in force by leaving one out
    /// (see [`reload`](Self::reload)) is logged once at warn level, naming the file and why,
    /// and the options in force stay; the watch goes on, and a later valid text is applied.
    /// Reading the file (a backup, `cat`) changes nothing.
    ///
    /// The folder of the file is watched, and the folder of each symlink the path goes
    /// through, followed again after every change: a file saved in place or replaced by a
    /// rename, a symlink into another folder, a Kubernetes ConfigMap volume (whose `..data`
    /// symlink is swapped) and a folder renamed away and replaced are all seen. The watch
    /// lasts as long as the returned [`FileWatch`].
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
        // The folder of the file, `.` for a bare name.
        let folder = path
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty());
        let folder = folder.unwrap_or(Path::new(".")).to_path_buf();
        if !folder.is_dir() {
            return Err(error(notify::Error::path_not_found().add_path(folder)));
        }
        let (sender, events) = mpsc::channel();
        let to_watch = sender.clone();
        let watcher = notify::recommended_watcher(move |event| {
            // The watch's thread has ended when nobody receives: nothing to do.
            let _ = to_watch.send(Message::Event(event));
        })
        .map_err(error)?;
        let mut watch = Watch {
            reload: self.clone(),
            in_force: std::fs::read_to_string(&path).ok(),
            file: path.clone(),
            read: Box::new(read),
            watcher,
            folders: Vec::new(),
            refused: None,
            watch_error: None,
        };
        watch.follow().map_err(error)?;
        std::thread::Builder::new()
            .name("cors-axum-watch".to_owned())
            .spawn(move || watch.run(&events))
            .map_err(|e| error(notify::Error::io(e)))?;
        Ok(FileWatch { stop: sender })
    }
}

/// What the watch's thread receives.
enum Message {
    Event(notify::Result<Event>),
    /// The [`FileWatch`] was dropped.
    Stop,
}

/// What was last refused, so that it is logged once.
#[derive(PartialEq)]
enum Refused {
    /// A text whose options were not applied.
    Text(String),
    /// Why the file could not be read.
    Unreadable(String),
}

/// A folder watched, with its identity when it was watched: the same path may name another
/// folder later (a folder renamed away and replaced).
type Folder = (PathBuf, Option<(u64, u64)>);

/// The user's closure that turns the file's text into options.
type Read = dyn Fn(&str) -> Result<CorsOptions, BoxError> + Send;

/// One watched file, on the watch's own thread.
struct Watch {
    reload: CorsReload,
    file: PathBuf,
    read: Box<Read>,
    watcher: RecommendedWatcher,
    folders: Vec<Folder>,
    /// The text whose options are in force, as far as the watch knows.
    in_force: Option<String>,
    refused: Option<Refused>,
    /// The last error of the watcher, logged once.
    watch_error: Option<String>,
}

impl Watch {
    /// Reads the file again after each change, until the [`FileWatch`] is dropped.
    fn run(mut self, events: &Receiver<Message>) {
        while self.next_change(events) {
            // Nothing here should panic (the user's `read` is caught on its own), but should
            // anything, the watch goes on.
            let step = catch_unwind(AssertUnwindSafe(|| {
                if let Err(error) = self.follow() {
                    self.watch_failed(&error);
                }
                self.check();
            }));
            if let Err(panic) = step {
                tracing::error!(
                    target: "cors_axum",
                    "watching `{}`: {}; the watch goes on",
                    self.file.display(),
                    panic_message(&*panic).escape_debug()
                );
            }
        }
    }

    /// Waits for a change in a watched folder, then for the folders to rest; `false` when the
    /// watch is dropped. A file opened, read or closed unwritten (a reader's, or the watch's
    /// own read) changes nothing; an error of the watcher may have lost events, so it counts
    /// as a change.
    fn next_change(&mut self, events: &Receiver<Message>) -> bool {
        loop {
            match events.recv() {
                Ok(Message::Event(Ok(Event {
                    kind: EventKind::Access(kind),
                    ..
                }))) if kind != AccessKind::Close(AccessMode::Write) => {}
                Ok(Message::Event(Ok(_))) => break,
                Ok(Message::Event(Err(error))) => {
                    self.watch_failed(&error);
                    break;
                }
                Ok(Message::Stop) | Err(_) => return false,
            }
        }
        let rested_by = Instant::now() + LONGEST_SETTLE;
        loop {
            match events.recv_timeout(SETTLE) {
                Ok(Message::Event(_)) if Instant::now() < rested_by => {}
                Ok(Message::Event(_)) | Err(RecvTimeoutError::Timeout) => return true,
                Ok(Message::Stop) | Err(RecvTimeoutError::Disconnected) => return false,
            }
        }
    }

    /// Watches the folders the path goes through now, and only those; the first error, if a
    /// folder cannot be watched (it is tried again after the next change).
    fn follow(&mut self) -> notify::Result<()> {
        let wanted = folders(&self.file);
        let (kept, gone): (Vec<_>, Vec<_>) = std::mem::take(&mut self.folders)
            .into_iter()
            .partition(|folder| wanted.contains(folder));
        for (folder, _) in gone {
            // A folder deleted is no longer watched already.
            let _ = self.watcher.unwatch(&folder);
        }
        self.folders = kept;
        let mut outcome = Ok(());
        for folder in wanted {
            if self.folders.contains(&folder) {
                continue;
            }
            match self.watcher.watch(&folder.0, RecursiveMode::NonRecursive) {
                Ok(()) => self.folders.push(folder),
                Err(error) => outcome = outcome.and(Err(error)),
            }
        }
        outcome
    }

    /// Reads the file through its path, and applies its options if its text is new.
    fn check(&mut self) {
        let text = match std::fs::read_to_string(&self.file) {
            Ok(text) => text,
            Err(error) => {
                let why = format!("cannot read the file: {error}");
                return self.refuse(Refused::Unreadable(why.clone()), &why);
            }
        };
        if self.in_force.as_ref() == Some(&text) {
            self.refused = None;
            return;
        }
        if matches!(&self.refused, Some(Refused::Text(refused)) if *refused == text) {
            return;
        }
        match self.apply(&text) {
            Ok(()) => {
                tracing::info!(
                    target: "cors_axum",
                    "CORS options reloaded from `{}`",
                    self.file.display()
                );
                self.in_force = Some(text);
                self.refused = None;
            }
            Err(why) => self.refuse(Refused::Text(text), &why),
        }
    }

    /// Turns `text` into options with the user's `read`, a panic caught, and reloads them.
    fn apply(&self, text: &str) -> Result<(), String> {
        let read = &self.read;
        let options = match catch_unwind(AssertUnwindSafe(|| read(text))) {
            Ok(Ok(options)) => options,
            Ok(Err(error)) => return Err(error.to_string()),
            Err(panic) => {
                return Err(format!("reading them panicked: {}", panic_message(&*panic)));
            }
        };
        let given_in = format!("the file `{}`", self.file.display());
        let reloaded = self.reload.replace(options, &given_in);
        reloaded.map_err(|error| error.reason())
    }

    /// Logs, once for each thing refused, that the options in force stay, and why.
    fn refuse(&mut self, refused: Refused, why: &str) {
        let file = self.file.display();
        let message = format!("CORS options not reloaded from `{file}`, the options in force stay");
        warn_once(&mut self.refused, refused, &message, why);
    }

    /// Logs an error of the watcher, once until another one.
    fn watch_failed(&mut self, error: &notify::Error) {
        let message = format!("watching `{}` for changes", self.file.display());
        warn_once(
            &mut self.watch_error,
            error.to_string(),
            &message,
            &error.to_string(),
        );
    }
}

/// Logs `message` and `why` at warn level, unless `what` is what was logged `last`.
fn warn_once<T: PartialEq>(last: &mut Option<T>, what: T, message: &str, why: &str) {
    if last.as_ref() != Some(&what) {
        tracing::warn!(target: "cors_axum", "{message}: {}", why.escape_debug());
        *last = Some(what);
    }
}

/// The folders whose changes can change what `file` reads: the folder of every symlink the path
/// goes through, at its end or in the middle (`current -> releases/v2`, a ConfigMap's `..data`),
/// and the folder of the file, each resolved, as the system resolves the path. Where a part of
/// the path is missing, the folder it would be in stands for it, so that its return is seen.
fn folders(file: &Path) -> Vec<Folder> {
    let mut folders = Vec::new();
    let mut add = |folder: &Path| {
        if !folders.iter().any(|(f, _): &Folder| f == folder) {
            folders.push((folder.to_path_buf(), folder_id(folder)));
        }
    };
    // `at` is always a folder reached without symlinks; `rest` is what is left to follow.
    let mut at = if file.is_absolute() {
        PathBuf::new()
    } else {
        std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
    };
    let mut rest: VecDeque<PathBuf> = parts(file);
    let mut links = 0;
    while let Some(part) = rest.pop_front() {
        match part.components().next() {
            Some(Component::CurDir) => {}
            Some(Component::ParentDir) => {
                at.pop();
            }
            Some(Component::Normal(_)) => {
                let next = at.join(&part);
                match std::fs::symlink_metadata(&next) {
                    Ok(meta) if meta.file_type().is_symlink() && links < MOST_LINKS => {
                        links += 1;
                        // A swap of the link is a change in the folder it is in.
                        add(&at);
                        let Ok(target) = std::fs::read_link(&next) else {
                            break;
                        };
                        if target.is_absolute() {
                            at = PathBuf::new();
                        }
                        for (i, target_part) in parts(&target).into_iter().enumerate() {
                            rest.insert(i, target_part);
                        }
                    }
                    Ok(_) if !rest.is_empty() => at = next,
                    // The file itself, or a part that is missing.
                    _ => {
                        add(&at);
                        break;
                    }
                }
            }
            // The root, or a drive.
            Some(_) => at.push(&part),
            None => {}
        }
    }
    folders
}

/// The parts of a path, one per component.
fn parts(path: &Path) -> VecDeque<PathBuf> {
    path.components()
        .map(|part| PathBuf::from(part.as_os_str()))
        .collect()
}

/// Which folder `folder` names now: its device and inode.
#[cfg(unix)]
fn folder_id(folder: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let metadata = std::fs::metadata(folder).ok()?;
    Some((metadata.dev(), metadata.ino()))
}

/// Which folder `folder` names now: not known here, so a folder is known by its path.
#[cfg(not(unix))]
fn folder_id(_folder: &Path) -> Option<(u64, u64)> {
    None
}
