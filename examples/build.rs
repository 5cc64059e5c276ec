//! Builds the HTML of the `provision` example's view (`views/databases.html`) with the
//! official MCP Apps SDK inlined: a host runs the view under a Content Security Policy that
//! allows inline scripts and nothing from the server's origin, so the SDK must be in the
//! document. The vendored SDK (`views/vendor/ext-apps-2.0.4/app-with-deps.js`, unchanged from
//! the npm package, with its licences) is one ES module ending in `export { … }`; here its code
//! becomes the body of a function that returns those exports as an object, `McpExtApps`, in
//! a classic inline script the view's own code follows. Nothing here needs Node.

use std::path::{Path, PathBuf};

const VIEW: &str = "views/databases.html";
const SDK: &str = "views/vendor/ext-apps-2.0.4/app-with-deps.js";
const MARKER: &str = "/* @ext-apps: the SDK is inlined here when the example builds (examples/build.rs) */";

fn main() {
    let root = root();
    // The examples' own folder, for what a package inside it (examples/worker) embeds from
    // there: the conformance server's skills (`include_skills!("$ROUNDTRIP_EXAMPLES_DIR/skills")`).
    println!("cargo::rustc-env=ROUNDTRIP_EXAMPLES_DIR={}", root.display());
    let (view_path, sdk_path) = (root.join(VIEW), root.join(SDK));
    println!("cargo::rerun-if-changed={}", view_path.display());
    println!("cargo::rerun-if-changed={}", sdk_path.display());
    let view = read(&view_path);
    let sdk = read(&sdk_path);
    if view.matches(MARKER).count() != 1 {
        fail(&format!("{VIEW} must hold the marker `{MARKER}` once, where the SDK goes"));
    }
    let html = view.replace(MARKER, &as_script(&sdk));
    let out = std::env::var_os("OUT_DIR").unwrap_or_else(|| fail("cargo sets OUT_DIR for build scripts"));
    let path = Path::new(&out).join("databases.html");
    if let Err(e) = std::fs::write(&path, html) {
        fail(&format!("cannot write {}: {e}", path.display()));
    }
}

/// The module's code as a classic script that defines `const McpExtApps = { App, … }`: in a
/// strict `function` (not an arrow), so that its top-level `this` is `undefined` as in a
/// module.
fn as_script(module: &str) -> String {
    let lower = module.to_ascii_lowercase();
    if lower.contains("</script") || lower.contains("<!--") {
        fail(&format!("{SDK} holds `</script` or `<!--`, which would end the inline script early"));
    }
    let Some(start) = module.rfind("export{") else {
        fail(&format!("{SDK} does not end with `export{{…}};`: is it the app-with-deps build?"))
    };
    let tail = module[start + "export{".len()..].trim_end();
    let Some(list) = tail.strip_suffix("};").or_else(|| tail.strip_suffix('}')) else {
        fail(&format!("{SDK}: nothing may follow its final `export{{…}}`"))
    };
    if list.contains(['{', '}', '(', ')', '"', '\'', '`']) || module[..start].contains("import.meta") {
        fail(&format!("{SDK}: its final export is not a plain list of names"));
    }
    let fields: Vec<String> = list
        .split(',')
        .map(|item| match item.trim().split_once(" as ") {
            Some((local, exported)) => format!("{}: {}", exported.trim(), local.trim()),
            None => item.trim().to_owned(),
        })
        .collect();
    format!(
        "// @modelcontextprotocol/ext-apps 2.0.4 (app-with-deps), Apache-2.0 and MIT, with zod (MIT): see\n\
         // examples/views/vendor/ext-apps-2.0.4/ for the licences. Inlined by examples/build.rs.\n\
         const McpExtApps = (function () {{\n\"use strict\";\n{}\nreturn {{ {} }};\n}})();",
        &module[..start],
        fields.join(", ")
    )
}

/// The examples' folder: the package's own, or its parent for the Worker in examples/worker,
/// which builds with this script too.
fn root() -> PathBuf {
    let package =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| fail("cargo sets CARGO_MANIFEST_DIR")));
    match package.join(VIEW).exists() {
        true => package,
        false => package.parent().map(Path::to_path_buf).unwrap_or(package),
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", path.display())))
}

fn fail(message: &str) -> ! {
    eprintln!("examples/build.rs: {message}");
    std::process::exit(1)
}
