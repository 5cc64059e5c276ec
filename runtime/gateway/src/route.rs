//! Where what an upstream sends on a connection goes, besides answers: the legs in flight on
//! it register here, and each message goes to the one it belongs to.
//!
//! - Progress carries the token the gateway gave the leg (unique here, not the caller's, which
//!   another caller may share): it goes to that leg.
//! - A log message or a 2025-era server's in-call question names no request. It goes to the
//!   leg when one leg alone could have sent it (for a question: the one leg in flight that is
//!   not already waiting for an answer); otherwise it is dropped (a question: refused), never
//!   given to a leg it may not belong to, which could be another caller's. A connection that
//!   one leg has to itself (every upstream but a stdio one: see [`crate::pool`]) always has
//!   one.
//! - List changes and resource updates go to the connection's listener, if any.

use std::sync::{Arc, Mutex};

use roundtrip_client::ClientError;
use roundtrip_wire::{InputRequest, Notification};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

/// Where notifications go.
pub(crate) type Notify = Arc<dyn Fn(Notification) + Send + Sync>;

/// A question an upstream asked inside a call, and where its answer goes.
pub(crate) struct Asked {
    pub request: InputRequest,
    pub reply: oneshot::Sender<Result<Value, ClientError>>,
}

/// The legs in flight on one connection.
#[derive(Clone, Default)]
pub(crate) struct Route(Arc<Mutex<Legs>>);

#[derive(Default)]
struct Legs {
    next: u64,
    legs: Vec<Entry>,
    listener: Option<Notify>,
}

struct Entry {
    id: u64,
    notify: Option<Notify>,
    questions: Option<mpsc::Sender<Asked>>,
    /// A question of this leg waits for its answer.
    asking: bool,
}

/// A leg in flight on a connection; it leaves the route when dropped.
pub(crate) struct InFlight {
    route: Route,
    id: u64,
}

impl Route {
    /// Where this connection's list changes and resource updates go.
    pub fn listen(&self, listener: Notify) {
        if let Ok(mut legs) = self.0.lock() {
            legs.listener = Some(listener);
        }
    }

    /// Register a leg: its notifications go to `notify`, its in-call questions to
    /// `questions`.
    pub fn enter(&self, notify: Option<Notify>, questions: Option<mpsc::Sender<Asked>>) -> InFlight {
        let mut legs = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        legs.next += 1;
        let id = legs.next;
        legs.legs.push(Entry { id, notify, questions, asking: false });
        InFlight { route: self.clone(), id }
    }

    fn with_entry<R>(&self, id: u64, f: impl FnOnce(&mut Entry) -> R) -> Option<R> {
        let mut legs = self.0.lock().ok()?;
        legs.legs.iter_mut().find(|e| e.id == id).map(f)
    }

    /// Deliver a notification of the upstream's.
    pub fn notify(&self, n: Notification) {
        let to = {
            let Ok(legs) = self.0.lock() else { return };
            match n.method.as_str() {
                "notifications/progress" => {
                    let token = n.params.as_ref().and_then(|p| p.get("progressToken")).and_then(Value::as_str);
                    let id = token.and_then(|t| t.strip_prefix(TOKEN_PREFIX)).and_then(|id| id.parse::<u64>().ok());
                    legs.legs.iter().find(|e| Some(e.id) == id).and_then(|e| e.notify.clone())
                }
                "notifications/message" => match legs.legs.as_slice() {
                    [only] => only.notify.clone(),
                    _ => None,
                },
                _ => legs.listener.clone(),
            }
        };
        match to {
            Some(to) => to(n),
            None => {
                tracing::debug!(target: "roundtrip::gateway", method = %n.method, "an upstream notification with no leg to go to: dropped")
            }
        }
    }

    /// Put an upstream's in-call question to the one leg that can have asked it.
    pub fn ask(&self, request: InputRequest) -> impl Future<Output = Result<Value, ClientError>> + Send + use<> {
        let chosen = self.0.lock().ok().and_then(|mut legs| {
            let mut able = legs.legs.iter_mut().filter(|e| e.questions.is_some() && !e.asking);
            match (able.next(), able.next()) {
                (Some(only), None) => {
                    only.asking = true;
                    Some((only.id, only.questions.clone()))
                }
                _ => None,
            }
        });
        let route = self.clone();
        async move {
            let Some((id, Some(to))) = chosen else {
                return Err(ClientError::Callback("no one call can have asked this question".into()));
            };
            let (reply, answer) = oneshot::channel();
            let gone = || ClientError::Callback("the caller is gone".into());
            let sent = to.send(Asked { request, reply }).await.map_err(|_| gone());
            let answered = match sent {
                Ok(()) => answer.await.map_err(|_| gone()).and_then(|a| a),
                Err(e) => Err(e),
            };
            route.with_entry(id, |e| e.asking = false);
            answered
        }
    }
}

/// The prefix of the progress tokens the gateway gives its legs.
const TOKEN_PREFIX: &str = "roundtrip-gateway-";

impl InFlight {
    /// The progress token to send for this leg.
    pub fn progress_token(&self) -> String {
        format!("{TOKEN_PREFIX}{}", self.id)
    }

    /// Where this leg's notifications go, for whoever holds the leg between the caller's
    /// legs.
    pub fn handle(&self) -> LegHandle {
        LegHandle { route: self.route.clone(), id: self.id }
    }
}

/// Sets where a leg in flight sends its notifications.
#[derive(Clone)]
pub(crate) struct LegHandle {
    route: Route,
    id: u64,
}

impl LegHandle {
    /// Send the leg's notifications to `notify` from now on (none: dropped).
    pub fn notify_to(&self, notify: Option<Notify>) {
        self.route.with_entry(self.id, |e| e.notify = notify);
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Ok(mut legs) = self.route.0.lock() {
            legs.legs.retain(|e| e.id != self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use roundtrip_wire::{ElicitParams, JsonObject};
    use serde_json::json;

    fn recorder() -> (Notify, Arc<Mutex<Vec<String>>>) {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let into = heard.clone();
        (Arc::new(move |n: Notification| into.lock().unwrap_or_else(|e| e.into_inner()).push(n.method)), heard)
    }

    fn heard(of: &Arc<Mutex<Vec<String>>>) -> Vec<String> {
        of.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    #[test]
    fn progress_goes_by_token_and_a_log_only_to_a_leg_alone() {
        let route = Route::default();
        let (a_notify, a) = recorder();
        let (b_notify, b) = recorder();
        let leg_a = route.enter(Some(a_notify), None);
        let log = || Notification::new("notifications/message", Some(json!({"level": "info", "data": "x"})));
        route.notify(log());
        assert_eq!(heard(&a), ["notifications/message"], "alone: the log is its");
        let leg_b = route.enter(Some(b_notify), None);
        route.notify(log());
        assert_eq!((heard(&a).len(), heard(&b).len()), (1, 0), "two in flight: nobody's");
        let progress = Notification::new(
            "notifications/progress",
            Some(json!({"progressToken": leg_b.progress_token(), "progress": 1})),
        );
        route.notify(progress);
        assert_eq!(heard(&b), ["notifications/progress"]);
        drop(leg_a);
        route.notify(log());
        assert_eq!(heard(&b), ["notifications/progress", "notifications/message"]);
    }

    #[tokio::test]
    async fn a_question_goes_to_the_one_leg_that_can_have_asked_it() {
        let route = Route::default();
        let question = || InputRequest::Elicit(ElicitParams::form("?", JsonObject::new()));
        let (to_a, mut a) = mpsc::channel(1);
        let (to_b, _b) = mpsc::channel(1);
        let _leg_a = route.enter(None, Some(to_a));
        let answering = tokio::spawn(async move {
            let asked = a.recv().await.expect("a is asked");
            let _ = asked.reply.send(Ok(json!({"action": "decline"})));
        });
        assert_eq!(route.ask(question()).await, Ok(json!({"action": "decline"})));
        answering.await.expect("answered");
        let _leg_b = route.enter(None, Some(to_b));
        assert!(route.ask(question()).await.is_err(), "two could have asked: refused");
    }
}
