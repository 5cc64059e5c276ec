//! A request's `inputResponses`: the answers to the previous round's questions, by key, as a
//! leg holds them.
//!
//! Read from a 2026-07-28 carrier request (`Message::read`), each answer stays the text it
//! arrived as until it is read into its type: a leg reads each answer once, and a `Value` tree
//! of it (an allocation per object, key and string) was built only to be read and dropped.
//! Given as a map (the public `Server::handle` path, a legacy session's round), they are that
//! map. Either way the map is there for whoever asks for it
//! ([`RequestContext::input_responses`](crate::request::RequestContext::input_responses)).

use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use super::JsonObject;

/// The answers of the previous round, by key (none on a first leg).
#[derive(Clone, Default)]
pub(crate) struct Answers(Held);

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
pub(crate) enum AnswerRef<'a> {
    Value(&'a Value),
    Text(&'a str),
}

impl AnswerRef<'_> {
    /// The answer as a `T`, if it reads as one.
    pub(crate) fn read<T: DeserializeOwned>(self) -> Option<T> {
        match self {
            Self::Value(v) => T::deserialize(v).ok(),
            Self::Text(t) => serde_json::from_str(t).ok(),
        }
    }
}

impl Answers {
    /// Answers given as a map.
    pub(crate) fn from_map(map: JsonObject) -> Self {
        Self(Held::Map(map))
    }

    /// `inputResponses` as it arrived, when it is an object of objects whose keys hold no
    /// escape and come once each; `None` otherwise (it is then read as a `Value`, and refused
    /// or taken the way the map path does).
    pub(crate) fn from_text(raw: &RawValue) -> Option<Self> {
        let text = raw.get();
        let Members(mut members) = serde_json::from_str(text).ok()?;
        if members.iter().any(|(_, answer)| !answer.get().starts_with('{')) {
            return None;
        }
        members.sort_unstable_by(|a, b| a.0.cmp(b.0));
        if members.windows(2).any(|pair| pair[0].0 == pair[1].0) {
            return None;
        }
        // Every key and answer is a slice of `text`: keep where each lies.
        let base = text.as_ptr() as usize;
        let range = |s: &str| {
            let start = s.as_ptr() as usize - base;
            start..start + s.len()
        };
        let entries = members.iter().map(|(key, answer)| (range(key), range(answer.get()))).collect();
        Some(Self(Held::Text { text: text.into(), entries, map: OnceLock::new() }))
    }

    /// How many answers there are.
    pub(crate) fn len(&self) -> usize {
        match &self.0 {
            Held::Map(map) => map.len(),
            Held::Text { entries, .. } => entries.len(),
        }
    }

    /// The answer under `key`.
    pub(crate) fn get(&self, key: &str) -> Option<AnswerRef<'_>> {
        match &self.0 {
            Held::Map(map) => map.get(key).map(AnswerRef::Value),
            Held::Text { text, entries, .. } => {
                let i = entries.binary_search_by(|(k, _)| text[k.clone()].cmp(key)).ok()?;
                Some(AnswerRef::Text(&text[entries[i].1.clone()]))
            }
        }
    }

    /// The answers as a map.
    pub(crate) fn map(&self) -> &JsonObject {
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

/// The members of an object, keys borrowed (a key with an escape fails the read).
struct Members<'a>(Vec<(&'a str, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visitor<'a> {
            type Value = Members<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Members<'a>, A::Error> {
                let mut members = Vec::with_capacity(map.size_hint().unwrap_or(1));
                while let Some(key) = map.next_key::<&'a str>()? {
                    members.push((key, map.next_value::<&'a RawValue>()?));
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(Visitor(std::marker::PhantomData))
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
        let from_value: Option<crate::protocol::ElicitResult> = AnswerRef::Value(&v).read();
        let from_text: Option<crate::protocol::ElicitResult> = AnswerRef::Text(&v.to_string()).read();
        assert_eq!(from_value, from_text);
        assert!(from_text.is_some());
    }
}
