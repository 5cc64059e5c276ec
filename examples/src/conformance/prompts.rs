//! The prompt fixtures of the `prompts-*` scenarios.

use roundtrip::protocol::{Content, GetPromptResult, Prompt, PromptArgument, PromptMessage, ResourceContents, Role};
use roundtrip::server::{Outcome, PromptDef};

use super::PNG_BASE64;

/// Every prompt of this module.
pub fn all() -> Vec<PromptDef> {
    vec![simple(), with_arguments(), with_embedded_resource(), with_image()]
}

fn prompt(name: &str, description: &str, arguments: Vec<PromptArgument>) -> Prompt {
    Prompt {
        description: Some(description.into()),
        arguments: (!arguments.is_empty()).then_some(arguments),
        ..Prompt::new(name)
    }
}

fn argument(name: &str, description: &str) -> PromptArgument {
    PromptArgument { name: name.into(), title: None, description: Some(description.into()), required: Some(true) }
}

fn messages(messages: Vec<PromptMessage>) -> GetPromptResult {
    GetPromptResult { messages, ..GetPromptResult::default() }
}

fn simple() -> PromptDef {
    PromptDef::new(prompt("test_simple_prompt", "A simple prompt without arguments", vec![]), |_cx| async {
        Ok(Outcome::Complete(messages(vec![PromptMessage::user("This is a simple prompt for testing.")])))
    })
}

fn with_arguments() -> PromptDef {
    let def = prompt(
        "test_prompt_with_arguments",
        "A prompt with two required arguments",
        vec![argument("arg1", "First test argument"), argument("arg2", "Second test argument")],
    );
    PromptDef::new(def, |cx| async move {
        // The server rejects a call without a required argument before the handler runs.
        let arg1: String = cx.argument("arg1")?;
        let arg2: String = cx.argument("arg2")?;
        Ok(Outcome::Complete(messages(vec![PromptMessage::user(format!(
            "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
        ))])))
    })
}

fn with_embedded_resource() -> PromptDef {
    let def = prompt(
        "test_prompt_with_embedded_resource",
        "A prompt that embeds a resource",
        vec![argument("resourceUri", "URI of the resource to embed")],
    );
    PromptDef::new(def, |cx| async move {
        let uri: String = cx.argument("resourceUri")?;
        Ok(Outcome::Complete(messages(vec![
            PromptMessage {
                role: Role::User,
                content: Content::resource(ResourceContents::text(
                    uri,
                    Some("text/plain"),
                    "Embedded resource content for testing.",
                )),
            },
            PromptMessage::user("Please process the embedded resource above."),
        ])))
    })
}

fn with_image() -> PromptDef {
    PromptDef::new(prompt("test_prompt_with_image", "A prompt with an image", vec![]), |_cx| async {
        Ok(Outcome::Complete(messages(vec![
            PromptMessage { role: Role::User, content: Content::image(PNG_BASE64, "image/png") },
            PromptMessage::user("Please analyze the image above."),
        ])))
    })
}
