//! The fn's signature against what it declares: not generic, a receiver only as `&self` in a
//! `#[toolset]`, at most one context, a `TaskContext` only in a task tool, and `replayable`
//! only where it changes something.

use syn::spanned::Spanned;

use crate::model::{Assert, Declaration, Declared, Role, TaskSupport, Tool, When, Which, err_at};

/// `method`: the fn is a method of a `#[toolset]` impl block.
pub fn signature(decl: &Declared, method: bool, errors: &mut darling::error::Accumulator, asserts: &mut Vec<Assert>) {
    generics(decl, errors);
    receiver(decl, method, errors);
    contexts(decl, asserts);
    if let Declaration::Tool(tool) = &decl.declaration {
        replayable(tool, errors);
    }
}

fn generics(decl: &Declared, errors: &mut darling::error::Accumulator) {
    let generics = &decl.item.sig.generics;
    if !generics.params.is_empty() || generics.where_clause.is_some() {
        errors.push(err_at(
            generics,
            format!(
                "a {} fn cannot be generic: its schemas and questions are fixed at compile time; \
                 write one per concrete type",
                decl.which().attribute()
            ),
        ));
    }
}

fn receiver(decl: &Declared, method: bool, errors: &mut darling::error::Accumulator) {
    let Some(r) = decl.item.sig.receiver() else { return };
    let by_ref = matches!(r.kind, syn::ReceiverKind::Reference(..));
    let mutable = r.mutability.is_some() || matches!(r.kind, syn::ReceiverKind::Reference(_, _, Some(_)));
    let attr = decl.which().attribute();
    let message = if mutable {
        format!(
            "a {attr} method cannot take `&mut self`: the server calls it concurrently; take `&self` and use interior mutability"
        )
    } else if !method {
        format!("{attr} on a method needs its impl block marked `#[roundtrip::toolset]`")
    } else if !by_ref {
        format!("a {attr} method takes `&self`: the value is shared by every call")
    } else {
        return;
    };
    errors.push(err_at(r, message));
}

/// At most one context, and a `TaskContext` only where the fn runs as a task. Which
/// parameters are contexts only the compiler knows (an alias, a re-export): asserted.
fn contexts(decl: &Declared, asserts: &mut Vec<Assert>) {
    let which = decl.which();
    let is_task = matches!(&decl.declaration, Declaration::Tool(t) if t.task != TaskSupport::Forbidden);
    let mut before: Vec<syn::Type> = Vec::new();
    for p in &decl.params {
        let ty = match &p.role {
            Role::Plain => p.ty.clone(),
            Role::Borrowed(elem) => (**elem).clone(),
            Role::Argument | Role::Flattened | Role::Resolved(_) => continue,
        };
        let span = p.ty.span();
        if !before.is_empty() {
            asserts.push(Assert {
                span,
                when: When::SecondContext(ty.clone(), before.clone()),
                message: "a declared fn takes at most one context (RequestContext or TaskContext); remove this one"
                    .to_owned(),
            });
        }
        let task = if which != Which::Tool {
            Some(format!("only a #[tool] can run as a task; a {} takes a RequestContext", which.attribute()))
        } else if !is_task {
            Some(
                "a TaskContext asks while the tool runs, which needs a task: declare the tool with #[tool(task)] \
                 (or take a RequestContext)"
                    .to_owned(),
            )
        } else {
            None
        };
        if let Some(message) = task {
            asserts.push(Assert { span, when: When::Task(ty.clone()), message });
        }
        before.push(ty);
    }
}

/// `replayable` opts a task tool out of single-use states: with `single_use`, or on a tool
/// that is no task, it says nothing true.
fn replayable(tool: &Tool, errors: &mut darling::error::Accumulator) {
    let Some(span) = tool.replayable else { return };
    let message = if tool.single_use.is_some() {
        "`replayable` and `single_use` contradict each other: keep one"
    } else if tool.task == TaskSupport::Forbidden {
        "`replayable` opts a task tool out of single-use states; a tool that is not a task accepts its \
         states more than once already: remove it"
    } else {
        return;
    };
    errors.push(darling::Error::custom(message).with_span(&span));
}
