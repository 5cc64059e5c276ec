//! `crate = path`: generated code names roundtrip by the path given, here a re-export (as a
//! crate that wraps roundtrip gives it to its users), on every macro that emits paths, and
//! `#[roundtrip(crate = path)]` on the derives.
mod sdk {
    pub use roundtrip;
}

use sdk::roundtrip::prelude::*;

/// A tool that asks, with a check.
#[tool(crate = sdk::roundtrip, check = known(service))]
async fn deploy(service: String, #[resolve(elicit = "Deploy {service} where?")] target: String) -> String {
    format!("{service} -> {target}")
}

fn known(service: &str) -> Result<(), String> {
    if service.is_empty() { Err("no service".into()) } else { Ok(()) }
}

#[prompt(crate = sdk::roundtrip)]
async fn greet(name: String) -> String {
    format!("Greet {name}.")
}

#[resource_template("notes://{id}", crate = sdk::roundtrip)]
async fn note(id: String) -> String {
    id
}

#[resource("config://app", crate = ::roundtrip)]
async fn config() -> String {
    "{}".into()
}

#[view("ui://crate-path/page", crate = sdk::roundtrip)]
const PAGE: &str = "<p>page</p>";

#[view("ui://crate-path/made", crate = sdk::roundtrip)]
fn made() -> String {
    "<p>made</p>".into()
}

#[tool(crate = sdk::roundtrip, ui = PAGE, visibility = "both")]
async fn show() -> String {
    "shown".into()
}

struct Ops;

#[toolset(crate = sdk::roundtrip)]
impl Ops {
    #[tool]
    async fn ping(&self) -> String {
        "pong".into()
    }

    #[resource("ops://status", crate = sdk::roundtrip)]
    async fn status(&self) -> String {
        "ok".into()
    }
}

/// A choice whose derives name roundtrip through the re-export too.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Elicit)]
#[roundtrip(crate = sdk::roundtrip)]
#[serde(rename_all = "lowercase")]
enum Size {
    Small,
    Large,
}

/// A form, likewise.
#[derive(Deserialize, JsonSchema, Elicit)]
#[roundtrip(crate = sdk::roundtrip)]
struct Order {
    size: Size,
    cups: u8,
}

#[tool(crate = sdk::roundtrip)]
async fn order(#[resolve(elicit = "Your order?")] order: Order) -> String {
    format!("{} {:?}", order.cups, order.size)
}

fn main() {
    let _ = Server::new("sdk", "1.0.0")
        .tools(tools![crate = sdk::roundtrip; deploy, show, order])
        .prompts(prompts![crate = sdk::roundtrip; greet])
        .resources(resources![crate = ::roundtrip; note, config, PAGE, made])
        .toolset(std::sync::Arc::new(Ops));
}
