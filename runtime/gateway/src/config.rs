//! A gateway described in a file, for the `roundtrip-gateway` program (or [`Config::build`]
//! in an application of one's own).
//!
//! ```toml
//! name = "gateway"            # the gateway's own name and version, as callers see them
//! version = "1.0.0"
//!
//! [[upstream]]
//! namespace = "provision"     # its tools and prompts are served as provision_{name}
//!                             # ("" keeps their names: a gateway in front of one server)
//! command = ["target/debug/provision", "--stdio"]
//! env = { RUST_LOG = "warn" }
//!
//! [[upstream]]
//! namespace = "crm"
//! url = "https://crm.example.com/mcp"
//! era = "auto"                # or "2026-07-28", or "legacy" (the 2025 handshake)
//! authorization = "Bearer ${CRM_TOKEN}"   # ${NAME}: from the environment
//! forward_authorization = false           # true: each caller's own Authorization header
//! hold = { max_held = 256, max_held_per_caller = 8, idle_seconds = 600 }
//! ```
//!
//! ```
//! use roundtrip_gateway::config::Config;
//!
//! let config = Config::from_toml(r#"
//!     name = "gateway"
//!     [[upstream]]
//!     namespace = "docs"
//!     url = "http://127.0.0.1:8001/mcp"
//! "#)?;
//! assert_eq!(config.upstreams().len(), 1);
//! # Ok::<(), roundtrip_gateway::GatewayError>(())
//! ```

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use roundtrip_client::Mode;
use roundtrip_core::server::Server;
use roundtrip_wire::ProtocolVersion;
use serde::Deserialize;

use crate::error::GatewayError;
use crate::proxy::Proxy;
use crate::upstream::{HoldLimits, Upstream};

/// A gateway's configuration: its name and its upstreams.
#[derive(Debug, Clone)]
pub struct Config {
    file: File,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default = "default_name")]
    name: String,
    #[serde(default = "default_version")]
    version: String,
    #[serde(default)]
    instructions: Option<String>,
    #[serde(default)]
    upstream: Vec<UpstreamEntry>,
}

fn default_name() -> String {
    "roundtrip-gateway".into()
}

fn default_version() -> String {
    env!("CARGO_PKG_VERSION").into()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct UpstreamEntry {
    namespace: String,
    #[serde(default)]
    command: Option<Vec<String>>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    era: Option<String>,
    #[serde(default)]
    authorization: Option<String>,
    #[serde(default)]
    forward_authorization: bool,
    #[serde(default)]
    hold: Option<HoldEntry>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct HoldEntry {
    max_held: Option<usize>,
    max_held_per_caller: Option<usize>,
    idle_seconds: Option<u64>,
    spare_connections: Option<usize>,
}

impl Config {
    /// Read the file at `path`.
    pub fn read(path: impl AsRef<Path>) -> Result<Self, GatewayError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| GatewayError::Config(format!("could not read {}: {e}", path.display())))?;
        Self::from_toml(&text).map_err(|e| GatewayError::Config(format!("{}: {e}", path.display())))
    }

    /// Parse a configuration, and check each upstream's entry (one of `command` and `url`, a
    /// known era, the variables its `${NAME}`s name set).
    pub fn from_toml(text: &str) -> Result<Self, GatewayError> {
        let file: File = toml::from_str(text).map_err(|e| GatewayError::Config(e.to_string()))?;
        for entry in &file.upstream {
            entry.upstream()?;
        }
        Ok(Self { file })
    }

    /// The upstreams, by namespace, in the file's order.
    pub fn upstreams(&self) -> Vec<(String, Upstream)> {
        // Each entry was checked when the file was read.
        self.file.upstream.iter().filter_map(|e| e.upstream().ok().map(|u| (e.namespace.clone(), u))).collect()
    }

    /// Connect to every upstream and mount each under its namespace in a server of the
    /// configured name; the first that fails stops it, named.
    pub async fn build(self) -> Result<Server, GatewayError> {
        let mut server = Server::new(&self.file.name, &self.file.version);
        if let Some(instructions) = &self.file.instructions {
            server = server.instructions(instructions);
        }
        for (namespace, upstream) in self.upstreams() {
            let named = |e: GatewayError| GatewayError::Config(format!("upstream `{namespace}`: {e}"));
            let proxy = Proxy::connect(upstream).await.map_err(named)?;
            server = proxy.mount(server, &namespace).map_err(named)?;
        }
        Ok(server)
    }
}

impl UpstreamEntry {
    fn upstream(&self) -> Result<Upstream, GatewayError> {
        let bad = |why: String| GatewayError::Config(format!("upstream `{}`: {why}", self.namespace));
        let mut upstream = match (&self.command, &self.url) {
            (Some(command), None) => {
                let Some((program, args)) = command.split_first() else {
                    return Err(bad("`command` is empty".into()));
                };
                let mut upstream = Upstream::stdio(program, args);
                for (name, value) in &self.env {
                    upstream = upstream.env(name, expand(value).map_err(bad)?);
                }
                upstream
            }
            (None, Some(url)) => Upstream::http(expand(url).map_err(bad)?),
            _ => return Err(bad("give one of `command` (a program to start) and `url`".into())),
        };
        upstream = upstream.mode(match self.era.as_deref() {
            None | Some("auto") => Mode::Auto,
            Some("legacy") => Mode::Legacy,
            Some(version) => match serde_json::from_value::<ProtocolVersion>(serde_json::json!(version)) {
                Ok(v) => Mode::Pinned(v),
                Err(_) => return Err(bad(format!("unknown era `{version}` (auto, legacy, or a revision's date)"))),
            },
        });
        if let Some(authorization) = &self.authorization {
            upstream = upstream.authorization(expand(authorization).map_err(bad)?);
        }
        if self.forward_authorization {
            upstream = upstream.forward_authorization();
        }
        if let Some(hold) = &self.hold {
            let mut limits = HoldLimits::default();
            limits.max_held = hold.max_held.unwrap_or(limits.max_held);
            limits.max_held_per_caller = hold.max_held_per_caller.unwrap_or(limits.max_held_per_caller);
            limits.idle = hold.idle_seconds.map_or(limits.idle, Duration::from_secs);
            limits.spare_connections = hold.spare_connections.unwrap_or(limits.spare_connections);
            upstream = upstream.hold_limits(limits);
        }
        Ok(upstream)
    }
}

/// `text` with each `${NAME}` replaced by that environment variable (unset: an error).
fn expand(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(len) = rest[start + 2..].find('}') else {
            return Err(format!("`{text}` opens a `${{` it does not close"));
        };
        let name = &rest[start + 2..start + 2 + len];
        let value = std::env::var(name).map_err(|_| format!("the environment variable `{name}` is not set"))?;
        out.push_str(&value);
        rest = &rest[start + 3 + len..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_names_each_mistake() {
        let err = |text: &str| Config::from_toml(text).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err("[[upstream]]\nnamespace = \"a\"\n").contains("give one of `command`"));
        assert!(err("[[upstream]]\nnamespace = \"a\"\ncommand = []\n").contains("`command` is empty"));
        assert!(err("[[upstream]]\nnamespace = \"a\"\nurl = \"x\"\nera = \"2019\"\n").contains("unknown era `2019`"));
        assert!(err("[[upstream]]\nnamespace = \"a\"\nurl = \"${ROUNDTRIP_GATEWAY_UNSET}\"\n").contains("not set"));
        assert!(err("[[upstream]]\nnamespace = \"a\"\nurl = \"x\"\nspeed = 1\n").contains("unknown field `speed`"));
        let ok = Config::from_toml("[[upstream]]\nnamespace = \"a\"\nurl = \"x\"\nera = \"2026-07-28\"\n");
        assert!(ok.is_ok_and(|c| c.upstreams().len() == 1));
    }

    #[test]
    fn variables_are_expanded() {
        // PATH is set wherever the tests run.
        let path = std::env::var("PATH").unwrap_or_default();
        assert_eq!(expand("a${PATH}b"), Ok(format!("a{path}b")));
        assert_eq!(expand("plain"), Ok("plain".into()));
        assert!(expand("${OPEN").is_err());
    }
}
