//! The rules of each kind: what parameters a view, a template or a static resource may take.

use crate::model::{Declaration, Declared, Resource, Role, Which, err_at};
use crate::template;

/// The rules of each kind: a template's variables and arguments match both ways; a static
/// resource neither takes arguments nor asks.
pub fn rules(decl: &Declared, errors: &mut darling::error::Accumulator) {
    let which = decl.which();
    if which == Which::View {
        for p in &decl.params {
            match p.role {
                Role::Argument | Role::Flattened => errors.push(err_at(
                    &p.ident,
                    "a view takes no arguments: a host reads it once, by its URI; the tool's arguments and result \
                     reach the view in the browser",
                )),
                Role::Resolved(_) => errors.push(err_at(
                    &p.ident,
                    "a view cannot ask: a host reads it before anything is shown; remove #[resolve]",
                )),
                Role::Context | Role::Task | Role::State => {}
            }
        }
        return;
    }
    if which != Which::Tool {
        for p in decl.params.iter().filter(|p| matches!(p.role, Role::Flattened)) {
            errors.push(err_at(
                &p.ident,
                format!(
                    "#[arg(flatten)] is for tools, whose arguments are an object; a {}'s arguments are strings: \
                     declare each as its own parameter",
                    &which.attribute()[2..which.attribute().len() - 1]
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
                let bound = decl.params.iter().any(|p| p.wire == *var && matches!(p.role, Role::Argument));
                if !bound {
                    errors.push(err_at(
                        uri,
                        format!(
                            "`{{{var}}}` binds to no parameter: add a parameter `{var}: String` to `{}`",
                            decl.item.sig.ident
                        ),
                    ));
                }
            }
            for p in decl.params.iter().filter(|p| matches!(p.role, Role::Argument)) {
                if !vars.contains(&p.wire) {
                    errors.push(err_at(
                        &p.ident,
                        format!(
                            "`{}` is not a variable of `{}`: add `{{{}}}` to the template, or resolve it with #[resolve(...)]",
                            p.ident,
                            uri.value(),
                            p.ident
                        ),
                    ));
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
            for p in &decl.params {
                match p.role {
                    Role::Argument => errors.push(err_at(
                        &p.ident,
                        "a static resource takes no arguments; for a URI with variables use #[resource_template(\"…/{name}\")]",
                    )),
                    Role::Resolved(_) => errors.push(err_at(
                        &p.ident,
                        "a static resource cannot ask: remove #[resolve], or make it a #[resource_template] or a #[tool]",
                    )),
                    Role::Flattened => errors.push(err_at(
                        &p.ident,
                        "a static resource takes no arguments: remove this parameter",
                    )),
                    Role::Context | Role::Task | Role::State => {}
                }
            }
        }
        Declaration::Tool(_) | Declaration::Prompt(_) | Declaration::View(_) => {}
    }
}
