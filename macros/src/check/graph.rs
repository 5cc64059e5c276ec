//! The resolver graph: every placeholder, `with` and `check` argument names a parameter it may
//! take, no question depends on its own answer, and the dependencies form no cycle.

use std::collections::{BTreeMap, HashMap};

use proc_macro2::Span;

use crate::model::{Assert, Declared, Kind, Role, When, err_at};

pub fn graph(tool: &Declared, errors: &mut darling::error::Accumulator, asserts: &mut Vec<Assert>) {
    let names: Vec<String> = tool.params.iter().map(|p| p.ident.to_string()).collect();
    // Edges between resolved parameters, with the span of the token that makes each edge;
    // keyed by declaration position so that the search (and its report) is deterministic.
    let position = |name: &str| tool.params.iter().position(|p| p.ident == name).unwrap_or(usize::MAX);
    let mut edges: BTreeMap<usize, (String, Vec<(String, Span)>)> = BTreeMap::new();
    for p in &tool.params {
        let Role::Resolved(r) = &p.role else { continue };
        let me = p.ident.to_string();
        for (dep, span) in r.kind.deps() {
            if dep == me {
                errors.push(
                    darling::Error::custom(format!(
                        "`{{{dep}}}` refers to the parameter this question resolves: a question cannot depend on its own answer"
                    ))
                    .with_span(&span),
                );
                continue;
            }
            let Some(target) = tool.params.iter().find(|q| q.ident == dep) else {
                let hint = closest(&dep, &names).map(|n| format!("; did you mean `{n}`?")).unwrap_or_default();
                errors.push(
                    darling::Error::custom(format!("`{dep}` names no parameter of `{}`{hint}", tool.item.sig.ident))
                        .with_span(&span),
                );
                continue;
            };
            let given = format!(
                "`{dep}` is given by the server, not by the client or the user; a question's text can only use \
                 arguments and resolved parameters (a `with` fn may take it)"
            );
            match &target.role {
                Role::Borrowed(_) | Role::Plain if matches!(r.kind, Kind::With { .. }) => {}
                Role::Borrowed(_) => errors.push(darling::Error::custom(given).with_span(&span)),
                Role::Plain => asserts.push(Assert { span, when: When::Given(target.ty.clone()), message: given }),
                Role::Resolved(t) if t.answer_of.is_some() && matches!(r.kind, Kind::With { .. }) => errors.push(
                    darling::Error::custom(format!(
                        "`{dep}` is an `Answer<…>` (it may be declined), so a `with` resolver cannot take it; declare it as the plain type"
                    ))
                    .with_span(&span),
                ),
                Role::Resolved(_) => {
                    edges.entry(position(&me)).or_insert_with(|| (me.clone(), Vec::new())).1.push((dep, span));
                }
                Role::Flattened => errors.push(
                    darling::Error::custom(format!(
                        "`{dep}` is a flattened struct of arguments, which a question cannot name whole; declare the \
                         field you need as an argument of its own"
                    ))
                    .with_span(&span),
                ),
                Role::Argument => {}
            }
        }
    }
    for check in &tool.common.checks {
        for arg in &check.args {
            match tool.params.iter().find(|q| q.ident == *arg) {
                None => {
                    let hint = closest(&arg.to_string(), &names).map(|n| format!("; did you mean `{n}`?")).unwrap_or_default();
                    errors.push(err_at(arg, format!("`{arg}` names no parameter of `{}`{hint}", tool.item.sig.ident)));
                }
                Some(q) if matches!(q.role, Role::Resolved(_)) => errors.push(err_at(
                    arg,
                    format!(
                        "a check runs before any question, so it cannot take `{arg}`, which is asked; check it in a `with` fn \
                         or in the body"
                    ),
                )),
                Some(q) if matches!(q.role, Role::Flattened) => errors.push(err_at(
                    arg,
                    format!(
                        "`{arg}` is a flattened struct of arguments, which a check cannot take whole; declare the field \
                         it needs as an argument of its own"
                    ),
                )),
                Some(_) => {}
            }
        }
    }
    // Depth-first search for a cycle; report it at the edge that closes it.
    let edges: HashMap<String, Vec<(String, Span)>> = edges.into_values().collect::<Vec<_>>().into_iter().collect();
    let order: Vec<String> =
        tool.params.iter().map(|p| p.ident.to_string()).filter(|n| edges.contains_key(n)).collect();
    let mut state: HashMap<&str, u8> = HashMap::new(); // 1 = on the path, 2 = done
    let mut reported = false;
    for start in &order {
        let mut path = Vec::new();
        visit(start, &edges, &mut state, &mut path, &mut reported, errors);
    }
}

fn visit<'a>(
    node: &'a str,
    edges: &'a HashMap<String, Vec<(String, Span)>>,
    state: &mut HashMap<&'a str, u8>,
    path: &mut Vec<&'a str>,
    reported: &mut bool,
    errors: &mut darling::error::Accumulator,
) {
    if state.get(node).is_some() {
        return;
    }
    state.insert(node, 1);
    path.push(node);
    for (dep, span) in edges.get(node).into_iter().flatten() {
        match state.get(dep.as_str()) {
            Some(1) if !*reported => {
                *reported = true;
                let start = path.iter().position(|n| *n == dep).unwrap_or(0);
                let mut cycle: Vec<&str> = path[start..].to_vec();
                cycle.push(dep);
                errors.push(
                    darling::Error::custom(format!(
                        "this placeholder closes a cycle of questions ({}): each needs the other's answer first; remove one of the references",
                        cycle.join(" -> ")
                    ))
                    .with_span(span),
                );
            }
            None => visit(dep, edges, state, path, reported, errors),
            _ => {}
        }
    }
    path.pop();
    state.insert(node, 2);
}

/// The most similar name, if one is close enough to be a typo.
fn closest<'a>(name: &str, names: &'a [String]) -> Option<&'a str> {
    names
        .iter()
        .map(|n| (distance(name, n), n))
        .filter(|(d, n)| *d <= 2.max(n.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n.as_str())
}

fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j + 1] + 1).min(cur[j] + 1).min(prev[j] + usize::from(ca != *cb)));
        }
        prev = cur;
    }
    prev[b.len()]
}
