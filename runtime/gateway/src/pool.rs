//! The connections to one upstream that the legs run on. Over HTTP or in memory a leg (or a
//! call held open between legs) has one to itself while it runs, so what the upstream sends on
//! it (its in-call questions, its log notifications, which name no request) is surely that
//! leg's; a connection whose leg ended cleanly waits for the next one
//! ([`HoldLimits::spare_connections`](crate::upstream::HoldLimits)). A stdio upstream is one
//! process: another connection would be another server, with state of its own, so every leg
//! shares its one connection, and [`Route`] tells their messages apart as far as they can be.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use roundtrip_client::{Client, ClientError};

use crate::route::Route;
use crate::upstream::Upstream;

/// A connection and where what arrives on it goes.
#[derive(Clone)]
pub(crate) struct Connection {
    pub client: Client,
    pub route: Route,
    /// The tool list this connection knows (see [`Pool::tools_changed`]).
    tools_seen: u64,
}

/// The spare connections to one upstream.
pub(crate) struct Pool {
    upstream: Upstream,
    /// The one connection of a one-process upstream.
    shared: Option<Connection>,
    spare: Mutex<Vec<Connection>>,
    /// A new connection lists the tools first: a 2026-07-28 client sends the arguments a
    /// tool marks `x-mcp-header` as headers too, which it learns from the list.
    lists_tools: bool,
    /// Bumped when the upstream's tools change: a connection that listed them before is
    /// closed rather than kept.
    tools_listed: AtomicU64,
}

impl Pool {
    /// The pool of `upstream`, whose first connection (the one that lists) is `client` with
    /// `route`.
    pub fn new(upstream: Upstream, client: &Client, route: &Route) -> Self {
        let first = Connection { client: client.clone(), route: route.clone(), tools_seen: 0 };
        let shared = upstream.is_one_process().then_some(first);
        let lists_tools = client.protocol_version().is_modern() && client.server_capabilities().tools.is_some();
        Self { upstream, shared, spare: Mutex::new(Vec::new()), lists_tools, tools_listed: AtomicU64::new(0) }
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
        let tools_seen = self.tools_listed.load(Ordering::Acquire);
        if self.lists_tools {
            client.list_all_tools().await?;
        }
        Ok(Connection { client, route, tools_seen })
    }

    /// Give `connection` back for the next leg when it answered (a result, or a JSON-RPC
    /// error: it works); one that failed is closed.
    pub fn settle<T>(&self, connection: Connection, outcome: &Result<T, ClientError>) {
        if matches!(outcome, Ok(_) | Err(ClientError::Rpc(_))) {
            self.give_back(connection);
        }
    }

    /// A connection whose leg ended cleanly, for the next one (closed when enough wait, or
    /// when the tools it listed changed since).
    pub fn give_back(&self, connection: Connection) {
        if self.shared.is_some() || connection.tools_seen != self.tools_listed.load(Ordering::Acquire) {
            return;
        }
        if let Ok(mut spare) = self.spare.lock()
            && spare.len() < self.upstream.limits.spare_connections
        {
            spare.push(connection);
        }
    }

    /// The upstream's tools changed: connections that listed them before are not used again.
    pub fn tools_changed(&self) {
        self.tools_listed.fetch_add(1, Ordering::AcqRel);
        if let Ok(mut spare) = self.spare.lock() {
            spare.clear();
        }
    }
}
