//! Sealed `requestState`: the boundary that encrypts and authenticates every outgoing state and
//! verifies every incoming one. (Interface; the implementation lands with the sealing work.)

use serde_json::Value;

use crate::protocol::{ErrorObject, JsonObject};
use crate::server::Principal;

/// The policy for sealing `requestState`.
#[derive(Debug, Clone, Default)]
pub struct RequestStateSecurity {}

/// A policy that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SealConfigError(pub String);

/// What a `bind_principal` hook sees.
#[derive(Debug, Clone, Copy)]
pub struct PrincipalInput<'a> {
    /// The identity an auth layer set.
    pub principal: Option<&'a Principal>,
    /// The HTTP request head, on HTTP.
    pub http: Option<&'a http::request::Parts>,
}

/// What a state is bound to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Binding<'a> {
    pub method: &'a str,
    pub target: &'a str,
    pub arguments: &'a JsonObject,
    pub principal: Option<&'a str>,
}

/// The configured sealer of one server.
#[derive(Debug)]
pub(crate) struct Sealer {}

impl Sealer {
    pub(crate) fn new(_policy: Option<RequestStateSecurity>, _server_name: &str) -> Result<Self, SealConfigError> {
        Ok(Self {})
    }

    pub(crate) fn principal(&self, input: &PrincipalInput<'_>) -> Result<Option<String>, ()> {
        Ok(input.principal.map(|p| p.0.clone()))
    }

    pub(crate) fn seal(&self, _binding: &Binding<'_>, plaintext: &[u8]) -> Result<String, ErrorObject> {
        String::from_utf8(plaintext.to_vec()).map_err(|_| ErrorObject::internal("state"))
    }

    pub(crate) fn unseal(&self, _binding: &Binding<'_>, token: &Value) -> Result<Vec<u8>, ErrorObject> {
        token.as_str().map(|s| s.as_bytes().to_vec()).ok_or_else(ErrorObject::invalid_request_state)
    }
}
