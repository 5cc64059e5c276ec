//! The operations bot: tools, a prompt and a resource template whose declarations reach the
//! application's state.
//!
//! ```text
//! ops --stdio                # newline-delimited JSON-RPC on stdin/stdout
//! ops --http 127.0.0.1:8080  # streamable HTTP at http://127.0.0.1:8080/mcp
//! ops --describe markdown    # the tools, prompts and resources with their questions
//! ```

fn main() -> std::process::ExitCode {
    roundtrip::cli::run(roundtrip_examples::ops::server())
}
