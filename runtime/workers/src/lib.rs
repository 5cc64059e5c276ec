//! A roundtrip `Server` as a Cloudflare Worker: its fetch events answered on the 2026-07-28
//! stateless path of streamable HTTP, built for `wasm32-unknown-unknown` with
//! [workers-rs](https://docs.rs/worker).
//!
//! Each fetch event is one HTTP request with its answer, which is what a 2026-07-28 flow needs:
//! every leg carries its sealed `requestState`, so any isolate of the Worker, in any location,
//! takes any leg, as long as they all seal with the same keys: the secret
//! `ROUNDTRIP_STATE_KEYS` (`wrangler secret put ROUNDTRIP_STATE_KEYS`), read by `keys`. The
//! same declarations as on any other host (`#[tool]`, `#[resolve]`, `tools![…]`) build
//! unchanged; depend on `roundtrip` with `default-features = false, features = ["server"]`.
//! What a Worker cannot do:
//!
//! - **Hold a stream open.** `subscriptions/listen` and `GET` get `501` (a JSON-RPC error
//!   saying the endpoint holds no long-lived streams); the server announces no `listChanged`
//!   and no resource subscriptions; a call's progress and log notifications are not sent (the
//!   answer is one JSON body).
//! - **Keep a 2025 session.** `initialize` is answered `-32022`, offering 2026-07-28 (clients
//!   that speak both, as the official SDKs in their default mode, then use it).
//! - **Run a task.** A task body runs on after its call is answered, which a Worker's isolate
//!   does not: `Endpoint::new` refuses a server with a tool that may run as a task.
//! - **Use the process's transports and stores**: stdio, the bound HTTP server, the Redis
//!   task store and the OAuth resource server need sockets, threads or processes
//!   (`wasm32-unknown-unknown` has none). Single-use states are remembered by the isolate
//!   that saw them only.
//!
//! ```ignore
//! use roundtrip::prelude::*;
//! use std::sync::OnceLock;
//!
//! /// Say hello.
//! #[tool(read_only)]
//! async fn hello(name: String) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! static ENDPOINT: OnceLock<roundtrip_workers::Endpoint> = OnceLock::new();
//!
//! #[worker::event(fetch)]
//! async fn fetch(request: worker::Request, env: worker::Env, _: worker::Context) -> worker::Result<worker::Response> {
//!     if ENDPOINT.get().is_none() {
//!         let server = Server::new("hello", "1.0.0").tools(tools![hello]);
//!         let server = server.security(roundtrip_workers::keys(&env)?).map_err(|e| e.to_string())?;
//!         let _ = ENDPOINT.set(roundtrip_workers::Endpoint::new(&server).map_err(|e| e.to_string())?);
//!     }
//!     ENDPOINT.get().expect("set above").serve(request).await
//! }
//! ```
//!
//! On any target but wasm32 this crate is empty.

#[cfg(target_arch = "wasm32")]
mod fetch;

#[cfg(target_arch = "wasm32")]
pub use fetch::{Endpoint, HOSTS_VAR, KEYS_SECRET, hosts, keys};
