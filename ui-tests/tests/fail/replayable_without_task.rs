use roundtrip::prelude::*;

/// `replayable` opts task tools out of single-use states; this tool is no task.
#[tool(replayable)]
async fn greet(#[resolve(elicit = "Your name?")] name: String) -> String {
    format!("Hello, {name}!")
}

fn main() {}
