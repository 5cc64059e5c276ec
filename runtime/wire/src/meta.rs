//! The per-request `_meta` envelope of 2026-07-28 and the reserved `_meta` keys.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::jsonrpc::present;
use super::{ClientCapabilities, ErrorObject, Implementation, JsonObject, LoggingLevel, ProtocolVersion};

/// `_meta` key: the revision a 2026 request speaks (required).
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the capabilities of the client for this request (required).
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the client's self-description (should).
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key: the minimum log level for this request's `notifications/message`.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key on results: the server's self-description.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key on notifications of a `subscriptions/listen` stream.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// `_meta` key: the progress token a request opts in with.
pub const META_PROGRESS_TOKEN: &str = "progressToken";

/// A progress token: a string or a number.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ProgressToken {
    /// An integer token.
    Number(i64),
    /// A string token.
    String(String),
}

/// The parsed `_meta` of one request.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RequestMeta {
    /// The revision claimed in `_meta`, when it names a known one.
    pub protocol_version: Option<ProtocolVersion>,
    /// The client capabilities of this request.
    pub client_capabilities: ClientCapabilities,
    /// The client's self-description.
    pub client_info: Option<Implementation>,
    /// The progress token, when the request opted in.
    pub progress_token: Option<ProgressToken>,
    /// The log level, when the request opted in to log notifications.
    pub log_level: Option<LoggingLevel>,
}

impl RequestMeta {
    /// The raw `_meta` object of some params, if there is one.
    pub fn raw(params: Option<&Value>) -> Option<&JsonObject> {
        params?.get("_meta")?.as_object()
    }

    /// Whether a request claims a revision in `_meta`: `typed` is its `_meta` when the
    /// transport read it typed (see `Message::read`; only a 2026-07-28 `_meta` is), else the
    /// version key is looked for in `params`.
    #[doc(hidden)]
    pub fn claims_version(params: Option<&Value>, typed: Option<&Self>) -> bool {
        typed.is_some() || Self::raw(params).is_some_and(|m| m.contains_key(META_PROTOCOL_VERSION))
    }

    /// The protocol version string a request claims in `_meta`, if any.
    pub fn claimed_version(params: Option<&Value>) -> Option<&str> {
        Self::raw(params)?.get(META_PROTOCOL_VERSION)?.as_str()
    }

    /// Parse and check the `_meta` of a 2026-era request: version and capabilities are
    /// required; the version must be one this crate serves per request.
    pub fn parse_modern(params: Option<&Value>) -> Result<Self, ErrorObject> {
        let meta = Self::raw(params).ok_or_else(|| ErrorObject::invalid_params("Missing required params._meta"))?;
        let version = match meta.get(META_PROTOCOL_VERSION) {
            Some(Value::String(v)) => v.as_str(),
            Some(_) => {
                return Err(ErrorObject::invalid_params(format!(
                    "_meta[\"{META_PROTOCOL_VERSION}\"] must be a string"
                )));
            }
            None => {
                return Err(ErrorObject::invalid_params(format!(
                    "Missing required _meta[\"{META_PROTOCOL_VERSION}\"]"
                )));
            }
        };
        let protocol_version = match ProtocolVersion::parse(version) {
            Some(v) if v.is_modern() => v,
            _ => return Err(unsupported_version(version)),
        };
        let client_capabilities = match meta.get(META_CLIENT_CAPABILITIES) {
            Some(v @ Value::Object(_)) => ClientCapabilities::deserialize(v).map_err(|e| {
                ErrorObject::invalid_params(format!("_meta[\"{META_CLIENT_CAPABILITIES}\"] is malformed: {e}"))
            })?,
            Some(_) => {
                return Err(ErrorObject::invalid_params(format!(
                    "_meta[\"{META_CLIENT_CAPABILITIES}\"] must be an object"
                )));
            }
            None => {
                return Err(ErrorObject::invalid_params(format!(
                    "Missing required _meta[\"{META_CLIENT_CAPABILITIES}\"]"
                )));
            }
        };
        let client_info = meta.get(META_CLIENT_INFO).and_then(|v| Implementation::deserialize(v).ok());
        let log_level =
            match meta.get(META_LOG_LEVEL) {
                None => None,
                Some(v) => Some(LoggingLevel::deserialize(v).map_err(|_| {
                    ErrorObject::invalid_params(format!("_meta[\"{META_LOG_LEVEL}\"] is not a log level"))
                })?),
            };
        Ok(Self {
            protocol_version: Some(protocol_version),
            client_capabilities,
            client_info,
            progress_token: progress_token(meta),
            log_level,
        })
    }

    /// A 2026-07-28 `_meta` read straight from its text, when it is one [`parse_modern`]
    /// would accept with only the keys the server reads, each well-formed; `None` for
    /// anything else (a missing or unsupported version, a malformed value, another key such
    /// as trace context), which then goes through [`parse_modern`] and gets its own answer.
    ///
    /// [`parse_modern`]: Self::parse_modern
    ///
    /// For speed, each thread remembers the last `_meta` it read (without a progress token,
    /// which changes from call to call): a client sends the same `_meta` with every call, and
    /// reading it again cost about a twentieth of a leg. The same text reads the same, so the
    /// copy kept is the answer.
    ///
    /// Shared (an `Arc`): the reading kept is handed out again without a copy.
    pub(crate) fn from_wire(text: &str) -> Option<std::sync::Arc<Self>> {
        thread_local! {
            static LAST: std::cell::RefCell<Option<(Box<str>, std::sync::Arc<RequestMeta>)>> = const { std::cell::RefCell::new(None) };
        }
        let seen =
            LAST.with_borrow(|last| last.as_ref().filter(|(seen, _)| **seen == *text).map(|(_, meta)| meta.clone()));
        if seen.is_some() {
            return seen;
        }
        let meta = std::sync::Arc::new(Self::read_wire(text)?);
        if meta.progress_token.is_none() {
            LAST.with_borrow_mut(|last| *last = Some((text.into(), meta.clone())));
        }
        Some(meta)
    }

    /// [`from_wire`](Self::from_wire), read.
    fn read_wire(text: &str) -> Option<Self> {
        let wire: Wire<'_> = serde_json::from_str(text).ok()?;
        let version = ProtocolVersion::parse(&wire.version).filter(|v| v.is_modern())?;
        Some(Self {
            protocol_version: Some(version),
            client_capabilities: wire.capabilities,
            client_info: wire.client_info,
            progress_token: wire.progress_token,
            log_level: wire.log_level,
        })
    }

    /// The parts of a legacy request's `_meta` that matter (only the progress token).
    pub fn parse_legacy(params: Option<&Value>) -> Self {
        Self { progress_token: Self::raw(params).and_then(progress_token), ..Self::default() }
    }
}

/// The `_meta` keys the server reads, typed. The names are the `META_*` constants (serde's
/// `rename` takes only literals; a test holds them equal).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire<'a> {
    #[serde(borrow, rename = "io.modelcontextprotocol/protocolVersion")]
    version: std::borrow::Cow<'a, str>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    capabilities: ClientCapabilities,
    // `null` and absent are both none, as `parse_modern` reads them.
    #[serde(default, rename = "io.modelcontextprotocol/clientInfo")]
    client_info: Option<Implementation>,
    // `null` is not a log level: only an absent one is none.
    #[serde(default, rename = "io.modelcontextprotocol/logLevel", deserialize_with = "present")]
    log_level: Option<LoggingLevel>,
    #[serde(default, rename = "progressToken")]
    progress_token: Option<ProgressToken>,
}

fn progress_token(meta: &JsonObject) -> Option<ProgressToken> {
    meta.get(META_PROGRESS_TOKEN).and_then(|v| ProgressToken::deserialize(v).ok())
}

/// `-32022` naming the modern versions this crate serves per request.
pub fn unsupported_version(requested: &str) -> ErrorObject {
    let supported: Vec<&'static str> = ProtocolVersion::MODERN.iter().map(|v| v.as_str()).collect();
    ErrorObject::unsupported_version(requested, &supported)
}

/// How long a client may cache a result, and for whom (2026-07-28, SEP-2549).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum CacheScope {
    /// Any client may share the cached result.
    Public,
    /// The result depends on the caller's authorization.
    Private,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What each path makes of one `_meta`: the typed one must agree with `parse_modern`
    /// whenever it takes the text.
    fn both(meta: &Value) -> (Option<String>, Result<String, String>) {
        let fast = RequestMeta::from_wire(&meta.to_string()).map(|m| format!("{m:?}"));
        let slow = RequestMeta::parse_modern(Some(&json!({ "_meta": meta })));
        (fast, slow.map(|m| format!("{m:?}")).map_err(|e| e.message))
    }

    #[test]
    fn a_meta_read_again_reads_as_it_did() {
        let a = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/clientInfo":{"name":"a","version":"1"}}"#;
        let b = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":7}"#;
        let first = format!("{:?}", RequestMeta::from_wire(a));
        for text in [a, b, a, b, b, a] {
            let again = format!("{:?}", RequestMeta::from_wire(text));
            assert_eq!(again, format!("{:?}", RequestMeta::read_wire(text)), "{text}");
        }
        assert_eq!(format!("{:?}", RequestMeta::from_wire(a)), first);
        assert!(RequestMeta::from_wire(b).is_some_and(|m| m.progress_token == Some(ProgressToken::Number(7))));
        assert!(RequestMeta::from_wire(&a.replace("2026-07-28", "2025-11-25")).is_none());
    }

    #[test]
    fn the_typed_meta_agrees_with_parse_modern_which_reads_everything_unusual() {
        let base = json!({
            META_PROTOCOL_VERSION: "2026-07-28",
            META_CLIENT_CAPABILITIES: {"elicitation": {"form": {}}, "x-other": [1]},
            META_CLIENT_INFO: {"name": "c", "version": "1"},
        });
        let with = |key: &str, value: Value| {
            let mut m = base.clone();
            m[key] = value;
            m
        };
        let without = |key: &str| {
            let mut m = base.clone();
            m.as_object_mut().map(|o| o.remove(key));
            m
        };
        let taken = [
            base.clone(),
            with(META_LOG_LEVEL, json!("debug")),
            with(META_PROGRESS_TOKEN, json!("p")),
            with(META_PROGRESS_TOKEN, json!(7)),
            with(META_PROGRESS_TOKEN, Value::Null),
            with(META_CLIENT_INFO, Value::Null),
            without(META_CLIENT_INFO),
        ];
        for meta in &taken {
            let (fast, slow) = both(meta);
            assert_eq!(fast.as_ref(), slow.as_ref().ok(), "{meta}");
            assert!(fast.is_some(), "the usual _meta is read typed: {meta}");
        }
        let left = [
            with(META_PROTOCOL_VERSION, json!("2025-11-25")),
            with(META_PROTOCOL_VERSION, json!("1999-01-01")),
            with(META_PROTOCOL_VERSION, json!(7)),
            without(META_PROTOCOL_VERSION),
            without(META_CLIENT_CAPABILITIES),
            with(META_CLIENT_CAPABILITIES, json!([])),
            with(META_CLIENT_CAPABILITIES, Value::Null),
            with(META_CLIENT_CAPABILITIES, json!({"elicitation": 3})),
            with(META_LOG_LEVEL, Value::Null),
            with(META_LOG_LEVEL, json!("loud")),
            with(META_CLIENT_INFO, json!({"name": "no version"})),
            with(META_PROGRESS_TOKEN, json!(1.5)),
            with("traceparent", json!("00-35f773378add94550314d89759dffb9d-8b40a16586fbb490-01")),
            json!([]),
            Value::Null,
        ];
        for meta in &left {
            let (fast, slow) = both(meta);
            assert_eq!(fast, None, "left to parse_modern: {meta} ({slow:?})");
        }
    }
}
