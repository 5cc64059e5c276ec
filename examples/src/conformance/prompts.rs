//! The prompt fixtures of the `prompts-*` scenarios, declared with `#[prompt]`.

use roundtrip::prelude::*;
use roundtrip::protocol::Role;
use roundtrip::server::PromptDef;

use super::PNG_BASE64;

/// Every prompt of this module.
pub fn all() -> Vec<PromptDef> {
    prompts![test_simple_prompt, test_prompt_with_arguments, test_prompt_with_embedded_resource, test_prompt_with_image]
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

/// A prompt that embeds a resource
#[prompt]
async fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed
    #[arg(rename = "resourceUri")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::new(
            Role::User,
            Content::resource(ResourceContents::text(
                resource_uri,
                Some("text/plain"),
                "Embedded resource content for testing.",
            )),
        ),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt with an image
#[prompt]
async fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::new(Role::User, Content::image(PNG_BASE64, "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ]
}
