//! The same server as `stdio-server`, served over streamable HTTP (`build-http ADDR`, default
//! `127.0.0.1:8080`): built by `scripts/bench-build.sh` for its clean build time and binary size.

#[path = "../../tools.rs"]
mod tools;

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:8080".to_owned());
    tools::server().serve_http(addr).await
}
