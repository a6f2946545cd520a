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

/// The code of `text` without its unit tests, which may import anything.
fn without_tests(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod tests")
        .map_or(text, |at| &text[..at])
}

/// The files that `file` (module `module`) names with `crate::`, `super::` or `self::` paths.
fn imports(text: &str, module: &ModulePath, files: &BTreeSet<ModulePath>) -> BTreeSet<ModulePath> {
    let mut found = BTreeSet::new();
    let code = without_tests(text);
    for (at, _) in code.match_indices("::") {
        let start = code[..at]
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let head = &code[start..at];
        let mut base: ModulePath = match head {
            "crate" => Vec::new(),
            // In `a/mod.rs` as in `a.rs`, `super` is the parent of module `a`.
            "super" => module[..module.len().saturating_sub(1)].to_vec(),
            "self" => module.clone(),
            _ => continue,
        };
        let rest: Vec<&str> = code[at + 2..]
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .next()
            .unwrap_or("")
            .split("::")
            .filter(|s| !s.is_empty())
            .collect();
        base.extend(rest.iter().map(|s| (*s).to_owned()));
        // The longest prefix that is a file; the crate root does not count (it declares all).
        for len in (1..=base.len()).rev() {
            if files.contains(&base[..len]) {
                if base[..len] != module[..] {
                    found.insert(base[..len].to_vec());
                }
                break;
            }
        }
    }
    found
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
        let mut edges = BTreeMap::new();
        for path in &paths {
            let text = std::fs::read_to_string(path).expect("a source file");
            let module = module_path(&src, path);
            if !module.is_empty() {
                edges.insert(module.clone(), imports(&text, &module, &files));
            }
            for (name, length) in long_functions(&text) {
                problems.push(format!("{}: fn {name} is {length} lines", path.display()));
            }
        }
        for edge in edges.values_mut() {
            edge.remove(&Vec::new());
        }
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
    let files: BTreeSet<ModulePath> = [a.clone(), b.clone(), c.clone()].into();
    assert_eq!(
        imports("use crate::b::X;\nuse super::c;", &a, &files),
        [b.clone(), c.clone()].into()
    );
    let edges = BTreeMap::from([
        (a.clone(), BTreeSet::from([b.clone()])),
        (b.clone(), BTreeSet::from([c.clone()])),
        (c, BTreeSet::from([a.clone()])),
    ]);
    assert_eq!(cycles(&edges).len(), 1);
    let edges = BTreeMap::from([(a, BTreeSet::from([b.clone()])), (b, BTreeSet::new())]);
    assert!(cycles(&edges).is_empty());
}
