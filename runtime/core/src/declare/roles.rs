//! A parameter's role, from its type: what the server gives (the request's context, a task's,
//! registered state) implements [`Given`]; any other type is an argument the client sends.
//!
//! A macro sees only the tokens of a type, not what it is: `type Db = State<Pool>` or
//! `use roundtrip::server::RequestContext as Cx` would hide the role from a macro that
//! matched names, and a user's own type named `State` would be taken for registered state.
//! So the generated code asks the compiler. [`Role<T>`] has inherent items when `T: Given`
//! and the same items, for arguments, from the fallback trait [`Plain`]; for a concrete `T`
//! (a declared fn is never generic) the inherent ones win whenever they apply, so
//! `<Role<T>>::GIVEN` is a constant and `Role::<T>::new().parse(…)` picks the right code at
//! compile time. A mistake that depends on the role (a second context, a placeholder naming
//! state) is a `const` assertion in the generated code, at the token to change.

use std::any::Any;
use std::marker::PhantomData;

use serde::Deserialize;
use serde_json::Value;

use super::{Argument, Field, State, StateNeed, TextArgument, argument, argument_schema};
use crate::error::Error;
use crate::protocol::JsonObject;
use crate::server::RequestContext;
use crate::task::TaskContext;

/// What a given parameter is, for the checks made at compile time.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GivenKind {
    /// The request's context.
    Context,
    /// A task's context.
    Task,
    /// Registered state.
    State,
}

/// A parameter type the server gives from the request, not the client: [`RequestContext`],
/// [`TaskContext`], [`State<T>`]. Any type that does not implement it is an argument.
#[doc(hidden)]
pub trait Given: Sized {
    /// What it is.
    const KIND: GivenKind;
    /// What is taken from the request before the call (state), or nothing (a context, which
    /// is moved into the call last).
    type Ready;
    /// What a `with` or `check` fn taking this parameter gets.
    type InCall<'c>;
    /// Take what can be taken while the request is still borrowed.
    fn ready(cx: &RequestContext) -> Result<Self::Ready, Error>;
    /// The value; a context takes the request out of `slot`.
    fn finish(ready: Self::Ready, slot: &mut Option<RequestContext>) -> Result<Self, Error>;
    /// The value a `with` or `check` fn gets.
    fn in_call(cx: &RequestContext) -> Result<Self::InCall<'_>, Error>;
    /// The state to register, for state.
    fn need() -> Option<StateNeed>;
}

fn take_request(slot: &mut Option<RequestContext>) -> Result<RequestContext, Error> {
    // At most one context per fn: the macros reject a second one at compile time.
    slot.take().ok_or_else(|| Error::internal("a declared fn took two contexts"))
}

impl Given for RequestContext {
    const KIND: GivenKind = GivenKind::Context;
    type Ready = ();
    type InCall<'c> = &'c RequestContext;

    fn ready(_: &RequestContext) -> Result<(), Error> {
        Ok(())
    }

    fn finish((): (), slot: &mut Option<RequestContext>) -> Result<Self, Error> {
        take_request(slot)
    }

    fn in_call(cx: &RequestContext) -> Result<&RequestContext, Error> {
        Ok(cx)
    }

    fn need() -> Option<StateNeed> {
        None
    }
}

impl Given for TaskContext {
    const KIND: GivenKind = GivenKind::Task;
    type Ready = ();
    type InCall<'c> = &'c RequestContext;

    fn ready(_: &RequestContext) -> Result<(), Error> {
        Ok(())
    }

    fn finish((): (), slot: &mut Option<RequestContext>) -> Result<Self, Error> {
        take_request(slot).map(TaskContext::from)
    }

    fn in_call(cx: &RequestContext) -> Result<&RequestContext, Error> {
        Ok(cx)
    }

    fn need() -> Option<StateNeed> {
        None
    }
}

impl<T: Any + Send + Sync> Given for State<T> {
    const KIND: GivenKind = GivenKind::State;
    type Ready = Self;
    type InCall<'c> = Self;

    fn ready(cx: &RequestContext) -> Result<Self, Error> {
        match cx.server().state_of::<T>() {
            Some(value) => Ok(State(value)),
            // The server checks every need when it starts; a server that was not started
            // through serve_* (a hand-made context) can still get here.
            None => {
                Err(Error::internal(format!("no State<{}> is registered on the server", std::any::type_name::<T>())))
            }
        }
    }

    fn finish(ready: Self, _: &mut Option<RequestContext>) -> Result<Self, Error> {
        Ok(ready)
    }

    fn in_call(cx: &RequestContext) -> Result<Self, Error> {
        Self::ready(cx)
    }

    fn need() -> Option<StateNeed> {
        Some(StateNeed::of::<T>())
    }
}

/// A context a declared fn may borrow (`&RequestContext`, `&TaskContext`).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`&{Self}` cannot be a parameter: only the request's context is borrowed",
    label = "not `&RequestContext` or `&TaskContext`",
    note = "an argument is decoded from the request and owned by the call: take `{Self}`"
)]
pub trait Context: Given<Ready = ()> {}

impl Context for RequestContext {}
impl Context for TaskContext {}

/// A borrowed context's value, held by the adapter while the fn borrows it.
#[doc(hidden)]
pub fn borrowed_context<C: Context>(slot: &mut Option<RequestContext>) -> Result<C, Error> {
    C::finish((), slot)
}

/// A parameter of type `T`, asked what it is. See the module's documentation.
#[doc(hidden)]
#[derive(Debug)]
pub struct Role<T>(PhantomData<fn() -> T>);

impl<T> Role<T> {
    #[doc(hidden)]
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<T> Default for Role<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// A given parameter's value before the request is read: nothing.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Pending;

/// The role of a type the server gives.
impl<T: Given> Role<T> {
    pub const GIVEN: bool = true;
    pub const ARGUMENT: bool = false;
    /// The request's context or a task's.
    pub const CONTEXT: bool = matches!(T::KIND, GivenKind::Context | GivenKind::Task);
    pub const TASK: bool = matches!(T::KIND, GivenKind::Task);
    pub const STATE: bool = matches!(T::KIND, GivenKind::State);

    /// Not in the input schema.
    pub fn field(&self, _: &'static str, _: Option<&'static str>, _: bool) -> Option<Field> {
        None
    }

    /// Where no arguments are parsed (a static resource, a view): nothing.
    pub fn absent(&self) -> Result<Pending, Error> {
        Ok(Pending)
    }

    /// Not in the arguments.
    pub fn parse(&self, _: &str, _: &JsonObject, _: &str) -> Result<Pending, Error> {
        Ok(Pending)
    }

    pub fn ready(&self, _: Pending, cx: &RequestContext) -> Result<T::Ready, Error> {
        T::ready(cx)
    }

    pub fn finish(&self, ready: T::Ready, slot: &mut Option<RequestContext>) -> Result<T, Error> {
        T::finish(ready, slot)
    }

    pub fn need(&self) -> Option<StateNeed> {
        T::need()
    }

    /// Not text, and need not be.
    pub fn assert_text(&self) {}

    /// Takes no input of a `with` or `check` fn.
    pub fn hold(&self, _: &mut std::vec::IntoIter<Value>) -> Value {
        Value::Null
    }

    pub fn bind<'c>(&self, _: &str, _: &Value, cx: &'c RequestContext) -> Result<T::InCall<'c>, Error> {
        T::in_call(cx)
    }
}

/// The role of any other type: an argument. In scope (`use Plain as _`) wherever generated
/// code asks a [`Role`].
#[doc(hidden)]
pub trait Plain<T> {
    const GIVEN: bool = false;
    const ARGUMENT: bool = true;
    const CONTEXT: bool = false;
    const TASK: bool = false;
    const STATE: bool = false;

    /// Its field in the input schema.
    fn field(&self, name: &'static str, description: Option<&'static str>, required: bool) -> Option<Field>
    where
        T: Argument,
    {
        Some(Field { name, schema: argument_schema::<T>(), description, required, flatten: false })
    }

    fn parse(&self, item: &str, args: &JsonObject, name: &str) -> Result<T, Error>
    where
        T: Argument,
    {
        argument::<T>(item, args, name)
    }

    /// Where no arguments are parsed (a static resource, a view), an argument has no value:
    /// the macros refuse it at compile time.
    fn absent(&self) -> Result<T, Error> {
        Err(Error::internal("an argument where none is parsed"))
    }

    fn ready(&self, value: T, _: &RequestContext) -> Result<T, Error> {
        Ok(value)
    }

    fn finish(&self, value: T, _: &mut Option<RequestContext>) -> Result<T, Error> {
        Ok(value)
    }

    fn need(&self) -> Option<StateNeed> {
        None
    }

    /// A prompt's or a template's argument is text.
    fn assert_text(&self)
    where
        T: TextArgument,
    {
    }

    /// Its value among a `with` or `check` fn's inputs, held while the fn borrows from it.
    fn hold(&self, inputs: &mut std::vec::IntoIter<Value>) -> Value {
        inputs.next().unwrap_or_default()
    }

    /// As the `with` or `check` fn takes it (owned, or borrowed from `held`).
    fn bind<'v, U: Deserialize<'v>>(&self, name: &str, held: &'v Value, _: &RequestContext) -> Result<U, Error> {
        super::from_arg(name, held)
    }
}

impl<T> Plain<T> for Role<T> {}

/// The names among `all` that are arguments, at compile time: a `with` or `check` fn's inputs
/// (`K`: how many there are).
#[doc(hidden)]
pub const fn arguments_among<const N: usize, const K: usize>(all: [(&'static str, bool); N]) -> [&'static str; K] {
    let mut out = [""; K];
    let (mut i, mut j) = (0, 0);
    while i < N {
        if all[i].1 {
            out[j] = all[i].0;
            j += 1;
        }
        i += 1;
    }
    out
}

/// How many of `all` are true.
#[doc(hidden)]
pub const fn count_true<const N: usize>(all: [bool; N]) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < N {
        if all[i] {
            n += 1;
        }
        i += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Pool;
    type Db = State<Pool>;
    type Cx = RequestContext;

    /// A user's own type named `State`: an argument.
    #[allow(dead_code)]
    struct MyState {
        n: u32,
    }
    mod user {
        #[allow(dead_code)]
        pub struct State<T>(pub T);
    }

    #[test]
    fn roles_follow_the_type_not_its_name() {
        const {
            assert!(<Role<Db>>::STATE && <Role<Db>>::GIVEN);
            assert!(<Role<Cx>>::CONTEXT && !<Role<Cx>>::TASK);
            assert!(<Role<TaskContext>>::TASK && <Role<TaskContext>>::CONTEXT);
            assert!(<Role<user::State<u32>>>::ARGUMENT && !<Role<user::State<u32>>>::GIVEN);
            assert!(<Role<MyState>>::ARGUMENT);
            assert!(<Role<String>>::ARGUMENT);
        }
        assert_eq!(count_true([true, false, true]), 2);
        assert_eq!(arguments_among::<3, 2>([("a", true), ("b", false), ("c", true)]), ["a", "c"]);
    }
}
