use roundtrip::prelude::*;

async fn known(service: String) -> bool {
    !service.is_empty()
}

#[tool(check = known(service))]
async fn deploy(service: String) -> String {
    format!("Deployed {service}.")
}

fn main() {}
