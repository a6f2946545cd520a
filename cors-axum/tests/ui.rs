//! Compile-pass and compile-fail tests of the macros: `#[controller]`, `#[route]` and the
//! module macros. Regenerate the `.stderr` files with
//! `TRYBUILD=overwrite cargo test -p cors-axum --test ui`, then read them.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/*/pass/*.rs");
    t.compile_fail("tests/ui/*/fail/*.rs");
}
