//! Skills on the calling side (`io.modelcontextprotocol/skills`, cargo feature `skills`): list
//! them, load one when it is needed, and never use a byte that does not match the listing.
//!
//! Nothing is read ahead: [`Client::list_skills`] reads the listing only, [`Client::load_skill`]
//! reads one `SKILL.md` when the caller decides the skill is needed, and
//! [`Client::read_skill_file`] reads one more file of a loaded skill when the caller asks for
//! it. Every read is checked against the entry the listing gave: its size, its `sha256:`
//! digest, and for `SKILL.md` its frontmatter, field by field. A mismatch is a
//! [`ClientError::Verification`] naming the file and what differs; the content is not
//! returned. A file the entry does not list is not read at all.

use base64::Engine as _;
use serde_json::{Value, json};

use super::{Client, ClientError, parse};
use roundtrip_core::skills::{digest, frontmatter};
use roundtrip_wire::{JsonObject, ReadResourceResult, ResourceContents, SkillEntry, SkillResource, SkillResources};

/// The most `skills/list` pages [`Client::list_skills`] follows.
const MAX_SKILL_PAGES: usize = 100;
/// The most skills [`Client::list_skills`] keeps.
const MAX_SKILLS: usize = 10_000;

/// A skill whose `SKILL.md` was read and matched its entry.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSkill {
    /// The entry the listing gave.
    pub entry: SkillEntry,
    /// The `SKILL.md`, whole.
    pub text: String,
}

impl LoadedSkill {
    /// The skill's name.
    pub fn name(&self) -> &str {
        self.entry.name()
    }

    /// The instructions: the `SKILL.md` after its frontmatter.
    pub fn body(&self) -> &str {
        frontmatter::split(&self.text).map_or(self.text.as_str(), |(_, body)| body)
    }

    /// The files of the skill the listing names (empty for a `"dynamic"` skill).
    pub fn files(&self) -> &[SkillResource] {
        match &self.entry.resources {
            SkillResources::Listed(files) => files,
            _ => &[],
        }
    }
}

impl Client {
    /// `skills/list`, every page (at most 100 pages and 10,000 skills). Reads no skill's
    /// files.
    pub async fn list_skills(&self) -> Result<Vec<SkillEntry>, ClientError> {
        let mut skills = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_SKILL_PAGES {
            let mut params = JsonObject::new();
            if let Some(c) = cursor.take() {
                params.insert("cursor".into(), json!(c));
            }
            let page = self.request("skills/list", params).await?;
            let next = page.get("nextCursor").and_then(Value::as_str).map(str::to_owned);
            let entries: Vec<SkillEntry> = parse(page.get("skills").cloned().unwrap_or(Value::Null))?;
            skills.extend(entries);
            if skills.len() > MAX_SKILLS {
                return Err(ClientError::Protocol(format!("the server lists more than {MAX_SKILLS} skills")));
            }
            match next {
                Some(c) if !c.is_empty() => cursor = Some(c),
                _ => return Ok(skills),
            }
        }
        Err(ClientError::Protocol(format!("skills/list goes on for more than {MAX_SKILL_PAGES} pages")))
    }

    /// `skills/get`: the entry of one skill, by its `SKILL.md` URI.
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry, ClientError> {
        let mut params = JsonObject::new();
        params.insert("uri".into(), json!(uri));
        let result = self.request("skills/get", params).await?;
        let entry: SkillEntry = parse(result.get("skill").cloned().unwrap_or(Value::Null))?;
        if entry.uri != uri {
            return Err(ClientError::Protocol(format!("skills/get of {uri} answered the skill {}", entry.uri)));
        }
        Ok(entry)
    }

    /// Load a listed skill: read its `SKILL.md` and check it against `entry` (its size and
    /// digest, when listed, and its frontmatter, field by field). A mismatch is a
    /// [`ClientError::Verification`]; nothing else of the skill is read.
    pub async fn load_skill(&self, entry: &SkillEntry) -> Result<LoadedSkill, ClientError> {
        let listed = match &entry.resources {
            SkillResources::Listed(files) => Some(files.iter().find(|f| f.uri == entry.uri).ok_or_else(|| {
                ClientError::Verification(format!("the listing of {} does not list its SKILL.md", entry.uri))
            })?),
            _ => None,
        };
        let bytes = self.read_verified(&entry.uri, listed).await?;
        let text = String::from_utf8(bytes)
            .map_err(|_| ClientError::Verification(format!("{} is not UTF-8 text", entry.uri)))?;
        let found = frontmatter::parse(&text).map_err(|e| ClientError::Verification(format!("{}: {e}", entry.uri)))?;
        if let Some(key) = frontmatter::first_difference(&found, &entry.frontmatter) {
            return Err(ClientError::Verification(format!(
                "the frontmatter of {} does not match its listing: `{key}` is {} in the file and {} in the listing",
                entry.uri,
                found.get(key).unwrap_or(&Value::Null),
                entry.frontmatter.get(key).unwrap_or(&Value::Null),
            )));
        }
        Ok(LoadedSkill { entry: entry.clone(), text })
    }

    /// Read one file of a loaded skill, checked against the listing (size and digest). A file
    /// the entry does not list (for a `"dynamic"` skill: one outside its directory) is not
    /// read.
    pub async fn read_skill_file(&self, skill: &LoadedSkill, uri: &str) -> Result<Vec<u8>, ClientError> {
        match &skill.entry.resources {
            SkillResources::Listed(files) => {
                let Some(listed) = files.iter().find(|f| f.uri == uri) else {
                    return Err(ClientError::Verification(format!(
                        "{uri} is not a file of the skill {} as listed",
                        skill.entry.uri
                    )));
                };
                self.read_verified(uri, Some(listed)).await
            }
            SkillResources::Dynamic(_) => {
                let inside = uri.strip_prefix(skill.entry.root()).is_some_and(|rest| rest.starts_with('/'));
                if !inside || uri.split('/').any(|s| s == ".." || s == ".") {
                    return Err(ClientError::Verification(format!(
                        "{uri} is outside the skill {}",
                        skill.entry.root()
                    )));
                }
                self.read_verified(uri, None).await
            }
            _ => Err(ClientError::Verification(format!(
                "the skill {} lists its files in a way this client does not know",
                skill.entry.uri
            ))),
        }
    }

    /// Read `uri` and check its bytes against `listed` (when the listing gave a digest).
    async fn read_verified(&self, uri: &str, listed: Option<&SkillResource>) -> Result<Vec<u8>, ClientError> {
        let result: ReadResourceResult = parse(self.request("resources/read", super::uri_params(uri)).await?)?;
        let contents = result
            .contents
            .iter()
            .find(|c| c.uri() == uri)
            .or_else(|| result.contents.first())
            .ok_or_else(|| ClientError::Verification(format!("reading {uri} gave no contents")))?;
        let bytes = match contents {
            ResourceContents::Text { text, .. } => text.as_bytes().to_vec(),
            ResourceContents::Blob { blob, .. } => {
                // Never decode more than the listing allows (base64: 4 characters per 3 bytes).
                if let Some(listed) = listed
                    && blob.len() as u64 > listed.size.div_ceil(3) * 4 + 4
                {
                    return Err(size_mismatch(uri, listed.size, blob.len() as u64 * 3 / 4));
                }
                base64::engine::general_purpose::STANDARD
                    .decode(blob)
                    .map_err(|e| ClientError::Verification(format!("{uri}: its blob is not base64: {e}")))?
            }
            _ => return Err(ClientError::Verification(format!("{uri}: its contents are of an unknown kind"))),
        };
        if let Some(listed) = listed {
            if bytes.len() as u64 != listed.size {
                return Err(size_mismatch(uri, listed.size, bytes.len() as u64));
            }
            let got = digest(&bytes);
            if !got.eq_ignore_ascii_case(&listed.digest) {
                return Err(ClientError::Verification(format!(
                    "{uri} does not match its listing: its digest is {got}, the listing says {}",
                    listed.digest
                )));
            }
        }
        Ok(bytes)
    }
}

fn size_mismatch(uri: &str, listed: u64, got: u64) -> ClientError {
    ClientError::Verification(format!("{uri} does not match its listing: {got} bytes, the listing says {listed}"))
}
