//! The provisioning example: tools that ask, declared with `#[tool]` and `#[resolve]`.
//!
//! ```text
//! provision --stdio                # newline-delimited JSON-RPC on stdin/stdout
//! provision --http 127.0.0.1:8080  # streamable HTTP at http://127.0.0.1:8080/mcp
//! ```

use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    roundtrip_examples::cli::serve("provision", roundtrip_examples::provision::server()).await
}
