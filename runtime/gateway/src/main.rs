//! `roundtrip-gateway`: the gateway a configuration file describes, served as every roundtrip
//! app is (`--stdio`, `--http ADDR`, `--describe markdown`, and the runner's other flags and
//! variables: see `--help`).
//!
//! ```text
//! ROUNDTRIP_GATEWAY_CONFIG=gateway.toml roundtrip-gateway --http 127.0.0.1:8080
//! ```
//!
//! The file (default `gateway.toml` in the working directory) is described in
//! [`roundtrip_gateway::config`].

use std::process::ExitCode;

use roundtrip_core::server::Server;
use roundtrip_gateway::config::Config;

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("roundtrip-gateway: could not start the Tokio runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        if std::env::args().any(|a| a == "--help" || a == "-h") {
            println!(
                "roundtrip-gateway serves the gateway its configuration file describes: the file named by\n\
                 ROUNDTRIP_GATEWAY_CONFIG, else gateway.toml (see the docs of roundtrip_gateway::config).\n"
            );
            return roundtrip_cli::serve(Server::new("roundtrip-gateway", env!("CARGO_PKG_VERSION"))).await;
        }
        let path = std::env::var("ROUNDTRIP_GATEWAY_CONFIG").unwrap_or_else(|_| "gateway.toml".into());
        let server = match Config::read(&path) {
            Ok(config) => config.build().await,
            Err(e) => Err(e),
        };
        match server {
            Ok(server) => roundtrip_cli::serve(server).await,
            Err(e) => {
                eprintln!("roundtrip-gateway: {e}");
                ExitCode::from(2)
            }
        }
    })
}
