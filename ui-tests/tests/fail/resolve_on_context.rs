use roundtrip::prelude::*;

#[tool]
async fn report(#[resolve(roots)] cx: &RequestContext) -> String {
    cx.target().to_owned()
}

fn main() {}
