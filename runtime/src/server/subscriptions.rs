//! `subscriptions/listen` (2026-07-28): a long-lived request whose stream carries an
//! acknowledgement and then the list changes the client asked for.

use serde_json::{Value, json};

use super::Server;
use super::dispatch::{Failure, Routed};
use super::peer::Inbound;
use crate::protocol::{ErrorObject, META_SUBSCRIPTION_ID, Notification, RequestId};

/// A change a server announces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListChange {
    /// The tool list changed.
    Tools,
    /// The prompt list changed.
    Prompts,
    /// The resource list changed.
    Resources,
}

impl ListChange {
    fn filter_key(&self) -> &'static str {
        match self {
            Self::Tools => "toolsListChanged",
            Self::Prompts => "promptsListChanged",
            Self::Resources => "resourcesListChanged",
        }
    }

    /// The notification method.
    pub fn method(&self) -> &'static str {
        match self {
            Self::Tools => "notifications/tools/list_changed",
            Self::Prompts => "notifications/prompts/list_changed",
            Self::Resources => "notifications/resources/list_changed",
        }
    }
}

pub(crate) async fn listen(
    server: &Server,
    id: &RequestId,
    params: Option<&Value>,
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
    let subscription_id = json!(id);
    let mut ack = serde_json::Map::new();
    for change in &honored {
        ack.insert(change.filter_key().into(), Value::Bool(true));
    }
    // Subscribe before acknowledging, so no change after the acknowledgement is lost.
    let mut changes = server.subscribe_changes();
    inbound.peer.notify(Notification::new(
        "notifications/subscriptions/acknowledged",
        Some(json!({ "_meta": { META_SUBSCRIPTION_ID: subscription_id }, "notifications": ack })),
    ));
    loop {
        tokio::select! {
            () = inbound.cancel.cancelled() => return Ok(Routed::Silent),
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
