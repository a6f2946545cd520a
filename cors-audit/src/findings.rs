//! What an audit reports: one finding per cause, with the probes that show it.

use std::fmt;

use serde::Serialize;

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// Other sites can read, or do, what they must not: with the user's credentials.
    High,
    /// A weakness, or something that breaks the declared pages.
    Medium,
    /// Wider than needed, or a weakness only a cache in between can use.
    Low,
}

impl Severity {
    /// The name, as in the JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Severity::High => "high",
            Severity::Medium => "medium",
            Severity::Low => "low",
        }
    }
}

/// The cause of a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum FindingKind {
    /// An unrelated origin is allowed: the server reflects any origin. High when it reads
    /// credentialed answers.
    ArbitraryOriginReflected,
    /// A look-alike of a declared origin (a suffix or prefix trick, another scheme or port,
    /// special characters) is allowed: the origin check is not exact. High with credentials.
    LookAlikeOriginAllowed,
    /// `Origin: null`, which any site can send from a sandboxed frame, is allowed. High with
    /// credentials.
    NullAllowed,
    /// `Access-Control-Allow-Origin: *` where credentials are in play: with
    /// `Access-Control-Allow-Credentials: true`, or while the pages send credentials.
    StarWithCredentials,
    /// Answers that depend on the origin lack `Vary: Origin`: a cache may give one origin's
    /// answer to another.
    MissingVaryOrigin,
    /// Preflight answers that depend on `Access-Control-Request-Headers` lack it in `Vary`.
    MissingVaryRequestHeaders,
    /// A preflight from a declared origin is not answered with a 2xx status: the browser never
    /// sends the actual request.
    PreflightNotOk,
    /// A declared origin cannot read a response it should.
    AllowedOriginRefused,
    /// The preflight allows methods the resource does not answer (per its `Allow`).
    AllowMethodsWiderThanRoute,
    /// A route the route table gives no CORS grants a declared origin anyway.
    GrantedWithoutCors,
    /// A cross-site form `POST` carrying the user's cookie reaches the handler: cross-site
    /// request forgery.
    CrossSitePostReachesHandler,
    /// A WebSocket handshake from a hostile origin is accepted (`101`): cross-site WebSocket
    /// hijacking. High when the pages send credentials.
    WebSocketFromHostileOrigin,
}

impl FindingKind {
    /// Every kind, in the order of the SARIF rules.
    pub const ALL: [FindingKind; 12] = [
        Self::ArbitraryOriginReflected,
        Self::LookAlikeOriginAllowed,
        Self::NullAllowed,
        Self::StarWithCredentials,
        Self::MissingVaryOrigin,
        Self::MissingVaryRequestHeaders,
        Self::PreflightNotOk,
        Self::AllowedOriginRefused,
        Self::AllowMethodsWiderThanRoute,
        Self::GrantedWithoutCors,
        Self::CrossSitePostReachesHandler,
        Self::WebSocketFromHostileOrigin,
    ];

    /// The finding's name, as in the JSON output and the SARIF rule id.
    pub fn name(self) -> &'static str {
        match self {
            Self::ArbitraryOriginReflected => "arbitrary-origin-reflected",
            Self::LookAlikeOriginAllowed => "look-alike-origin-allowed",
            Self::NullAllowed => "null-allowed",
            Self::StarWithCredentials => "star-with-credentials",
            Self::MissingVaryOrigin => "missing-vary-origin",
            Self::MissingVaryRequestHeaders => "missing-vary-request-headers",
            Self::PreflightNotOk => "preflight-not-ok",
            Self::AllowedOriginRefused => "allowed-origin-refused",
            Self::AllowMethodsWiderThanRoute => "allow-methods-wider-than-route",
            Self::GrantedWithoutCors => "granted-without-cors",
            Self::CrossSitePostReachesHandler => "cross-site-post-reaches-handler",
            Self::WebSocketFromHostileOrigin => "websocket-from-hostile-origin",
        }
    }

    /// What the finding means and how to fix it, in a sentence or two.
    pub fn help(self) -> &'static str {
        match self {
            Self::ArbitraryOriginReflected => {
                "The server grants an unrelated origin: it reflects any `Origin`. Every site can read \
                 the answers, and with credentials act as the user. Allow the origins of your pages \
                 by name or pattern."
            }
            Self::LookAlikeOriginAllowed => {
                "A look-alike of a declared origin is granted: the origin check matches a prefix, a \
                 suffix, another scheme or port. Compare whole origins, or use anchored patterns such \
                 as `https://*.example.com`."
            }
            Self::NullAllowed => {
                "`Origin: null` is granted; any site can send it from a sandboxed frame. Do not allow \
                 `null`."
            }
            Self::StarWithCredentials => {
                "`Access-Control-Allow-Origin: *` where credentials are in play: browsers refuse `*` \
                 on credentialed requests, so the pages' credentialed requests fail. Name the origins \
                 of the pages."
            }
            Self::MissingVaryOrigin => {
                "An answer that depends on `Origin` (granted or refused, preflight or actual, or sent \
                 without `Origin`) lacks `Vary: Origin`: a cache may give it to another origin. Send \
                 `Vary: Origin` on every answer of the resource."
            }
            Self::MissingVaryRequestHeaders => {
                "Preflight answers depend on `Access-Control-Request-Headers` but do not name it in \
                 `Vary`: a cache may give one preflight's answer to another."
            }
            Self::PreflightNotOk => {
                "A preflight from a declared origin is not answered 2xx, so the browser never sends \
                 the request. Answer preflights before authentication and routing errors."
            }
            Self::AllowedOriginRefused => {
                "A declared origin cannot read an answer it should: a missing or wrong \
                 `Access-Control-Allow-*` header."
            }
            Self::AllowMethodsWiderThanRoute => {
                "The preflight allows methods the resource does not answer. List only the route's \
                 methods."
            }
            Self::GrantedWithoutCors => {
                "The route table gives this route no CORS, yet a declared origin reads its answers: \
                 something outside the route table adds CORS headers."
            }
            Self::CrossSitePostReachesHandler => {
                "A cross-site form POST with the user's cookie reaches the handler: any site can \
                 submit forms as the user (cross-site request forgery). Refuse unsafe cross-site \
                 requests (`Sec-Fetch-Site`, `Origin`) before the handler, or use SameSite cookies \
                 and CSRF tokens."
            }
            Self::WebSocketFromHostileOrigin => {
                "A WebSocket handshake from a hostile origin is accepted; browsers apply no CORS to \
                 WebSockets and send cookies with the handshake (cross-site WebSocket hijacking). \
                 Check `Origin` before upgrading."
            }
        }
    }
}

/// One misconfiguration: its cause, how bad the worst probe that shows it is, and the probes.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// The cause.
    pub kind: FindingKind,
    /// How bad it is: the worst case that shows it.
    pub severity: Severity,
    /// What was seen.
    pub message: String,
    /// The names of the cases that show it, as in the report's table.
    pub evidence: Vec<String>,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:<6} {}: {}",
            self.severity.name(),
            self.kind.name(),
            self.message
        )?;
        const SHOWN: usize = 3;
        let named: Vec<String> = self
            .evidence
            .iter()
            .take(SHOWN)
            .map(|c| format!("`{c}`"))
            .collect();
        match self.evidence.len() {
            0 => Ok(()),
            1 => write!(f, " (case {})", named[0]),
            n if n <= SHOWN => write!(f, " (cases {})", named.join(", ")),
            n => write!(f, " (cases {} and {} more)", named.join(", "), n - SHOWN),
        }
    }
}
