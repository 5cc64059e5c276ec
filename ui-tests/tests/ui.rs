//! Each misuse of the macros fails to compile with an error at the token to change; each
//! case is one misuse, and gives one error. Refresh the expected output with
//! `TRYBUILD=overwrite` and review it.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/pass/*.rs");
    t.compile_fail("tests/fail/*.rs");
}

/// The cases that show more than one error, and why.
const SEVERAL: &[(&str, usize, &str)] = &[
    ("several_errors_at_once", 3, "three mistakes in one item, all reported together"),
    (
        "method_tool_registered_without_toolset",
        2,
        "the #[tool] method's own error, and the registration's `T: Toolset` bound (both say to \
         mark the impl block #[toolset]). One is not possible without losing the first: an \
         attribute on a method gets only the method's tokens, so it cannot name the impl's type, \
         and in its output the type is only `Self`, which no item nested in the impl (an \
         `impl Toolset for Self`, a const) may use (E0401); rustc type-checks the registration \
         whatever the expansion reported (a proc macro cannot stop the build); and dropping the \
         method's own error would let a #[tool] method of an unmarked block that is never \
         registered compile without a word",
    ),
];

/// One misuse, one error: counted in the reviewed `.stderr` files.
#[test]
fn every_misuse_is_one_error() {
    let mut wrong = Vec::new();
    for entry in std::fs::read_dir("tests/fail").expect("tests/fail") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|e| e != "stderr") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable");
        let errors = text.lines().filter(|l| l.starts_with("error")).count();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
        let expected = SEVERAL.iter().find(|(name, ..)| *name == stem).map_or(1, |(_, n, _)| *n);
        if errors != expected {
            wrong.push(format!("{stem}: {errors} errors, {expected} expected"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
