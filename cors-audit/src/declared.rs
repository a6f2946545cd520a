//! The declared policy: the origins, patterns and examples given with `--origin`, compiled with
//! the engine of cors-axum, and the hostile origins made to look like them.

use cors_axum_core::{AllowOrigin, CorsOptions, CorsPolicy, CorsRequest};
use http::{HeaderMap, HeaderValue, Method};

use crate::config::AuditError;

/// How a hostile origin was made from a declared one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Hostility {
    /// An unrelated site.
    Arbitrary,
    /// The declared origin followed by more labels: `https://app.example.evil.example`.
    AllowedAsPrefix,
    /// The declared host (or a pattern's domain) at the end of another:
    /// `https://evilapp.example`.
    HostAsSuffix,
    /// `http://` where `https://` is declared.
    SchemeDowngrade,
    /// Another port.
    OtherPort,
    /// `null`: sandboxed frames, `file:` pages, redirects.
    Null,
    /// Characters no browser sends in an origin, which naive parsers mishandle.
    SpecialCharacters,
}

impl Hostility {
    /// The name used in case names and findings.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Hostility::Arbitrary => "arbitrary-origin",
            Hostility::AllowedAsPrefix => "allowed-origin-as-prefix",
            Hostility::HostAsSuffix => "allowed-host-as-suffix",
            Hostility::SchemeDowngrade => "scheme-downgrade",
            Hostility::OtherPort => "other-port",
            Hostility::Null => "null-origin",
            Hostility::SpecialCharacters => "special-characters",
        }
    }
}

/// The label and port that stand for a pattern's wildcards in the origin the audit sends.
const SAMPLE_LABEL: &str = "cors-audit";
const SAMPLE_PORT: &str = "8080";

/// The declared origins, compiled.
pub(crate) struct Declared {
    policy: CorsPolicy,
    /// One origin each declared value allows, in order: the value itself, or a pattern with its
    /// wildcards filled in. The first is the model.
    samples: Vec<String>,
    /// The hostile origins, none of which the declared policy allows.
    hostile: Vec<(Hostility, String)>,
    /// Malformed look-alikes of the model, sent raw.
    special: Vec<String>,
}

impl Declared {
    /// Compiles `origins` with the engine; a value it refuses is an error that says why.
    pub(crate) fn compile(origins: &[String]) -> Result<Self, AuditError> {
        let first = origins.first().ok_or_else(|| AuditError::InvalidOrigin {
            origin: String::new(),
            reason: "no origin is declared; give the origin of your pages, e.g. \
                     `--origin https://app.example`"
                .to_owned(),
        })?;
        if let Some(star) = origins.iter().find(|o| o.trim() == "*") {
            return Err(AuditError::InvalidOrigin {
                origin: star.clone(),
                reason: format!(
                    "`{star}`: the audit needs the origins your pages are on, to tell them from \
                     hostile ones; a public API that answers `*` to every origin passes without \
                     `--credentials`"
                ),
            });
        }
        let null = origins.iter().any(|o| o == "null");
        let options = CorsOptions::new()
            .origin(AllowOrigin::list(origins.iter().cloned()))
            .allow_null_origin(null);
        let policy = CorsPolicy::from_options(&options).map_err(|error| {
            let text = error.to_string();
            let reason = text
                .strip_prefix("invalid CORS option `origin`: ")
                .unwrap_or(&text)
                .to_owned();
            AuditError::InvalidOrigin {
                origin: error.value().unwrap_or(first).to_owned(),
                reason,
            }
        })?;
        let mut declared = Self {
            policy,
            samples: Vec::new(),
            hostile: Vec::new(),
            special: Vec::new(),
        };
        for origin in origins {
            let sample = sample_of(origin);
            if !declared.allows(&sample) {
                return Err(AuditError::InvalidOrigin {
                    origin: origin.clone(),
                    reason: format!(
                        "`{origin}`: the audit cannot make an origin this allows (`{sample}` is \
                         refused); declare an origin it allows instead"
                    ),
                });
            }
            if !declared.samples.contains(&sample) {
                declared.samples.push(sample);
            }
        }
        declared.hostile = declared.look_alikes(origins);
        declared.special =
            OriginParts::parse(declared.model()).map_or_else(Vec::new, |p| p.special());
        Ok(declared)
    }

    /// Whether the declared policy allows `origin`, as the engine decides.
    pub(crate) fn allows(&self, origin: &str) -> bool {
        let Ok(value) = HeaderValue::from_str(origin) else {
            return false;
        };
        let mut headers = HeaderMap::new();
        headers.insert(http::header::ORIGIN, value);
        self.policy
            .actual(&CorsRequest::new(&Method::GET, &headers))
            .is_allowed()
    }

    /// The origin of the allowed requests, and the model of the malformed look-alikes.
    pub(crate) fn model(&self) -> &str {
        &self.samples[0]
    }

    /// One origin each further declared value allows.
    pub(crate) fn others(&self) -> &[String] {
        &self.samples[1..]
    }

    /// The hostile origins, none of which the declared policy allows.
    pub(crate) fn hostile(&self) -> &[(Hostility, String)] {
        &self.hostile
    }

    /// Malformed look-alikes of the model, which no browser sends.
    pub(crate) fn special(&self) -> &[String] {
        &self.special
    }

    /// The look-alikes of every declared value, an unrelated site and `null`, each once, less
    /// those the declared policy allows.
    fn look_alikes(&self, origins: &[String]) -> Vec<(Hostility, String)> {
        let scheme = OriginParts::parse(self.model()).map_or("https", |p| p.scheme);
        let mut all = vec![(Hostility::Arbitrary, format!("{scheme}://evil.example"))];
        for (origin, sample) in origins.iter().zip(origins.iter().map(|o| sample_of(o))) {
            let Some(parts) = OriginParts::parse(&sample) else {
                continue;
            };
            all.extend(parts.hostile());
            // A pattern's own domain at the end of another host: what `ends_with` without the
            // dot lets through.
            if let Some(domain) = pattern_domain(origin) {
                all.push((
                    Hostility::HostAsSuffix,
                    parts.with(parts.scheme, &format!("evil{domain}"), parts.port),
                ));
            }
        }
        all.push((Hostility::Null, "null".to_owned()));
        let mut kept: Vec<(Hostility, String)> = Vec::new();
        for (hostility, origin) in all {
            if !self.allows(&origin) && !kept.iter().any(|(_, o)| *o == origin) {
                kept.push((hostility, origin));
            }
        }
        kept
    }
}

/// An origin `declared` allows: itself, or a pattern with a label for `*.` and a port for `:*`,
/// lowercase and without a default port, as browsers send it.
fn sample_of(declared: &str) -> String {
    let mut sample = declared
        .trim()
        .replacen("://*.", &format!("://{SAMPLE_LABEL}."), 1);
    if let Some(host) = sample.strip_suffix(":*") {
        sample = format!("{host}:{SAMPLE_PORT}");
    }
    let sample = sample.to_ascii_lowercase();
    for default in ["https://", "http://"] {
        let port = if default == "https://" { ":443" } else { ":80" };
        if sample.starts_with(default) && sample.ends_with(port) && !sample.ends_with("]") {
            return sample[..sample.len() - port.len()].to_owned();
        }
    }
    sample
}

/// The domain under a subdomain pattern: `example.com` for `https://*.example.com`.
fn pattern_domain(declared: &str) -> Option<String> {
    let (_, rest) = declared.trim().split_once("://*.")?;
    let host = match rest.strip_prefix('[') {
        Some(_) => return None,
        None => rest.split(':').next().unwrap_or(rest),
    };
    Some(host.to_ascii_lowercase())
}

/// An origin split into its parts.
pub(crate) struct OriginParts<'a> {
    scheme: &'a str,
    host: &'a str,
    port: Option<&'a str>,
}

impl<'a> OriginParts<'a> {
    /// `scheme://host[:port]`, the host a name, an IPv4 address or an IPv6 one in brackets.
    pub(crate) fn parse(origin: &'a str) -> Option<Self> {
        let (scheme, rest) = origin.split_once("://")?;
        if !matches!(scheme, "http" | "https") || rest.is_empty() || rest.contains(['/', '?', '#'])
        {
            return None;
        }
        let (host, port) = if rest.starts_with('[') {
            let close = rest.find(']')?;
            let (host, after) = rest.split_at(close + 1);
            match after {
                "" => (host, None),
                _ => (host, Some(after.strip_prefix(':')?)),
            }
        } else {
            match rest.split_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (rest, None),
            }
        };
        if host.is_empty() || port.is_some_and(|p| p.parse::<u16>().is_err()) {
            return None;
        }
        Some(Self { scheme, host, port })
    }

    fn with(&self, scheme: &str, host: &str, port: Option<&str>) -> String {
        match port {
            Some(port) => format!("{scheme}://{host}:{port}"),
            None => format!("{scheme}://{host}"),
        }
    }

    /// The look-alikes made from this origin.
    fn hostile(&self) -> Vec<(Hostility, String)> {
        let Self { scheme, host, port } = self;
        let mut hostile = Vec::new();
        // Labels cannot be added around an IPv6 address.
        if !host.starts_with('[') {
            // The registrable part of the host, for the look-alike that ends with it.
            let bare = host.trim_start_matches("www.");
            hostile.push((
                Hostility::AllowedAsPrefix,
                self.with(scheme, &format!("{host}.evil.example"), None),
            ));
            hostile.push((
                Hostility::HostAsSuffix,
                self.with(scheme, &format!("evil{bare}"), *port),
            ));
        }
        if *scheme == "https" {
            hostile.push((Hostility::SchemeDowngrade, self.with("http", host, *port)));
        }
        let other_port = if *port == Some("8443") {
            "9443"
        } else {
            "8443"
        };
        hostile.push((
            Hostility::OtherPort,
            self.with(scheme, host, Some(other_port)),
        ));
        hostile
    }

    /// Malformed look-alikes, sent raw: a browser never sends them, a naive server may still
    /// allow them.
    fn special(&self) -> Vec<String> {
        let Self { scheme, host, .. } = self;
        vec![
            format!("{scheme}://{host}`.evil.example"),
            format!("{scheme}://{host}_.evil.example"),
            format!("{scheme}://{host}%60.evil.example"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origins(declared: &[&str]) -> Vec<String> {
        let declared: Vec<String> = declared.iter().map(|o| (*o).to_owned()).collect();
        Declared::compile(&declared)
            .unwrap()
            .hostile()
            .iter()
            .map(|(_, o)| o.clone())
            .collect()
    }

    #[test]
    fn look_alikes_of_an_origin() {
        assert_eq!(
            origins(&["https://app.example"]),
            [
                "https://evil.example",
                "https://app.example.evil.example",
                "https://evilapp.example",
                "http://app.example",
                "https://app.example:8443",
                "null",
            ]
        );
        let local = origins(&["http://localhost:8080"]);
        assert!(
            local.contains(&"http://localhost:8443".to_owned()),
            "{local:?}"
        );
        assert!(
            local.contains(&"http://evillocalhost:8080".to_owned()),
            "{local:?}"
        );
        let ipv6 = origins(&["http://[::1]:3000"]);
        assert_eq!(
            ipv6,
            ["http://evil.example", "http://[::1]:8443", "null"],
            "no labels around an IPv6 address"
        );
    }

    #[test]
    fn a_declared_pattern_is_sampled_and_never_hostile() {
        let declared = Declared::compile(&[
            "https://a.example.com".to_owned(),
            "https://*.example.com".to_owned(),
        ])
        .unwrap();
        assert_eq!(declared.model(), "https://a.example.com");
        assert_eq!(declared.others(), ["https://cors-audit.example.com"]);
        let hostile: Vec<&str> = declared.hostile().iter().map(|(_, o)| o.as_str()).collect();
        // `https://evila.example.com` is a look-alike of the first, but the pattern allows it.
        assert!(
            !hostile.contains(&"https://evila.example.com"),
            "{hostile:?}"
        );
        assert!(hostile.contains(&"https://evilexample.com"), "{hostile:?}");
        assert!(
            hostile.contains(&"https://cors-audit.example.com.evil.example"),
            "{hostile:?}"
        );
        assert!(hostile.iter().all(|o| !declared.allows(o)));
    }

    #[test]
    fn declared_values_the_engine_refuses_are_errors_that_say_why() {
        let error = Declared::compile(&["https://app.example/".to_owned()])
            .err()
            .unwrap();
        assert_eq!(
            error.to_string(),
            "--origin: `https://app.example/` has a path or a trailing slash; write it as \
             `https://app.example`"
        );
        let error = Declared::compile(&["app.example".to_owned()])
            .err()
            .unwrap();
        assert!(error.to_string().contains("is not an origin"), "{error}");
        let error = Declared::compile(&["*".to_owned()]).err().unwrap();
        assert!(
            error.to_string().contains("the origins your pages are on"),
            "{error}"
        );
        let error = Declared::compile(&[]).err().unwrap();
        assert!(
            error.to_string().contains("no origin is declared"),
            "{error}"
        );
    }

    #[test]
    fn null_is_allowed_only_when_declared() {
        let declared = Declared::compile(&["https://app.example".to_owned()]).unwrap();
        assert!(!declared.allows("null"));
        let declared =
            Declared::compile(&["https://app.example".to_owned(), "null".to_owned()]).unwrap();
        assert!(declared.allows("null"));
        assert!(
            declared
                .hostile()
                .iter()
                .all(|(h, _)| *h != Hostility::Null)
        );
    }

    #[test]
    fn samples_are_as_browsers_send_them() {
        assert_eq!(sample_of("HTTPS://App.Example:443"), "https://app.example");
        assert_eq!(sample_of("http://localhost:*"), "http://localhost:8080");
        assert_eq!(
            sample_of("https://*.example.com"),
            "https://cors-audit.example.com"
        );
        assert_eq!(
            pattern_domain("https://*.example.com:8443").as_deref(),
            Some("example.com")
        );
        assert!(OriginParts::parse("https://app.example/").is_none());
        assert!(OriginParts::parse("https://app.example:99999").is_none());
        assert!(OriginParts::parse("http://[::1]").is_some());
    }
}
