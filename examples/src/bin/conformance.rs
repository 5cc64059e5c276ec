//! The conformance example server.
//!
//! ```text
//! conformance --stdio                # newline-delimited JSON-RPC on stdin/stdout
//! conformance --http 127.0.0.1:8080  # streamable HTTP at http://127.0.0.1:8080/mcp
//! ```

use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    roundtrip_examples::cli::serve("conformance", roundtrip_examples::conformance::server()).await
}
