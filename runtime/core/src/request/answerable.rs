//! What a client can answer: the questions its declared capabilities cover.

use serde_json::{Value, json};

use crate::protocol::{ClientCapabilities, ElicitParams, ErrorObject, InputRequest, capability_value};

/// The kinds of question a client declared it answers, read once from its capabilities.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Answerable {
    elicitation_form: bool,
    elicitation_url: bool,
    sampling: bool,
    sampling_tools: bool,
    roots: bool,
}

/// A capability a question needs and the client did not declare.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lack {
    /// Its name, as an error and a refusal say it (`elicitation (url mode)`).
    pub(crate) name: &'static str,
    /// The capabilities object that would declare it, built only when an error says so.
    required: fn() -> Value,
}

impl Lack {
    /// `-32021`, naming the capability and the object that declares it.
    pub(crate) fn error(&self) -> ErrorObject {
        ErrorObject::missing_capability(self.name, (self.required)())
    }
}

impl Answerable {
    pub(crate) fn of(caps: &ClientCapabilities) -> Self {
        Self {
            elicitation_form: caps.elicitation_form(),
            elicitation_url: caps.elicitation_url(),
            sampling: caps.sampling(),
            sampling_tools: caps.sampling_tools(),
            roots: caps.roots(),
        }
    }

    /// What `request` needs that the client lacks, if anything.
    pub(crate) fn lacks(&self, request: &InputRequest) -> Option<Lack> {
        let (ok, lack) = match request {
            InputRequest::Elicit(ElicitParams::Form(_)) => {
                (self.elicitation_form, Lack { name: "elicitation", required: || json!({"elicitation": {}}) })
            }
            InputRequest::Elicit(ElicitParams::Url(_)) => (
                self.elicitation_url,
                Lack { name: "elicitation (url mode)", required: || json!({"elicitation": {"url": {}}}) },
            ),
            InputRequest::CreateMessage(p) if p.tools.is_some() || p.tool_choice.is_some() => (
                self.sampling_tools,
                Lack { name: "sampling (with tools)", required: || json!({"sampling": {"tools": {}}}) },
            ),
            InputRequest::CreateMessage(_) => {
                (self.sampling, Lack { name: "sampling", required: || capability_value("sampling") })
            }
            InputRequest::ListRoots(_) => (self.roots, Lack { name: "roots", required: || capability_value("roots") }),
            // A kind of question this server does not know a capability for: no client declares it.
            _ => (false, Lack { name: "an unknown kind of question", required: || json!({}) }),
        };
        (!ok).then_some(lack)
    }
}
