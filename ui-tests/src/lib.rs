//! Compile-fail (trybuild) and expansion (macrotest) tests of roundtrip-macros live in `tests/`.
