//! The rules of each kind: what parameters a view, a template or a static resource may take.

use crate::model::{Assert, Declaration, Declared, Resource, Role, When, Which, err_at};
use crate::template;

/// The rules of each kind: a template's variables and arguments match both ways; a static
/// resource neither takes arguments nor asks.
pub fn rules(decl: &Declared, errors: &mut darling::error::Accumulator, asserts: &mut Vec<Assert>) {
    let which = decl.which();
    if which == Which::View {
        for p in &decl.params {
            let message = "a view takes no arguments: a host reads it once, by its URI; the tool's arguments and \
                           result reach the view in the browser";
            match p.role {
                Role::Argument | Role::Flattened => errors.push(err_at(&p.ident, message)),
                Role::Plain => asserts.push(no_argument(p, message)),
                Role::Resolved(_) => errors.push(err_at(
                    &p.ident,
                    "a view cannot ask: a host reads it before anything is shown; remove #[resolve]",
                )),
                Role::Borrowed(_) => {}
            }
        }
        return;
    }
    if which != Which::Tool {
        // "prompt", "resource", "resource_template": the attribute's name.
        let kind = &which.attribute()[2..which.attribute().len() - 1];
        for p in &decl.params {
            if let Role::Resolved(r) = &p.role
                && let Some(span) = r.or_argument
            {
                let message = format!(
                    "`or_argument` makes a tool's question an optional argument too; a {kind}'s arguments are \
                     text the user gives: use `or_default = …`, or remove it"
                );
                errors.push(syn::Error::new(span, message).into());
            }
        }
        for p in decl.params.iter().filter(|p| matches!(p.role, Role::Flattened)) {
            errors.push(err_at(
                &p.ident,
                format!(
                    "#[arg(flatten)] is for tools, whose arguments are an object; a {kind}'s arguments are strings: \
                     declare each as its own parameter"
                ),
            ));
        }
    }
    match &decl.declaration {
        Declaration::ResourceTemplate(Resource { uri, .. }) => {
            let vars = match template::uri_variables(&uri.value()) {
                Ok(vars) => vars,
                Err(why) => {
                    errors.push(err_at(uri, format!("invalid URI template: {why}")));
                    return;
                }
            };
            if vars.is_empty() {
                errors.push(err_at(uri, "a template needs `{variables}`; for a fixed URI use #[resource(\"…\")]"));
            }
            for var in &vars {
                let bound =
                    decl.params.iter().find(|p| p.wire == *var && matches!(p.role, Role::Argument | Role::Plain));
                if let Some(p) = bound.filter(|p| matches!(p.role, Role::Plain)) {
                    asserts.push(Assert {
                        span: p.ident.span(),
                        when: When::Given(p.ty.clone()),
                        message: format!(
                            "`{}` is given by the server, so it cannot take the template's `{{{var}}}`: rename it, \
                             and add a parameter `{var}: String` to `{}`",
                            p.ident, decl.item.sig.ident
                        ),
                    });
                }
                if bound.is_none() {
                    errors.push(err_at(
                        uri,
                        format!(
                            "`{{{var}}}` binds to no parameter: add a parameter `{var}: String` to `{}`",
                            decl.item.sig.ident
                        ),
                    ));
                }
            }
            for p in decl.params.iter().filter(|p| matches!(p.role, Role::Argument | Role::Plain)) {
                if !vars.contains(&p.wire) {
                    let message = format!(
                        "`{}` is not a variable of `{}`: add `{{{}}}` to the template, or resolve it with #[resolve(...)]",
                        p.ident,
                        uri.value(),
                        p.ident
                    );
                    if matches!(p.role, Role::Plain) {
                        asserts.push(no_argument(p, &message));
                    } else {
                        errors.push(err_at(&p.ident, message));
                    }
                }
            }
        }
        Declaration::Resource(Resource { uri, complete, .. }) => {
            if let Some(f) = complete {
                errors.push(err_at(f, "a static resource has no variables to complete: remove `complete`"));
            }
            if uri.value().contains('{') {
                errors.push(err_at(uri, "this URI has `{variables}`: declare it with #[resource_template(\"…\")]"));
            }
            let message =
                "a static resource takes no arguments; for a URI with variables use #[resource_template(\"…/{name}\")]";
            for p in &decl.params {
                match p.role {
                    Role::Argument => errors.push(err_at(&p.ident, message)),
                    Role::Plain => asserts.push(no_argument(p, message)),
                    Role::Resolved(_) => errors.push(err_at(
                        &p.ident,
                        "a static resource cannot ask: remove #[resolve], or make it a #[resource_template] or a #[tool]",
                    )),
                    Role::Flattened => errors.push(err_at(
                        &p.ident,
                        "a static resource takes no arguments: remove this parameter",
                    )),
                    Role::Borrowed(_) => {}
                }
            }
        }
        Declaration::Tool(_) | Declaration::Prompt(_) | Declaration::View(_) => {}
    }
}

/// The compiler refuses `p` if its type is an argument.
fn no_argument(p: &crate::model::Param, message: &str) -> Assert {
    Assert { span: p.ident.span(), when: When::Argument(p.ty.clone()), message: message.to_owned() }
}
