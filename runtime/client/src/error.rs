use roundtrip_wire::ErrorObject;

/// Why a client call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    #[error("the server answered {0}")]
    Rpc(ErrorObject),
    /// The transport failed (connection refused, closed, I/O error, bad HTTP status).
    #[error("transport: {0}")]
    Transport(String),
    /// The server said something that is not valid MCP.
    #[error("protocol: {0}")]
    Protocol(String),
    /// The server asked for elicitation and no callback is registered.
    #[error("Elicitation not supported")]
    ElicitationNotSupported,
    /// The server asked for sampling and no callback is registered.
    #[error("Sampling not supported")]
    SamplingNotSupported,
    /// The server asked for roots and no callback is registered.
    #[error("Roots not supported")]
    RootsNotSupported,
    /// A callback failed; the round was abandoned.
    #[error("a callback failed: {0}")]
    Callback(String),
    /// The flow did not complete within the round budget.
    #[error("the request did not complete within {0} rounds (the client's max_rounds)")]
    TooManyRounds(usize),
    /// The request provably never reached a server (the connection was refused or failed
    /// before the request was sent); safe to send again.
    #[error("unreachable: {0}")]
    Unreached(String),
    /// A proxy or the server answered 502 or 503 (it may or may not have run the request).
    #[error("HTTP {status}: the server is unavailable")]
    Unavailable {
        /// 502 or 503.
        status: u16,
        /// The `Retry-After` the answer gave, in seconds.
        retry_after: Option<u64>,
    },
    /// Authorization failed: the server answered 401 (or 403 for lack of scope) and no
    /// acceptable token could be had, or the OAuth flow itself failed (discovery, a check,
    /// registration, the user's consent, the token endpoint).
    #[error("authorization: {0}")]
    Auth(String),
    /// What the server sent does not match what it said it would send (a skill's file whose
    /// size, digest or frontmatter differs from its listing, or a file the listing does not
    /// name); the content was not used.
    #[error("verification failed: {0}")]
    Verification(String),
    /// The call ran as a task, and the task was cancelled (the server's word on why).
    #[error("the task was cancelled: {0}")]
    TaskCancelled(String),
}

impl From<ErrorObject> for ClientError {
    fn from(e: ErrorObject) -> Self {
        Self::Rpc(e)
    }
}
