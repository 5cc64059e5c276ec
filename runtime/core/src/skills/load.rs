//! Loading a skills tree: the files in, every check, the index out.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

use super::{digest, frontmatter, valid_name};
use crate::protocol::{DIRECTORY_MIME_TYPE, Resource, SkillEntry, SkillResource, SkillResources};

/// The most files one skill may have (the extension's limit).
pub const MAX_FILES_PER_SKILL: usize = 512;
/// The most bytes one skill's files may add up to (the extension's limit: 16 MiB).
pub const MAX_BYTES_PER_SKILL: u64 = 16 * 1024 * 1024;
/// The most files a tree may hold, skills or not.
pub const MAX_FILES: usize = 10_000;
/// The most bytes a tree's skills may add up to (256 MiB): everything is held in memory.
pub const MAX_TOTAL_BYTES: u64 = 256 * 1024 * 1024;
/// How deep directories may nest below the root.
pub const MAX_DEPTH: usize = 16;

/// Why a skills tree was refused: the file (or directory) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("skills: `{path}`: {reason}")]
pub struct SkillsError {
    /// The file or directory: its path on disk for [`Skills::from_dir`], else its path in the
    /// tree.
    pub path: String,
    /// What is wrong.
    pub reason: String,
}

impl SkillsError {
    fn new(path: impl Into<String>, reason: impl Into<String>) -> Self {
        Self { path: path.into(), reason: reason.into() }
    }
}

/// A tree of skills, loaded and checked, ready to serve with
/// [`Server::skills`](crate::server::Server::skills). Cheap to clone.
#[derive(Clone)]
pub struct Skills {
    pub(super) index: Arc<Index>,
}

impl fmt::Debug for Skills {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.index.skills.iter().map(|s| s.entry.name()).collect();
        f.debug_struct("Skills").field("skills", &names).field("files", &self.index.files.len()).finish()
    }
}

/// One file of a skill, with what listings and reads need.
#[derive(Clone)]
pub(super) struct SkillFile {
    pub bytes: Cow<'static, [u8]>,
    pub mime_type: &'static str,
}

/// One skill.
#[derive(Clone)]
pub(super) struct SkillData {
    pub entry: SkillEntry,
    /// `entry`, serialized once.
    pub entry_json: Box<RawValue>,
    /// The `SKILL.md` as `resources/list` lists it.
    pub resource: Resource,
}

/// Everything a request needs, built once.
#[derive(Clone)]
pub(super) struct Index {
    /// Sorted by URI.
    pub skills: Vec<SkillData>,
    /// By `SKILL.md` URI.
    pub by_uri: HashMap<String, usize>,
    /// Every file by URI.
    pub files: HashMap<String, SkillFile>,
    /// Every directory by URI (no trailing slash), its children sorted by name.
    pub dirs: HashMap<String, Vec<Resource>>,
    /// `skills/list` page size.
    pub list_page: usize,
    /// `resources/directory/read` page size.
    pub directory_page: usize,
}

impl Skills {
    /// Load every skill under `root`: each directory holding a `SKILL.md` is a skill, named by
    /// its frontmatter and reached as `skill://<its path below root>/…`. Files and
    /// directories whose names start with `.` are left out, and so are files outside any
    /// skill. A symbolic link is followed only when it points inside `root`; one pointing out
    /// of it is an error. Everything is read now; see the [module](super) for what is checked.
    pub fn from_dir(root: impl AsRef<Path>) -> Result<Self, SkillsError> {
        let root = root.as_ref();
        let shown = |p: &Path| p.display().to_string();
        let canonical = root
            .canonicalize()
            .map_err(|e| SkillsError::new(shown(root), format!("cannot open the skills directory: {e}")))?;
        if !canonical.is_dir() {
            return Err(SkillsError::new(shown(root), "not a directory"));
        }
        let mut walk = Walk { root: &canonical, shown_root: root, files: Vec::new(), total: 0, visited: Vec::new() };
        walk.dir(&canonical, "", 0)?;
        let files = walk.files.into_iter().map(|(path, bytes)| (path, Cow::Owned(bytes)));
        Self::build(files, |rel| shown(&root.join(rel)))
    }

    /// Load skills from `(path, contents)` pairs, each path relative to the tree's root with
    /// `/` between its segments (`pdf-processing/SKILL.md`). For files embedded in the binary
    /// by any means (`include_bytes!`, `rust-embed`, …); [`Skills::embedded`] takes an
    /// `include_dir` tree directly. A path with `..`, `.` or empty segments, a leading `/` or
    /// a `\` is an error.
    pub fn from_files<P, B>(files: impl IntoIterator<Item = (P, B)>) -> Result<Self, SkillsError>
    where
        P: AsRef<str>,
        B: Into<Cow<'static, [u8]>>,
    {
        let mut out = Vec::new();
        for (path, bytes) in files {
            let path = path.as_ref();
            check_relative(path)?;
            if path.split('/').any(|s| s.starts_with('.')) {
                continue;
            }
            if out.len() >= MAX_FILES {
                return Err(SkillsError::new(path, format!("more than {MAX_FILES} files in the tree")));
            }
            out.push((path.to_owned(), bytes.into()));
        }
        Self::build(out, str::to_owned)
    }

    /// Load the skills of a directory embedded with `include_dir` (cargo feature
    /// `include_dir`, which re-exports the crate as `roundtrip::skills::include_dir`):
    ///
    /// ```
    /// use roundtrip::skills::{Skills, include_dir::{Dir, include_dir}};
    ///
    /// static SKILLS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/tests/data/skills");
    ///
    /// let skills = Skills::embedded(&SKILLS)?;
    /// assert!(skills.names().any(|n| n == "pdf-processing"));
    /// # Ok::<(), roundtrip::skills::SkillsError>(())
    /// ```
    ///
    /// `include_dir!` embeds what it finds when the crate is built, following symbolic links
    /// wherever they point, and does not notice files added later: touch a source file to
    /// embed them. [`Skills::from_dir`] is the choice where links must stay inside the tree.
    #[cfg(feature = "include_dir")]
    pub fn embedded(dir: &include_dir::Dir<'static>) -> Result<Self, SkillsError> {
        fn collect(dir: &include_dir::Dir<'static>, out: &mut Vec<(String, &'static [u8])>) -> Result<(), SkillsError> {
            for entry in dir.entries() {
                match entry {
                    include_dir::DirEntry::Dir(d) => collect(d, out)?,
                    include_dir::DirEntry::File(f) => {
                        let path = f
                            .path()
                            .to_str()
                            .ok_or_else(|| SkillsError::new(f.path().display().to_string(), "the path is not UTF-8"))?;
                        out.push((path.replace('\\', "/"), f.contents()));
                    }
                }
            }
            Ok(())
        }
        let mut files = Vec::new();
        collect(dir, &mut files)?;
        Self::from_files(files)
    }

    /// Show at most `n` skills per `skills/list` page (default 50; 1 to 1000).
    pub fn page_size(self, n: usize) -> Self {
        self.with(|index| index.list_page = n.clamp(1, 1000))
    }

    /// Show at most `n` children per `resources/directory/read` page (default 100; 1 to 1000).
    pub fn directory_page_size(self, n: usize) -> Self {
        self.with(|index| index.directory_page = n.clamp(1, 1000))
    }

    fn with(mut self, f: impl FnOnce(&mut Index)) -> Self {
        f(Arc::make_mut(&mut self.index));
        self
    }

    /// These skills and `other`'s in one tree (a mounted part's, a relayed server's), checked
    /// again as a whole; a file at a path both trees have is an error. The page sizes are
    /// these'.
    ///
    /// ```
    /// use roundtrip::skills::Skills;
    ///
    /// let skill = |name: &str| format!("---\nname: {name}\ndescription: Does {name}.\n---\nSteps.\n");
    /// let a = Skills::from_files([("a/SKILL.md", skill("a").into_bytes())])?;
    /// let b = Skills::from_files([("b/SKILL.md", skill("b").into_bytes())])?;
    /// let both = a.merge(&b)?;
    /// assert_eq!(both.names().collect::<Vec<_>>(), ["a", "b"]);
    /// assert!(a.merge(&a).is_err());
    /// # Ok::<(), roundtrip::skills::SkillsError>(())
    /// ```
    pub fn merge(&self, other: &Skills) -> Result<Skills, SkillsError> {
        let mut files: BTreeMap<String, Cow<'static, [u8]>> = BTreeMap::new();
        for tree in [self, other] {
            for (uri, file) in &tree.index.files {
                let path = uri.strip_prefix("skill://").unwrap_or(uri).to_owned();
                if files.contains_key(&path) {
                    return Err(SkillsError::new(path, "both trees have a file at this path"));
                }
                files.insert(path, Cow::Owned(file.bytes.to_vec()));
            }
        }
        let merged = Self::build(files, str::to_owned)?;
        Ok(merged.page_size(self.index.list_page).directory_page_size(self.index.directory_page))
    }

    /// How many skills there are.
    pub fn len(&self) -> usize {
        self.index.skills.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.index.skills.is_empty()
    }

    /// The skills' names, in URI order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.index.skills.iter().map(|s| s.entry.name())
    }

    /// The skills as `skills/list` shows them, in URI order.
    pub fn entries(&self) -> impl Iterator<Item = &SkillEntry> {
        self.index.skills.iter().map(|s| &s.entry)
    }

    /// The bytes of the file `uri`, if it is one of the tree's.
    pub fn file(&self, uri: &str) -> Option<&[u8]> {
        self.index.files.get(uri).map(|f| &*f.bytes)
    }

    /// The `SKILL.md` resources, as `resources/list` lists them.
    pub(crate) fn resources(&self) -> impl Iterator<Item = &Resource> {
        self.index.skills.iter().map(|s| &s.resource)
    }

    /// Check and index the tree's files; `shown` makes a file's path for an error.
    fn build(
        files: impl IntoIterator<Item = (String, Cow<'static, [u8]>)>,
        shown: impl Fn(&str) -> String,
    ) -> Result<Self, SkillsError> {
        let files: BTreeMap<String, Cow<'static, [u8]>> = files.into_iter().collect();
        let mut total: u64 = 0;
        // The skill roots: the directories holding a SKILL.md.
        let mut roots: Vec<&str> = Vec::new();
        for path in files.keys() {
            check_names(path).map_err(|why| SkillsError::new(shown(path), why))?;
            if path == "SKILL.md" {
                return Err(SkillsError::new(
                    shown(path),
                    "a SKILL.md at the root of the tree: put each skill in a directory named after it",
                ));
            }
            if let Some(root) = path.strip_suffix("/SKILL.md") {
                roots.push(root);
            }
        }
        for inner in &roots {
            if let Some(outer) = roots.iter().find(|r| inner.starts_with(&format!("{r}/"))) {
                return Err(SkillsError::new(
                    shown(&format!("{inner}/SKILL.md")),
                    format!("a skill inside the skill `{outer}`: skills may not nest"),
                ));
            }
        }
        let mut skills = Vec::new();
        let mut index_files = HashMap::new();
        let mut dirs: BTreeMap<String, BTreeMap<String, Resource>> = BTreeMap::new();
        for root in &roots {
            let prefix = format!("{root}/");
            let mine: Vec<(&String, &Cow<'static, [u8]>)> =
                files.range(prefix.clone()..).take_while(|(p, _)| p.starts_with(&prefix)).collect();
            let skill_md = format!("{root}/SKILL.md");
            if mine.len() > MAX_FILES_PER_SKILL {
                return Err(SkillsError::new(
                    shown(root),
                    format!("{} files, more than the {MAX_FILES_PER_SKILL} a skill may have", mine.len()),
                ));
            }
            let bytes: u64 = mine.iter().map(|(_, b)| b.len() as u64).sum();
            if bytes > MAX_BYTES_PER_SKILL {
                return Err(SkillsError::new(
                    shown(root),
                    format!("{bytes} bytes, more than the {MAX_BYTES_PER_SKILL} a skill may have"),
                ));
            }
            total += bytes;
            if total > MAX_TOTAL_BYTES {
                return Err(SkillsError::new(
                    shown(root),
                    format!("the skills add up to more than {MAX_TOTAL_BYTES} bytes"),
                ));
            }
            let text = files.get(&skill_md).map(|b| String::from_utf8_lossy(b)).unwrap_or_default();
            let fm = check_frontmatter(&text, root).map_err(|why| SkillsError::new(shown(&skill_md), why))?;
            let uri_of = |path: &str| format!("skill://{path}");
            let skill_uri = uri_of(&skill_md);
            let name = fm.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
            let description = fm.get("description").and_then(Value::as_str).map(str::to_owned);
            let mut resources = Vec::with_capacity(mine.len());
            for (path, bytes) in &mine {
                let uri = uri_of(path);
                resources.push(SkillResource::new(uri.clone(), digest(bytes), bytes.len() as u64));
                index_files.insert(uri, SkillFile { bytes: (*bytes).clone(), mime_type: mime_type(path) });
            }
            let mut resource = Resource::new(skill_uri.clone(), name)
                .with_mime_type("text/markdown")
                .with_size(files.get(&skill_md).map_or(0, |b| b.len() as u64));
            resource.description = description;
            // Every directory from the tree's top down to each file knows its children.
            for (path, bytes) in &mine {
                let segments: Vec<&str> = path.split('/').collect();
                for depth in 1..segments.len() {
                    let dir = uri_of(&segments[..depth].join("/"));
                    let child_path = segments[..=depth].join("/");
                    let child_name = segments[depth].to_owned();
                    let child = if depth + 1 == segments.len() {
                        if **path == skill_md {
                            resource.clone()
                        } else {
                            Resource::new(uri_of(&child_path), child_name.clone())
                                .with_mime_type(mime_type(path))
                                .with_size(bytes.len() as u64)
                        }
                    } else {
                        Resource::new(uri_of(&child_path), child_name.clone()).with_mime_type(DIRECTORY_MIME_TYPE)
                    };
                    dirs.entry(dir).or_default().entry(child_name).or_insert(child);
                }
            }
            let entry = SkillEntry::new(skill_uri, fm, SkillResources::Listed(resources));
            let entry_json = serde_json::value::to_raw_value(&entry)
                .map_err(|e| SkillsError::new(shown(&skill_md), format!("cannot serialize its entry: {e}")))?;
            skills.push(SkillData { entry, entry_json, resource });
        }
        for path in files.keys() {
            if !roots.iter().any(|r| path.starts_with(&format!("{r}/"))) {
                tracing::debug!(target: "roundtrip::skills", "`{}` belongs to no skill; not served", shown(path));
            }
        }
        let mut names: HashMap<&str, &str> = HashMap::new();
        for s in &skills {
            if let Some(other) = names.insert(s.entry.name(), &s.entry.uri) {
                tracing::warn!(
                    target: "roundtrip::skills",
                    "two skills are named `{}` ({other} and {}); clients may confuse them",
                    s.entry.name(),
                    s.entry.uri
                );
            }
        }
        skills.sort_by(|a, b| a.entry.uri.cmp(&b.entry.uri));
        let by_uri = skills.iter().enumerate().map(|(i, s)| (s.entry.uri.clone(), i)).collect();
        let dirs = dirs.into_iter().map(|(uri, children)| (uri, children.into_values().collect())).collect();
        Ok(Self {
            index: Arc::new(Index { skills, by_uri, files: index_files, dirs, list_page: 50, directory_page: 100 }),
        })
    }
}

/// The frontmatter of a skill at `root` (its path in the tree), checked.
fn check_frontmatter(text: &str, root: &str) -> Result<crate::protocol::JsonObject, String> {
    let fm = frontmatter::parse(text).map_err(|e| e.to_string())?;
    let name = match fm.get("name") {
        Some(Value::String(n)) => n,
        Some(_) => return Err("its frontmatter's `name` is not a string".into()),
        None => return Err("its frontmatter has no `name`".into()),
    };
    if !valid_name(name) {
        return Err(format!(
            "its name `{name}` is not a valid skill name (1 to 64 of a-z, 0-9 and `-`, not first or last, no `--`)"
        ));
    }
    let last = root.rsplit('/').next().unwrap_or(root);
    if last != name {
        return Err(format!(
            "its name is `{name}`, but its directory is `{last}`: a skill's directory is named after it"
        ));
    }
    match fm.get("description") {
        Some(Value::String(d)) if !d.trim().is_empty() && d.chars().count() <= 1024 => {}
        Some(Value::String(d)) if !d.trim().is_empty() => {
            return Err(format!("its description has {} characters, more than 1024", d.chars().count()));
        }
        Some(Value::String(_)) => return Err("its frontmatter's `description` is empty".into()),
        Some(_) => return Err("its frontmatter's `description` is not a string".into()),
        None => return Err("its frontmatter has no `description`".into()),
    }
    if let Some(metadata) = fm.get("metadata").and_then(Value::as_object)
        && let Some(key) = metadata.keys().find(|k| k.starts_with("io.modelcontextprotocol/"))
    {
        return Err(format!("its metadata key `{key}` uses the reserved prefix `io.modelcontextprotocol/`"));
    }
    Ok(fm)
}

/// A relative path inside the tree: segments joined by `/`, none empty, `.` or `..`.
fn check_relative(path: &str) -> Result<(), SkillsError> {
    let bad = |why: &str| Err(SkillsError::new(path, format!("not a path inside the skills tree: {why}")));
    if path.starts_with('/') {
        return bad("it is absolute");
    }
    if path.contains('\\') {
        return bad("it contains `\\` (use `/` between segments)");
    }
    if path.split('/').any(|s| s.is_empty() || s == "." || s == "..") {
        return bad("it has an empty, `.` or `..` segment");
    }
    Ok(())
}

/// Every segment of a file's path may appear in a URI as it is: `A-Z a-z 0-9 - . _ ~`.
fn check_names(path: &str) -> Result<(), String> {
    for segment in path.split('/') {
        if segment.len() > 255 || !segment.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b)) {
            return Err(format!(
                "the name `{segment}` cannot be part of a skill URI as it is: use letters, digits, `-`, `.`, `_` and `~` (at most 255)"
            ));
        }
    }
    Ok(())
}

/// The MIME type of a file by its extension.
pub(super) fn mime_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" | "text" => "text/plain",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "csv" => "text/csv",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "xml" => "application/xml",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "py" => "text/x-python",
        "sh" => "application/x-sh",
        "rs" => "text/x-rust",
        "sql" => "application/sql",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ => "application/octet-stream",
    }
}

/// The walk of [`Skills::from_dir`].
struct Walk<'a> {
    root: &'a Path,
    shown_root: &'a Path,
    files: Vec<(String, Vec<u8>)>,
    total: u64,
    /// The directories walked (canonical), so that a link cannot make a cycle.
    visited: Vec<PathBuf>,
}

impl Walk<'_> {
    fn shown(&self, rel: &str) -> String {
        self.shown_root.join(rel).display().to_string()
    }

    fn dir(&mut self, dir: &Path, rel: &str, depth: usize) -> Result<(), SkillsError> {
        if depth > MAX_DEPTH {
            return Err(SkillsError::new(self.shown(rel), format!("directories nest deeper than {MAX_DEPTH}")));
        }
        if self.visited.iter().any(|v| v == dir) {
            return Err(SkillsError::new(
                self.shown(rel),
                "a symbolic link leads to a directory already walked (a cycle, or two links to one directory)",
            ));
        }
        self.visited.push(dir.to_owned());
        let read =
            std::fs::read_dir(dir).map_err(|e| SkillsError::new(self.shown(rel), format!("cannot list: {e}")))?;
        let mut entries = Vec::new();
        for entry in read {
            let entry = entry.map_err(|e| SkillsError::new(self.shown(rel), format!("cannot list: {e}")))?;
            entries.push(entry);
        }
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries {
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                let shown = Path::new(&self.shown(rel)).join(&name).display().to_string();
                return Err(SkillsError::new(shown, "the name is not UTF-8"));
            };
            if name.starts_with('.') {
                continue;
            }
            let child_rel = if rel.is_empty() { name.to_owned() } else { format!("{rel}/{name}") };
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path)
                .map_err(|e| SkillsError::new(self.shown(&child_rel), format!("cannot read: {e}")))?;
            let target = if meta.file_type().is_symlink() {
                let target = path.canonicalize().map_err(|e| {
                    SkillsError::new(self.shown(&child_rel), format!("a symbolic link that cannot be followed: {e}"))
                })?;
                if !target.starts_with(self.root) {
                    return Err(SkillsError::new(
                        self.shown(&child_rel),
                        format!("a symbolic link to `{}`, outside the skills directory", target.display()),
                    ));
                }
                target
            } else {
                path
            };
            let meta = std::fs::metadata(&target)
                .map_err(|e| SkillsError::new(self.shown(&child_rel), format!("cannot read: {e}")))?;
            if meta.is_dir() {
                self.dir(&target, &child_rel, depth + 1)?;
            } else if meta.is_file() {
                if self.files.len() >= MAX_FILES {
                    return Err(SkillsError::new(self.shown(&child_rel), format!("more than {MAX_FILES} files")));
                }
                if meta.len() > MAX_BYTES_PER_SKILL || self.total + meta.len() > MAX_TOTAL_BYTES {
                    return Err(SkillsError::new(
                        self.shown(&child_rel),
                        format!("{} bytes: over the limit of a skill or of the tree", meta.len()),
                    ));
                }
                let bytes = std::fs::read(&target)
                    .map_err(|e| SkillsError::new(self.shown(&child_rel), format!("cannot read: {e}")))?;
                self.total += bytes.len() as u64;
                self.files.push((child_rel, bytes));
            }
        }
        Ok(())
    }
}
