//! The layout of the crates' sources, as docs/ARCHITECTURE.md promises it: no file imports a
//! file that imports it back, directly or through others, and no function in `src/` is a
//! screen and more (80 lines).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const CRATES: [&str; 4] = ["cors-core", "cors-macros", "cors-axum", "cors-audit"];
const LONGEST_FUNCTION: usize = 80;

/// A source file's module path in its crate, `[]` for the crate root.
type ModulePath = Vec<String>;

fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

fn module_path(src: &Path, file: &Path) -> ModulePath {
    let relative = file
        .strip_prefix(src)
        .expect("under src")
        .with_extension("");
    let mut parts: ModulePath = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The code of `text` without its unit tests, which may import anything, and without its
/// comments, whose paths (doc links) import nothing.
fn code_of(text: &str) -> String {
    let code = text
        .find("#[cfg(test)]\nmod tests")
        .map_or(text, |at| &text[..at]);
    code.lines()
        .map(|line| match line.trim_start().starts_with("//") {
            true => "",
            false => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths of the use tree that starts `code` (after a `head::`), each with the name it is
/// known by where it is used (`a::b as c`: `c`), and how many bytes the tree takes.
fn use_tree(code: &str) -> (Vec<(Vec<String>, String)>, usize) {
    let mut prefix = Vec::new();
    let mut at = 0;
    loop {
        let rest = &code[at..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut paths = Vec::new();
            let mut inner = 0;
            loop {
                let item = group[inner..].trim_start();
                inner = group.len() - item.len();
                if item.is_empty() || item.starts_with('}') {
                    inner += usize::from(item.starts_with('}'));
                    break;
                }
                let (sub, len) = use_tree(item);
                for (path, name) in sub {
                    // `self` in a group is its prefix itself.
                    let path: Vec<String> = path.into_iter().filter(|s| s != "self").collect();
                    let mut full = prefix.clone();
                    full.extend(path);
                    let name = if name == "self" {
                        full.last().cloned().unwrap_or_default()
                    } else {
                        name
                    };
                    paths.push((full, name));
                }
                inner += len;
                let after = group[inner..].trim_start();
                inner = group.len() - after.len();
                if after.starts_with(',') {
                    inner += 1;
                }
            }
            return (paths, at + 1 + inner);
        }
        let len = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
        if len == 0 {
            // A glob, or the end of the path.
            let glob = usize::from(rest.starts_with('*'));
            let name = prefix.last().cloned().unwrap_or_default();
            return (vec![(prefix, name)], at + glob);
        }
        prefix.push(rest[..len].to_owned());
        at += len;
        if code[at..].starts_with("::") {
            at += 2;
            continue;
        }
        let mut name = prefix.last().cloned().unwrap_or_default();
        if let Some(alias) = code[at..].trim_start().strip_prefix("as ") {
            let alias = alias.trim_start();
            let alias_len = alias.find(|c: char| !is_ident(c)).unwrap_or(alias.len());
            name = alias[..alias_len].to_owned();
            at = code.len() - alias.len() + alias_len;
        }
        return (vec![(prefix, name)], at);
    }
}

/// Every path of `code` that starts with `crate::`, `super::` or `self::` (or, in a `use`, with
/// a child module of `module`), made absolute, with the name it is known by and whether it is
/// a re-export (`pub use`).
fn paths(
    code: &str,
    module: &ModulePath,
    files: &BTreeSet<ModulePath>,
) -> Vec<(ModulePath, String, bool)> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = code[at..].find(|c: char| is_ident(c)) {
        let start = at + offset;
        let len = code[start..]
            .find(|c: char| !is_ident(c))
            .unwrap_or(code.len() - start);
        let word = &code[start..start + len];
        at = start + len;
        if start > 0 && code[..start].ends_with("::") || !code[at..].starts_with("::") {
            continue;
        }
        let before = code[..start].trim_end();
        let in_use = before.ends_with("use");
        let base: ModulePath = match word {
            "crate" => Vec::new(),
            // In `a/mod.rs` as in `a.rs`, `super` is the parent of module `a`.
            "super" => module[..module.len().saturating_sub(1)].to_vec(),
            "self" => module.clone(),
            // A child module named at the start of a `use` path.
            child if in_use && files.contains(&[&module[..], &[child.to_owned()]].concat()) => {
                at = start;
                module.clone()
            }
            _ => continue,
        };
        if at != start {
            at += 2;
        }
        let visibility = before.strip_suffix("use").unwrap_or_default().trim_end();
        let public = in_use
            && ["pub", "pub(crate)", "pub(super)"]
                .iter()
                .any(|v| visibility.ends_with(v));
        let (tree, len) = use_tree(&code[at..]);
        at += len;
        for (path, name) in tree {
            let mut full = base.clone();
            full.extend(path);
            found.push((full, name, public));
        }
    }
    found
}

/// The file a path names: the longest prefix that is a file, following re-exports (`pub use`)
/// of the names after it, so that `crate::Name` re-exported by the root names the file that
/// defines `Name`.
fn file_of(
    path: &[String],
    files: &BTreeSet<ModulePath>,
    exports: &BTreeMap<(ModulePath, String), ModulePath>,
    depth: usize,
) -> Option<ModulePath> {
    let len = (0..=path.len())
        .rev()
        .find(|&len| files.contains(&path[..len]))?;
    let file = path[..len].to_vec();
    match path.get(len) {
        Some(name) if depth < 8 => match exports.get(&(file.clone(), name.clone())) {
            Some(target) => {
                let mut next = target.clone();
                next.extend_from_slice(&path[len + 1..]);
                file_of(&next, files, exports, depth + 1).or(Some(file))
            }
            None => Some(file),
        },
        _ => Some(file),
    }
}

/// The files that each file names with `crate::`, `super::` or `self::` paths, re-exports
/// followed.
fn import_edges(
    codes: &BTreeMap<ModulePath, String>,
    files: &BTreeSet<ModulePath>,
) -> BTreeMap<ModulePath, BTreeSet<ModulePath>> {
    let all: BTreeMap<&ModulePath, Vec<(ModulePath, String, bool)>> = codes
        .iter()
        .map(|(module, code)| (module, paths(code, module, files)))
        .collect();
    let mut exports = BTreeMap::new();
    for (module, found) in &all {
        for (path, name, public) in found {
            if *public {
                exports.insert(((*module).clone(), name.clone()), path.clone());
            }
        }
    }
    let mut edges = BTreeMap::new();
    for (module, found) in &all {
        let targets: BTreeSet<ModulePath> = found
            .iter()
            .filter_map(|(path, _, _)| file_of(path, files, &exports, 0))
            .filter(|target| target != *module && !target.is_empty())
            .collect();
        if !module.is_empty() {
            edges.insert((*module).clone(), targets);
        }
    }
    edges
}

/// The strongly connected groups of more than one file (Tarjan's algorithm).
fn cycles(edges: &BTreeMap<ModulePath, BTreeSet<ModulePath>>) -> Vec<Vec<ModulePath>> {
    struct State<'a> {
        edges: &'a BTreeMap<ModulePath, BTreeSet<ModulePath>>,
        index: BTreeMap<&'a ModulePath, usize>,
        low: BTreeMap<&'a ModulePath, usize>,
        stack: Vec<&'a ModulePath>,
        found: Vec<Vec<ModulePath>>,
    }
    fn visit<'a>(state: &mut State<'a>, node: &'a ModulePath) {
        let n = state.index.len();
        state.index.insert(node, n);
        state.low.insert(node, n);
        state.stack.push(node);
        for next in &state.edges[node] {
            if !state.index.contains_key(next) {
                visit(state, next);
                let low = state.low[node].min(state.low[next]);
                state.low.insert(node, low);
            } else if state.stack.contains(&next) {
                let low = state.low[node].min(state.index[next]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut group = Vec::new();
            while let Some(member) = state.stack.pop() {
                group.push(member.clone());
                if member == node {
                    break;
                }
            }
            if group.len() > 1 {
                state.found.push(group);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for node in edges.keys() {
        if !state.index.contains_key(node) {
            visit(&mut state, node);
        }
    }
    state.found
}

/// The functions of `text` longer than [`LONGEST_FUNCTION`] lines, with their length.
fn long_functions(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let Some(at) = trimmed.find("fn ") else {
            continue;
        };
        let before = &trimmed[..at];
        let is_definition = before.split_whitespace().all(|word| {
            matches!(word, "pub" | "const" | "async" | "unsafe") || word.starts_with("pub(")
        });
        // A declaration, or a body on the same line (`fn f(&self) {}`), is no screen.
        if !is_definition || trimmed.trim_end().ends_with(';') || trimmed.trim_end().ends_with('}')
        {
            continue;
        }
        let closing = format!("{indent}}}");
        let Some(end) = lines[i + 1..].iter().position(|l| *l == closing) else {
            continue;
        };
        if end + 1 > LONGEST_FUNCTION {
            let name: String = trimmed[at + 3..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            long.push((name, end + 1));
        }
    }
    long
}

#[test]
fn no_file_imports_one_that_imports_it_back_and_no_function_is_over_a_screen() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut problems = Vec::new();
    for krate in CRATES {
        let src = root.join(krate).join("src");
        let mut paths = Vec::new();
        sources(&src, &mut paths);
        let files: BTreeSet<ModulePath> = paths.iter().map(|p| module_path(&src, p)).collect();
        let mut codes = BTreeMap::new();
        for path in &paths {
            let text = std::fs::read_to_string(path).expect("a source file");
            codes.insert(module_path(&src, path), code_of(&text));
            for (name, length) in long_functions(&text) {
                problems.push(format!("{}: fn {name} is {length} lines", path.display()));
            }
        }
        let edges = import_edges(&codes, &files);
        for group in cycles(&edges) {
            let names: Vec<String> = group.iter().map(|m| m.join("::")).collect();
            problems.push(format!(
                "{krate}: files import each other in a cycle: {}",
                names.join(", ")
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checks_find_what_they_look_for() {
    let text = "fn short() {\n}\n\nfn long() {\n".to_owned() + &"    x();\n".repeat(90) + "}\n";
    assert_eq!(long_functions(&text), [("long".to_owned(), 91)]);
    let a: ModulePath = vec!["a".into()];
    let b: ModulePath = vec!["b".into()];
    let c: ModulePath = vec!["c".into()];
    let root: ModulePath = Vec::new();
    let files: BTreeSet<ModulePath> = [root.clone(), a.clone(), b.clone(), c.clone()].into();
    let codes = BTreeMap::from([
        (
            a.clone(),
            "use crate::b::X;\nuse super::c;\nuse crate::{b::{Y, self}, Z};".to_owned(),
        ),
        (b.clone(), "fn f() -> crate::Z { crate::c::g() }".to_owned()),
        (c.clone(), "/// [`crate::Z`]\nstruct W;".to_owned()),
        (root, "mod a;\npub use a::{Q as Z};".to_owned()),
    ]);
    let codes = codes
        .into_iter()
        .map(|(m, text)| (m, code_of(&text)))
        .collect();
    let edges = import_edges(&codes, &files);
    assert_eq!(
        edges[&a],
        [b.clone(), c.clone()].into(),
        "`crate::Z` is the root's `a::Q`"
    );
    assert_eq!(
        edges[&b],
        [a.clone(), c.clone()].into(),
        "re-exports are followed"
    );
    assert!(edges[&c].is_empty(), "doc links import nothing");
    assert_eq!(cycles(&edges).len(), 1);
    let edges = BTreeMap::from([
        (a.clone(), BTreeSet::from([b.clone()])),
        (b.clone(), BTreeSet::from([c.clone()])),
        (c, BTreeSet::from([a.clone()])),
    ]);
    assert_eq!(cycles(&edges).len(), 1);
    let edges = BTreeMap::from([(a, BTreeSet::from([b.clone()])), (b, BTreeSet::new())]);
    assert!(cycles(&edges).is_empty());
}
