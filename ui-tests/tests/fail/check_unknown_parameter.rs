use roundtrip::prelude::*;

async fn known(service: String) -> Result<(), String> {
    if service.is_empty() { Err("empty".into()) } else { Ok(()) }
}

#[tool(check = known(servise))]
async fn deploy(service: String) -> String {
    format!("Deployed {service}.")
}

fn main() {}
