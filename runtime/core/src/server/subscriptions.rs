//! `subscriptions/listen` (2026-07-28): a long-lived request whose stream carries an
//! acknowledgement and then the list changes the client asked for.

use serde_json::{Value, json};

use super::Server;
use super::dispatch::{Failure, Routed};
use super::peer::Inbound;
use crate::protocol::{ErrorObject, META_SUBSCRIPTION_ID, Notification, RequestId, RequestMeta, TASKS_EXTENSION};

/// A change a server announces.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListChange {
    /// The tool list changed.
    Tools,
    /// The prompt list changed.
    Prompts,
    /// The resource list changed.
    Resources,
    /// The resource at this URI changed (`notifications/resources/updated`): sent to the
    /// legacy sessions that subscribed to it (`resources/subscribe`).
    ResourceUpdated(String),
}

impl ListChange {
    fn filter_key(&self) -> &'static str {
        match self {
            Self::Tools => "toolsListChanged",
            Self::Prompts => "promptsListChanged",
            Self::Resources => "resourcesListChanged",
            Self::ResourceUpdated(_) => "resourceUpdated",
        }
    }

    /// The notification method.
    pub fn method(&self) -> &'static str {
        match self {
            Self::Tools => "notifications/tools/list_changed",
            Self::Prompts => "notifications/prompts/list_changed",
            Self::Resources => "notifications/resources/list_changed",
            Self::ResourceUpdated(_) => "notifications/resources/updated",
        }
    }

    /// The notification a legacy session gets, if it is one it wants: list changes always,
    /// a resource update only when the session subscribed to its URI.
    #[doc(hidden)]
    pub fn for_session(&self, session: &super::Session) -> Option<Notification> {
        match self {
            Self::ResourceUpdated(uri) => {
                let subscribed = session.subscriptions.lock().is_ok_and(|s| s.contains(uri));
                subscribed.then(|| Notification::new(self.method(), Some(json!({ "uri": uri }))))
            }
            _ => Some(Notification::new(self.method(), None)),
        }
    }
}

pub(crate) async fn listen(
    server: &Server,
    id: &RequestId,
    params: Option<&Value>,
    meta: &RequestMeta,
    inbound: &Inbound,
) -> Result<Routed, Failure> {
    let filter = match params.and_then(|p| p.get("notifications")) {
        None | Some(Value::Null) => serde_json::Map::new(),
        Some(Value::Object(f)) => f.clone(),
        Some(_) => {
            return Err(Failure::rejected(ErrorObject::invalid_params("params.notifications must be an object")));
        }
    };
    let offered = [
        (ListChange::Tools, server.offers_tools()),
        (ListChange::Prompts, server.offers_prompts()),
        (ListChange::Resources, server.offers_resources()),
    ];
    let honored: Vec<ListChange> = offered
        .into_iter()
        .filter(|(change, offered)| *offered && filter.get(change.filter_key()) == Some(&Value::Bool(true)))
        .map(|(change, _)| change)
        .collect();
    // Task status notifications, for the caller's own tasks, to a client with the extension.
    let task_ids: Vec<String> = match filter.get("taskIds") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(ids)) if ids.iter().all(Value::is_string) => {
            ids.iter().filter_map(Value::as_str).map(str::to_owned).collect()
        }
        Some(_) => {
            return Err(Failure::rejected(ErrorObject::invalid_params(
                "params.notifications.taskIds must be a list of strings",
            )));
        }
    };
    if !task_ids.is_empty() && !meta.client_capabilities.has_extension(TASKS_EXTENSION) {
        return Err(Failure::rejected(super::carrier::tasks_required()));
    }
    let owner = server.owner(inbound);
    let mut watched = Vec::new();
    for task_id in task_ids {
        if server.tasks().get(&task_id, owner.as_deref()).await.is_ok() {
            watched.push(task_id);
        }
    }
    let subscription_id = json!(id);
    let mut ack = serde_json::Map::new();
    for change in &honored {
        ack.insert(change.filter_key().into(), Value::Bool(true));
    }
    if !watched.is_empty() {
        ack.insert("taskIds".into(), json!(watched));
    }
    // Subscribe before acknowledging, so no change after the acknowledgement is lost.
    let mut changes = server.subscribe_changes();
    let mut task_changes = server.tasks().subscribe();
    let mut last_sent: std::collections::HashMap<String, Value> = std::collections::HashMap::new();
    inbound.peer.notify(Notification::new(
        "notifications/subscriptions/acknowledged",
        Some(json!({ "_meta": { META_SUBSCRIPTION_ID: subscription_id }, "notifications": ack })),
    ));
    loop {
        tokio::select! {
            () = inbound.cancel.cancelled() => return Ok(Routed::Silent),
            changed = task_changes.recv(), if !watched.is_empty() => {
                let changed = match changed {
                    Ok(changed) if watched.contains(&changed) => vec![changed],
                    Ok(_) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => watched.clone(),
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => continue,
                };
                for task_id in changed {
                    let Ok(record) = server.tasks().get(&task_id, owner.as_deref()).await else { continue };
                    let mut params = match serde_json::to_value(record.detailed()) {
                        Ok(v) => v,
                        Err(_) => continue,
                    };
                    params["_meta"] = json!({ META_SUBSCRIPTION_ID: subscription_id });
                    // One notification a state: a change that shows nothing new is not sent.
                    if last_sent.get(&task_id) == Some(&params) {
                        continue;
                    }
                    last_sent.insert(task_id.clone(), params.clone());
                    inbound.peer.notify(Notification::new("notifications/tasks", Some(params)));
                }
            }
            change = changes.recv() => match change {
                Ok(change) if honored.contains(&change) => inbound.peer.notify(Notification::new(
                    change.method(),
                    Some(json!({ "_meta": { META_SUBSCRIPTION_ID: subscription_id } })),
                )),
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                    return Ok(Routed::Value(json!({
                        "resultType": "complete",
                        "_meta": { META_SUBSCRIPTION_ID: subscription_id },
                    })));
                }
            },
        }
    }
}
