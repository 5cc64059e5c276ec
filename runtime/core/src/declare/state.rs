//! [`State<T>`]: server-wide state a declared fn (or its checks and `with` fns) receives by
//! type, registered once with [`Server::state`](crate::server::Server::state).

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

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
