//! The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): `skills/list`,
//! `skills/get` and `resources/directory/read`.

use serde::{Deserialize, Serialize};

use super::{CacheScope, JsonObject, Resource, ResultType};

/// The extension's identifier, under `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The MIME type a directory has in a `resources/directory/read` result.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The settings a server declares with the extension: `{"directoryRead": true}` when it
/// answers `resources/directory/read`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SkillsCapability {
    /// The server answers `resources/directory/read` on skill directories.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory_read: Option<bool>,
}

/// One skill as `skills/list` and `skills/get` describe it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillEntry {
    /// The URI of its `SKILL.md` (`skill://<skill-path>/SKILL.md`).
    pub uri: String,
    /// The YAML frontmatter of its `SKILL.md`, as a JSON object (`name` and `description` at
    /// least).
    pub frontmatter: JsonObject,
    /// Every file of the skill with its digest and size, or `"dynamic"`.
    pub resources: SkillResources,
}

impl SkillEntry {
    /// The frontmatter's `name`.
    pub fn name(&self) -> &str {
        self.frontmatter.get("name").and_then(serde_json::Value::as_str).unwrap_or_default()
    }

    /// The frontmatter's `description`.
    pub fn description(&self) -> &str {
        self.frontmatter.get("description").and_then(serde_json::Value::as_str).unwrap_or_default()
    }

    /// The skill's root: its URI without the final `/SKILL.md`.
    pub fn root(&self) -> &str {
        self.uri.strip_suffix("/SKILL.md").unwrap_or(&self.uri)
    }
}

/// The files of a skill: listed with digests and sizes, or `"dynamic"` (not known ahead).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum SkillResources {
    /// Every file, `SKILL.md` included.
    Listed(Vec<SkillResource>),
    /// The string `"dynamic"`.
    Dynamic(Dynamic),
}

/// The string `"dynamic"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Dynamic {
    /// `"dynamic"`.
    #[serde(rename = "dynamic")]
    Dynamic,
}

/// One file of a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillResource {
    /// Its URI, inside the skill's root.
    pub uri: String,
    /// `sha256:` and the lowercase hex SHA-256 of its bytes.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

/// `skills/list` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListSkillsResult {
    /// `complete` (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The skills of this page.
    pub skills: Vec<SkillEntry>,
    /// The next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Cache lifetime (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}

/// `skills/get` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetSkillResult {
    /// `complete` (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The skill.
    pub skill: SkillEntry,
    /// Cache lifetime (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}

/// `resources/directory/read` result: the direct children of a directory, files with their
/// resource metadata, subdirectories with the MIME type [`DIRECTORY_MIME_TYPE`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadDirectoryResult {
    /// `complete` (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The children of this page.
    pub resources: Vec<Resource>,
    /// The next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Cache lifetime (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}

setters!(SkillsCapability { with_directory_read => directory_read: bool });

impl SkillEntry {
    /// A skill at `uri` (its `SKILL.md`) with its frontmatter and files.
    pub fn new(uri: impl Into<String>, frontmatter: JsonObject, resources: SkillResources) -> Self {
        Self { uri: uri.into(), frontmatter, resources }
    }
}

impl SkillResource {
    /// A file of a skill: its URI, `sha256:` digest and size in bytes.
    pub fn new(uri: impl Into<String>, digest: impl Into<String>, size: u64) -> Self {
        Self { uri: uri.into(), digest: digest.into(), size }
    }
}

impl ListSkillsResult {
    /// One page of skills.
    pub fn new(skills: Vec<SkillEntry>) -> Self {
        Self { result_type: None, skills, next_cursor: None, ttl_ms: None, cache_scope: None }
    }
}

list_setters!(ListSkillsResult);

impl GetSkillResult {
    /// The answer to `skills/get`.
    pub fn new(skill: SkillEntry) -> Self {
        Self { result_type: None, skill, ttl_ms: None, cache_scope: None }
    }
}

setters!(GetSkillResult {
    with_result_type => result_type: ResultType,
    with_ttl_ms => ttl_ms = u64,
    with_cache_scope => cache_scope: CacheScope,
});

impl ReadDirectoryResult {
    /// One page of a directory's entries.
    pub fn new(resources: Vec<Resource>) -> Self {
        Self { result_type: None, resources, next_cursor: None, ttl_ms: None, cache_scope: None }
    }
}

list_setters!(ReadDirectoryResult);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resources_are_a_list_or_dynamic() {
        let listed: SkillEntry = serde_json::from_value(json!({
            "uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"},
            "resources": [{"uri": "skill://a/SKILL.md", "digest": "sha256:00", "size": 3}]
        }))
        .expect("listed");
        assert!(matches!(listed.resources, SkillResources::Listed(ref r) if r.len() == 1));
        assert_eq!((listed.name(), listed.description(), listed.root()), ("a", "d", "skill://a"));
        let dynamic: SkillEntry = serde_json::from_value(json!({
            "uri": "skill://a/SKILL.md", "frontmatter": {}, "resources": "dynamic"
        }))
        .expect("dynamic");
        assert_eq!(dynamic.resources, SkillResources::Dynamic(Dynamic::Dynamic));
        assert_eq!(serde_json::to_value(&dynamic.resources).ok(), Some(json!("dynamic")));
        assert!(serde_json::from_value::<SkillResources>(json!("static")).is_err());
    }
}
