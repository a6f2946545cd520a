//! A PostgreSQL server of a test's own: initialised in a temporary folder, run as the
//! `postgres` user (the server refuses to run as root) on a free port of 127.0.0.1, stopped and
//! removed when the guard is dropped, also on a panic. Without PostgreSQL the test says it
//! skips; in CI (`CI=true`) it fails instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A running server; stopped and removed on drop.
pub(crate) struct Postgres {
    bin: PathBuf,
    dir: PathBuf,
    as_postgres: bool,
    /// The server's port on 127.0.0.1.
    pub(crate) port: u16,
}

/// Says why the test skips and returns `None`, or panics in CI.
fn skip(reason: &str) -> Option<Postgres> {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "PostgreSQL is needed in CI: {reason}"
    );
    eprintln!("skipped: {reason}");
    None
}

/// The folder of `initdb` and `pg_ctl`: Debian's `/usr/lib/postgresql/<version>/bin`, the
/// newest, or `PATH`'s.
fn bin_dir() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("bin"))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    found.sort_by_key(|bin| {
        let version = bin.parent().and_then(Path::file_name);
        version.and_then(|v| v.to_str()?.parse::<u32>().ok())
    });
    found.pop().or_else(|| {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path).find(|dir| dir.join("initdb").exists())
    })
}

/// A port of 127.0.0.1 that nothing listens on now.
pub(crate) fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a local port");
    listener.local_addr().expect("bound").port()
}

fn whoami() -> String {
    Command::new("id")
        .arg("-un")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

impl Postgres {
    /// Initialises and starts a server, or says why not (see the module).
    pub(crate) fn start() -> Option<Postgres> {
        let server = Postgres::init()?;
        server.resume();
        Some(server)
    }

    /// Initialises a server, not started: its settings and files can be written first.
    pub(crate) fn init() -> Option<Postgres> {
        let Some(bin) = bin_dir() else {
            return skip("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb)");
        };
        let as_postgres = match whoami().as_str() {
            "root" => true,
            "postgres" => false,
            user => {
                return skip(&format!(
                    "the server runs as `postgres`, started by root or by `postgres`, not `{user}`"
                ));
            }
        };
        let server = Postgres {
            bin,
            dir: Postgres::folder(as_postgres),
            as_postgres,
            port: free_port(),
        };
        let data = server.data();
        server.run(
            "initdb",
            &["-D", &data, "-U", "postgres", "-A", "trust", "--no-sync"],
        );
        Some(server)
    }

    /// A folder of its own, owned by `postgres` when the tests run as root.
    fn folder(as_postgres: bool) -> PathBuf {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "cors-axum-pg-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        if as_postgres {
            let chown = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&dir)
                .status();
            assert!(chown.is_ok_and(|s| s.success()), "chown of {dir:?}");
        }
        dir
    }

    /// Writes `contents` to `name` in the data folder, readable by its owner only (as the
    /// server wants its key), owned by `postgres`.
    pub(crate) fn write(&self, name: &str, contents: &str) {
        use std::os::unix::fs::PermissionsExt;
        let path = self.dir.join("data").join(name);
        std::fs::write(&path, contents).expect("a file of the server");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        if self.as_postgres {
            let chown = Command::new("chown")
                .arg("postgres:postgres")
                .arg(&path)
                .status();
            assert!(chown.is_ok_and(|s| s.success()), "chown of {path:?}");
        }
    }

    /// Appends settings to `postgresql.conf`.
    pub(crate) fn configure(&self, settings: &str) {
        use std::io::Write;
        let path = self.dir.join("data").join("postgresql.conf");
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .expect("postgresql.conf");
        writeln!(file, "{settings}").expect("postgresql.conf written");
    }

    /// The folder of the server's socket (`host=<this> port=<port>` reaches it as `postgres`,
    /// trusted, whatever `pg_hba.conf` says of TCP).
    pub(crate) fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// A streaming standby of this server (`pg_basebackup -R`), started on a port of its own.
    pub(crate) fn standby(&self) -> Postgres {
        let standby = Postgres {
            bin: self.bin.clone(),
            dir: Postgres::folder(self.as_postgres),
            as_postgres: self.as_postgres,
            port: free_port(),
        };
        let port = self.port.to_string();
        let data = standby.data();
        self.run(
            "pg_basebackup",
            &[
                "-D",
                &data,
                "-h",
                "127.0.0.1",
                "-p",
                &port,
                "-U",
                "postgres",
                "-R",
                "-X",
                "stream",
                "--no-sync",
            ],
        );
        standby.resume();
        standby
    }

    /// Makes a standby the primary (`pg_ctl promote`), once it is.
    pub(crate) fn promote(&self) {
        self.run("pg_ctl", &["-D", &self.data(), "-w", "promote"]);
    }

    /// The postmaster's process and its children, the backends among them.
    fn processes(&self) -> Vec<String> {
        let pid_file = std::fs::read_to_string(self.dir.join("data").join("postmaster.pid"))
            .unwrap_or_default();
        let Some(postmaster) = pid_file.lines().next().map(str::to_owned) else {
            return Vec::new();
        };
        let mut found = vec![postmaster.clone()];
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            // `pid (name) state ppid ...`: the name may hold spaces, not `)`.
            let parent = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1));
            if parent == Some(postmaster.as_str()) {
                found.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        found
    }

    fn signal(&self, signal: &str) {
        let processes = self.processes();
        if !processes.is_empty() {
            let _ = Command::new("kill")
                .arg(signal)
                .args(&processes)
                .stderr(std::process::Stdio::null())
                .status();
        }
    }

    /// Freezes the server and every backend (`SIGSTOP`): their sockets stay open, the kernel
    /// accepts connections and acknowledges data, nothing answers.
    pub(crate) fn freeze(&self) {
        self.signal("-STOP");
    }

    /// Lets a frozen server go on (`SIGCONT`).
    pub(crate) fn thaw(&self) {
        self.signal("-CONT");
    }

    fn data(&self) -> String {
        self.dir.join("data").display().to_string()
    }

    /// The server's log file: every statement is logged (`log_statement=all`).
    pub(crate) fn log(&self) -> PathBuf {
        self.dir.join("server.log")
    }

    /// Runs a program of PostgreSQL's, as `postgres`; panics with its output if it fails.
    fn run(&self, program: &str, args: &[&str]) -> Output {
        let program = self.bin.join(program);
        let mut command = if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(program);
            command
        } else {
            Command::new(program)
        };
        let output = command
            .args(args)
            .output()
            .expect("PostgreSQL's program runs");
        assert!(
            output.status.success(),
            "{args:?}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// Starts the server (again), on its port; returns once it accepts connections.
    pub(crate) fn resume(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c log_statement=all",
            self.port,
            self.dir.display()
        );
        let log = self.log().display().to_string();
        let data = self.data();
        self.run(
            "pg_ctl",
            &[
                "-D", &data, "-l", &log, "-o", &options, "-w", "-t", "30", "start",
            ],
        );
    }

    /// Stops the server, closing every connection (`-m fast`).
    pub(crate) fn pause(&self) {
        self.run("pg_ctl", &["-D", &self.data(), "-m", "fast", "-w", "stop"]);
    }

    /// The connection string of the `postgres` database, as user `postgres`.
    pub(crate) fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        // A frozen server stops only once it can run.
        self.thaw();
        let data = self.data();
        let stop = self.bin.join("pg_ctl");
        let mut command = if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(stop);
            command
        } else {
            Command::new(stop)
        };
        let _ = command
            .args(["-D", &data, "-m", "immediate", "-w", "stop"])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
