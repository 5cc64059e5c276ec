//! `with` fns and checks: what they may return ([`Resolve`], `Result`s of it, `()`), and how
//! their call is taken, async or not, with arguments owned or borrowed.

use std::future::Future;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, IntoError};
use crate::resolve::{Question, Resolution};
use crate::server::RequestContext;

/// What a `with` resolver returns: a value without asking, or one question. A `with` fn may
/// also return `Result<Resolve<T>, E>`: an error ends the call (see [`Error`]).
// Made once per leg and consumed at once: boxing the question would only cost an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Resolve<T> {
    /// The value; no round trip.
    Value(T),
    /// Ask this.
    Ask(Question),
}

/// What a `with` fn may return for a parameter of type `T`.
#[diagnostic::on_unimplemented(
    message = "a `with` fn for a `{T}` parameter cannot return `{Self}`",
    label = "the `with` fn's return type",
    note = "return Resolve<{T}> (a value or a question), or Result<Resolve<{T}>, E> to end the call with E"
)]
pub trait WithReturn<T> {
    /// The resolution, or the error that ends the call.
    fn into_resolve(self) -> Result<Resolve<T>, Error>;
}

impl<T> WithReturn<T> for Resolve<T> {
    fn into_resolve(self) -> Result<Resolve<T>, Error> {
        Ok(self)
    }
}

impl<T, E: IntoError> WithReturn<T> for Result<Resolve<T>, E> {
    fn into_resolve(self) -> Result<Resolve<T>, Error> {
        self.map_err(IntoError::into_error)
    }
}

/// A type a `with` fn can give: its value travels in the sealed state between legs.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be given by a `with` fn",
    label = "needs Serialize and Deserialize",
    note = "a `with` fn's value travels in the sealed requestState so that the fn runs once per flow: derive serde's Serialize and Deserialize on it"
)]
pub trait WithValue: Serialize + DeserializeOwned {}

#[diagnostic::do_not_recommend]
impl<T: Serialize + DeserializeOwned> WithValue for T {}

#[doc(hidden)]
pub fn into_resolution<T: WithValue>(r: impl WithReturn<T>) -> Result<Resolution, Error> {
    match r.into_resolve()? {
        Resolve::Value(v) => serde_json::to_value(v)
            .map(Resolution::Value)
            .map_err(|e| Error::internal(format!("a `with` resolver's value did not serialize: {e}"))),
        Resolve::Ask(q) => Ok(Resolution::Ask(q)),
    }
}

/// What a check returns: `Ok(())` to go on, or an error that ends the call.
#[diagnostic::on_unimplemented(
    message = "a check cannot return `{Self}`",
    label = "the check's return type",
    note = "a check is a fn (async or not) returning Result<(), E> where E is roundtrip::Error or implements Display"
)]
pub trait CheckReturn {
    /// Go on, or end the call.
    fn into_check(self) -> Result<(), Error>;
}

impl<E: IntoError> CheckReturn for Result<(), E> {
    fn into_check(self) -> Result<(), Error> {
        self.map_err(IntoError::into_error)
    }
}

#[doc(hidden)]
pub fn into_check(r: impl CheckReturn) -> Result<(), Error> {
    r.into_check()
}

/// An argument of a `check` or `with` fn, read from the JSON its future holds: the fn may take
/// it owned (`String`) or borrowed from there (`&str`).
#[doc(hidden)]
pub fn from_arg<'a, T: Deserialize<'a>>(name: &str, v: &'a Value) -> Result<T, Error> {
    T::deserialize(v).map_err(|e| Error::internal(format!("`{name}` does not fit its type: {e}")))
}

/// The outcome of a `check` or `with` fn's call, async or not: [`CalledAsync`] for a future
/// (taken first, by method resolution), [`CalledSync`] for a plain value, which is made ready.
#[doc(hidden)]
pub struct Called<T>(std::cell::Cell<Option<T>>);

impl<T> std::fmt::Debug for Called<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Called")
    }
}

impl<T> Called<T> {
    #[doc(hidden)]
    pub fn new(value: T) -> Self {
        Self(std::cell::Cell::new(Some(value)))
    }

    fn take(&self) -> T {
        // Settled once, by the generated code.
        self.0.take().unwrap_or_else(|| unreachable!("a call is settled once"))
    }
}

#[doc(hidden)]
pub trait CalledAsync<F> {
    fn settle(&self) -> F;
}

impl<F: Future> CalledAsync<F> for Called<F> {
    fn settle(&self) -> F {
        self.take()
    }
}

#[doc(hidden)]
pub trait CalledSync<T> {
    fn settle(&self) -> std::future::Ready<T>;
}

impl<T> CalledSync<T> for &Called<T> {
    fn settle(&self) -> std::future::Ready<T> {
        std::future::ready(self.take())
    }
}

/// Wrap a `with` resolver's adapter.
#[doc(hidden)]
pub fn with_fn<F>(f: F) -> crate::resolve::WithFn
where
    F: for<'a> Fn(Vec<Value>, &'a RequestContext) -> futures::future::BoxFuture<'a, Result<Resolution, Error>>
        + Send
        + Sync
        + 'static,
{
    Arc::new(f)
}

/// Wrap a check's adapter.
#[doc(hidden)]
pub fn check_fn<F>(f: F) -> crate::resolve::GuardFn
where
    F: for<'a> Fn(Vec<Value>, &'a RequestContext) -> futures::future::BoxFuture<'a, Result<(), Error>>
        + Send
        + Sync
        + 'static,
{
    Arc::new(f)
}
