#![doc = include_str!("lib.md")]

#[cfg(feature = "client")]
pub mod client;
mod declare;
pub mod describe;
mod error;
#[cfg(all(feature = "client", feature = "http"))]
#[doc(hidden)]
pub mod fuzzing;
pub mod protocol;
pub mod resolve;
pub mod seal;
pub mod server;
pub mod task;
#[cfg(feature = "client")]
pub mod testing;
pub mod transport;

pub use seal::RequestStateSecurity;
pub use server::{InputRequired, Outcome, RequestContext, Server, Toolset};

pub use declare::{
    Argument, Blob, CheckReturn, Choice, Elicit, FormField, Json, MissingState, PromptFactory, PromptReturn, Resolve,
    ResourceFactory, ResourceReturn, RootsOutput, SampleOutput, State, StateNeed, TextArgument, ToolFactory,
    ToolReturn, UrlOutput, WithReturn, WithValue,
};
pub use error::{Error, ErrorKind, IntoError};
pub use resolve::{Answer, Consent};
pub use roundtrip_macros::{Elicit, prompt, prompts, resource, resource_template, resources, tool, tools, toolset};

/// The names a server author needs.
pub mod prelude {
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};

    pub use crate::protocol::{CallToolResult, Content, CreateMessageParams, CreateMessageResult, LoggingLevel, Root};
    pub use crate::protocol::{GetPromptResult, PromptMessage, ReadResourceResult, ResourceContents};
    pub use crate::resolve::Question;
    pub use crate::server::{InputRequired, Outcome, RequestContext};
    pub use crate::task::TaskContext;
    pub use crate::{
        Answer, Blob, Consent, Elicit, Error, Json, Resolve, Server, State, prompt, prompts, resource,
        resource_template, resources, tool, tools, toolset,
    };
}

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
