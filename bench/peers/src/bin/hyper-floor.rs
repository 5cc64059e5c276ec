//! The floor: a bare hyper 1 HTTP/1.1 server that reads each request's body and answers every
//! request with one fixed JSON body. No routing, no JSON parsing, no MCP.
//!
//! ```text
//! hyper-floor 127.0.0.1:8083 BODY_FILE
//! ```
//!
//! `scripts/bench-peers.sh` writes BODY_FILE with the exact bytes roundtrip's `conformance`
//! server answers to the plain `tools/call` of the benchmark, so the floor sends what roundtrip
//! sends, with the same `Content-Type`.

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::CONTENT_TYPE;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// The allocator is the application's choice; `--features mimalloc` is the peer benchmark's
/// `--mimalloc` row (every Rust server of that run built the same way).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(addr), Some(file)) = (args.next(), args.next()) else {
        return Err("usage: hyper-floor ADDR BODY_FILE".into());
    };
    let body = Bytes::from(std::fs::read(&file).map_err(|e| format!("{file}: {e}"))?);
    let listener = TcpListener::bind(&addr).await?;
    eprintln!("hyper-floor serving {} bytes at http://{}/", body.len(), listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let body = body.clone();
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            let body = body.clone();
            async move {
                let _ = request.into_body().collect().await;
                let mut response = Response::new(Full::new(body));
                response
                    .headers_mut()
                    .insert(CONTENT_TYPE, hyper::header::HeaderValue::from_static("application/json"));
                Ok::<_, Infallible>(response)
            }
        });
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}
