//! The changes a server shares with the other replicas of its fleet ([`Server::bus`]): list
//! changes, resource updates and run-time registrations, carried by a [`Bus`] that the
//! replicas share (`roundtrip::redis::RedisBus`; with none, a server's changes reach its own
//! streams only, as in one process).
//!
//! A change is told to this replica's streams at once, then published; each replica takes the
//! others' from its [`Inbox`]. Events are opaque lines to the bus (their format is this
//! module's), each with a random id: a bus delivers at least once, and an event seen before
//! (one's own coming back, one published twice after a timeout) is dropped here, so each
//! stream hears of a change once. A registration names its definition rather than carrying
//! it (code cannot travel): each replica puts back the definition of that name it holds
//! ([`Server::standby_tools`]).

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use serde::{Deserialize, Serialize};

use super::catalog::{Kind, Registration};
use super::{Inner, ListChange, Server};

/// What carries a server's changes to the other replicas of its fleet, and theirs to it.
///
/// The bus never reads an event: it carries lines. `roundtrip::redis::RedisBus` is one (a
/// Redis stream that every replica reads); an implementation for another broker keeps the
/// same promises:
///
/// - [`publish`](Self::publish) returns at once (it queues; it never waits on the network),
///   and delivers each event at least once to every attached replica, also one that was
///   disconnected for a while (duplicates are dropped by the [`Inbox`]);
/// - an event published with a key is also kept, the latest of each key, and given to a
///   replica when it attaches and when it comes back after an outage, so that a replica
///   started later has the registrations made before it;
/// - [`is_up`](Self::is_up) says `false` while it cannot deliver, so readiness
///   ([`Server::ready`]) goes down with it.
pub trait Bus: Send + Sync + 'static {
    /// Carry `event` to every replica (this one's own copy, if it comes back, is dropped),
    /// and when `keep` is `Some(key)` keep it as the latest event of `key`.
    fn publish(&self, event: String, keep: Option<String>);

    /// Deliver the kept events, then every replica's events, to `inbox`, until the bus is
    /// dropped or [`Inbox::receive`] says the server is gone. Called once, when the server
    /// first serves.
    fn attach(&self, inbox: Inbox);

    /// Whether events are delivered now.
    fn is_up(&self) -> bool;
}

/// A bus the application also holds (to ask it what it has left to send, say).
impl<B: Bus + ?Sized> Bus for Arc<B> {
    fn publish(&self, event: String, keep: Option<String>) {
        (**self).publish(event, keep);
    }

    fn attach(&self, inbox: Inbox) {
        (**self).attach(inbox);
    }

    fn is_up(&self) -> bool {
        (**self).is_up()
    }
}

/// Where a [`Bus`] delivers the events of a fleet to one server.
#[derive(Clone)]
pub struct Inbox {
    server: Weak<Inner>,
}

impl std::fmt::Debug for Inbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inbox").field("serving", &(self.server.strong_count() > 0)).finish()
    }
}

impl Inbox {
    /// Take one event; `false` once the server is gone (deliver no more). An event seen before
    /// is dropped, one that cannot be read (another version's, or not an event) is logged and
    /// dropped.
    pub fn receive(&self, event: &str) -> bool {
        let Some(inner) = self.server.upgrade() else { return false };
        Server { inner }.receive(event);
        true
    }

    /// Whether the server is still there to deliver to.
    pub fn is_open(&self) -> bool {
        self.server.strong_count() > 0
    }

    /// Events may have been lost (more were published during an outage than the bus keeps):
    /// every stream is told that each list may have changed. `false` once the server is gone.
    pub fn missed(&self) -> bool {
        let Some(inner) = self.server.upgrade() else { return false };
        let server = Server { inner };
        for change in [ListChange::Tools, ListChange::Prompts, ListChange::Resources] {
            server.announce_here(change);
        }
        true
    }
}

/// A server's bus, and the events it has seen.
pub(crate) struct Link {
    bus: Box<dyn Bus>,
    attached: OnceLock<()>,
    seen: Mutex<Seen>,
}

impl Link {
    pub(crate) fn new(bus: impl Bus) -> Arc<Self> {
        Arc::new(Self { bus: Box::new(bus), attached: OnceLock::new(), seen: Mutex::new(Seen::default()) })
    }

    pub(crate) fn is_up(&self) -> bool {
        self.bus.is_up()
    }
}

/// The ids of the latest events seen, to drop a second delivery of one. A duplicate arrives
/// within moments of the first (a retried publish, one's own event coming back, a kept event
/// given again on reconnecting), so the latest few thousand are enough.
#[derive(Default)]
struct Seen {
    ids: HashSet<u128>,
    order: VecDeque<u128>,
}

impl Seen {
    const REMEMBERED: usize = 8192;

    /// Whether `id` is new, remembering it.
    fn first(&mut self, id: u128) -> bool {
        if !self.ids.insert(id) {
            return false;
        }
        self.order.push_back(id);
        if self.order.len() > Self::REMEMBERED
            && let Some(oldest) = self.order.pop_front()
        {
            self.ids.remove(&oldest);
        }
        true
    }
}

/// An event as the bus carries it: one of its three kinds.
#[derive(Serialize, Deserialize)]
struct Event {
    /// Random, 32 hex digits.
    id: String,
    /// The list of this kind changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    changed: Option<Kind>,
    /// The resource at this URI changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    updated: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    registered: Option<Registration>,
}

/// The longest event taken from a bus: a registration or an update is far shorter; a longer
/// line is not one of ours.
const MAX_EVENT_BYTES: usize = 64 * 1024;

impl Server {
    /// Share this server's list changes, resource updates and run-time registrations with
    /// the other replicas of its fleet through `bus`, and take theirs
    /// (`roundtrip::redis::RedisBus`, or a [`Bus`] of your own): a `subscriptions/listen`
    /// stream or a 2025-era session on any replica hears of a change made on any other, and
    /// a tool registered at run time on one ([`add_tools`](Self::add_tools)) is listed and
    /// called on every one.
    ///
    /// Code cannot travel on a bus: a registration names what it adds, and each replica puts
    /// back the definition of that name that it holds. Build every replica with the
    /// definitions that may be added at run time ([`standby_tools`](Self::standby_tools));
    /// a replica that holds none of a name logs it and goes on without it. Readiness
    /// ([`ready`](Self::ready)) is down while the bus is. The bus starts delivering when the
    /// server first handles a request or is asked whether it is ready.
    pub fn bus(mut self, bus: impl Bus) -> Self {
        self.inner_mut().bus = Some(Link::new(bus));
        self
    }

    /// Attach to the bus, the first time.
    pub(crate) fn attach_bus(&self) {
        if let Some(link) = &self.inner.bus {
            link.attached.get_or_init(|| link.bus.attach(Inbox { server: Arc::downgrade(&self.inner) }));
        }
    }

    /// Publish a list change or update made here (told to this replica's streams already).
    pub(crate) fn publish_change(&self, change: &ListChange) {
        let (changed, updated) = match change {
            ListChange::ResourceUpdated(uri) => (None, Some(uri.clone())),
            list => (Kind::listed_in(list), None),
        };
        self.publish(Event { id: String::new(), changed, updated, registered: None }, None);
    }

    /// Publish a registration made here, kept under its definition's key.
    pub(crate) fn publish_registration(&self, registration: Registration) {
        let key = registration.key();
        self.publish(
            Event { id: String::new(), changed: None, updated: None, registered: Some(registration) },
            Some(key),
        );
    }

    fn publish(&self, mut event: Event, keep: Option<String>) {
        let Some(link) = &self.inner.bus else { return };
        let id: u128 = rand::random();
        if let Ok(mut seen) = link.seen.lock() {
            seen.first(id);
        }
        event.id = format!("{id:032x}");
        match serde_json::to_string(&event) {
            Ok(line) => {
                crate::observe::bus("published");
                link.bus.publish(line, keep);
            }
            Err(e) => tracing::error!(target: "roundtrip::bus", "an event could not be written: {e}"),
        }
    }

    /// Take an event from another replica.
    fn receive(&self, line: &str) {
        let Some(link) = &self.inner.bus else { return };
        let parsed = (line.len() <= MAX_EVENT_BYTES).then(|| serde_json::from_str::<Event>(line).ok()).flatten();
        let Some((id, event)) = parsed.and_then(|e| Some((u128::from_str_radix(&e.id, 16).ok()?, e))) else {
            tracing::warn!(target: "roundtrip::bus", "dropped an event this version cannot read");
            crate::observe::bus("unreadable");
            return;
        };
        if !link.seen.lock().is_ok_and(|mut seen| seen.first(id)) {
            crate::observe::bus("duplicate");
            return;
        }
        crate::observe::bus("received");
        if let Some(kind) = event.changed {
            self.announce_here(kind.list());
        }
        if let Some(uri) = event.updated {
            self.announce_here(ListChange::ResourceUpdated(uri));
        }
        if let Some(registration) = event.registered {
            self.apply(registration);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_seen_once_and_the_oldest_are_forgotten() {
        let mut seen = Seen::default();
        assert!(seen.first(1));
        assert!(!seen.first(1));
        for id in 2..=(Seen::REMEMBERED as u128 + 1) {
            assert!(seen.first(id));
        }
        assert!(seen.first(1), "forgotten once REMEMBERED newer ids came");
        assert!(seen.ids.len() <= Seen::REMEMBERED);
    }
}
