//! The check phase: how the values read from an item fit together. Each problem is pushed to
//! the accumulator with the span of the token to change, and checking goes on, so that every
//! problem of the item is reported at once.

mod graph;
mod kind;
mod signature;

use crate::model::{Assert, Declared, Role, When};

/// Check a declared fn; `method`: it is a method of a `#[toolset]` impl block. Gives the
/// rules only the compiler can check (they depend on what a type is), for the expansion.
pub fn declared(decl: &Declared, method: bool, errors: &mut darling::error::Accumulator) -> Vec<Assert> {
    let mut asserts = Vec::new();
    signature::signature(decl, method, errors, &mut asserts);
    graph::graph(decl, errors, &mut asserts);
    kind::rules(decl, errors, &mut asserts);
    given_not_asked(decl, &mut asserts);
    asserts
}

/// What the server gives is neither asked (`#[resolve]`) nor renamed (`#[arg]`).
fn given_not_asked(decl: &Declared, asserts: &mut Vec<Assert>) {
    for p in &decl.params {
        let ident = &p.ident;
        match &p.role {
            Role::Resolved(r) if !r.surely_value => {
                let message = |what: &str| {
                    format!("`{ident}` is {what}, given by the server; it cannot be asked: remove #[resolve]")
                };
                asserts.push(Assert {
                    span: r.attr,
                    when: When::State(p.ty.clone()),
                    message: message("registered state"),
                });
                asserts.push(Assert {
                    span: r.attr,
                    when: When::Context(p.ty.clone()),
                    message: message("the request context"),
                });
            }
            Role::Plain => {
                if let Some(span) = p.arg_attr {
                    asserts.push(Assert {
                        span,
                        when: When::Given(p.ty.clone()),
                        message: format!(
                            "#[arg] renames an argument; `{ident}` is given by the server and has no name on the wire: remove it"
                        ),
                    });
                }
            }
            Role::Argument | Role::Borrowed(_) | Role::Flattened | Role::Resolved(_) => {}
        }
    }
}
