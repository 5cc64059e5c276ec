//! The request a handler answers, as every layer that runs user code sees it: the
//! [`RequestContext`] (arguments, answers, verified state, the client's capabilities, the
//! HTTP head, the caller), the transport's [`Peer`], the legacy [`Session`], and the
//! [`InputRequired`] round a handler may answer with.
//!
//! It sits below the resolver engine and tasks, which hand it to `with` fns, checks and task
//! bodies, and above the seal (it knows no key). The server fills it for each leg
//! (`server/carrier.rs`) and adds what only the server can give: [`RequestContext::server`],
//! defined in `server/`, reaches the server through a handle this layer keeps opaque.
//! Everything here is re-exported at its public path, `roundtrip::server::…`.

mod answerable;
pub mod caller;
mod context;
mod peer;
mod round;

pub(crate) use answerable::Answerable;
pub use caller::AuthPrincipal;
pub(crate) use caller::CallerId;
pub use caller::caller_key;
pub(crate) use context::LogFilter;
pub use context::RequestContext;
pub use peer::{NullPeer, Peer, Session, Transport};
pub use round::InputRequired;
