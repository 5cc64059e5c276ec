//! The skills the conformance server serves (`io.modelcontextprotocol/skills`): the tree under
//! `examples/skills/`, embedded in the binary when it is built (`ROUNDTRIP_EXAMPLES_DIR`, the
//! examples' folder, is set by `examples/build.rs` for this crate and for the Worker's).
//! `pdf-processing` has a subdirectory (`references/`), which the suite's
//! `sep-2640-skills-directory` scenario needs to find, and frontmatter beyond `name` and
//! `description` (`license`, `metadata`), which the listing must carry as it is.

use roundtrip::skills::Skills;

/// The embedded skills, checked.
pub fn all() -> Skills {
    // Built into the binary and checked by this crate's tests: a bad tree cannot ship.
    roundtrip::include_skills!("$ROUNDTRIP_EXAMPLES_DIR/skills")
        .unwrap_or_else(|e| panic!("the embedded skills are invalid: {e}"))
}
