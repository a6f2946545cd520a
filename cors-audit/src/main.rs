//! `cors-audit`: probes a running API the way browsers do and reports CORS misconfigurations.

use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use cors_audit::{
    AuditConfig, Report, Route, UreqTransport, audit, audit_routes, parse_openapi,
    parse_route_table,
};
use http::Method;

/// The largest route table or OpenAPI document read.
const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Probes a running HTTP API the way browsers do, judges every answer with the checks of the
/// Fetch standard, and reports CORS misconfigurations, one finding per cause. Exit status: 0
/// when nothing is found, 1 when something is, 2 when the audit could not run or a route could
/// not be probed.
#[derive(Debug, Parser)]
#[command(name = "cors-audit", version, about, long_about = None)]
struct Args {
    /// The resource to probe, such as `http://127.0.0.1:3000/items`; with `--routes` or
    /// `--openapi`, the base URL the paths are joined to, such as `http://127.0.0.1:3000`.
    url: String,

    /// An origin meant to read the API (repeatable): an origin, a pattern of the policy
    /// (`https://*.example.com`), `null` if the policy allows it, or an example of what a
    /// predicate allows. Hostile look-alikes are made from each; the first makes the allowed
    /// requests.
    #[arg(long = "origin", required = true, value_name = "ORIGIN")]
    origins: Vec<String>,

    /// Audit every route of this route table: the text `RouteTable` prints, or its JSON form.
    #[arg(long, value_name = "FILE", conflicts_with = "openapi")]
    routes: Option<String>,

    /// Audit every operation of this OpenAPI 3 document (JSON).
    #[arg(long, value_name = "FILE")]
    openapi: Option<String>,

    /// A method to preflight (repeatable); by default those the resource lists in `Allow`.
    /// Routes use their own.
    #[arg(long = "method", value_name = "METHOD")]
    methods: Vec<String>,

    /// A request header the pages send (repeatable); default `x-pingother` and `content-type`.
    #[arg(long = "header", value_name = "NAME")]
    headers: Vec<String>,

    /// The pages send credentials (cookies): also probe credentialed requests from the
    /// declared origin, and cross-site form posts.
    #[arg(long)]
    credentials: bool,

    /// The cookie credentialed probes carry, as a browser sends the user's session
    /// (default: a harmless dummy, `cors_audit=1`).
    #[arg(long, value_name = "NAME=VALUE")]
    cookie: Option<String>,

    /// Print the report as JSON.
    #[arg(long, conflicts_with = "sarif")]
    json: bool,

    /// Write the report as SARIF 2.1.0 to FILE (`-`: standard output) for code scanning; with
    /// `--routes` or `--openapi`, results point at the route's line in that file.
    #[arg(long, value_name = "FILE")]
    sarif: Option<String>,

    /// The `Host` every probe carries instead of the URL's, for an API that answers each
    /// tenant on its own host (its tenants' origins): `--host acme.api.example` with the
    /// server's address as the URL.
    #[arg(long, value_name = "HOST")]
    host: Option<String>,

    /// Seconds each request may take, body included.
    #[arg(long, default_value_t = 10, value_name = "SECONDS")]
    timeout: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(args) {
        Ok(status) => ExitCode::from(status),
        Err(error) => {
            eprintln!("cors-audit: {error}");
            ExitCode::from(2)
        }
    }
}

fn config(args: &Args) -> Result<AuditConfig, String> {
    let mut config = AuditConfig::new(args.url.clone(), String::new());
    config.origins = args.origins.clone();
    config.credentials = args.credentials;
    config.timeout = Duration::from_secs(args.timeout);
    if let Some(cookie) = &args.cookie {
        config.cookie = cookie.clone();
    }
    if !args.headers.is_empty() {
        config.headers = args.headers.clone();
    }
    for method in &args.methods {
        let method = Method::from_bytes(method.as_bytes())
            .map_err(|_| format!("`--method {method}` is not a method, e.g. `PUT`"))?;
        config.methods.push(method);
    }
    Ok(config)
}

/// Reads `path` whole, at most [`MAX_FILE_BYTES`].
fn read_capped(option: &str, path: &str) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("`{option} {path}`: {e}"))?;
    let mut text = String::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("`{option} {path}`: {e}"))?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "`{option} {path}` is larger than {} MiB",
            MAX_FILE_BYTES >> 20
        ));
    }
    Ok(text)
}

fn routes(args: &Args) -> Result<Option<Vec<Route>>, String> {
    if let Some(path) = &args.routes {
        let text = read_capped("--routes", path)?;
        return parse_route_table(&text)
            .map(Some)
            .map_err(|e| format!("`--routes {path}`: {e}"));
    }
    if let Some(path) = &args.openapi {
        let text = read_capped("--openapi", path)?;
        return parse_openapi(&text)
            .map(Some)
            .map_err(|e| format!("`--openapi {path}`: {e}"));
    }
    Ok(None)
}

/// The audit; the exit status, or why it could not run.
fn run(args: Args) -> Result<u8, String> {
    let config = config(&args)?;
    let routes = routes(&args)?;
    let mut transport = UreqTransport::new(config.timeout);
    if let Some(host) = &args.host {
        transport = transport.with_host(host)?;
    }
    let interactive = std::io::stderr().is_terminal();
    let mut progress = |done: usize, total: usize, case: &str| {
        let mut err = std::io::stderr();
        if case.is_empty() {
            if interactive {
                let _ = write!(err, "\r\x1b[2K");
            }
        } else if interactive {
            let _ = write!(err, "\r\x1b[2K[{:>2}/{total}] {case}", done + 1);
        } else {
            let _ = writeln!(err, "[{:>2}/{total}] {case}", done + 1);
        }
    };
    let report = match &routes {
        Some(routes) => audit_routes(&config, routes, &mut transport, &mut progress),
        None => audit(&config, &mut transport, &mut progress),
    }
    .map_err(|e| e.to_string())?;
    print_report(&args, &report)?;
    Ok(report.exit_status())
}

fn print_report(args: &Args, report: &Report) -> Result<(), String> {
    if let Some(path) = &args.sarif {
        let artifact = args.routes.as_deref().or(args.openapi.as_deref());
        let sarif =
            serde_json::to_string_pretty(&report.to_sarif(artifact)).map_err(|e| e.to_string())?;
        if path == "-" {
            println!("{sarif}");
        } else {
            std::fs::write(path, sarif + "\n").map_err(|e| format!("`--sarif {path}`: {e}"))?;
            print!("{report}");
            return Ok(());
        }
    } else if args.json {
        let json = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
        println!("{json}");
    } else {
        print!("{report}");
        return Ok(());
    }
    // The summary for the log, beside the machine-readable output.
    eprintln!("{}", report.summary);
    Ok(())
}
