//! Wire types of the Model Context Protocol: the 2026-07-28 revision and the legacy eras
//! (2025-11-25, 2025-06-18, 2025-03-26).
//!
//! Results are era-neutral structs; the fields only one era carries (`resultType`, `ttlMs`,
//! `cacheScope`) are optional and filled in by the server for the era it answers.

mod apps;
mod capabilities;
mod completion;
mod content;
mod elicitation;
mod jsonrpc;
mod lifecycle;
mod meta;
mod mrtr;
mod prompts;
mod resources;
mod roots;
mod sampling;
mod skills;
mod tasks;
mod tools;
mod version;

pub use apps::*;
pub use capabilities::*;
pub use completion::*;
pub use content::*;
pub use elicitation::*;
pub use jsonrpc::*;
pub use lifecycle::*;
pub use meta::*;
pub use mrtr::*;
pub use prompts::*;
pub use resources::*;
pub use roots::*;
pub use sampling::*;
pub use skills::*;
pub use tasks::*;
pub use tools::*;
pub use version::*;

/// A JSON object (`serde_json::Map<String, Value>`).
pub type JsonObject = serde_json::Map<String, serde_json::Value>;
