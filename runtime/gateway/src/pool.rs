//! The connections to one upstream that the legs run on. A leg (or a call held open between
//! legs) has one to itself while it runs, so what the upstream sends on it (its questions, its
//! progress and log notifications) is that leg's: a 2025-era server's in-call question names
//! no call, and a log message names no request. A connection whose leg ended cleanly waits for
//! the next one ([`HoldLimits::spare_connections`](crate::upstream::HoldLimits)).

use std::sync::Mutex;

use roundtrip_client::{Client, ClientError};

use crate::upstream::{Route, Upstream};

/// A connection and where what arrives on it goes.
pub(crate) struct Connection {
    pub client: Client,
    pub route: Route,
}

/// The spare connections to one upstream.
pub(crate) struct Pool {
    upstream: Upstream,
    spare: Mutex<Vec<Connection>>,
}

impl Pool {
    pub fn new(upstream: Upstream) -> Self {
        Self { upstream, spare: Mutex::new(Vec::new()) }
    }

    pub fn upstream(&self) -> &Upstream {
        &self.upstream
    }

    /// A spare connection, or a new one.
    pub async fn lease(&self) -> Result<Connection, ClientError> {
        if let Some(connection) = self.spare.lock().ok().and_then(|mut spare| spare.pop()) {
            return Ok(connection);
        }
        let route = Route::default();
        let client = self.upstream.connect(route.clone()).await?;
        Ok(Connection { client, route })
    }

    /// A connection whose leg ended cleanly, for the next one (closed when enough wait).
    pub fn give_back(&self, connection: Connection) {
        connection.route.questions_to(None);
        connection.route.notifications_to(None);
        if let Ok(mut spare) = self.spare.lock()
            && spare.len() < self.upstream.limits.spare_connections
        {
            spare.push(connection);
        }
    }
}
