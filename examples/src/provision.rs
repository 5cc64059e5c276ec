//! A provisioning server whose tools ask for what they need.
//!
//! Each parameter marked `#[resolve(...)]` is a question, not an argument: it stays out of
//! the input schema, and the framework asks it (in as few rounds as the placeholders allow),
//! seals the answers into `requestState` between legs, and calls the fn when all is known.

use std::sync::{Arc, Mutex};

use roundtrip::prelude::*;

/// Provision a database. Asks which region to put it in, unless given as an argument.
#[tool(idempotent)]
pub async fn provision(
    /// Name of the database.
    name: String,
    /// The region to put it in (`eu-west-1`, `us-east-1`, …).
    #[resolve(elicit = "Which region should {name} live in?", or_argument)]
    region: String,
) -> String {
    format!("Provisioned '{name}' in {region}.")
}

/// Greet the user: asks their name, then (knowing it) their age.
#[tool(idempotent)]
pub async fn wizard(
    #[resolve(elicit = "What is your name?")] name: String,
    #[resolve(elicit = "How old are you, {name}?")] age: u32,
) -> String {
    format!("Hello {name}, you are {age}.")
}

/// Delete a file after the user confirms.
#[tool(destructive)]
pub async fn confirm_delete(
    /// The file to delete.
    path: String,
    #[resolve(elicit = "Really delete {path}?")] confirm: Answer<bool>,
) -> String {
    match confirm {
        Answer::Accepted(true) => format!("Deleted {path}."),
        Answer::Accepted(false) => format!("Kept {path}."),
        Answer::Declined => format!("Kept {path} (declined)."),
        Answer::Cancelled => format!("Kept {path} (cancelled)."),
    }
}

/// Sum 1..n. The first leg only parks the work (a state-only round, the manual form); the
/// retry finishes it.
#[tool(read_only, idempotent)]
pub async fn slow_sum(
    /// The upper bound.
    n: u64,
    cx: &RequestContext,
) -> Outcome<CallToolResult> {
    match cx.state::<u64>() {
        // In u128: the sum of 1..u64::MAX is about 2^127.
        Some(n) => {
            let sum = u128::from(n) * (u128::from(n) + 1) / 2;
            Outcome::Complete(CallToolResult::text(format!("sum(1..{n}) = {sum}")))
        }
        None => InputRequired::new().state(&n).into(),
    }
}

/// Link the user's account at the identity provider.
#[tool]
pub async fn link_account(
    #[resolve(elicit_url = "https://accounts.example.com/link", message = "Sign in to link your account")]
    _consent: Consent,
) -> String {
    "Account linked.".to_owned()
}

/// Summarize a text with the client's model.
#[tool(read_only)]
pub async fn summarize(
    /// The text to summarize.
    text: String,
    #[resolve(sample = "Summarize in one sentence: {text}", max_tokens = 200)] summary: String,
) -> String {
    format!("Summary: {summary}")
}

/// List the client's workspace roots.
#[tool(read_only)]
pub async fn workspace(#[resolve(roots)] roots: Vec<Root>) -> String {
    let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
    format!("Roots: {}", uris.join(", "))
}

/// Back up a database. Asks the region first; then runs as a task that reports progress and
/// asks, mid-run, whether to overwrite the backup that is already there.
#[tool(task, idempotent)]
pub async fn backup(
    /// The database.
    database: String,
    #[resolve(elicit = "Which region should the backup of {database} go to?")] region: String,
    task: TaskContext,
) -> Result<String, Error> {
    for part in 1..=3 {
        task.progress(f64::from(part), Some(4.0), Some(&format!("copying part {part} of 3")));
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let existing = format!("backups/{region}/{database}.dump");
    if !task.can_ask() {
        // A client that cannot be asked mid-call keeps what is there.
        return Ok(format!("Backed up {database} to {existing}.new (an existing backup was kept)."));
    }
    let question = Question::confirm(format!("{existing} already exists. Overwrite it?"), "overwrite");
    let overwrite = task.ask_as::<bool>(question).await?;
    task.progress(4.0, Some(4.0), Some("done"));
    Ok(match overwrite {
        Answer::Accepted(true) => format!("Backed up {database} to {existing} (overwritten)."),
        _ => format!("Backed up {database} to {existing}.new (the existing backup was kept)."),
    })
}

/// A database of the inventory.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Database {
    /// Its name.
    pub name: String,
    /// Where it lives.
    pub region: String,
    /// Its size, in GB.
    pub size_gb: u32,
}

/// The databases, as the `databases` tool and its view show them.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Databases {
    /// The databases, by name.
    pub databases: Vec<Database>,
}

/// The databases this server knows (in memory: each server starts with the same three).
#[derive(Debug)]
pub struct Inventory {
    databases: Mutex<Vec<Database>>,
}

impl Default for Inventory {
    fn default() -> Self {
        let db = |name: &str, region: &str, size_gb| Database { name: name.into(), region: region.into(), size_gb };
        let databases =
            vec![db("events", "ap-south-1", 200), db("orders", "eu-west-1", 20), db("users", "us-east-1", 50)];
        Self { databases: Mutex::new(databases) }
    }
}

impl Inventory {
    /// The databases now, as text (for the model and for clients without views) and as
    /// structured content (for the view).
    fn listing(&self, said: String) -> (String, Json<Databases>) {
        let databases = self.databases.lock().map(|d| d.clone()).unwrap_or_default();
        let names: Vec<String> =
            databases.iter().map(|d| format!("{} ({}, {} GB)", d.name, d.region, d.size_gb)).collect();
        let text =
            if names.is_empty() { format!("{said}No databases.") } else { format!("{said}{}", names.join(", ")) };
        (text, Json(Databases { databases }))
    }

    fn has(&self, name: &str) -> bool {
        self.databases.lock().is_ok_and(|d| d.iter().any(|db| db.name == name))
    }

    fn remove(&self, name: &str) {
        if let Ok(mut databases) = self.databases.lock() {
            databases.retain(|db| db.name != name);
        }
    }
}

/// The view of the `databases` tool: a table of the databases, with buttons that call
/// `drop_database` and `backup` through the host. Written with the official MCP Apps SDK,
/// which the build inlines (`examples/build.rs`); it needs no network, so its Content
/// Security Policy allows no origin.
#[view("ui://provision/databases", title = "Databases", prefers_border)]
pub const DATABASES_VIEW: &str = include_str!(concat!(env!("OUT_DIR"), "/databases.html"));

/// The databases, with their regions and sizes. Hosts that support MCP Apps show them in a
/// table from which the user can back up or drop each.
#[tool(read_only, idempotent, ui = DATABASES_VIEW)]
pub async fn databases(inventory: State<Inventory>) -> (String, Json<Databases>) {
    inventory.listing(String::new())
}

/// Refuse a database that does not exist (before asking anything).
async fn known_database(name: String, inventory: State<Inventory>) -> Result<(), String> {
    if inventory.has(&name) { Ok(()) } else { Err(format!("There is no database named '{name}'.")) }
}

/// Drop a database, after the user confirms. Only the `databases` view calls it (its
/// visibility is `app`): a model never sees it.
#[tool(destructive, visibility = "app", check = known_database(name, inventory))]
pub async fn drop_database(
    /// The database to drop.
    name: String,
    #[resolve(elicit = "Really drop the database {name}? Its data is lost.")] confirm: Answer<bool>,
    inventory: State<Inventory>,
) -> (String, Json<Databases>) {
    if !matches!(confirm, Answer::Accepted(true)) {
        return inventory.listing(format!("Kept {name}. "));
    }
    inventory.remove(&name);
    inventory.listing(format!("Dropped {name}. "))
}

/// Welcome a new user by name.
#[prompt]
pub async fn greeting(#[resolve(elicit = "What should I call you?")] name: String) -> String {
    format!("Hello, {name}! Welcome aboard.")
}

/// The note numbers that start with what was typed.
fn note_ids(_variable: &str, typed: &str) -> Vec<String> {
    ["7", "42", "420"].into_iter().filter(|id| id.starts_with(typed)).map(String::from).collect()
}

/// A private note; reading it asks for the passphrase.
#[resource_template("notes://{id}", mime_type = "text/plain", complete = note_ids)]
pub async fn note(
    /// The note's number.
    id: String,
    #[resolve(elicit = "Passphrase for note {id}?")] passphrase: String,
) -> Result<String, &'static str> {
    if passphrase.trim().is_empty() {
        return Err("an empty passphrase opens nothing");
    }
    Ok(format!("Note {id}: the eagle lands at dawn."))
}

/// Say when the next maintenance window is. Not offered until an operator registers it while
/// the fleet serves (`fleet-admin`, through the fleet's bus): every replica holds it.
#[tool(read_only, idempotent)]
pub async fn maintenance_notice() -> &'static str {
    "Maintenance: Sunday 02:00-03:00 UTC. Flows in progress carry on."
}

/// The server.
pub fn server() -> Server {
    build(true)
}

/// The server without `backup`, which runs as a task: as a Cloudflare Worker serves it
/// (examples/worker), whose isolate stops once it has answered.
pub fn server_without_tasks() -> Server {
    build(false)
}

fn build(with_tasks: bool) -> Server {
    let server = Server::new("provision", env!("CARGO_PKG_VERSION"))
        .state(Arc::new(Inventory::default()))
        .tools(tools![provision, wizard, confirm_delete, slow_sum, link_account, summarize, workspace]);
    let server = if with_tasks { server.tools(tools![backup]) } else { server };
    server
        .tools(tools![databases, drop_database])
        .prompts(prompts![greeting])
        .resources(resources![note])
        .standby_tools(tools![maintenance_notice])
}
