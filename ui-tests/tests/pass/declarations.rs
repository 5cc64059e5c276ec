//! Every resolver kind, `Answer<T>`, a context parameter, the manual form, plain fns and
//! structured output compile.
use roundtrip::prelude::*;

#[derive(Deserialize, JsonSchema, Elicit)]
enum Size {
    Small,
    Large,
}

#[derive(Deserialize, JsonSchema, Elicit)]
struct Contact {
    /// Your name.
    name: String,
    age: Option<u8>,
    sizes: Vec<Size>,
}

#[derive(Serialize, JsonSchema)]
struct Report {
    total: u32,
}

async fn zone_for(region: String) -> Resolve<String> {
    Resolve::Value(format!("{region}-a"))
}

/// Everything at once.
#[tool(title = "All", read_only, open_world)]
pub async fn everything(
    /// The name.
    name: String,
    #[resolve(elicit = "Size for {name}?")] size: Answer<Size>,
    #[resolve(elicit = "Contact?")] contact: Contact,
    #[resolve(elicit = "Region?")] region: String,
    #[resolve(with = zone_for(region))] zone: String,
    #[resolve(elicit_url = "https://example.com/{zone}", message = "Open it")] _consent: Consent,
    #[resolve(sample = "Say {name}", max_tokens = 5)] said: String,
    #[resolve(sample = "Say it all")] full: CreateMessageResult,
    #[resolve(roots)] roots: Vec<Root>,
    cx: &RequestContext,
) -> Result<Json<Report>, String> {
    let _ = (name, size, contact.name, contact.age, contact.sizes, said, full, roots, cx.target());
    Ok(Json(Report { total: 1 }))
}

#[tool]
fn plain() -> &'static str {
    "plain"
}

#[tool]
async fn manual(cx: &RequestContext) -> Outcome<CallToolResult> {
    match cx.state::<u8>() {
        Some(_) => Outcome::Complete(CallToolResult::text("done")),
        None => InputRequired::new().state(&1u8).into(),
    }
}

mod nested {
    use roundtrip::prelude::*;

    #[tool(name = "nested.ping")]
    pub async fn ping() {}
}

fn main() {
    let server = Server::new("s", "1").tools(tools![everything, plain, manual, nested::ping]);
    assert_eq!(server.tool_defs().len(), 4);
    // The fns stay callable as written.
    let _ = plain();
}
