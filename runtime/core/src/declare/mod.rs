//! The glue between the macros and the runtime: what a `#[tool]` expands to calls these.
//! Users see [`Json`], [`ToolFactory`] and the parameter traits; the rest is reached through
//! `roundtrip::__private`.

mod arguments;
mod checks;
mod declared;
mod factories;
mod params;
mod prompt;
mod resource;
mod returns;
mod roles;
mod state;
mod tool;
mod with;

pub use crate::server::StateNeed;
pub use params::{
    Argument, Choice, Elicit, FormField, FormSchema, RootsOutput, SampleOutput, TextArgument, UrlOutput, check,
    elicit_schema, fallback_value, form_defaults, schema_of,
};
pub use returns::{Blob, Json, PromptReturn, PromptReturns, ResourceReturn, ResourceReturns, Returns, ToolReturn};
pub use state::State;

pub use arguments::*;
pub use checks::*;
pub use declared::graph;
pub use factories::*;
pub use prompt::*;
pub use resource::*;
pub use roles::*;
pub use tool::*;
pub use with::*;
