//! Client and server capabilities.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::JsonObject;

/// What a client can do. Unknown fields are kept.
///
/// (`Deserialize` is written out: every 2026-07-28 request carries these, and a derived
/// `#[serde(flatten)]` reads the whole object into a buffer of serde's own first.)
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// Elicitation support (`{}` means form mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Sampling support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// Roots support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<JsonObject>,
    /// Experimental capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Extensions (2026).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
    /// Anything else the client declared.
    #[serde(flatten)]
    pub other: JsonObject,
}

impl<'de> Deserialize<'de> for ClientCapabilities {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = ClientCapabilities;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of client capabilities")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<ClientCapabilities, A::Error> {
                let (mut elicitation, mut sampling, mut roots, mut experimental, mut extensions) =
                    (None, None, None, None, None);
                let mut other = JsonObject::new();
                while let Some(super::Text(key)) = map.next_key()? {
                    match &*key {
                        "elicitation" => super::fill_once(&mut map, &mut elicitation, "elicitation")?,
                        "sampling" => super::fill_once(&mut map, &mut sampling, "sampling")?,
                        "roots" => super::fill_once(&mut map, &mut roots, "roots")?,
                        "experimental" => super::fill_once(&mut map, &mut experimental, "experimental")?,
                        "extensions" => super::fill_once(&mut map, &mut extensions, "extensions")?,
                        _ => {
                            other.insert(key.into_owned(), map.next_value()?);
                        }
                    }
                }
                Ok(ClientCapabilities {
                    elicitation: elicitation.flatten(),
                    sampling: sampling.flatten(),
                    roots: roots.flatten(),
                    experimental: experimental.flatten(),
                    extensions: extensions.flatten(),
                    other,
                })
            }
        }
        d.deserialize_map(Members)
    }
}

/// The client's elicitation modes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitationCapability {
    /// Form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
}

/// The client's sampling features.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingCapability {
    /// `includeContext` other than `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// Tool use in sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
}

impl ClientCapabilities {
    /// Whether the client declared the extension `id` (e.g. the tasks extension).
    pub fn has_extension(&self, id: &str) -> bool {
        self.extensions.as_ref().is_some_and(|e| e.contains_key(id))
    }

    /// Form elicitation: a bare `elicitation: {}` counts.
    pub fn elicitation_form(&self) -> bool {
        self.elicitation.as_ref().is_some_and(|e| e.form.is_some() || e.url.is_none())
    }

    /// URL-mode elicitation.
    pub fn elicitation_url(&self) -> bool {
        self.elicitation.as_ref().is_some_and(|e| e.url.is_some())
    }

    /// Sampling.
    pub fn sampling(&self) -> bool {
        self.sampling.is_some()
    }

    /// Sampling with tools.
    pub fn sampling_tools(&self) -> bool {
        self.sampling.as_ref().is_some_and(|s| s.tools.is_some())
    }

    /// Roots.
    pub fn roots(&self) -> bool {
        self.roots.is_some()
    }
}

/// What this server offers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// Tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListChangedCapability>,
    /// Prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// Resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Argument completion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// Logging (deprecated in 2026).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// Experimental capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Extensions (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
}

/// `{listChanged?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListChangedCapability {
    /// Whether list-changed notifications are sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// `{subscribe?, listChanged?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourcesCapability {
    /// Whether resource subscriptions are supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// Whether list-changed notifications are sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// An empty JSON object, as capabilities spell "supported".
pub fn empty_object() -> JsonObject {
    JsonObject::new()
}

/// `{"<name>": {}}`, the `requiredCapabilities` of a `-32021`.
pub fn capability_value(name: &str) -> Value {
    let mut m = JsonObject::new();
    m.insert(name.to_owned(), Value::Object(JsonObject::new()));
    Value::Object(m)
}

setters!(ClientCapabilities {
    with_elicitation => elicitation: ElicitationCapability,
    with_sampling => sampling: SamplingCapability,
    with_roots => roots: JsonObject,
    with_experimental => experimental: JsonObject,
    with_extensions => extensions: JsonObject,
});

setters!(ElicitationCapability { with_form => form: JsonObject, with_url => url: JsonObject });

setters!(SamplingCapability { with_context => context: JsonObject, with_tools => tools: JsonObject });

setters!(ServerCapabilities {
    with_tools => tools: ListChangedCapability,
    with_prompts => prompts: ListChangedCapability,
    with_resources => resources: ResourcesCapability,
    with_completions => completions: JsonObject,
    with_logging => logging: JsonObject,
    with_experimental => experimental: JsonObject,
    with_extensions => extensions: JsonObject,
});

setters!(ListChangedCapability { with_list_changed => list_changed: bool });

setters!(ResourcesCapability { with_subscribe => subscribe: bool, with_list_changed => list_changed: bool });

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn client_capabilities_read_known_members_typed_and_keep_the_rest() {
        let caps: ClientCapabilities = serde_json::from_value(json!({
            "elicitation": {"form": {}},
            "sampling": null,
            "roots": {"listChanged": true},
            "extensions": {"io.modelcontextprotocol/tasks": {}},
            "vendor": {"x": 1},
        }))
        .unwrap();
        assert!(caps.elicitation_form() && !caps.elicitation_url());
        assert!(!caps.sampling(), "null is none");
        assert!(caps.roots() && caps.has_extension("io.modelcontextprotocol/tasks"));
        assert_eq!(caps.other, json!({"vendor": {"x": 1}}).as_object().cloned().unwrap());
        // What is written reads back the same.
        let again: ClientCapabilities = serde_json::from_value(serde_json::to_value(&caps).unwrap()).unwrap();
        assert_eq!(again, caps);
        // From text, with borrowed keys, the same.
        let text = serde_json::to_string(&caps).unwrap();
        assert_eq!(serde_json::from_str::<ClientCapabilities>(&text).unwrap(), caps);
    }

    #[test]
    fn client_capabilities_refuse_what_is_not_an_object_or_is_said_twice() {
        assert!(serde_json::from_str::<ClientCapabilities>(r#"{"roots":{},"roots":{}}"#).is_err());
        assert!(serde_json::from_str::<ClientCapabilities>(r#"{"elicitation":1}"#).is_err());
        assert!(serde_json::from_str::<ClientCapabilities>(r#"[]"#).is_err());
        assert_eq!(serde_json::from_str::<ClientCapabilities>("{}").unwrap(), ClientCapabilities::default());
    }
}
