//! The conformance example server.
//!
//! ```text
//! conformance --stdio                # newline-delimited JSON-RPC on stdin/stdout
//! conformance --http 127.0.0.1:8080  # streamable HTTP at http://127.0.0.1:8080/mcp
//! ```

fn main() -> std::process::ExitCode {
    roundtrip::cli::run(roundtrip_examples::conformance::server())
}
