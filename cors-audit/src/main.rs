//! `cors-audit`: probes a running API the way browsers do and reports CORS misconfigurations.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use cors_audit::{AuditConfig, UreqTransport, audit};
use http::Method;

/// Probes a running HTTP API the way browsers do, judges every answer with the checks of the
/// Fetch standard, and reports CORS misconfigurations. Exits with 0 when none is found, 1 when
/// some are, 2 when the audit could not run.
#[derive(Debug, Parser)]
#[command(name = "cors-audit", version, about, long_about = None)]
struct Args {
    /// The resource to probe, such as `http://127.0.0.1:3000/items`.
    url: String,

    /// An origin meant to read the API (repeatable); hostile look-alikes are made from the
    /// first.
    #[arg(long = "origin", required = true, value_name = "ORIGIN")]
    origins: Vec<String>,

    /// A method to preflight (repeatable); by default those the resource lists in `Allow`.
    #[arg(long = "method", value_name = "METHOD")]
    methods: Vec<String>,

    /// A request header the pages send (repeatable); default `x-pingother` and `content-type`.
    #[arg(long = "header", value_name = "NAME")]
    headers: Vec<String>,

    /// The pages send credentials (cookies): also probe credentialed requests from the
    /// allowed origin.
    #[arg(long)]
    credentials: bool,

    /// Print the report as JSON.
    #[arg(long)]
    json: bool,

    /// Seconds each request may take.
    #[arg(long, default_value_t = 10, value_name = "SECONDS")]
    timeout: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut config = AuditConfig::new(args.url, String::new());
    config.origins = args.origins;
    config.credentials = args.credentials;
    config.timeout = Duration::from_secs(args.timeout);
    if !args.headers.is_empty() {
        config.headers = args.headers;
    }
    for method in &args.methods {
        match Method::from_bytes(method.as_bytes()) {
            Ok(method) => config.methods.push(method),
            Err(_) => {
                eprintln!("cors-audit: `{method}` is not a method");
                return ExitCode::from(2);
            }
        }
    }

    let mut transport = UreqTransport::new(config.timeout);
    let interactive = std::io::stderr().is_terminal();
    let mut progress = |done: usize, total: usize, case: &str| {
        let mut err = std::io::stderr();
        if case.is_empty() {
            if interactive {
                let _ = write!(err, "\r\x1b[2K");
            }
            let _ = writeln!(err, "probed {total} cases");
        } else if interactive {
            let _ = write!(err, "\r\x1b[2K[{:>2}/{total}] {case}", done + 1);
        } else {
            let _ = writeln!(err, "[{:>2}/{total}] {case}", done + 1);
        }
    };
    let report = match audit(&config, &mut transport, &mut progress) {
        Ok(report) => report,
        Err(error) => {
            eprintln!("cors-audit: {error}");
            return ExitCode::from(2);
        }
    };
    if args.json {
        match serde_json::to_string_pretty(&report) {
            Ok(json) => println!("{json}"),
            Err(error) => {
                eprintln!("cors-audit: {error}");
                return ExitCode::from(2);
            }
        }
    } else {
        print!("{report}");
    }
    if report.is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
