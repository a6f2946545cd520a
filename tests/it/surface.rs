//! The public surface of `cors-axum` at its root: as few names as users need (axum exports about
//! twenty), everything else one module down (`cors`, `app`), and nothing hidden there but what
//! the macros' generated code names.

use std::path::Path;

/// The most names the crate root may show.
const MOST_ROOT_NAMES: usize = 20;

/// The names a crate root shows: what its `pub use` items bring and its `pub mod`s, leaving out
/// items marked `#[doc(hidden)]`. Reads the source as written in this workspace (one item per
/// statement, modules' bodies skipped by counting braces).
fn root_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut lines = text.lines();
    let mut hidden = false;
    while let Some(line) = lines.next() {
        let line = line.trim();
        if line.starts_with("#[doc(hidden)]") {
            hidden = true;
            continue;
        }
        if line.starts_with("#[") || line.starts_with("//") || line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("pub use ") {
            let mut statement = rest.to_owned();
            while !statement.trim_end().ends_with(';') {
                statement.push_str(lines.next().expect("a `pub use` ends with `;`"));
            }
            if !hidden {
                names.extend(used_names(&statement));
            }
        } else if let Some(rest) = line.strip_prefix("pub mod ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !hidden {
                names.push(name);
            }
            if line.ends_with('{') {
                skip_block(&mut lines);
            }
        } else if line.ends_with('{') {
            skip_block(&mut lines);
        }
        hidden = false;
    }
    names
}

/// Skips the lines up to the `}` that closes a block whose `{` ended the line before them.
fn skip_block<'a>(lines: &mut impl Iterator<Item = &'a str>) {
    let mut depth = 1_i32;
    for line in lines {
        depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
        if depth <= 0 {
            return;
        }
    }
}

/// The names one `use` statement (without its `pub use`) brings: each leaf's last segment, or
/// its `as` name.
fn used_names(statement: &str) -> Vec<String> {
    let body = statement.trim().trim_end_matches(';');
    let leaves = match body.find('{') {
        Some(open) => &body[open + 1..body.rfind('}').unwrap_or(body.len())],
        None => body,
    };
    leaves
        .split(',')
        .map(str::trim)
        .filter(|leaf| !leaf.is_empty())
        .map(|leaf| match leaf.split_once(" as ") {
            Some((_, alias)) => alias.trim().to_owned(),
            None => leaf.rsplit("::").next().unwrap_or(leaf).trim().to_owned(),
        })
        .collect()
}

#[test]
fn the_crate_root_shows_at_most_twenty_names() {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("cors-axum/src/lib.rs");
    let text = std::fs::read_to_string(lib).expect("cors-axum's lib.rs");
    let names = root_names(&text);
    assert!(
        names.len() <= MOST_ROOT_NAMES,
        "cors_axum shows {} names at its root (at most {MOST_ROOT_NAMES}): {names:?}",
        names.len()
    );
    for expected in [
        "Application",
        "CorsModule",
        "CorsOptions",
        "cors",
        "app",
        "prelude",
    ] {
        assert!(
            names.iter().any(|name| name == expected),
            "{expected} is missing: {names:?}"
        );
    }
}

#[test]
fn the_root_names_are_read_as_rustdoc_shows_them() {
    let text = "\
mod private;
pub mod shown {
    pub fn inner() { if true {} }
}
#[doc(hidden)]
pub mod hidden {}
pub use a::{B, c::D as E};
pub use f::G;
#[doc(hidden)]
pub use h::I;
pub use j::{
    K, L,
};
";
    assert_eq!(root_names(text), ["shown", "B", "E", "G", "K", "L"]);
}
