//! The server's registered state by type ([`Server::state`](crate::server::Server::state)), and what a
//! declaration needs of it ([`StateNeed`], checked when the server starts). The `State<T>`
//! parameter that reads it is a declaration's (`declare/state.rs`).

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::Arc;

/// A state type a declaration needs, checked when the server starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateNeed {
    pub(crate) type_id: TypeId,
    pub(crate) type_name: &'static str,
}

impl StateNeed {
    /// The need of a `State<T>` parameter.
    pub fn of<T: Any + Send + Sync>() -> Self {
        Self { type_id: TypeId::of::<T>(), type_name: std::any::type_name::<T>() }
    }

    /// The type's name.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }
}

/// The registered values, by type, with the type's name.
#[derive(Clone, Default)]
pub(crate) struct States(std::collections::HashMap<TypeId, (&'static str, Arc<dyn Any + Send + Sync>)>);

impl States {
    pub fn insert<T: Any + Send + Sync>(&mut self, value: Arc<T>) {
        self.0.insert(TypeId::of::<T>(), (std::any::type_name::<T>(), value));
    }

    pub fn get<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        self.0.get(&TypeId::of::<T>()).and_then(|(_, v)| Arc::clone(v).downcast::<T>().ok())
    }

    /// Take `other`'s values beside these; the name of a type both hold different values of,
    /// in which case nothing is taken.
    pub fn merge(&mut self, other: &States) -> Result<(), &'static str> {
        let clash =
            other.0.iter().find(|(id, (_, theirs))| self.0.get(id).is_some_and(|(_, ours)| !Arc::ptr_eq(ours, theirs)));
        if let Some((_, (name, _))) = clash {
            return Err(name);
        }
        self.0.extend(other.0.iter().map(|(id, entry)| (*id, entry.clone())));
        Ok(())
    }

    pub fn has(&self, need: &StateNeed) -> bool {
        self.0.contains_key(&need.type_id)
    }
}

impl fmt::Debug for States {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "States({})", self.0.len())
    }
}
