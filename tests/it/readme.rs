//! The README's quick start and the guide's whole programs compile as pasted: their
//! `[dependencies]` lines and their `main.rs` are written into a new crate of their own, outside
//! this workspace, and built with Cargo.
//!
//! The crate depends on `cors-axum` from crates.io by version, as a user's would;
//! `[patch.crates-io]` points that name (and the two crates it depends on) at this checkout, so
//! the build uses the code under test. It starts from this workspace's `Cargo.lock`, so the other
//! dependencies resolve to versions already downloaded.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The fenced code block of `language` that follows `heading` in `markdown` (a Rust block may
/// be marked `ignore` for rustdoc, which builds the guide without the crate's optional features).
fn code_block<'a>(markdown: &'a str, heading: &str, language: &str) -> &'a str {
    let section = &markdown[markdown
        .find(heading)
        .unwrap_or_else(|| panic!("no `{heading}`"))..];
    let fence = format!("```{language}");
    let at = section
        .find(&fence)
        .unwrap_or_else(|| panic!("no ```{language} block after `{heading}`"));
    let start = at + section[at..].find('\n').expect("a fence line") + 1;
    let len = section[start..]
        .find("\n```")
        .expect("the code block is closed");
    &section[start..start + len + 1]
}

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Writes into `dir` the crate of the program after `heading` in `markdown`.
fn write_crate(dir: &Path, markdown: &str, heading: &str) {
    let dependencies = code_block(markdown, heading, "toml");
    assert!(
        dependencies.starts_with("[dependencies]\n"),
        "the toml block after `{heading}` lists the dependencies:\n{dependencies}"
    );
    let main = code_block(markdown, heading, "rust");
    let root = workspace();
    let patch = ["cors-axum", "cors-core", "cors-macros"]
        .iter()
        .map(|folder| {
            let manifest = std::fs::read_to_string(root.join(folder).join("Cargo.toml")).unwrap();
            let name = manifest
                .lines()
                .find_map(|line| line.strip_prefix("name = "))
                .expect("a package name");
            format!("{name} = {{ path = {:?} }}\n", root.join(folder))
        })
        .collect::<String>();
    let manifest = format!(
        "[package]\nname = \"pasted\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         {dependencies}\n[patch.crates-io]\n{patch}\n[workspace]\n"
    );
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
}

/// Builds the program after `heading` in the file `file` of this workspace as a crate of its
/// own, in `name` (a folder of the test's temporary directory).
fn compiles_as_pasted(file: &str, heading: &str, name: &str) {
    let markdown = std::fs::read_to_string(workspace().join(file)).unwrap();
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let dir = tmp.join(name);
    let _ = std::fs::remove_dir_all(dir.join("src"));
    write_crate(&dir, &markdown, heading);

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["build", "--quiet", "--color", "never"])
        .current_dir(&dir)
        // A target directory of their own, which the pasted crates share: the one of this
        // workspace is locked while tests run.
        .env("CARGO_TARGET_DIR", tmp.join("pasted-target"))
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "the program after `{heading}` in {file} does not compile as pasted:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn quick_start_compiles_as_pasted() {
    compiles_as_pasted("README.md", "## Quick start", "readme-quick-start");
}

#[test]
fn the_guides_reload_from_a_file_compiles_as_pasted() {
    compiles_as_pasted(
        "cors-axum/docs/GUIDE.md",
        "### Reloading options",
        "guide-reload",
    );
}
