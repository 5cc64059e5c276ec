//! What the expansions check at compile time (in consts): unique names in a list, no manual
//! `input_required` beside resolvers, the return and parameter types a resolver needs, and the
//! `meta = …` object.

use super::{RootsOutput, TextArgument, ToolReturn, UrlOutput};
use crate::protocol::JsonObject;

/// A declaration's `meta = "…"`, which the macro checked is a JSON object.
#[doc(hidden)]
pub fn meta_object(json: &str) -> JsonObject {
    serde_json::from_str(json).unwrap_or_default()
}

/// Fails compilation (in a const) when a tool with resolvers may also answer
/// `input_required` itself.
#[doc(hidden)]
pub const fn refuse_manual_form(may_ask: bool) {
    if may_ask {
        panic!(
            "a tool with #[resolve] parameters cannot also return input_required itself (the manual form): the two \
             share one channel; return the final result, or drop the resolvers and build the rounds by hand"
        );
    }
}

/// Whether two names are equal, at compile time (for the duplicate check of `tools![…]`).
#[doc(hidden)]
pub const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Panics (at compile time, in a const) when two tools of a `tools![…]` list share a name.
#[doc(hidden)]
pub const fn assert_unique_tools(names: &[&str]) {
    if has_duplicate(names) {
        panic!("two tools in this tools![…] list have the same name; rename one with #[tool(name = \"…\")]");
    }
}

/// Panics (at compile time, in a const) when two prompts of a `prompts![…]` list share a name.
#[doc(hidden)]
pub const fn assert_unique_prompts(names: &[&str]) {
    if has_duplicate(names) {
        panic!("two prompts in this prompts![…] list have the same name; rename one with #[prompt(name = \"…\")]");
    }
}

/// Panics (at compile time, in a const) when two resources of a `resources![…]` list share a
/// name.
#[doc(hidden)]
pub const fn assert_unique_resources(names: &[&str]) {
    if has_duplicate(names) {
        panic!("two resources in this resources![…] list have the same name; rename one with `name = \"…\"`");
    }
}

const fn has_duplicate(names: &[&str]) -> bool {
    let mut i = 0;
    while i < names.len() {
        let mut j = i + 1;
        while j < names.len() {
            if same_name(names[i], names[j]) {
                return true;
            }
            j += 1;
        }
        i += 1;
    }
    false
}

/// Compile-time checks, each failing at the type it names.
#[doc(hidden)]
pub fn assert_return<T: ToolReturn>() {}

#[doc(hidden)]
pub fn assert_url<T: UrlOutput>() {}

#[doc(hidden)]
pub fn assert_roots<T: RootsOutput>() {}

#[doc(hidden)]
pub fn assert_text_argument<T: TextArgument>() {}
