use roundtrip::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Topic {
    subject: String,
}

/// Write about a topic.
#[prompt]
async fn essay(#[arg(flatten)] topic: Topic) -> String {
    topic.subject
}

fn main() {
    let _ = Server::new("essays", "1").prompts(prompts![essay]);
}
