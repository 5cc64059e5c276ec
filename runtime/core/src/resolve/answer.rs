//! What a resolved parameter's body receives.

use serde::{Deserialize, Serialize};

/// The user's choice on a question, for parameters declared as `Answer<T>`.
///
/// With a bare `T`, a decline or cancel ends the call (an `isError` result naming the
/// parameter) and the body never runs; with `Answer<T>` the body decides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Answer<T> {
    /// The user answered.
    Accepted(T),
    /// The user said no.
    Declined,
    /// The user dismissed the question.
    Cancelled,
}

impl<T> Answer<T> {
    /// The value, if accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accepted(v) => Some(v),
            _ => None,
        }
    }

    /// Whether the user answered.
    pub fn is_accepted(&self) -> bool {
        matches!(self, Self::Accepted(_))
    }
}

/// The consent a URL-mode question gives: the user agreed to open the URL (the work there
/// happens out of band; the call resumes when the client retries).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Consent;
