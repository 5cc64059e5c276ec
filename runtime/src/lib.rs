#![doc = include_str!("lib.md")]

#[cfg(feature = "auth")]
#[doc(inline)]
pub use roundtrip_auth as auth;
/// Who called: the [`AuthPrincipal`](auth::AuthPrincipal) a handler sees. The resource server
/// that verifies bearer tokens needs the cargo feature `auth`.
#[cfg(all(feature = "server", not(feature = "auth")))]
pub mod auth {
    pub use roundtrip_core::request::AuthPrincipal;
}
#[cfg(feature = "cli")]
#[doc(inline)]
pub use roundtrip_cli as cli;
#[cfg(feature = "client")]
#[doc(inline)]
pub use roundtrip_client as client;
#[cfg(all(feature = "client", feature = "server", feature = "http"))]
#[doc(hidden)]
pub mod fuzzing;
pub mod guide;
#[cfg(feature = "otel")]
#[doc(inline)]
pub use roundtrip_otel as otel;
#[cfg(feature = "redis")]
#[doc(inline)]
pub use roundtrip_redis as redis;
#[doc(inline)]
pub use roundtrip_wire as protocol;
#[cfg(all(feature = "client", feature = "server"))]
pub mod testing;
#[cfg(feature = "server")]
#[doc(inline)]
pub use roundtrip_transport as transport;

// The serving core (roundtrip-core): its public modules are roundtrip's.
#[cfg(feature = "include_dir")]
pub use roundtrip_core::include_skills;
#[cfg(feature = "skills")]
#[doc(inline)]
pub use roundtrip_core::skills;
#[cfg(feature = "server")]
#[doc(inline)]
pub use roundtrip_core::{describe, resolve, seal, server, task};

#[cfg(feature = "server")]
pub use seal::RequestStateSecurity;
#[cfg(feature = "server")]
pub use server::{CheckError, InputRequired, Outcome, PerCaller, RequestContext, Server, Toolset};

#[cfg(feature = "server")]
pub use resolve::{Answer, Consent};
// What an application names. The traits generated code implements and calls follow, hidden;
// the macros reach them through `__private`.
#[cfg(feature = "server")]
pub use roundtrip_core::declare::{Blob, Elicit, Json, PromptReturn, Resolve, ResourceReturn, State, ToolReturn};
// Named at the root, hidden, so the compiler's messages call them by their short names.
#[cfg(feature = "server")]
#[doc(hidden)]
pub use roundtrip_core::declare::{
    Argument, CheckReturn, Choice, FormField, FormSchema, PromptFactory, ResourceFactory, RootsOutput, SampleOutput,
    StateNeed, TextArgument, ToolFactory, UrlOutput, ViewFactory, WithReturn, WithValue,
};
#[cfg(feature = "server")]
pub use roundtrip_core::error::{Error, ErrorKind};
// What a check or a `with` fn may fail with: any `Display` or an `Error` (the generated code's
// bound; hidden with the traits above, named here for the compiler's messages).
#[cfg(feature = "server")]
#[doc(hidden)]
pub use roundtrip_core::error::IntoError;
#[cfg(feature = "server")]
#[doc(hidden)]
pub use roundtrip_core::server::IntoDef;
#[cfg(feature = "server")]
pub use roundtrip_macros::{
    Elicit, prompt, prompts, resource, resource_template, resources, tool, tools, toolset, view,
};
#[cfg(feature = "server")]
pub use transport::ServeStream;
#[cfg(all(feature = "server", feature = "http"))]
pub use transport::http::ServeHttp;

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
    pub use crate::transport::ServeStream;
    #[cfg(feature = "http")]
    pub use crate::transport::http::ServeHttp;
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

    pub use crate::protocol::JsonObject;
    pub use crate::resolve::{Check, Fallback, Graph, Node, Part, Resolver, SampleOptions, Template, Values};
    pub use futures::future::BoxFuture;
    pub use roundtrip_core::declare::*;
    pub use roundtrip_core::error::Error;
    pub use std::boxed::Box;
}
