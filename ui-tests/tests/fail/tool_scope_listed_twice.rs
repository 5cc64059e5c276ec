use roundtrip::prelude::*;

/// Deploy a service.
#[tool(scopes = ["deploy:read", "deploy:read"])]
async fn deploy(service: String) -> String {
    service
}

fn main() {}
