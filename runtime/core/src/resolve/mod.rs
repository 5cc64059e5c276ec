//! The resolver engine behind declarative tools, prompts and resource templates.
//!
//! A resolved parameter is answered by a question (elicitation, URL, sampling, roots) or by a
//! function of other parameters. Each leg, [`evaluate`] computes what is known from the
//! arguments and the answers recorded in the sealed state, records the answers of this
//! retry (each pinned to a digest of the question as it was shown), and asks every question
//! whose inputs are known, all in one round. A flow takes as many legs as its graph is deep,
//! plus one.

mod answer;
mod by_name;
mod engine;
mod form;
mod graph;
mod question;
mod template;

pub use answer::{Answer, Consent};
pub use question::Question;

// The engine itself: what generated code builds and the engine's own tests drive. Not a public
// API.
#[doc(hidden)]
pub use engine::{Leg, Resolved, Values, ask_again, evaluate, interpret, requested_schema};
#[doc(hidden)]
pub use form::{form_schema, schema_of, single_property_form, validate};
#[doc(hidden)]
pub use graph::{Check, CheckFn, Fallback, Graph, GuardFn, Node, Resolution, Resolver, WithFn};
#[doc(hidden)]
pub use question::{Extract, SampleOptions};
#[doc(hidden)]
pub use template::{Part, Template, display};
