//! Skills (`io.modelcontextprotocol/skills`, SEP-2640): a server serves a tree of skill
//! directories, each with a `SKILL.md` whose YAML frontmatter names and describes it, and the
//! files beside it (references, scripts, templates).
//!
//! [`Skills`] loads the tree once, at start: from a directory ([`Skills::from_dir`]), from
//! files embedded in the binary ([`Skills::embedded`] with `include_dir`, or
//! [`Skills::from_files`] with any other source). Loading checks everything a client would
//! check and refuses, naming the file, what it would refuse: a `SKILL.md` without frontmatter
//! or whose `name` or `description` is missing or invalid, a directory not named after its
//! skill, a path that leaves the tree (`..`, a symbolic link pointing outside it), a skill
//! over the extension's limits (512 files, 16 MiB), a tree over roundtrip's own (10,000 files,
//! 256 MiB of skills, all held in memory; directories 16 deep). Digests and sizes are
//! computed then, and every read is served from what was loaded: a file changed or added on
//! disk afterwards is not seen, and no request ever opens a file.
//!
//! [`Server::skills`](crate::server::Server::skills) then declares the extension
//! (`{"directoryRead": true}`) and answers
//!
//! - `skills/list` (paginated) and `skills/get`: each skill's `SKILL.md` URI, its frontmatter
//!   as a JSON object, and every file with its `sha256:` digest and size;
//! - `resources/read` of every file (`skill://<skill-path>/<file-path>`), and `resources/list`
//!   lists each `SKILL.md` (named and described by its frontmatter);
//! - `resources/directory/read` (paginated): the children of a skill's directory or of any
//!   directory inside it.
//!
//! A URI with `.` or `..` segments, empty segments or percent-encoding is refused with
//! `-32602` before anything is looked up.
//!
//! ```
//! use roundtrip::Server;
//! use roundtrip::skills::Skills;
//!
//! let skills = Skills::from_files([
//!     ("pdf-processing/SKILL.md", &b"---\nname: pdf-processing\ndescription: Fill PDF forms\n---\n\nSee references/FORMS.md.\n"[..]),
//!     ("pdf-processing/references/FORMS.md", b"# Forms\n"),
//! ])?;
//! assert_eq!(skills.len(), 1);
//! let server = Server::new("docs", "1.0.0").skills(skills);
//! assert_eq!(server.describe().to_json()["skills"][0]["name"], "pdf-processing");
//!
//! let bad = Skills::from_files([("pdf/SKILL.md", &b"# no frontmatter\n"[..])]).unwrap_err();
//! assert_eq!(bad.path, "pdf/SKILL.md");
//! # Ok::<(), roundtrip::skills::SkillsError>(())
//! ```

#[doc(hidden)]
pub mod frontmatter;
mod load;
mod serve;

#[cfg(feature = "include_dir")]
#[doc(hidden)]
pub use include_dir;
// The limits, hidden: their values are documented on `Skills`, and may grow.
#[doc(hidden)]
pub use load::{MAX_BYTES_PER_SKILL, MAX_DEPTH, MAX_FILES, MAX_FILES_PER_SKILL, MAX_TOTAL_BYTES};
pub use load::{Skills, SkillsError};
pub(crate) use serve::Hints;

/// The skills under a directory, embedded in the binary when it is built (cargo feature
/// `include_dir`): [`Skills::embedded`] of `include_dir!(path)`, without a dependency on
/// `include_dir` of your own. The path is as `include_dir!` takes it (`$CARGO_MANIFEST_DIR`
/// expands). Evaluates to `Result<Skills, SkillsError>`.
///
/// ```
/// let skills = roundtrip::include_skills!("$CARGO_MANIFEST_DIR/tests/data/skills")?;
/// assert_eq!(skills.names().collect::<Vec<_>>(), ["pdf-processing"]);
/// # Ok::<(), roundtrip::skills::SkillsError>(())
/// ```
#[cfg(feature = "include_dir")]
#[macro_export]
macro_rules! include_skills {
    ($path:tt) => {{
        use $crate::skills::include_dir;
        static DIR: include_dir::Dir<'static> = include_dir::include_dir!($path);
        $crate::skills::Skills::embedded(&DIR)
    }};
}

/// Whether `name` is a valid skill name: 1 to 64 characters of `a-z`, `0-9` and `-`, neither
/// first nor last a `-`, and no `--`.
#[doc(hidden)]
pub fn valid_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 64
        && bytes.iter().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes.first() != Some(&b'-')
        && bytes.last() != Some(&b'-')
        && !name.contains("--")
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`, as listings carry it.
#[doc(hidden)]
pub fn digest(bytes: &[u8]) -> String {
    use sha2::{Digest as _, Sha256};
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in hash {
        out.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
        out.push(char::from(b"0123456789abcdef"[usize::from(b & 15)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_naming_rules() {
        for ok in ["a", "pdf-processing", "a1", "x".repeat(64).as_str()] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a.b", "x".repeat(65).as_str()] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn digests_are_sha256_in_lowercase_hex() {
        assert_eq!(digest(b"abc"), "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
