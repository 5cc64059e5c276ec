//! An upstream's skills (`io.modelcontextprotocol/skills`), copied when the gateway connects:
//! every file each listed skill names, read and checked against the listing (size, digest,
//! frontmatter) by the client, then served by the gateway beside the others'. A skill the
//! upstream lists as `"dynamic"` (no file list) is left out, as is any file whose URI is not a
//! `skill://` one; a change upstream is seen at the next start.

use std::borrow::Cow;

use roundtrip_client::{Client, ClientError};
use roundtrip_core::skills::{Skills, SkillsError};

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

/// The skills `existing` serves, with `added`'s files beside them (a path both have is an
/// error).
pub(crate) fn merged(existing: Option<&Skills>, added: SkillFiles) -> Result<Skills, SkillsError> {
    let mut files: Vec<(String, Cow<'static, [u8]>)> = Vec::new();
    if let Some(existing) = existing {
        for entry in existing.entries() {
            if let roundtrip_wire::SkillResources::Listed(listed) = &entry.resources {
                for file in listed {
                    if let (Some(path), Some(bytes)) = (file.uri.strip_prefix("skill://"), existing.file(&file.uri)) {
                        files.push((path.to_owned(), Cow::Owned(bytes.to_vec())));
                    }
                }
            }
        }
    }
    for (path, bytes) in added {
        if files.iter().any(|(p, _)| *p == path) {
            return Err(SkillsError { path, reason: "two upstreams serve a skill file at this path".into() });
        }
        files.push((path, Cow::Owned(bytes)));
    }
    Skills::from_files(files)
}
