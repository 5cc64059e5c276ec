//! The provisioning example: tools that ask, declared with `#[tool]` and `#[resolve]`.
//!
//! ```text
//! provision --stdio                # newline-delimited JSON-RPC on stdin/stdout
//! provision --http 127.0.0.1:8080  # streamable HTTP at http://127.0.0.1:8080/mcp
//! ```

fn main() -> std::process::ExitCode {
    roundtrip::cli::run(roundtrip_examples::provision::server())
}
