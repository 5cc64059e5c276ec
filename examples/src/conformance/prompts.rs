//! The prompt fixtures of the `prompts-*` scenarios, declared with `#[prompt]`.

use roundtrip::prelude::*;
use roundtrip::protocol::Role;
use roundtrip::server::PromptDef;

use super::PNG_BASE64;

/// Every prompt of this module.
pub fn all() -> Vec<PromptDef> {
    prompts![
        test_simple_prompt,
        test_prompt_with_arguments,
        embedded::test_prompt_with_embedded_resource,
        test_prompt_with_image
    ]
    .into()
}

/// A simple prompt without arguments
#[prompt]
async fn test_simple_prompt() -> String {
    "This is a simple prompt for testing.".into()
}

/// A prompt with two required arguments
#[prompt]
async fn test_prompt_with_arguments(
    /// First test argument
    arg1: String,
    /// Second test argument
    arg2: String,
) -> String {
    // The server rejects a call without a required argument before the handler runs.
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// The prompt whose argument is named `resourceUri`: an argument's name is its parameter's, and
/// the lint must be allowed for the module, since the generated definition binds the name too
/// (a `#[allow]` on the fn does not reach it).
mod embedded {
    #![allow(non_snake_case)]

    use roundtrip::prelude::*;
    use roundtrip::protocol::Role;

    /// A prompt that embeds a resource
    #[prompt]
    pub(super) async fn test_prompt_with_embedded_resource(
        /// URI of the resource to embed
        resourceUri: String,
    ) -> Vec<PromptMessage> {
        vec![
            PromptMessage {
                role: Role::User,
                content: Content::resource(ResourceContents::text(
                    resourceUri,
                    Some("text/plain"),
                    "Embedded resource content for testing.",
                )),
            },
            PromptMessage::user("Please process the embedded resource above."),
        ]
    }
}

/// A prompt with an image
#[prompt]
async fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage { role: Role::User, content: Content::image(PNG_BASE64, "image/png") },
        PromptMessage::user("Please analyze the image above."),
    ]
}
