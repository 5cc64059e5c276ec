//! Wire types of the Model Context Protocol: the 2026-07-28 revision and the legacy eras
//! (2025-11-25, 2025-06-18, 2025-03-26).
//!
//! Results are era-neutral structs; the fields only one era carries (`resultType`, `ttlMs`,
//! `cacheScope`) are optional and filled in by the server for the era it answers.

#[macro_use]
mod setters;

mod answers;
mod apps;
mod authorization;
mod capabilities;
mod completion;
mod content;
mod elicitation;
mod jsonrpc;
mod lifecycle;
mod meta;
mod method;
mod mrtr;
mod prompts;
mod resources;
mod roots;
mod sampling;
mod skills;
mod tasks;
mod tools;
pub mod uri_template;
mod version;

#[doc(hidden)]
pub use answers::{AnswerRef, Answers};
pub use apps::*;
pub use authorization::*;
pub use capabilities::*;
pub use completion::*;
pub use content::*;
pub use elicitation::*;
pub use jsonrpc::*;
pub use lifecycle::*;
pub use meta::*;
pub use method::Method;
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

/// The next value of `map` into `slot`, refusing a member said twice (serde's own
/// `duplicate_field` error), for a `Deserialize` written out member by member.
pub(crate) fn fill_once<'de, A, T>(map: &mut A, slot: &mut Option<T>, name: &'static str) -> Result<(), A::Error>
where
    A: serde::de::MapAccess<'de>,
    T: serde::Deserialize<'de>,
{
    if slot.replace(map.next_value()?).is_some() {
        return Err(serde::de::Error::duplicate_field(name));
    }
    Ok(())
}

/// A string read from JSON, borrowed from the input unless it holds escapes. (serde's own
/// `Cow<str>` copies, except as a field marked `#[serde(borrow)]`; this one borrows anywhere,
/// as a map's key or value too.)
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[doc(hidden)]
pub struct Text<'a>(pub std::borrow::Cow<'a, str>);

impl serde::Serialize for Text<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Text<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visitor<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, s: &'de str) -> Result<Text<'a>, E> {
                Ok(Text(std::borrow::Cow::Borrowed(s)))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Text<'a>, E> {
                Ok(Text(std::borrow::Cow::Owned(s.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Text<'a>, E> {
                Ok(Text(std::borrow::Cow::Owned(s)))
            }
        }
        d.deserialize_str(Visitor(std::marker::PhantomData))
    }
}

// Not a wire type: the one helper every layer shares, here because this is the crate below
// them all (the core logs error chains, and roundtrip-tls, which has no core, does too).
/// `e` and its sources, `outer: inner: innermost`, leaving out a source the text already says
/// (a wrapper's message often repeats its cause's).
#[doc(hidden)]
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let part = s.to_string();
        if !part.is_empty() && !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}
