use roundtrip::prelude::*;

#[tool]
async fn ping() -> String {
    "pong".into()
}

fn main() {
    let _ = Server::new("s", "1").tools(tools![ping, ping]);
}
