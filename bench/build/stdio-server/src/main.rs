//! A stdio-only roundtrip server (two tools, one asking a question): built by
//! `scripts/bench-build.sh` for its clean build time and binary size.

#[path = "../../tools.rs"]
mod tools;

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    tools::server().serve_stdio().await
}
