use roundtrip::prelude::*;

#[derive(Debug, Default)]
struct Counter;

#[toolset]
impl Counter {
    /// Greets.
    #[prompt(titel = "Greeting")]
    async fn greeting(&self) -> String {
        "hi".into()
    }
}

fn main() {
    let _ = Server::new("counter", "1").toolset(std::sync::Arc::new(Counter));
}
