//! [`State<T>`]: server-wide state a declared fn (or its checks and `with` fns) receives by
//! type, registered once with [`Server::state`](crate::server::Server::state).

use std::any::Any;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::error::Error;
use crate::server::{RequestContext, StateNeed};

/// Server-wide state of type `T`, given to any declared fn, check or `with` fn that takes a
/// parameter of this type. Register the value with [`Server::state`](crate::server::Server::state);
/// a server whose declarations take a `State<T>` nobody registered refuses to start, naming
/// the declaration and the type.
///
/// ```
/// use std::sync::Arc;
/// use roundtrip::prelude::*;
///
/// struct Inventory { services: Vec<String> }
///
/// /// List the services.
/// #[tool(read_only)]
/// async fn services(inventory: State<Inventory>) -> String {
///     inventory.services.join(", ")
/// }
///
/// let server = Server::new("ops", "1.0.0")
///     .state(Arc::new(Inventory { services: vec!["api".into()] }))
///     .tools(tools![services]);
/// assert!(server.check().is_ok());
/// ```
pub struct State<T: ?Sized>(pub Arc<T>);

impl<T: ?Sized> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "State<{}>", std::any::type_name::<T>())
    }
}

/// A parameter type the server fills from its registered state (`State<T>`).
#[doc(hidden)]
pub trait StateParam: Sized {
    /// The type to register.
    fn need() -> StateNeed;
    /// The value for one request.
    fn extract(cx: &RequestContext) -> Result<Self, Error>;
}

impl<T: Any + Send + Sync> StateParam for State<T> {
    fn need() -> StateNeed {
        StateNeed::of::<T>()
    }

    fn extract(cx: &RequestContext) -> Result<Self, Error> {
        match cx.server().state_of::<T>() {
            Some(value) => Ok(State(value)),
            // The server checks every need when it starts; a server that was not started
            // through serve_* (a hand-made context) can still get here.
            None => {
                Err(Error::internal(format!("no State<{}> is registered on the server", std::any::type_name::<T>())))
            }
        }
    }
}
