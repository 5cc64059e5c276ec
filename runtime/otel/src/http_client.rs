//! OTLP over HTTP through roundtrip's own reqwest client (the one that speaks TLS and trusts the
//! system's roots), instead of `opentelemetry-otlp`'s, which would bring a second reqwest.
//!
//! The SDK's batch processor exports from a thread of its own, where no Tokio runtime runs: the
//! request is spawned on the runtime that built the exporter, and its answer awaited from there.

use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};

/// The largest export response read (the SDK's own clients use the same bound).
const MAX_RESPONSE_BYTES: usize = 4 * 1024 * 1024;

#[derive(Debug, Clone)]
pub(crate) struct ReqwestOnRuntime {
    client: reqwest::Client,
    runtime: tokio::runtime::Handle,
}

impl ReqwestOnRuntime {
    /// A client whose requests run on the current Tokio runtime; `None` outside one.
    pub(crate) fn new(timeout: std::time::Duration) -> Option<Self> {
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let client = roundtrip_tls::http_client(|b| b.timeout(timeout));
        Some(Self { client, runtime })
    }
}

async fn send(client: reqwest::Client, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
    let (parts, body) = request.into_parts();
    let uri = parts.uri.to_string();
    let mut response = client.request(parts.method, uri).headers(parts.headers).body(body).send().await?;
    let status = response.status();
    let headers = std::mem::take(response.headers_mut());
    let mut bytes = bytes::BytesMut::new();
    while let Some(chunk) = response.chunk().await? {
        if bytes.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err("the collector's answer is over 4 MiB".into());
        }
        bytes.extend_from_slice(&chunk);
    }
    let mut answer = Response::builder().status(status).body(bytes.freeze())?;
    *answer.headers_mut() = headers;
    Ok(answer)
}

#[async_trait::async_trait]
impl HttpClient for ReqwestOnRuntime {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        self.runtime.spawn(send(self.client.clone(), request)).await?
    }
}
