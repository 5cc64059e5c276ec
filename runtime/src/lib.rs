#![doc = include_str!("lib.md")]
// A client built with no transport (`client` without `stdio`, `http` or `server`) compiles,
// but can connect to nothing: its connection code is unused.
#![cfg_attr(
    all(feature = "client", not(any(feature = "stdio", feature = "http", feature = "server"))),
    allow(dead_code, unused_imports)
)]

#[cfg(feature = "server")]
pub mod auth;
#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "server")]
mod clock;
#[cfg(feature = "server")]
mod declare;
#[cfg(feature = "server")]
pub mod describe;
#[cfg(feature = "server")]
mod error;
#[cfg(all(feature = "client", feature = "server", feature = "http"))]
#[doc(hidden)]
pub mod fuzzing;
#[cfg(feature = "server")]
mod observe;
#[cfg(feature = "otel")]
pub mod otel;
#[doc(inline)]
pub use roundtrip_wire as protocol;
#[cfg(feature = "server")]
mod request;
#[cfg(feature = "server")]
pub mod resolve;
#[cfg(feature = "server")]
pub mod seal;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "skills")]
pub mod skills;
#[cfg(feature = "server")]
pub mod task;
#[cfg(all(feature = "client", feature = "server"))]
pub mod testing;
mod tls;
pub mod transport;

#[cfg(feature = "server")]
pub use seal::RequestStateSecurity;
#[cfg(feature = "server")]
pub use server::{CheckError, InputRequired, Outcome, PerCaller, RequestContext, Server, Toolset};

#[cfg(feature = "server")]
#[allow(deprecated)]
pub use declare::MissingState;
#[cfg(feature = "server")]
pub use declare::{
    Argument, Blob, CheckReturn, Choice, Elicit, FormField, FormSchema, Json, PromptFactory, PromptReturn, Resolve,
    ResourceFactory, ResourceReturn, RootsOutput, SampleOutput, State, StateNeed, TextArgument, ToolFactory,
    ToolReturn, UrlOutput, ViewFactory, WithReturn, WithValue,
};
#[cfg(feature = "server")]
pub use error::{Error, ErrorKind, IntoError};
#[cfg(feature = "server")]
pub use resolve::{Answer, Consent};
#[cfg(feature = "server")]
pub use roundtrip_macros::{
    Elicit, prompt, prompts, resource, resource_template, resources, tool, tools, toolset, view,
};

/// serde's and schemars' traits (and their own derives, which the prelude's shadow).
#[cfg(feature = "server")]
mod serde_names {
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}

#[cfg(feature = "server")]
/// The names a server author needs.
///
/// Its `Deserialize`, `Serialize` and `JsonSchema` are the traits of serde and schemars 1.x
/// and derives that reach those crates through roundtrip: an application needs neither in its
/// `Cargo.toml`.
pub mod prelude {
    pub use crate::serde_names::*;
    pub use roundtrip_macros::{Deserialize, JsonSchema, Serialize};

    pub use crate::protocol::{CallToolResult, Content, CreateMessageParams, CreateMessageResult, LoggingLevel, Root};
    pub use crate::protocol::{GetPromptResult, PromptMessage, ReadResourceResult, ResourceContents};
    pub use crate::resolve::Question;
    pub use crate::server::{InputRequired, Outcome, RequestContext};
    pub use crate::task::TaskContext;
    pub use crate::{
        Answer, Blob, Consent, Elicit, Error, Json, Resolve, Server, State, prompt, prompts, resource,
        resource_template, resources, tool, tools, toolset, view,
    };
}

#[cfg(feature = "server")]
/// What generated code calls. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use schemars;
    pub use serde;
    pub use serde_json;

    pub use crate::declare::*;
    pub use crate::error::Error;
    pub use crate::protocol::JsonObject;
    pub use crate::resolve::{Check, Graph, Node, Part, Resolver, SampleOptions, Template, Values};
    pub use futures::future::BoxFuture;
    pub use std::boxed::Box;
}
