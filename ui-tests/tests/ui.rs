//! Each misuse of the macros fails to compile with an error at the token to change; each
//! case is one misuse. Refresh the expected output with `TRYBUILD=overwrite` and review it.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/pass/*.rs");
    t.compile_fail("tests/fail/*.rs");
}
