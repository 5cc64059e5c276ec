//! [`Error`]: how a declared tool, prompt or resource (or one of its checks and `with` fns)
//! ends a call with the error the protocol expects.

use std::fmt::{self, Display};

use crate::protocol::{ErrorObject, ProtocolVersion, codes};

/// Ends a call. The kind decides what the client sees:
///
/// | made with | a tool answers | a prompt or resource answers |
/// |---|---|---|
/// | [`Error::new`], or any `Display` error of a check or `with` fn | an `isError` result with the message | `-32602` with the message |
/// | any `Display` error a body returns (`Result<T, E>`) | an `isError` result with the message | `-32603` with the message |
/// | [`Error::invalid_params`] | `-32602` with the message | `-32602` with the message |
/// | [`Error::not_found`] | `-32602` with the message | a resource: "Resource not found" with `data.uri` (`-32602` on 2026-07-28, `-32002` before); a prompt: `-32602` |
/// | [`Error::internal`], or `?` on any `std::error::Error` | `-32603` "Internal error" | `-32603` "Internal error" |
/// | [`Error::jsonrpc`] | that JSON-RPC error | that JSON-RPC error |
///
/// `?` on a `Result<_, ErrorObject>` is `?` on a `std::error::Error`: an internal error.
/// To answer the object itself, map it: `.map_err(Error::jsonrpc)?`.
///
/// The detail of an internal error goes to the log (`tracing`, target `roundtrip`), never to
/// the client.
///
/// ```
/// use roundtrip::prelude::*;
///
/// /// Read an incident.
/// #[resource_template("incident://{id}")]
/// async fn incident(id: String) -> Result<String, Error> {
///     match id.as_str() {
///         "1" => Ok("Incident #1: Login outage (sev1).".into()),
///         _ => Err(Error::not_found(format!("no incident #{id}"))),
///     }
/// }
/// ```
///
/// `Error` does not implement `Display` on purpose: that keeps it apart from the `Display`
/// errors a body may return (which become its message), and lets `?` turn any
/// `std::error::Error` into an internal error.
pub struct Error {
    kind: ErrorKind,
    message: String,
    rpc: Option<ErrorObject>,
    /// The error `?` converted, kept whole: its chain goes to the log.
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// What an [`Error`] tells the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The call cannot go on, for the reason in the message (a tool: an `isError` result).
    Refused,
    /// The arguments are wrong (`-32602`).
    InvalidParams,
    /// What the request names does not exist.
    NotFound,
    /// Something failed on the server (`-32603`; the detail is logged, not sent).
    Internal,
    /// A JSON-RPC error given whole ([`Error::jsonrpc`]).
    JsonRpc,
}

impl Error {
    /// End the call saying why: a tool answers an `isError` result with `message`, a prompt
    /// or resource answers `-32602`.
    pub fn new(message: impl Into<String>) -> Self {
        Self::of(ErrorKind::Refused, message.into())
    }

    /// `-32602` with `message`.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::of(ErrorKind::InvalidParams, message.into())
    }

    /// Not found: for a resource read, the protocol's "Resource not found" of the request's
    /// revision (with `data.uri`); otherwise `-32602` with `message`.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::of(ErrorKind::NotFound, message.into())
    }

    /// `-32603` "Internal error"; `detail` goes to the log only.
    pub fn internal(detail: impl Into<String>) -> Self {
        Self::of(ErrorKind::Internal, detail.into())
    }

    /// An argument `name` of the call of `item` that is missing or does not fit: the same
    /// words for a declared argument and a question given as an argument (`or_argument`).
    pub(crate) fn invalid_argument(item: &str, name: &str, why: impl fmt::Display) -> Self {
        Self::new(format!("Invalid arguments for {item}: `{name}`: {why}"))
    }

    fn of(kind: ErrorKind, message: String) -> Self {
        Self { kind, message, rpc: None, source: None }
    }

    /// Answer this JSON-RPC error as it is: its code, message and data reach the client
    /// unchanged (a tool too answers it as an error, not as an `isError` result).
    ///
    /// ```
    /// use roundtrip::prelude::*;
    /// use roundtrip::protocol::ErrorObject;
    ///
    /// /// Reserve a seat.
    /// #[tool]
    /// async fn reserve(seat: String) -> Result<String, Error> {
    ///     if seat == "1A" {
    ///         // The application's own code, with data a client can act on.
    ///         let taken = ErrorObject::new(-32050, "Seat taken").with_data(serde_json::json!({ "seat": seat }));
    ///         return Err(Error::jsonrpc(taken));
    ///     }
    ///     Ok(format!("reserved {seat}"))
    /// }
    /// ```
    pub fn jsonrpc(error: ErrorObject) -> Self {
        Self { kind: ErrorKind::JsonRpc, message: error.message.clone(), rpc: Some(error), source: None }
    }

    /// A JSON-RPC error as it is (the runtime's own errors).
    pub(crate) fn rpc(error: ErrorObject) -> Self {
        Self::jsonrpc(error)
    }

    /// What the client is told.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message (for an internal error, the detail that is logged).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The error `?` turned into this one, with its own sources: an internal error logs the
    /// whole chain.
    ///
    /// ```
    /// use roundtrip::Error;
    ///
    /// fn parse(text: &str) -> Result<u32, Error> {
    ///     Ok(text.parse::<u32>()?)
    /// }
    /// let error = parse("twelve").unwrap_err();
    /// assert_eq!(error.kind(), roundtrip::ErrorKind::Internal);
    /// assert!(error.source().is_some_and(|e| e.is::<std::num::ParseIntError>()));
    /// ```
    pub fn source(&self) -> Option<&(dyn std::error::Error + Send + Sync + 'static)> {
        self.source.as_deref()
    }

    /// The JSON-RPC error for a request of `method` on `target` at `version`.
    pub(crate) fn to_rpc(&self, method: &str, target: &str, version: ProtocolVersion) -> ErrorObject {
        if let Some(rpc) = &self.rpc {
            return rpc.clone();
        }
        match self.kind {
            // A JSON-RPC error always has its object (returned above).
            ErrorKind::Refused | ErrorKind::InvalidParams | ErrorKind::JsonRpc => {
                ErrorObject::invalid_params(&self.message)
            }
            ErrorKind::NotFound if method == "resources/read" => {
                let code = if version.is_modern() { codes::INVALID_PARAMS } else { codes::LEGACY_RESOURCE_NOT_FOUND };
                ErrorObject::new(code, "Resource not found").with_data(serde_json::json!({ "uri": target }))
            }
            ErrorKind::NotFound => ErrorObject::invalid_params(&self.message),
            ErrorKind::Internal => {
                let detail = match &self.source {
                    Some(source) => crate::protocol::error_chain(&**source),
                    None => self.message.clone(),
                };
                tracing::error!(target: "roundtrip", method, target, "internal error: {detail}");
                ErrorObject::internal("Internal error")
            }
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.kind)
            .field("message", &self.message)
            .field("source", &self.source)
            .finish()
    }
}

/// `?` on any error: an [`ErrorObject`] is answered as it is ([`Error::jsonrpc`]); any other
/// error is an internal one that keeps it as its [`source`](Error::source).
impl<E: std::error::Error + Send + Sync + 'static> From<E> for Error {
    fn from(e: E) -> Self {
        // One blanket impl serves both: coherence allows no second `From<ErrorObject>` beside
        // it (the wire crate could implement `std::error::Error` for more of its types).
        let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(e);
        match boxed.downcast::<ErrorObject>() {
            Ok(rpc) => Self::jsonrpc(*rpc),
            Err(other) => {
                let message = other.to_string();
                Self { source: Some(other), ..Self::internal(message) }
            }
        }
    }
}

/// What a check or a `with` fn may fail with: an [`Error`], or anything `Display` (its text
/// is the message of [`Error::new`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot end a call",
    label = "not an error",
    note = "fail with roundtrip::Error (Error::new, invalid_params, not_found, internal) or any type that implements Display"
)]
pub trait IntoError {
    /// The error.
    fn into_error(self) -> Error;
}

impl IntoError for Error {
    fn into_error(self) -> Error {
        self
    }
}

impl<E: Display> IntoError for E {
    fn into_error(self) -> Error {
        Error::new(self.to_string())
    }
}
