use roundtrip::prelude::*;

#[tool(name = "ping")]
async fn ping_a() -> String {
    "a".into()
}

#[tool(name = "ping")]
async fn ping_b() -> String {
    "b".into()
}

fn main() {
    let _ = Server::new("s", "1").tools(tools![ping_a, ping_b]);
}
