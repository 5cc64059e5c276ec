//! Attribute macros of [roundtrip](https://docs.rs/roundtrip).
//!
//! The macros describe; the runtime implements. Use them through `roundtrip::prelude`.
