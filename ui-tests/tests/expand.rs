//! Expansion snapshots of representative tools: what `#[tool]` generates, kept small and
//! readable. Refresh with `MACROTEST=overwrite cargo test -p roundtrip-ui-tests --test expand`
//! (needs `cargo install cargo-expand`) and review the diff like code.

#[test]
fn expansions() {
    if std::env::var_os("MACROTEST").is_some() {
        macrotest::expand("tests/expand/*.rs");
    } else {
        macrotest::expand_without_refresh("tests/expand/*.rs");
    }
}
