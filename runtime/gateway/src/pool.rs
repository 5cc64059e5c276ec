//! The connections to one upstream that the legs run on. Over HTTP or in memory a leg (or a
//! call held open between legs) has one to itself while it runs, so what the upstream sends on
//! it (its in-call questions, its log notifications, which name no request) is surely that
//! leg's; a connection whose leg ended cleanly waits for the next one
//! ([`HoldLimits::spare_connections`](crate::upstream::HoldLimits)). A stdio upstream is one
//! process: another connection would be another server, with state of its own, so every leg
//! shares its one connection, and [`Route`] tells their messages apart as far as they can be.

use std::sync::Mutex;

use roundtrip_client::{Client, ClientError};

use crate::route::Route;
use crate::upstream::Upstream;

/// A connection and where what arrives on it goes.
#[derive(Clone)]
pub(crate) struct Connection {
    pub client: Client,
    pub route: Route,
}

/// The spare connections to one upstream.
pub(crate) struct Pool {
    upstream: Upstream,
    /// The one connection of a one-process upstream.
    shared: Option<Connection>,
    spare: Mutex<Vec<Connection>>,
}

impl Pool {
    /// The pool of `upstream`, whose first connection is `first` (the one that lists).
    pub fn new(upstream: Upstream, first: &Connection) -> Self {
        let shared = upstream.is_one_process().then(|| first.clone());
        Self { upstream, shared, spare: Mutex::new(Vec::new()) }
    }

    pub fn upstream(&self) -> &Upstream {
        &self.upstream
    }

    /// A spare connection, or a new one (the shared one, for a one-process upstream).
    pub async fn lease(&self) -> Result<Connection, ClientError> {
        if let Some(shared) = &self.shared {
            return Ok(shared.clone());
        }
        if let Some(connection) = self.spare.lock().ok().and_then(|mut spare| spare.pop()) {
            return Ok(connection);
        }
        let route = Route::default();
        let client = self.upstream.connect(route.clone()).await?;
        Ok(Connection { client, route })
    }

    /// A connection whose leg ended cleanly, for the next one (closed when enough wait).
    pub fn give_back(&self, connection: Connection) {
        if self.shared.is_some() {
            return;
        }
        if let Ok(mut spare) = self.spare.lock()
            && spare.len() < self.upstream.limits.spare_connections
        {
            spare.push(connection);
        }
    }
}
