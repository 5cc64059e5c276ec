//! A request's `inputResponses`: the answers to the previous round's questions, by key, as a
//! leg holds them.
//!
//! Read from a 2026-07-28 carrier request (`Message::read`), each answer stays the text it
//! arrived as until it is read into its type: a leg reads each answer once, and a `Value` tree
//! of it (an allocation per object, key and string) was built only to be read and dropped.
//! Given as a map (the public `Server::handle` path, a legacy session's round), they are that
//! map. Either way the map is there for whoever asks for it
//! ([`RequestContext::input_responses`](https://docs.rs/roundtrip/latest/roundtrip/struct.RequestContext.html#method.input_responses)).

// Only a server reads a request's answers (a client builds a message's `params` itself).

use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

use serde::de::{DeserializeOwned, DeserializeSeed, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::JsonObject;

/// The answers of the previous round, by key (none on a first leg).
#[derive(Clone, Default)]
#[doc(hidden)]
pub struct Answers(Held);

#[derive(Clone)]
enum Held {
    Map(JsonObject),
    /// The `inputResponses` text; each answer's key and value in it, sorted by key; and the
    /// map of them, built when asked for.
    Text {
        text: Box<str>,
        entries: Vec<(Range<usize>, Range<usize>)>,
        map: OnceLock<JsonObject>,
    },
}

impl Default for Held {
    fn default() -> Self {
        Self::Map(JsonObject::new())
    }
}

/// One answer, where it lies.
#[derive(Debug, Clone, Copy)]
#[doc(hidden)]
pub enum AnswerRef<'a> {
    Value(&'a Value),
    Text(&'a str),
}

impl AnswerRef<'_> {
    /// The answer as a `T`, if it reads as one.
    pub fn read<T: DeserializeOwned>(self) -> Option<T> {
        match self {
            Self::Value(v) => T::deserialize(v).ok(),
            Self::Text(t) => serde_json::from_str(t).ok(),
        }
    }
}

impl Answers {
    /// Answers given as a map.
    pub fn from_map(map: JsonObject) -> Self {
        Self(Held::Map(map))
    }

    /// `inputResponses` as it arrived, when it is an object of objects whose keys hold no
    /// escape and come once each; `None` otherwise (it is then read as a `Value`, and refused
    /// or taken the way the map path does).
    pub fn from_text(raw: &RawValue) -> Option<Self> {
        let text = raw.get();
        let mut reader = serde_json::Deserializer::from_str(text);
        let mut entries = Entries { base: text.as_ptr() as usize }.deserialize(&mut reader).ok()?;
        entries.sort_unstable_by(|a, b| text[a.0.clone()].cmp(&text[b.0.clone()]));
        if entries.windows(2).any(|pair| text[pair[0].0.clone()] == text[pair[1].0.clone()]) {
            return None;
        }
        Some(Self(Held::Text { text: text.into(), entries, map: OnceLock::new() }))
    }

    /// Whether there are no answers.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many answers there are.
    pub fn len(&self) -> usize {
        match &self.0 {
            Held::Map(map) => map.len(),
            Held::Text { entries, .. } => entries.len(),
        }
    }

    /// The answer under `key`.
    pub fn get(&self, key: &str) -> Option<AnswerRef<'_>> {
        match &self.0 {
            Held::Map(map) => map.get(key).map(AnswerRef::Value),
            Held::Text { text, entries, .. } => {
                let i = entries.binary_search_by(|(k, _)| text[k.clone()].cmp(key)).ok()?;
                Some(AnswerRef::Text(&text[entries[i].1.clone()]))
            }
        }
    }

    /// The answers as a map.
    pub fn map(&self) -> &JsonObject {
        match &self.0 {
            Held::Map(map) => map,
            Held::Text { text, entries, map } => map.get_or_init(|| {
                entries
                    .iter()
                    // Each answer was read as JSON already, so it reads as a `Value`.
                    .map(|(k, v)| {
                        (text[k.clone()].to_owned(), serde_json::from_str(&text[v.clone()]).unwrap_or_default())
                    })
                    .collect()
            }),
        }
    }
}

impl fmt::Debug for Answers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.map().fmt(f)
    }
}

/// Where each member of an object of objects lies in its text (which starts at `base`): the
/// key (borrowed: a key with an escape fails the read) and the answer (an object, or the read
/// fails).
struct Entries {
    base: usize,
}

impl<'de> DeserializeSeed<'de> for Entries {
    type Value = Vec<(Range<usize>, Range<usize>)>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Entries {
    type Value = Vec<(Range<usize>, Range<usize>)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of objects")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let range = |s: &str| {
            let start = s.as_ptr() as usize - self.base;
            start..start + s.len()
        };
        let mut entries = Vec::with_capacity(1);
        while let Some(key) = map.next_key::<&'de str>()? {
            let answer = map.next_value::<&'de RawValue>()?.get();
            if !answer.starts_with('{') {
                return Err(serde::de::Error::custom("an answer that is not an object"));
            }
            entries.push((range(key), range(answer)));
        }
        Ok(entries)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn text(s: &str) -> Option<Answers> {
        Answers::from_text(&serde_json::from_str::<Box<RawValue>>(s).expect("json"))
    }

    #[test]
    fn answers_read_from_text_are_the_map_read_from_it() {
        let s = r#"{ "b": {"action": "decline"}, "a" : {"action":"accept","content":{"x":[1,{"y":null}]}}, "é": {} }"#;
        let answers = text(s).expect("an object of objects");
        let Value::Object(map) = serde_json::from_str::<Value>(s).expect("json") else { unreachable!() };
        assert_eq!(answers.map(), &map);
        assert_eq!(answers.len(), 3);
        for (key, value) in &map {
            let Some(AnswerRef::Text(t)) = answers.get(key) else { panic!("{key} is there as text") };
            assert_eq!(&serde_json::from_str::<Value>(t).expect("json"), value);
        }
        assert!(answers.get("c").is_none());
        assert_eq!(text("{}").expect("empty").len(), 0);
    }

    #[test]
    fn anything_unusual_is_left_to_the_map_path() {
        for s in [
            "null",
            "[]",
            r#""text""#,
            r#"{"a": 1}"#,
            r#"{"a": {}, "b": null}"#,
            r#"{"a": {}, "a": {}}"#,
            r#"{"a\"b": {}}"#,
            r#"{"\u0061": {}}"#,
        ] {
            assert!(text(s).is_none(), "{s}");
        }
    }

    #[test]
    fn an_answer_reads_into_its_type_from_either_form() {
        let v = json!({"action": "accept", "content": {"region": "eu"}});
        let from_value: Option<crate::ElicitResult> = AnswerRef::Value(&v).read();
        let from_text: Option<crate::ElicitResult> = AnswerRef::Text(&v.to_string()).read();
        assert_eq!(from_value, from_text);
        assert!(from_text.is_some());
    }
}
