//! The README's quick start compiles as pasted: its `[dependencies]` lines and its `main.rs` are
//! written into a new crate of their own, outside this workspace, and built with Cargo.
//!
//! The crate depends on `cors-axum` from crates.io by version, as a user's would;
//! `[patch.crates-io]` points that name (and the two crates it depends on) at this checkout, so
//! the build uses the code under test. It starts from this workspace's `Cargo.lock`, so the other
//! dependencies resolve to versions already downloaded.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The fenced code block of `language` that follows `heading` in `markdown`.
fn code_block<'a>(markdown: &'a str, heading: &str, language: &str) -> &'a str {
    let section = &markdown[markdown
        .find(heading)
        .unwrap_or_else(|| panic!("README has no `{heading}`"))..];
    let fence = format!("```{language}\n");
    let start = section
        .find(&fence)
        .unwrap_or_else(|| panic!("no ```{language} block after `{heading}`"))
        + fence.len();
    let len = section[start..]
        .find("\n```")
        .expect("the code block is closed");
    &section[start..start + len + 1]
}

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Writes the quick start crate into `dir`.
fn write_quick_start(dir: &Path, readme: &str) {
    let dependencies = code_block(readme, "## Quick start", "toml");
    assert!(
        dependencies.starts_with("[dependencies]\n"),
        "the quick start's toml block lists the dependencies:\n{dependencies}"
    );
    let main = code_block(readme, "## Quick start", "rust");
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
        "[package]\nname = \"quick-start\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         {dependencies}\n[patch.crates-io]\n{patch}\n[workspace]\n"
    );
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
}

#[test]
fn quick_start_compiles_as_pasted() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("readme-quick-start");
    let _ = std::fs::remove_dir_all(dir.join("src"));
    write_quick_start(&dir, &readme);

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["build", "--quiet", "--color", "never"])
        .current_dir(&dir)
        // Its own target directory: the one of this workspace is locked while tests run.
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "the README's quick start does not compile as pasted:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
