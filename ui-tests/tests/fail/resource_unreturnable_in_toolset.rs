use std::sync::Arc;

use roundtrip::prelude::*;

struct Notes;

#[toolset]
impl Notes {
    /// The notes, as a list of lines.
    #[resource("notes://all")]
    async fn all(&self) -> Vec<String> {
        vec!["one".into()]
    }
}

fn main() {
    let _ = Server::new("notes", "1").toolset(Arc::new(Notes));
}
