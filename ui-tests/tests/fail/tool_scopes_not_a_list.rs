use roundtrip::prelude::*;

/// Deploy a service.
#[tool(scopes = "deploy:write")]
async fn deploy(service: String) -> String {
    service
}

fn main() {}
