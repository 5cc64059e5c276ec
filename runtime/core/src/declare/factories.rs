//! The traits a declaration's expansion implements: what `tools![…]`, `prompts![…]` and
//! `resources![…]` call to get the definition.

use crate::server::{PromptDef, ResourceDef, ResourceEntry, ToolDef};

/// A tool declared with `#[tool]`; `tools![…]` calls [`def`](Self::def).
pub trait ToolFactory {
    /// The tool's name.
    const NAME: &'static str;
    /// The definition and handler.
    fn def() -> ToolDef;
}

/// A prompt declared with `#[prompt]`; `prompts![…]` calls [`def`](Self::def).
pub trait PromptFactory {
    /// The prompt's name.
    const NAME: &'static str;
    /// The definition and handler.
    fn def() -> PromptDef;
}

/// A resource declared with `#[resource]` or `#[resource_template]`; `resources![…]` calls
/// [`def`](Self::def).
pub trait ResourceFactory {
    /// The resource's name.
    const NAME: &'static str;
    /// The definition and handler.
    fn def() -> ResourceEntry;
}

/// A view declared with `#[view]` (MCP Apps); `#[tool(ui = VIEW)]` links a tool to it, and
/// `resources![…]` lists it as a static resource.
#[diagnostic::on_unimplemented(
    message = "`ui = …` names a #[view], and this is not one",
    label = "not a #[view]",
    note = "declare the view with #[view(\"ui://…\")] on a const holding its HTML or on a fn returning it; a #[resource] is not a view"
)]
pub trait ViewFactory: ResourceFactory {
    /// The view's `ui://` URI.
    const URI: &'static str;
    /// The view's definition.
    fn view() -> ResourceDef;
}
