use roundtrip::prelude::*;

#[tool]
async fn wizard(
    #[resolve(elicit = "What is your name?")] name: String,
    #[resolve(elicit = "How old are you, {name}?")] age: Answer<u32>,
) -> String {
    name
}
