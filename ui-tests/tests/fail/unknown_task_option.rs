use roundtrip::prelude::*;

#[tool(task = "always")]
async fn backup(database: String) -> String {
    format!("Backed up {database}.")
}

fn main() {}
