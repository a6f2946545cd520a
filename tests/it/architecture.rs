//! docs/ARCHITECTURE.md names real functions in real files: every function it writes in code
//! font (`Type::function`, or `function()` for a free one) is in the file named before it in
//! the same table row, list item or paragraph, as a method of an `impl` of `Type` (or of the
//! trait `Type`) or as a free function; and every file or folder it names exists. A function
//! renamed or moved fails this test until the document follows.
//!
//! Files are paths from the workspace root (`cors-core/src/policy.rs`) or, failing that, under
//! `cors-axum/src/` (`cors/respond.rs`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A function as the document writes it.
#[derive(Debug, PartialEq, Eq)]
enum Named<'a> {
    /// `Type::function`: a method of `Type`.
    Method(&'a str, &'a str),
    /// `function()`: a free function.
    Free(&'a str),
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_function_name(s: &str) -> bool {
    is_ident(s) && !s.starts_with(|c: char| c.is_ascii_uppercase())
}

/// The function a code span names, if it names one.
fn named(span: &str) -> Option<Named<'_>> {
    let bare = span.strip_suffix("()");
    match bare.unwrap_or(span).split_once("::") {
        Some((ty, function)) => {
            let is_type = is_ident(ty) && ty.starts_with(|c: char| c.is_ascii_uppercase());
            (is_type && is_function_name(function)).then_some(Named::Method(ty, function))
        }
        None => bare.filter(|f| is_function_name(f)).map(Named::Free),
    }
}

/// The document in units: each table row, each list item (with its continuation lines), each
/// paragraph; fenced code left out.
fn units(markdown: &str) -> Vec<String> {
    let mut units = Vec::new();
    let mut current = String::new();
    let mut fenced = false;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let item = trimmed.starts_with("- ")
            || trimmed.starts_with("* ")
            || trimmed
                .split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        let alone = trimmed.starts_with('|') || trimmed.starts_with('#');
        if trimmed.is_empty() || item || alone {
            units.push(std::mem::take(&mut current));
        }
        if alone {
            units.push(trimmed.to_owned());
        } else if !trimmed.is_empty() {
            current.push_str(trimmed);
            current.push('\n');
        }
    }
    units.push(current);
    units.retain(|unit| !unit.is_empty());
    units
}

/// The code spans of `unit`, in order.
fn code_spans(unit: &str) -> Vec<&str> {
    unit.split('`').skip(1).step_by(2).collect()
}

/// The file a code span names, if it names one: `.rs` files and folders (`describe/`).
fn names_a_path(span: &str) -> bool {
    !span.contains(char::is_whitespace)
        && (span.ends_with(".rs") || (span.ends_with('/') && span.len() > 1))
        && span
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c))
}

fn resolve(root: &Path, span: &str) -> Option<PathBuf> {
    [root.join(span), root.join("cors-axum/src").join(span)]
        .into_iter()
        .find(|path| path.exists())
}

/// What is wrong with what `markdown` names, read against the sources under `root`.
fn problems(markdown: &str, root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let mut sources: BTreeMap<PathBuf, Items> = BTreeMap::new();
    for unit in units(markdown) {
        let mut file: Option<(&str, PathBuf)> = None;
        for span in code_spans(&unit) {
            if names_a_path(span) {
                match resolve(root, span) {
                    Some(path) => file = Some((span, path)),
                    None => problems.push(format!("`{span}` is neither a file nor a folder")),
                }
                continue;
            }
            let Some(function) = named(span) else {
                continue;
            };
            let Some((name, path)) = &file else {
                problems.push(format!(
                    "`{span}` is named without a file before it: {unit}"
                ));
                continue;
            };
            let items = sources
                .entry(path.clone())
                .or_insert_with(|| Items::of(&std::fs::read_to_string(path).unwrap_or_default()));
            let found = match function {
                Named::Method(ty, f) => items.has_method(ty, f),
                Named::Free(f) => items.free.iter().any(|g| g == f),
            };
            if !found {
                problems.push(format!("`{span}` is not in `{name}`"));
            }
        }
    }
    problems
}

/// The functions of one source file: its free functions and the methods of each `impl` and
/// `trait`, by the names of the types (and traits) they are for.
#[derive(Default, Debug)]
struct Items {
    free: Vec<String>,
    methods: Vec<(Vec<String>, String)>,
}

impl Items {
    fn has_method(&self, ty: &str, function: &str) -> bool {
        self.methods
            .iter()
            .any(|(types, f)| f == function && types.iter().any(|t| t == ty))
    }

    fn of(source: &str) -> Items {
        let tokens = tokens(source);
        let mut items = Items::default();
        // What each open brace opened: `Some(names)` for an `impl` or a `trait` block.
        let mut blocks: Vec<Option<Vec<String>>> = Vec::new();
        let mut header: Vec<&str> = Vec::new();
        for (i, token) in tokens.iter().enumerate() {
            match *token {
                "{" => {
                    blocks.push(block_names(&header));
                    header.clear();
                }
                "}" => {
                    blocks.pop();
                    header.clear();
                }
                ";" => header.clear(),
                "fn" => {
                    let Some(name) = tokens.get(i + 1).filter(|t| is_ident(t)) else {
                        continue;
                    };
                    match blocks.last() {
                        None => items.free.push((*name).to_owned()),
                        Some(Some(types)) => {
                            items.methods.push((types.clone(), (*name).to_owned()))
                        }
                        Some(None) => {}
                    }
                    header.push(token);
                }
                _ => header.push(token),
            }
        }
        items
    }
}

/// The names an item's header gives the block it opens: for `impl<..> Trait<..> for Type<..>`,
/// `Type` and `Trait`; for `impl<..> Type<..>`, `Type`; for `trait Name`, `Name`; `None` for
/// any other block.
fn block_names(header: &[&str]) -> Option<Vec<String>> {
    // The keyword outside attributes and visibility, `#[..]` and `pub(crate)`.
    let mut depth = 0usize;
    let mut at = None;
    for (i, token) in header.iter().enumerate() {
        match *token {
            "[" | "(" => depth += 1,
            "]" | ")" => depth = depth.saturating_sub(1),
            "impl" | "trait" if depth == 0 => {
                at = Some(i);
                break;
            }
            "fn" | "struct" | "enum" | "mod" | "union" | "=" | "!" | "match" | "|"
                if depth == 0 =>
            {
                return None;
            }
            _ => {}
        }
    }
    let at = at?;
    let rest = &header[at + 1..];
    if header[at] == "trait" {
        return rest.first().map(|name| vec![(*name).to_owned()]);
    }
    // Past the impl's generics, the paths outside angle brackets: a trait path, `for`, the
    // type's path (or only the type's).
    let mut depth = 0usize;
    let mut paths: Vec<Vec<&str>> = vec![Vec::new()];
    for (i, token) in rest.iter().enumerate() {
        match *token {
            "<" => depth += 1,
            ">" => depth = depth.saturating_sub(1),
            "for" if depth == 0 && rest.get(i + 1) != Some(&"<") => paths.push(Vec::new()),
            "where" if depth == 0 => break,
            token if depth == 0 && is_ident(token) => {
                paths.last_mut().expect("a path").push(token);
            }
            _ => {}
        }
    }
    let names = paths
        .iter()
        .filter_map(|path| path.iter().rev().find(|t| **t != "dyn"))
        .map(|name| (*name).to_owned())
        .collect();
    Some(names)
}

/// The tokens of Rust `source` that matter here: identifiers and single punctuation, without
/// comments, strings, characters and lifetimes.
fn tokens(source: &str) -> Vec<&str> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let rest = &source[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            // Block comments nest.
            let mut depth = 0;
            let mut j = i;
            while j < bytes.len() {
                if source[j..].starts_with("/*") {
                    depth += 1;
                    j += 2;
                } else if source[j..].starts_with("*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            i = j;
        } else if let Some(len) = raw_string(rest) {
            i += len;
        } else if b == b'"' || (b == b'b' && rest[1..].starts_with('"')) {
            let mut j = i + usize::from(b == b'b') + 1;
            while j < bytes.len() && bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            i = j + 1;
        } else if b == b'\'' {
            // A character (`'x'`, `'\n'`, `'\u{..}'`) or a lifetime (`'a`).
            if bytes.get(i + 1) == Some(&b'\\') {
                i += 3 + rest[3..].find('\'').map_or(0, |end| end + 1);
            } else {
                let next = rest[1..].chars().next().map_or(0, char::len_utf8);
                if rest[1 + next..].starts_with('\'') {
                    i += 2 + next;
                } else {
                    i += 1;
                    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_')
                    {
                        i += 1;
                    }
                }
            }
        } else if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            tokens.push(&source[start..i]);
        } else if rest.starts_with("->") || rest.starts_with("=>") {
            i += 2;
        } else if b.is_ascii_whitespace() || b.is_ascii_digit() || !b.is_ascii() {
            i += rest.chars().next().map_or(1, char::len_utf8);
        } else {
            tokens.push(&source[i..i + 1]);
            i += 1;
        }
    }
    tokens
}

/// The length of the raw string literal `rest` starts with (`r"..."`, `r#"..."#`, `br".."`).
fn raw_string(rest: &str) -> Option<usize> {
    let after_b = rest.strip_prefix('b').unwrap_or(rest);
    let after_r = after_b.strip_prefix('r')?;
    let hashes = after_r.len() - after_r.trim_start_matches('#').len();
    let body = after_r[hashes..].strip_prefix('"')?;
    let end = format!("\"{}", "#".repeat(hashes));
    let close = body.find(&end)?;
    Some(rest.len() - body.len() + close + end.len())
}

#[test]
fn every_function_the_architecture_names_is_where_it_says() {
    let root = workspace();
    let markdown = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let problems = problems(&markdown, &root);
    assert!(
        problems.is_empty(),
        "docs/ARCHITECTURE.md names what is not there:\n{}",
        problems.join("\n")
    );
    // The walk-throughs are read: their functions are named.
    let count: usize = units(&markdown)
        .iter()
        .map(|unit| code_spans(unit).into_iter().filter_map(named).count())
        .sum();
    assert!(count >= 22, "only {count} functions named");
}

#[test]
fn a_function_renamed_or_moved_is_found() {
    let root = workspace();
    let fine = "| 2 | `cors/respond.rs` | `PathCors::decide` | the decision |\n\
                | 1 | `handler.rs` | `Wrapped::call` | the handler |\n\
                - `cors/layer.rs`: `Cors::call`; `cors/future.rs`: `add_preflight_headers()`\n";
    assert_eq!(problems(fine, &root), Vec::<String>::new());
    let renamed = "| 2 | `cors/respond.rs` | `PathCors::decided` | the decision |\n";
    assert_eq!(
        problems(renamed, &root),
        ["`PathCors::decided` is not in `cors/respond.rs`"]
    );
    let moved = "In `cors/layer.rs`, `remove_cors_headers()` and `PathCors::decide`.\n";
    assert_eq!(
        problems(moved, &root),
        [
            "`remove_cors_headers()` is not in `cors/layer.rs`",
            "`PathCors::decide` is not in `cors/layer.rs`",
        ]
    );
    let no_file = "`PathCors::decide` decides.\n";
    assert_eq!(problems(no_file, &root).len(), 1);
    let gone = "`cors/slots.rs` holds `RouteSlot::kept`.\n";
    assert_eq!(
        problems(gone, &root)[0],
        "`cors/slots.rs` is neither a file nor a folder"
    );
}

#[test]
fn impl_headers_name_their_type_and_trait() {
    let items = Items::of(
        "impl<S> tower_service::Service<Request> for Cors<S> { fn call(&mut self) {} }\n\
         impl<'a> CorsRequest<'a> { pub fn new() -> Self { fn inner() {} todo!() } }\n\
         pub trait Guard<S>: Send + 'static { fn check<'a>(parts: &'a str); }\n\
         impl<S, G> Guard<S> for G where G: Send { fn check<'a>(parts: &'a str) {} }\n\
         /* fn commented() {} */ const S: &str = \"fn quoted() {\"; fn free(c: char) { let _ = '{'; }",
    );
    assert!(items.has_method("Cors", "call"));
    assert!(items.has_method("Service", "call"));
    assert!(items.has_method("CorsRequest", "new"));
    assert!(!items.has_method("CorsRequest", "inner"));
    assert!(items.has_method("Guard", "check"));
    assert_eq!(items.free, ["free"]);
}
