use roundtrip::prelude::*;

#[tool]
async fn hello() -> String {
    "Hello!".into()
}

fn main() {
    let _ = Server::new("demo", "1.0.0").tools(vec![hello]);
}
