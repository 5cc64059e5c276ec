//! MCP Apps: every form of `#[view]` and of `#[tool(ui = …, visibility = …)]`.
use std::sync::Arc;

use roundtrip::prelude::*;

mod views {
    use roundtrip::prelude::*;

    /// A const view, with every option.
    #[view(
        "ui://demo/dashboard",
        name = "dashboard",
        title = "Dashboard",
        description = "The dashboard.",
        csp(
            connect_domains = ["https://api.example.com", "wss://live.example.com:8443", "http://localhost:*"],
            resource_domains = ["https://*.cdn.example.com"],
            frame_domains = ["https://www.youtube.com"],
            base_uri_domains = ["https://cdn.example.com"]
        ),
        permissions(camera, microphone, geolocation, clipboard_write),
        domain = "a904794854a047f6.claudemcpcontent.com",
        prefers_border = false
    )]
    pub const DASHBOARD: &str = "<!doctype html><p>dashboard</p>";

    /// A static view.
    #[view("ui://demo/static", prefers_border)]
    pub static STATIC: &str = "<!doctype html><p>static</p>";
}

/// A fn view, made when read, checked first.
#[view("ui://demo/made", check = allowed(cx))]
fn made(cx: &RequestContext) -> String {
    format!("<!doctype html><p>{}</p>", cx.server().name())
}

async fn allowed(cx: &RequestContext) -> Result<(), Error> {
    let _ = cx;
    Ok(())
}

/// An async view with state.
#[view("ui://demo/stateful")]
async fn stateful(counter: State<Counter>) -> Result<String, Error> {
    Ok(format!("<!doctype html><p>{}</p>", counter.value))
}

struct Counter {
    value: u32,
}

/// Linked by path (the view comes with the tool).
#[tool(read_only, ui = views::DASHBOARD)]
async fn dashboard() -> String {
    "dashboard".into()
}

/// Linked by URI, for views only.
#[tool(ui = "ui://demo/made", visibility = "app")]
async fn refresh() -> String {
    "refreshed".into()
}

struct Ops;

#[toolset]
impl Ops {
    /// A method linked to a view, for the model only.
    #[tool(ui = views::STATIC, visibility = "model")]
    async fn status(&self) -> String {
        "ok".into()
    }
}

fn main() {
    let server = Server::new("demo", "1.0.0")
        .state(Arc::new(Counter { value: 3 }))
        .tools(tools![dashboard, refresh])
        .toolset(Arc::new(Ops))
        .resources(resources![made, stateful]);
    assert!(server.check().is_ok());
    assert_eq!(<views::__roundtrip_resource_DASHBOARD as roundtrip::__private::ViewFactory>::URI, "ui://demo/dashboard");
}
