use roundtrip::prelude::*;

#[tool]
async fn report(first: &RequestContext, second: &RequestContext) -> String {
    format!("{} {}", first.target(), second.target())
}

fn main() {}
