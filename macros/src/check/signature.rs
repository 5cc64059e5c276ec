//! The fn's signature against what it declares: not generic, a receiver only as `&self` in a
//! `#[toolset]`, at most one context, a `TaskContext` only in a task tool, and `replayable`
//! only where it changes something.

use crate::model::{Declaration, Declared, Param, Role, TaskSupport, Tool, Which, err_at};

/// `method`: the fn is a method of a `#[toolset]` impl block.
pub fn signature(decl: &Declared, method: bool, errors: &mut darling::error::Accumulator) {
    generics(decl, errors);
    receiver(decl, method, errors);
    contexts(decl, errors);
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

/// At most one context, and a `TaskContext` only where the fn runs as a task.
fn contexts(decl: &Declared, errors: &mut darling::error::Accumulator) {
    let contexts: Vec<&Param> = decl.params.iter().filter(|p| matches!(p.role, Role::Context | Role::Task)).collect();
    if let [_, second, ..] = contexts.as_slice() {
        errors.push(err_at(
            &second.ty,
            "a declared fn takes at most one context (RequestContext or TaskContext); remove this one",
        ));
    }
    let which = decl.which();
    let is_task = matches!(&decl.declaration, Declaration::Tool(t) if t.task != TaskSupport::Forbidden);
    for p in decl.params.iter().filter(|p| matches!(p.role, Role::Task)) {
        let message = if which != Which::Tool {
            format!("only a #[tool] can run as a task; a {} takes a RequestContext", which.attribute())
        } else if !is_task {
            "a TaskContext asks while the tool runs, which needs a task: declare the tool with #[tool(task)] \
             (or take a RequestContext)"
                .to_owned()
        } else {
            continue;
        };
        errors.push(err_at(&p.ty, message));
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
