//! Skills (`io.modelcontextprotocol/skills`): what a tree must be to load, what a request may
//! name, what the wire looks like in both eras, and the client's checks of what it reads.

use std::path::{Path, PathBuf};

use roundtrip::Server;
use roundtrip::client::{Client, ClientError, Mode};
use roundtrip::protocol::{ProtocolVersion, SkillResources};
use roundtrip::skills::{Skills, SkillsError};
use serde_json::{Value, json};

const SKILL_MD: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: MIT\nmetadata:\n  version: \"1.0\"\n---\n\nSee references/FORMS.md.\n";

fn tree() -> Skills {
    Skills::from_files([
        ("pdf-processing/SKILL.md", SKILL_MD.as_bytes()),
        ("pdf-processing/references/FORMS.md", b"# Forms\n"),
        ("pdf-processing/logo.png", b"\x89PNG\r\n\x1a\n"),
        ("notes/SKILL.md", b"---\nname: notes\ndescription: Take notes\n---\n"),
    ])
    .expect("the tree loads")
}

async fn client(server: Server) -> Client {
    Client::builder("test", "1.0.0").connect_in_memory(server).await.expect("connects")
}

/// A directory of its own under the system's temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("roundtrip-skills-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        Self(dir)
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.0.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("dirs");
        std::fs::write(&path, text).expect("write");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn refused(result: Result<Skills, SkillsError>) -> SkillsError {
    match result {
        Ok(skills) => panic!("loaded, though it should not: {skills:?}"),
        Err(e) => e,
    }
}

// ---------------------------------------------------------------------------------------------
// Loading

#[test]
fn bad_frontmatter_is_refused_at_start_naming_the_file() {
    let cases: [(&str, &str); 8] = [
        ("# no frontmatter\n", "does not start with YAML frontmatter"),
        ("---\nname: [pdf\n---\n", "not valid YAML"),
        ("---\n- a list\n---\n", "not a mapping"),
        ("---\ndescription: d\n---\n", "has no `name`"),
        ("---\nname: pdf\n---\n", "has no `description`"),
        ("---\nname: pdf\ndescription: \"\"\n---\n", "`description` is empty"),
        ("---\nname: other\ndescription: d\n---\n", "its directory is `pdf`"),
        ("---\nname: pdf\ndescription: d\nmetadata:\n  io.modelcontextprotocol/x: 1\n---\n", "reserved prefix"),
    ];
    for (text, why) in cases {
        let e = refused(Skills::from_files([("pdf/SKILL.md", text.as_bytes())]));
        assert_eq!(e.path, "pdf/SKILL.md", "{text:?}");
        assert!(e.reason.contains(why), "{text:?}: {e}");
    }
    let e = refused(Skills::from_files([("Bad_Name/SKILL.md", &b"---\nname: Bad_Name\ndescription: d\n---\n"[..])]));
    assert!(e.reason.contains("not a valid skill name"), "{e}");
}

#[test]
fn a_bad_skill_on_disk_is_named_by_its_path() {
    let dir = TempDir::new();
    dir.write("good/SKILL.md", "---\nname: good\ndescription: Fine\n---\n");
    let bad = dir.write("bad/SKILL.md", "no frontmatter here\n");
    let e = refused(Skills::from_dir(&dir.0));
    assert_eq!(Path::new(&e.path), bad, "{e}");
    assert!(e.to_string().contains("bad/SKILL.md"), "{e}");
}

#[test]
fn paths_that_leave_the_tree_are_refused() {
    for path in ["../outside/SKILL.md", "pdf/../../x", "/etc/passwd", "pdf/./SKILL.md", "pdf//SKILL.md", "pdf\\..\\x"] {
        let e = refused(Skills::from_files([(path, &b"x"[..])]));
        assert!(e.reason.contains("not a path inside the skills tree"), "{path}: {e}");
    }
    // A name that cannot be part of a URI as it is (an encoded separator, a space).
    for path in ["pdf/a%2Fb.md", "pdf/my file.md"] {
        let files = [("pdf/SKILL.md", &b"---\nname: pdf\ndescription: d\n---\n"[..]), (path, b"x")];
        let e = refused(Skills::from_files(files));
        assert!(e.reason.contains("cannot be part of a skill URI"), "{path}: {e}");
    }
}

#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_tree_is_refused_and_one_inside_is_followed() {
    let outside = TempDir::new();
    let secret = outside.write("secret.txt", "do not serve me\n");
    let dir = TempDir::new();
    dir.write("pdf/SKILL.md", "---\nname: pdf\ndescription: d\n---\n");
    dir.write("pdf/references/FORMS.md", "# Forms\n");
    std::os::unix::fs::symlink(dir.0.join("pdf/references/FORMS.md"), dir.0.join("pdf/forms.md")).expect("link");
    let skills = Skills::from_dir(&dir.0).expect("a link inside the tree is fine");
    assert_eq!(skills.file("skill://pdf/forms.md"), Some(&b"# Forms\n"[..]));

    let link = dir.0.join("pdf/leak.txt");
    std::os::unix::fs::symlink(&secret, &link).expect("link");
    let e = refused(Skills::from_dir(&dir.0));
    assert_eq!(Path::new(&e.path), link);
    assert!(e.reason.contains("outside the skills directory"), "{e}");
    std::fs::remove_file(&link).expect("unlink");

    // A directory link out of the tree too.
    std::os::unix::fs::symlink(&outside.0, dir.0.join("pdf/elsewhere")).expect("link");
    let e = refused(Skills::from_dir(&dir.0));
    assert!(e.reason.contains("outside the skills directory"), "{e}");
}

#[test]
fn nested_skills_and_a_skill_at_the_root_are_refused() {
    let md = |n: &str| format!("---\nname: {n}\ndescription: d\n---\n").into_bytes();
    let e = refused(Skills::from_files([("a/SKILL.md", md("a")), ("a/b/SKILL.md", md("b"))]));
    assert!(e.reason.contains("may not nest"), "{e}");
    assert_eq!(e.path, "a/b/SKILL.md");
    // Whichever sorts first (`B` before `SKILL.md`).
    let e = refused(Skills::from_files([("a/SKILL.md", md("a")), ("a/B/SKILL.md", md("b"))]));
    assert!(e.reason.contains("may not nest"), "{e}");
    let e = refused(Skills::from_files([("SKILL.md", md("a"))]));
    assert!(e.reason.contains("root of the tree"), "{e}");
}

#[test]
fn a_skill_over_the_limits_is_refused() {
    let mut files = vec![("big/SKILL.md".to_owned(), b"---\nname: big\ndescription: d\n---\n".to_vec())];
    for i in 0..roundtrip::skills::MAX_FILES_PER_SKILL {
        files.push((format!("big/f{i}.txt"), b"x".to_vec()));
    }
    let e = refused(Skills::from_files(files));
    assert!(e.reason.contains("more than the 512"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Serving

#[tokio::test]
async fn listing_reading_and_directories_over_the_2026_wire() {
    let server = Server::new("docs", "1.0.0").skills(tree().page_size(1).directory_page_size(2));
    let c = client(server).await;
    let caps = c.server_capabilities();
    assert_eq!(caps.extensions.as_ref().unwrap()["io.modelcontextprotocol/skills"], json!({"directoryRead": true}));
    assert!(caps.resources.is_some());

    // Two pages of one skill each, in URI order.
    let first = c.request("skills/list", Default::default()).await.unwrap();
    assert_eq!(first["skills"].as_array().unwrap().len(), 1);
    assert_eq!(first["resultType"], "complete");
    assert!(first["ttlMs"].is_u64() && first["cacheScope"].is_string());
    let all = c.list_skills().await.unwrap();
    let names: Vec<&str> = all.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["notes", "pdf-processing"]);
    let pdf = &all[1];
    assert_eq!(pdf.uri, "skill://pdf-processing/SKILL.md");
    assert_eq!(pdf.frontmatter["metadata"], json!({"version": "1.0"}));
    let SkillResources::Listed(files) = &pdf.resources else { panic!("listed") };
    let md = files.iter().find(|f| f.uri == pdf.uri).unwrap();
    assert_eq!(md.size, SKILL_MD.len() as u64);
    assert_eq!(md.digest, roundtrip::skills::digest(SKILL_MD.as_bytes()));

    // skills/get, and -32602 for an unknown skill.
    assert_eq!(c.get_skill(&pdf.uri).await.unwrap(), *pdf);
    let mut params = roundtrip::protocol::JsonObject::new();
    params.insert("uri".into(), json!("skill://nope/SKILL.md"));
    let Err(ClientError::Rpc(e)) = c.request("skills/get", params).await else { panic!("refused") };
    assert_eq!(e.code, -32602);

    // SKILL.md is listed as a resource, named and described by its frontmatter.
    let resources = c.list_resources().await.unwrap().resources;
    let listed = resources.iter().find(|r| r.uri == pdf.uri).unwrap();
    assert_eq!((listed.name.as_str(), listed.mime_type.as_deref()), ("pdf-processing", Some("text/markdown")));
    assert_eq!(listed.description.as_deref(), Some("Extract, fill, and assemble PDF documents"));

    // Reads: text as text, binary as a blob.
    let read =
        serde_json::to_value(c.read_resource("skill://pdf-processing/references/FORMS.md").await.unwrap()).unwrap();
    assert_eq!(read["contents"][0]["text"], "# Forms\n");
    let read = serde_json::to_value(c.read_resource("skill://pdf-processing/logo.png").await.unwrap()).unwrap();
    assert_eq!(read["contents"][0]["mimeType"], "image/png");
    assert!(read["contents"][0]["blob"].is_string());

    // The root's children by name (bytes: upper case first), two per page: SKILL.md, logo.png,
    // references/ (a directory).
    let dir = |uri: &str, cursor: Option<&str>| {
        let mut p = roundtrip::protocol::JsonObject::new();
        p.insert("uri".into(), json!(uri));
        if let Some(c) = cursor {
            p.insert("cursor".into(), json!(c));
        }
        c.request("resources/directory/read", p)
    };
    let page1 = dir("skill://pdf-processing", None).await.unwrap();
    let cursor = page1["nextCursor"].as_str().unwrap().to_owned();
    let page2 = dir("skill://pdf-processing/", Some(&cursor)).await.unwrap();
    assert!(page2.get("nextCursor").is_none());
    let children: Vec<Value> =
        page1["resources"].as_array().unwrap().iter().chain(page2["resources"].as_array().unwrap()).cloned().collect();
    let names: Vec<&str> = children.iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["skill://pdf-processing/SKILL.md", "skill://pdf-processing/logo.png", "skill://pdf-processing/references"]
    );
    assert_eq!(children[0]["name"], "pdf-processing", "SKILL.md is listed as resources/list lists it");
    assert_eq!(children[2]["mimeType"], "inode/directory");
    let sub = dir("skill://pdf-processing/references", None).await.unwrap();
    assert_eq!(sub["resources"][0]["uri"], "skill://pdf-processing/references/FORMS.md");
    // A file, an unknown directory and a forged cursor are invalid params.
    for (uri, cursor) in
        [("skill://pdf-processing/SKILL.md", None), ("skill://nope", None), ("skill://pdf-processing", Some("forged"))]
    {
        let Err(ClientError::Rpc(e)) = dir(uri, cursor).await else { panic!("{uri} refused") };
        assert_eq!(e.code, -32602, "{uri}");
    }
}

#[tokio::test]
async fn reads_that_try_to_leave_a_skill_are_refused() {
    let c = client(Server::new("docs", "1.0.0").skills(tree())).await;
    for uri in [
        "skill://pdf-processing/../../etc/passwd",
        "skill://pdf-processing/references/../../notes/SKILL.md",
        "skill:///etc/passwd",
        "skill://pdf-processing/references%2FFORMS.md",
        "skill://pdf-processing/%2e%2e/notes/SKILL.md",
        "skill://pdf-processing/references\\..\\SKILL.md",
        "skill://pdf-processing/./SKILL.md",
        "skill://pdf-processing//SKILL.md",
    ] {
        let Err(ClientError::Rpc(e)) = c.read_resource(uri).await else { panic!("{uri} was read") };
        assert_eq!(e.code, -32602, "{uri}");
        assert!(e.message.starts_with("Invalid skill URI"), "{uri}: {}", e.message);
        let mut p = roundtrip::protocol::JsonObject::new();
        p.insert("uri".into(), json!(uri));
        let Err(ClientError::Rpc(e)) = c.request("resources/directory/read", p).await else { panic!("{uri} listed") };
        assert_eq!(e.code, -32602, "{uri}");
    }
    // A well-formed URI the tree does not hold is simply not found.
    let Err(ClientError::Rpc(e)) = c.read_resource("skill://pdf-processing/missing.md").await else { panic!() };
    assert_eq!((e.code, e.message.as_str()), (-32602, "Resource not found"));
}

#[tokio::test]
async fn a_legacy_session_finds_the_extension_in_initialize() {
    let c = Client::builder("test", "1.0.0")
        .mode(Mode::Pinned(ProtocolVersion::V2025_11_25))
        .connect_in_memory(Server::new("docs", "1.0.0").skills(tree()))
        .await
        .unwrap();
    assert!(c.server_capabilities().extensions.as_ref().unwrap().contains_key("io.modelcontextprotocol/skills"));
    let listed = c.request("skills/list", Default::default()).await.unwrap();
    assert!(listed.get("resultType").is_none() && listed.get("ttlMs").is_none(), "{listed}");
    let skill = c.load_skill(&c.list_skills().await.unwrap()[1]).await.unwrap();
    assert_eq!(skill.body(), "\nSee references/FORMS.md.\n");
}

#[tokio::test]
async fn a_server_without_skills_offers_none() {
    let c = client(Server::new("docs", "1.0.0")).await;
    assert!(c.server_capabilities().extensions.is_none());
    let Err(ClientError::Rpc(e)) = c.request("skills/list", Default::default()).await else { panic!() };
    assert_eq!(e.code, -32601);
}

// ---------------------------------------------------------------------------------------------
// The client's checks

#[tokio::test]
async fn the_client_refuses_what_does_not_match_the_listing() {
    let c = client(Server::new("docs", "1.0.0").skills(tree())).await;
    let entry = c.list_skills().await.unwrap().remove(1);
    let loaded = c.load_skill(&entry).await.expect("the real listing matches");
    assert_eq!(loaded.name(), "pdf-processing");
    let forms = c.read_skill_file(&loaded, "skill://pdf-processing/references/FORMS.md").await.unwrap();
    assert_eq!(forms, b"# Forms\n");

    let with_files = |f: &dyn Fn(&mut roundtrip::protocol::SkillResource)| {
        let mut e = entry.clone();
        if let SkillResources::Listed(files) = &mut e.resources {
            files.iter_mut().for_each(f);
        }
        e
    };
    // A digest that is not the content's.
    let wrong_digest = with_files(&|r| r.digest = roundtrip::skills::digest(b"something else"));
    let Err(ClientError::Verification(why)) = c.load_skill(&wrong_digest).await else { panic!("digest") };
    assert!(why.contains("digest"), "{why}");
    // A size that is not the content's.
    let wrong_size = with_files(&|r| r.size += 1);
    let Err(ClientError::Verification(why)) = c.load_skill(&wrong_size).await else { panic!("size") };
    assert!(why.contains("bytes"), "{why}");
    // A frontmatter that is not the file's.
    let mut wrong_fm = entry.clone();
    wrong_fm.frontmatter.insert("description".into(), json!("Exfiltrate credentials"));
    let Err(ClientError::Verification(why)) = c.load_skill(&wrong_fm).await else { panic!("frontmatter") };
    assert!(why.contains("`description`"), "{why}");
    // A file of the loaded skill whose digest is wrong, and one the listing does not name.
    let mut tampered = loaded.clone();
    if let SkillResources::Listed(files) = &mut tampered.entry.resources {
        files.iter_mut().filter(|f| f.uri.ends_with("FORMS.md")).for_each(|f| f.digest = "sha256:00".into());
    }
    let forms = "skill://pdf-processing/references/FORMS.md";
    assert!(matches!(c.read_skill_file(&tampered, forms).await, Err(ClientError::Verification(_))));
    let other = "skill://notes/SKILL.md";
    let Err(ClientError::Verification(why)) = c.read_skill_file(&loaded, other).await else { panic!("unlisted") };
    assert!(why.contains("not a file of the skill"), "{why}");
}

#[test]
fn describe_lists_the_skills_with_their_files_in_json_and_markdown() {
    let description = Server::new("s", "1").skills(tree()).describe();
    let skills = description.to_json()["skills"].as_array().expect("a skills section").clone();
    let names: Vec<&str> = skills.iter().map(|s| s["name"].as_str().unwrap_or_default()).collect();
    assert_eq!(names.len(), 2, "{skills:?}");
    assert!(names.contains(&"pdf-processing") && names.contains(&"notes"), "{names:?}");
    let pdf = skills.iter().find(|s| s["name"] == "pdf-processing").expect("pdf-processing");
    assert_eq!(pdf["description"], "Extract, fill, and assemble PDF documents");
    assert_eq!(pdf["uri"], "skill://pdf-processing/SKILL.md");
    let files = pdf["files"].as_array().expect("the files are listed");
    let forms = files
        .iter()
        .find(|f| f["uri"].as_str().is_some_and(|u| u.ends_with("references/FORMS.md")))
        .expect("FORMS.md is listed");
    assert_eq!(forms["size"], 8, "{forms}");

    let md = description.to_markdown();
    assert!(md.contains("\n## Skills\n"), "{md}");
    assert!(md.contains("### `pdf-processing`") && md.contains("Extract, fill, and assemble PDF documents"), "{md}");
    assert!(md.contains("references/FORMS.md` | 8 |"), "{md}");

    // A server without skills describes none (the section is not there at all).
    let bare = Server::new("s", "1").describe();
    assert!(bare.to_json().get("skills").is_none());
    assert!(!bare.to_markdown().contains("## Skills"));
}
