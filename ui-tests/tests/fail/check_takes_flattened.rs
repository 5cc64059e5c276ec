use roundtrip::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Target {
    service: String,
}

async fn known(target: &Target) -> Result<(), Error> {
    let _ = &target.service;
    Ok(())
}

/// Restart a service.
#[tool(check = known(target))]
async fn restart(#[arg(flatten)] target: Target) -> String {
    target.service
}

fn main() {
    let _ = Server::new("ops", "1").tools(tools![restart]);
}
