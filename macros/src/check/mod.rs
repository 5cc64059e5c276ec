//! The check phase: how the values read from an item fit together. Each problem is pushed to
//! the accumulator with the span of the token to change, and checking goes on, so that every
//! problem of the item is reported at once.

mod graph;
mod kind;
mod signature;

use crate::model::Declared;

/// Check a declared fn; `method`: it is a method of a `#[toolset]` impl block.
pub fn declared(decl: &Declared, method: bool, errors: &mut darling::error::Accumulator) {
    signature::signature(decl, method, errors);
    graph::graph(decl, errors);
    kind::rules(decl, errors);
}
