//! An operations bot: deploy, restart, incidents. Every declaration reaches the application's
//! state (one shared [`Ops`] value), refuses early when an argument names nothing, and asks
//! questions built from that state.
//!
//! - `deploy(service, version)`: an unknown service ends the call before anything is asked;
//!   asks the environment (a titled choice), and for production a second round asks for a
//!   confirmation that names the service and version (a `with` method that asks only then).
//! - `restart(service)`: asks which instance, a choice of that service's instances.
//! - `open_incident()`: one form (title, severity, paging); the answer is stored.
//! - `incident://{id}`: reads an incident; an unknown one is "Resource not found".
//! - `postmortem(incident)`: refuses an unknown incident before asking who writes it.
//! - `summarize_logs(service)`: asks the client's model, as an SRE, at temperature 0.2 (a free
//!   fn that reads the same state through `State<Ops>`).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use roundtrip::prelude::*;
use serde_json::json;

/// Where a version goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "lowercase")]
pub enum Environment {
    /// Staging.
    #[schemars(title = "Staging")]
    Staging,
    /// Production.
    #[schemars(title = "Production")]
    Production,
}

/// How bad an incident is: `sev1` (everyone is affected) to `sev3` (few are).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum Severity {
    Sev1,
    Sev2,
    Sev3,
}

impl Severity {
    fn word(self) -> &'static str {
        match self {
            Self::Sev1 => "sev1",
            Self::Sev2 => "sev2",
            Self::Sev3 => "sev3",
        }
    }
}

/// The form of a new incident.
#[derive(Debug, Clone, Deserialize, JsonSchema, Elicit)]
pub struct NewIncident {
    /// What is going on, in a few words.
    #[schemars(length(min = 5, max = 200))]
    pub title: String,
    /// How bad it is.
    pub severity: Severity,
    /// Page the on-call engineer now.
    #[serde(default)]
    pub page_oncall: bool,
}

/// An incident as stored and returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Incident {
    /// Its number.
    pub id: u32,
    /// Its title.
    pub title: String,
    /// `sev1`, `sev2` or `sev3`.
    pub severity: String,
}

/// How many incidents are kept: opening one more forgets the oldest (a caller cannot grow the
/// list without bound).
pub const MAX_INCIDENTS: usize = 1000;

/// The application's state: the services with their instances, and the incidents.
#[derive(Debug)]
pub struct Ops {
    services: BTreeMap<String, Vec<String>>,
    incidents: Mutex<Vec<Incident>>,
}

impl Default for Ops {
    fn default() -> Self {
        let services =
            [("api", &["api-1", "api-2", "api-3"][..]), ("web", &["web-1", "web-2"]), ("worker", &["worker-1"])]
                .into_iter()
                .map(|(s, instances)| (s.to_owned(), instances.iter().map(|i| (*i).to_owned()).collect()))
                .collect();
        let first = Incident { id: 1, title: "Login outage".into(), severity: "sev1".into() };
        Self { services, incidents: Mutex::new(vec![first]) }
    }
}

impl Ops {
    fn incidents(&self) -> MutexGuard<'_, Vec<Incident>> {
        // A panic while holding the lock leaves the list as it was: keep serving it.
        self.incidents.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn find(&self, id: &str) -> Option<Incident> {
        let id: u32 = id.trim_start_matches('#').parse().ok()?;
        self.incidents().iter().find(|i| i.id == id).cloned()
    }

    /// Whether `service` exists.
    pub fn knows(&self, service: &str) -> Result<(), String> {
        if self.services.contains_key(service) {
            return Ok(());
        }
        let known: Vec<&str> = self.services.keys().map(String::as_str).collect();
        Err(format!("unknown service `{service}` (known: {})", known.join(", ")))
    }
}

#[toolset]
impl Ops {
    /// Refuse a service that does not exist, before anything is asked.
    async fn known_service(&self, service: String) -> Result<(), String> {
        self.knows(&service)
    }

    /// Refuse an incident that does not exist, before anything is asked.
    async fn known_incident(&self, incident: String) -> Result<(), Error> {
        match self.find(&incident) {
            Some(_) => Ok(()),
            None => Err(Error::not_found(format!("no incident #{incident}"))),
        }
    }

    /// Production needs a confirmation; staging does not.
    async fn confirm_production(&self, service: String, version: String, environment: Environment) -> Resolve<bool> {
        match environment {
            Environment::Staging => Resolve::Value(true),
            Environment::Production => {
                Resolve::Ask(Question::confirm(format!("Deploy {service} {version} to production?"), "confirm"))
            }
        }
    }

    /// The instances of a service, as a choice.
    async fn instances(&self, service: String) -> Result<Resolve<String>, String> {
        self.knows(&service)?;
        let instances = self.services.get(&service).into_iter().flatten().map(|i| (i.clone(), i.clone()));
        Ok(Resolve::Ask(Question::choice(format!("Restart which instance of {service}?"), "instance", instances)))
    }

    /// Deploy a version of a service. Asks where; production asks for a confirmation too.
    #[tool(destructive, check = self.known_service(service))]
    async fn deploy(
        &self,
        /// The service, e.g. `api`.
        service: String,
        /// The version to deploy, e.g. `1.4.2`.
        version: String,
        #[resolve(elicit = "Deploy {service} {version} to which environment?")] environment: Environment,
        #[resolve(with = self.confirm_production(service, version, environment))] confirm: bool,
        cx: &RequestContext,
    ) -> String {
        let place = match environment {
            Environment::Staging => "staging",
            Environment::Production => "production",
        };
        if !confirm {
            cx.log(LoggingLevel::Notice, Some("ops"), json!(format!("deployment of {service} {version} cancelled")));
            return format!("Deployment of {service} {version} cancelled.");
        }
        cx.progress(0.0, Some(1.0), Some("rolling out"));
        cx.log(LoggingLevel::Info, Some("ops"), json!(format!("deployed {service} {version} to {place}")));
        cx.progress(1.0, Some(1.0), Some("rolled out"));
        format!("Deployed {service} {version} to {place}.")
    }

    /// Restart one instance of a service. Asks which.
    #[tool(check = self.known_service(service))]
    async fn restart(
        &self,
        /// The service, e.g. `web`.
        service: String,
        #[resolve(with = self.instances(service))] instance: String,
    ) -> String {
        format!("Restarted {instance}.")
    }

    /// Open an incident. Asks its title, severity and whether to page on-call, in one form.
    #[tool]
    async fn open_incident(
        &self,
        #[resolve(elicit = "Describe the incident.")] incident: NewIncident,
        cx: &RequestContext,
    ) -> (String, Json<Incident>) {
        let stored = {
            let mut incidents = self.incidents();
            let id = incidents.iter().map(|i| i.id).max().unwrap_or(0) + 1;
            let stored = Incident { id, title: incident.title.clone(), severity: incident.severity.word().to_owned() };
            if incidents.len() >= MAX_INCIDENTS {
                incidents.remove(0);
            }
            incidents.push(stored.clone());
            stored
        };
        if incident.page_oncall {
            cx.log(LoggingLevel::Warning, Some("ops"), json!(format!("paging on-call for incident #{}", stored.id)));
        }
        cx.server().notify_list_changed(roundtrip::server::ListChange::Resources);
        (format!("Opened incident #{}: {} ({}).", stored.id, stored.title, stored.severity), Json(stored))
    }

    /// An incident's title and severity.
    #[resource_template("incident://{id}", name = "incident", mime_type = "text/plain")]
    async fn incident(
        &self,
        /// The incident's number.
        id: String,
    ) -> Result<String, Error> {
        match self.find(&id) {
            Some(i) => Ok(format!("Incident #{}: {} ({}).", i.id, i.title, i.severity)),
            None => Err(Error::not_found(format!("no incident #{id}"))),
        }
    }

    /// Write the postmortem of an incident. Refuses an unknown incident before asking who
    /// writes it.
    #[prompt(check = self.known_incident(incident))]
    async fn postmortem(
        &self,
        /// The incident's number.
        incident: String,
        #[resolve(elicit = "Who writes the postmortem of incident #{incident}?")] author: String,
    ) -> Result<String, Error> {
        let found = self.find(&incident).ok_or_else(|| Error::not_found(format!("no incident #{incident}")))?;
        Ok(format!("Write the postmortem of incident #{} ({}) as {author}.", found.id, found.title))
    }
}

/// Refuse a service that does not exist (a free fn reading the state by type).
async fn service_exists(ops: State<Ops>, service: String) -> Result<(), String> {
    ops.knows(&service)
}

/// Summarize a service's recent logs with the client's model.
#[tool(read_only, check = service_exists(ops, service))]
pub async fn summarize_logs(
    /// The service, e.g. `worker`.
    service: String,
    ops: State<Ops>,
    #[resolve(
        sample = "Summarize the recent logs of {service} in two sentences.",
        system = "You are an SRE.",
        temperature = 0.2,
        max_tokens = 300
    )]
    summary: String,
) -> String {
    format!("Summary: {summary}")
}

/// The server, with its state at start.
pub fn server() -> Server {
    Server::new("ops", env!("CARGO_PKG_VERSION"))
        .title("Operations bot")
        .toolset(Arc::new(Ops::default()))
        .tools(tools![summarize_logs])
}
