use roundtrip::prelude::*;

/// The dashboard.
#[view("ui://demo/dashboard", csp(connect_domains = ["https://api.example.com"]), prefers_border)]
pub const DASHBOARD: &str = "<!doctype html><p>dashboard</p>";

/// Refresh the dashboard: only the view calls it.
#[tool(read_only, ui = DASHBOARD, visibility = "app")]
pub async fn refresh() -> String {
    "refreshed".into()
}
