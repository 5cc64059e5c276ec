//! The conformance example server.
//!
//! ```text
//! conformance --stdio              # newline-delimited JSON-RPC on stdin/stdout
//! conformance --http 127.0.0.1:8080  # streamable HTTP at http://127.0.0.1:8080/mcp
//! ```
//!
//! Logs go to stderr (stdout is the stdio transport); set `RUST_LOG` to change the level.

use std::process::ExitCode;

use tracing_subscriber::EnvFilter;

const USAGE: &str = "usage: conformance --stdio | --http ADDR";

enum Mode {
    Stdio,
    Http(String),
}

fn parse_args() -> Result<Mode, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag] if flag == "--stdio" => Ok(Mode::Stdio),
        [flag, addr] if flag == "--http" => Ok(Mode::Http(addr.clone())),
        _ => Err(USAGE.to_owned()),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")))
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let mode = match parse_args() {
        Ok(mode) => mode,
        Err(usage) => {
            eprintln!("{usage}");
            return ExitCode::from(2);
        }
    };
    let server = match roundtrip_examples::conformance::server() {
        Ok(server) => server,
        Err(e) => {
            tracing::error!("could not build the server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let served = match mode {
        Mode::Stdio => server.serve_stdio().await,
        Mode::Http(addr) => serve_http(server, &addr).await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("server stopped: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_http(server: roundtrip::Server, addr: &str) -> std::io::Result<()> {
    let bound = server.bind_http(addr).await?;
    tracing::info!("serving MCP at {}", bound.url());
    bound.run().await
}
