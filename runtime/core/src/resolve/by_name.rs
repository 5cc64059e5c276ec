//! A small map by parameter name, for the engine's per-leg bookkeeping (the values resolved,
//! the answers recorded and the questions asked, by parameter).
//!
//! For speed: a tool has a handful of resolved parameters, so a leg's maps hold one or two
//! entries. A hash table allocated its table and hashed each name for them; this keeps the
//! first two entries inline (no allocation) and finds a name by comparing it with each.
//! The names come from the declaration or from a state this server sealed, never from a
//! caller, so nobody can make one long.

use std::borrow::Borrow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use smallvec::SmallVec;

/// Entries by name, in the order they were first inserted; a name is in it at most once.
pub(crate) struct ByName<K, V>(SmallVec<[(K, V); 2]>);

impl<K, V> Default for ByName<K, V> {
    fn default() -> Self {
        Self(SmallVec::new())
    }
}

impl<K: Borrow<str>, V> ByName<K, V> {
    fn position(&self, name: &str) -> Option<usize> {
        self.0.iter().position(|(k, _)| k.borrow() == name)
    }

    /// The entry under `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&V> {
        self.position(name).map(|i| &self.0[i].1)
    }

    /// Take the entry under `name` out.
    pub(crate) fn remove(&mut self, name: &str) -> Option<V> {
        self.position(name).map(|i| self.0.remove(i).1)
    }

    /// Put `value` under `name`, giving back the entry it replaces.
    pub(crate) fn insert(&mut self, name: K, value: V) -> Option<V> {
        match self.position(name.borrow()) {
            Some(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            None => {
                self.0.push((name, value));
                None
            }
        }
    }

    /// How many entries there are.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Each entry, its value to change.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (&K, &mut V)> {
        self.0.iter_mut().map(|(k, v)| (&*k, v))
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for ByName<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.0.iter().map(|(k, v)| (k, v))).finish()
    }
}

/// Written as a JSON object.
impl<K: Serialize, V: Serialize> Serialize for ByName<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Read from a JSON object; a name given twice keeps its last value, as a hash map's reading
/// did.
impl<'de, K: Deserialize<'de> + Borrow<str>, V: Deserialize<'de>> Deserialize<'de> for ByName<K, V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Deserialize<'de> + Borrow<str>, V: Deserialize<'de>> Visitor<'de> for Entries<K, V> {
            type Value = ByName<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut by_name = ByName::default();
                while let Some((k, v)) = map.next_entry()? {
                    by_name.insert(k, v);
                }
                Ok(by_name)
            }
        }
        deserializer.deserialize_map(Entries(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_in_it_once_and_keeps_its_place() {
        let mut m: ByName<&str, u32> = ByName::default();
        assert_eq!(m.insert("a", 1), None);
        assert_eq!(m.insert("b", 2), None);
        assert_eq!(m.insert("c", 3), None, "a third entry goes past the inline ones");
        assert_eq!(m.insert("a", 4), Some(1));
        assert_eq!((m.len(), m.get("a"), m.get("z")), (3, Some(&4), None));
        assert_eq!(m.remove("b"), Some(2));
        assert_eq!(m.remove("b"), None);
        for (_, v) in m.iter_mut() {
            *v += 10;
        }
        assert_eq!(serde_json::to_string(&m).expect("serializes"), r#"{"a":14,"c":13}"#);
    }

    #[test]
    fn it_reads_an_object_and_the_last_of_a_repeated_name_wins() {
        let m: ByName<&str, u32> = serde_json::from_str(r#"{"x":1,"y":2,"x":3}"#).expect("an object");
        assert_eq!((m.len(), m.get("x"), m.get("y")), (2, Some(&3), Some(&2)));
        assert!(serde_json::from_str::<ByName<&str, u32>>("[1]").is_err());
    }
}
