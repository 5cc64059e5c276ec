//! An upstream's skills (`io.modelcontextprotocol/skills`), copied when the gateway connects:
//! every file each listed skill names, read and checked against the listing (size, digest,
//! frontmatter) by the client, then served by the gateway beside the others' (mounting joins
//! the trees). A skill the
//! upstream lists as `"dynamic"` (no file list) is left out, as is any file whose URI is not a
//! `skill://` one; a change upstream is seen at the next start.

use roundtrip_client::{Client, ClientError};
use roundtrip_core::skills::{Skills, SkillsError};

/// The tree of an upstream's skill files.
pub(crate) fn tree(files: SkillFiles) -> Result<Option<Skills>, SkillsError> {
    if files.is_empty() {
        return Ok(None);
    }
    Skills::from_files(files).map(Some)
}

/// The files of an upstream's skills, by path in the skills tree (`name/SKILL.md`).
pub(crate) type SkillFiles = Vec<(String, Vec<u8>)>;

/// Read every file of every skill `client`'s server lists.
pub(crate) async fn copy(client: &Client) -> Result<SkillFiles, ClientError> {
    let mut files = SkillFiles::new();
    for entry in client.list_skills().await? {
        let skill = client.load_skill(&entry).await?;
        if skill.files().is_empty() {
            tracing::warn!(target: "roundtrip::gateway", "leaving out the upstream's skill `{}`: it lists no files", entry.uri);
            continue;
        }
        for file in skill.files() {
            let Some(path) = file.uri.strip_prefix("skill://") else {
                tracing::warn!(target: "roundtrip::gateway", "leaving out {}: not a skill:// URI", file.uri);
                continue;
            };
            let bytes = if file.uri == entry.uri {
                skill.text.clone().into_bytes()
            } else {
                client.read_skill_file(&skill, &file.uri).await?
            };
            files.push((path.to_owned(), bytes));
        }
    }
    Ok(files)
}
