//! The tools both build-size servers serve (included by `stdio-server` and `http-server`).

use roundtrip::prelude::*;

/// Provision a database. Asks which region to put it in.
#[tool(idempotent)]
pub async fn provision(
    /// Name of the database.
    name: String,
    #[resolve(elicit = "Which region should {name} live in?")] region: String,
) -> String {
    format!("Provisioned '{name}' in {region}.")
}

/// Greet someone.
#[tool(read_only)]
pub async fn greet(
    /// Who to greet.
    name: String,
    /// How many times.
    times: u32,
) -> String {
    format!("Hello, {name}! ").repeat(times.clamp(1, 10) as usize)
}

/// The server.
pub fn server() -> Server {
    Server::new("build-size", "0.0.0").tools(tools![provision, greet])
}
