//! Public suffixes: domains under which anyone may register a site (`com`, `co.uk`,
//! `github.io`), so that a pattern over one (`https://*.co.uk`) would allow strangers' sites.
//!
//! With the `public-suffix` feature (on by default) they are looked up in the
//! [Public Suffix List](https://publicsuffix.org/), compiled in as text; without it, only
//! top-level domains (one label) are known.

use crate::error::CorsConfigError;

/// Which section of the Public Suffix List a suffix is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Section {
    /// Registries' own suffixes (`com`, `co.uk`), and any top-level domain: no one owns them.
    Icann,
    /// Suffixes that a company runs for its customers (`github.io`, `vercel.app`): the company
    /// owns them, and may say so ([`OwnedSuffixes`]).
    #[cfg_attr(
        not(feature = "public-suffix"),
        expect(dead_code, reason = "only the bundled list names private suffixes")
    )]
    Private,
    /// Top-level names kept off the public DNS for networks of their own ([`PRIVATE_USE`]):
    /// only an organisation's resolvers answer under them, so an organisation may declare one
    /// its own ([`OwnedSuffixes`]).
    PrivateUse,
}

/// Top-level names that no registry delegates, for names of private networks: `internal`
/// (reserved by ICANN for private use, 2024), `corp`, `home` and `mail` (which ICANN resolved in
/// 2018 never to delegate, after name collisions), `local` (multicast DNS, RFC 6762) and the
/// names RFC 2606 reserves, `test`, `example` and `invalid`. Every other top-level domain,
/// listed or not, may be delegated some day, and stays a public suffix.
pub(crate) const PRIVATE_USE: [&str; 8] = [
    "internal", "corp", "home", "mail", "local", "test", "example", "invalid",
];

/// The section of the list `domain` (lowercase, without a trailing dot) is in, when it is a
/// public suffix itself; `None` when sites are registered above it, not under it.
pub(crate) fn section_of(domain: &[u8]) -> Option<Section> {
    // `localhost` and its subdomains are loopback names (RFC 6761) that no one registers.
    if domain == b"localhost" {
        return None;
    }
    // Every top-level domain, listed or not (`com`, `internal`), is one; a few are kept for
    // private networks.
    if !domain.contains(&b'.') {
        if PRIVATE_USE.iter().any(|name| name.as_bytes() == domain) {
            return Some(Section::PrivateUse);
        }
        return Some(Section::Icann);
    }
    listed_section(domain)
}

/// The section of `domain` when the list names it as a public suffix: by a rule of its own, or
/// by a wildcard over its parent (`*.ck` names `any.ck`) that no exception (`!www.ck`) lifts.
#[cfg(feature = "public-suffix")]
fn listed_section(domain: &[u8]) -> Option<Section> {
    let domain = std::str::from_utf8(domain).ok()?;
    let rules = listed::rules();
    if let Some(&section) = rules.exact.get(domain) {
        return Some(section);
    }
    let (_, parent) = domain.split_once('.')?;
    let section = *rules.wildcard.get(parent)?;
    (!rules.exception.contains(domain)).then_some(section)
}

#[cfg(not(feature = "public-suffix"))]
fn listed_section(_domain: &[u8]) -> Option<Section> {
    None
}

/// The [Public Suffix List](https://publicsuffix.org/list/), compiled in as text
/// (`data/public_suffix_list.dat`, refreshed by `scripts/update_public_suffixes.sh`) and read
/// into sets the first time an origin pattern is checked. A generated `match` over the list
/// (the `psl` crate's form) cost a user's cold build 15 s; the text costs nothing to compile,
/// and it is read once, when the first policy is built, never per request.
#[cfg(feature = "public-suffix")]
mod listed {
    use std::collections::{HashMap, HashSet};
    use std::sync::OnceLock;

    use super::Section;

    /// The list as published, comments dropped; its licence (MPL 2.0) heads the file.
    const LIST: &str = include_str!("../data/public_suffix_list.dat");

    /// The list's rules by kind, borrowed from [`LIST`].
    pub(super) struct Rules {
        /// `co.uk`: the name is a suffix.
        pub(super) exact: HashMap<&'static str, Section>,
        /// `*.ck`, keyed by `ck`: every name one label under it is a suffix.
        pub(super) wildcard: HashMap<&'static str, Section>,
        /// `!www.ck`: the name is not a suffix, though a wildcard covers it.
        pub(super) exception: HashSet<&'static str>,
    }

    pub(super) fn rules() -> &'static Rules {
        static RULES: OnceLock<Rules> = OnceLock::new();
        RULES.get_or_init(|| read(LIST))
    }

    pub(super) fn read(list: &'static str) -> Rules {
        let mut rules = Rules {
            exact: HashMap::new(),
            wildcard: HashMap::new(),
            exception: HashSet::new(),
        };
        let mut section = Section::Icann;
        for line in list.lines().map(str::trim) {
            if line.starts_with("// ===BEGIN PRIVATE DOMAINS===") {
                section = Section::Private;
            } else if line.is_empty() || line.starts_with("//") {
                continue;
            } else if let Some(name) = line.strip_prefix('!') {
                rules.exception.insert(name);
            } else if let Some(parent) = line.strip_prefix("*.") {
                rules.wildcard.insert(parent, section);
            } else {
                rules.exact.insert(line, section);
            }
        }
        rules
    }
}

/// Private-section suffixes that the user declared their own
/// ([`CorsOptions::owned_public_suffixes`](crate::CorsOptions::owned_public_suffixes)),
/// lowercase.
#[derive(Clone, Debug, Default)]
pub(crate) struct OwnedSuffixes(Vec<Box<[u8]>>);

impl OwnedSuffixes {
    /// None declared.
    #[cfg(test)]
    pub(crate) const NONE: OwnedSuffixes = OwnedSuffixes(Vec::new());

    /// Checks the declared suffixes: domain names, none of them a top-level domain or in the
    /// ICANN section, which no one owns.
    pub(crate) fn compile(declared: &[String]) -> Result<Self, CorsConfigError> {
        let mut owned = Vec::with_capacity(declared.len());
        for suffix in declared {
            let lowercase = suffix.to_ascii_lowercase().into_bytes();
            let is_domain = lowercase.split(|&b| b == b'.').all(|label| {
                !label.is_empty()
                    && label
                        .iter()
                        .all(|&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            });
            if !is_domain {
                return Err(CorsConfigError::new(
                    "owned_public_suffixes",
                    Some(suffix),
                    format!(
                        "`{suffix}` is not a domain name; write the suffix alone, without scheme, \
                         `*.` or port, e.g. `myplatform.app`"
                    ),
                ));
            }
            if section_of(&lowercase) == Some(Section::Icann) {
                return Err(CorsConfigError::new(
                    "owned_public_suffixes",
                    Some(suffix),
                    format!(
                        "`{suffix}` is a top-level domain or in the ICANN section of the Public Suffix \
                         List: anyone may register a site under it, so no one owns it; only suffixes of \
                         the private section (such as a platform's own `myplatform.app`) and the names \
                         kept for private networks ({}) may be declared",
                        private_use_names()
                    ),
                ));
            }
            owned.push(lowercase.into_boxed_slice());
        }
        Ok(Self(owned))
    }

    fn contains(&self, domain: &[u8]) -> bool {
        self.0.iter().any(|owned| **owned == *domain)
    }
}

/// The names of [`PRIVATE_USE`], as an error message lists them.
fn private_use_names() -> String {
    PRIVATE_USE.map(|name| format!("`{name}`")).join(", ")
}

/// Why a pattern over `domain` (`*.domain`) would allow strangers' sites, if it would: the
/// message of the `origin` error for `pattern`.
pub(crate) fn refused_pattern(
    pattern: &str,
    domain: &[u8],
    owned: &OwnedSuffixes,
) -> Option<String> {
    let shown = String::from_utf8_lossy(domain);
    let example = format!("`{}`", pattern.replacen("*.", "*.example.", 1));
    match section_of(domain)? {
        Section::Icann => Some(format!(
            "`{pattern}` would match every site registered under the public suffix `{shown}`; put `*` \
             over a domain you control, e.g. {example}"
        )),
        Section::Private | Section::PrivateUse if owned.contains(domain) => None,
        Section::PrivateUse => Some(format!(
            "`{pattern}` would match every name under `{shown}`, a top-level name kept for private \
             networks, which no one owns on the public internet; put `*` over a domain you control, \
             e.g. {example}, or, if your network alone resolves `{shown}`, declare it with \
             `owned_public_suffixes([\"{shown}\"])`"
        )),
        Section::Private => Some(format!(
            "`{pattern}` would match every site of every customer of `{shown}`, a public suffix (private \
             section of the Public Suffix List); put `*` over a domain you control, e.g. {example}, or, if \
             you run `{shown}` itself, declare it with `owned_public_suffixes([\"{shown}\"])`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_domains_and_localhost() {
        assert_eq!(section_of(b"com"), Some(Section::Icann));
        assert_eq!(section_of(b"internal"), Some(Section::PrivateUse));
        assert_eq!(section_of(b"corp"), Some(Section::PrivateUse));
        assert_eq!(section_of(b"lan"), Some(Section::Icann));
        assert_eq!(section_of(b"localhost"), None);
        assert_eq!(section_of(b"example.com"), None);
        assert_eq!(section_of(b"a.example.com"), None);
    }

    #[cfg(feature = "public-suffix")]
    #[test]
    fn suffixes_of_the_list() {
        assert_eq!(section_of(b"co.uk"), Some(Section::Icann));
        assert_eq!(section_of(b"com.au"), Some(Section::Icann));
        assert_eq!(section_of(b"github.io"), Some(Section::Private));
        assert_eq!(section_of(b"vercel.app"), Some(Section::Private));
        assert_eq!(section_of(b"s3.amazonaws.com"), Some(Section::Private));
        assert_eq!(section_of(b"example.co.uk"), None);
        assert_eq!(section_of(b"someone.github.io"), None);
        // A wildcard rule (`*.ck`) and its exception (`!www.ck`).
        assert_eq!(section_of(b"anything.ck"), Some(Section::Icann));
        assert_eq!(section_of(b"www.ck"), None);
    }

    #[cfg(not(feature = "public-suffix"))]
    #[test]
    fn without_the_list_only_top_level_domains_are_known() {
        assert_eq!(section_of(b"co.uk"), None);
        assert_eq!(section_of(b"github.io"), None);
    }

    #[test]
    fn declared_suffixes_are_domains_outside_the_icann_section() {
        let owned = OwnedSuffixes::compile(&["MyPlatform.app".to_owned()]).unwrap();
        assert!(owned.contains(b"myplatform.app"));
        for bad in [
            "*.myplatform.app",
            "https://myplatform.app",
            "myplatform.app.",
            "",
        ] {
            let err = OwnedSuffixes::compile(&[bad.to_owned()]).unwrap_err();
            assert_eq!(err.field(), "owned_public_suffixes");
            assert!(err.to_string().contains("is not a domain name"), "{err}");
        }
        let err = OwnedSuffixes::compile(&["com".to_owned()]).unwrap_err();
        assert!(err.to_string().contains("no one owns it"), "{err}");
        #[cfg(feature = "public-suffix")]
        {
            let err = OwnedSuffixes::compile(&["co.uk".to_owned()]).unwrap_err();
            assert_eq!(err.value(), Some("co.uk"));
            assert!(OwnedSuffixes::compile(&["github.io".to_owned()]).is_ok());
        }
    }

    #[cfg(feature = "public-suffix")]
    #[test]
    fn the_compiled_in_list_has_both_sections_and_every_kind_of_rule() {
        let rules = listed::rules();
        assert_eq!(rules.exact.get("co.uk"), Some(&Section::Icann));
        assert_eq!(rules.exact.get("github.io"), Some(&Section::Private));
        assert_eq!(rules.wildcard.get("ck"), Some(&Section::Icann));
        assert!(rules.exception.contains("www.ck"));
        assert!(
            rules.exact.len() > 5_000,
            "{} rules read",
            rules.exact.len()
        );
    }

    #[cfg(feature = "public-suffix")]
    #[test]
    fn a_private_marker_switches_the_section_and_comments_are_skipped() {
        let rules =
            listed::read("// c\na.b\n*.w.x\n!e.w.x\n// ===BEGIN PRIVATE DOMAINS===\n\n p.q \n");
        assert_eq!(rules.exact.get("a.b"), Some(&Section::Icann));
        assert_eq!(rules.exact.get("p.q"), Some(&Section::Private));
        assert_eq!(rules.wildcard.get("w.x"), Some(&Section::Icann));
        assert!(rules.exception.contains("e.w.x"));
        assert_eq!(rules.exact.len(), 2);
    }
}
