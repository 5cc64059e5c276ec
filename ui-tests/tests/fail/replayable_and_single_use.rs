use roundtrip::prelude::*;

/// Both ways at once.
#[tool(task, single_use, replayable)]
async fn backup(database: String) -> String {
    format!("Backed up {database}.")
}

fn main() {}
