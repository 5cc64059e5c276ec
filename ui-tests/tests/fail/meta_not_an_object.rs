use roundtrip::prelude::*;

/// Deploy.
#[tool(meta = r#"["owner", "ops"]"#)]
async fn deploy() -> String {
    "done".into()
}

fn main() {
    let _ = Server::new("ops", "1").tools(tools![deploy]);
}
