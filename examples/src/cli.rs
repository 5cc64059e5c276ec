//! The command line every example server shares: `--stdio`, `--http ADDR`, or
//! `--describe json|markdown` (print the server's tools and their questions, then exit).

use std::process::ExitCode;

use roundtrip::Server;
use tracing_subscriber::EnvFilter;

enum Mode {
    Stdio,
    Http(String),
}

/// Serve `server` as the command line says; logs go to stderr (stdout is the stdio
/// transport), `RUST_LOG` sets the level.
pub async fn serve(name: &str, server: Server) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, format] = args.as_slice()
        && flag == "--describe"
    {
        let doc = server.describe();
        match format.as_str() {
            "json" => println!("{}", serde_json::to_string_pretty(doc.to_json()).unwrap_or_default()),
            "markdown" => print!("{}", doc.to_markdown()),
            _ => {
                eprintln!("usage: {name} --describe json|markdown");
                return ExitCode::from(2);
            }
        }
        return ExitCode::SUCCESS;
    }
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")))
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let mode = match args.as_slice() {
        [flag] if flag == "--stdio" => Mode::Stdio,
        [flag, addr] if flag == "--http" => Mode::Http(addr.clone()),
        _ => {
            eprintln!("usage: {name} --stdio | --http ADDR | --describe json|markdown");
            return ExitCode::from(2);
        }
    };
    let served = match mode {
        Mode::Stdio => server.serve_stdio().await,
        Mode::Http(addr) => match server.bind_http(&addr).await {
            Ok(bound) => {
                tracing::info!("serving MCP at {}", bound.url());
                bound.run().await
            }
            Err(e) => Err(e),
        },
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("server stopped: {e}");
            ExitCode::FAILURE
        }
    }
}
