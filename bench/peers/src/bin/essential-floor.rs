//! The essential-work floor: the least any server must do for one leg of a sealed round trip,
//! served over the same bare hyper 1 HTTP/1.1 as `hyper-floor`. It answers the benchmark's
//! `provision` flow (what `peers-load --scenario flow` checks), and per leg does only this:
//!
//! - parses the request body into a typed envelope (borrowed strings, `_meta` skipped as raw
//!   JSON);
//! - leg 1: hashes the pin-sized input with SHA-256 (the rendered question, its schema and the
//!   arguments: what pins the answer to the question and binds the state to the call), seals a
//!   state of the same size as roundtrip's with AES-256-GCM under a fresh random nonce, and
//!   writes the question and the token;
//! - leg 2: decodes and opens the state, hashes the same input and compares it with the sealed
//!   digest, reads the answer, and writes the result;
//! - writes each response of about the same size as roundtrip's, into one buffer.
//!
//! The key is derived once at start, as every server does. No registry, no routing beyond the
//! one tool, no capability checks, no expiry check beyond comparing two integers: what is left
//! out is what a framework adds, and what roundtrip is measured against.
//!
//! ```text
//! essential-floor 127.0.0.1:8084 [--state-bytes N]
//! ```
//!
//! `--state-bytes` is the plaintext size of the sealed state (roundtrip's: `scripts/bench-peers.sh`
//! measures it from one of roundtrip's leg-1 answers and passes it).

use std::borrow::Cow;
use std::convert::Infallible;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use aes_gcm::aead::{AeadInPlace, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce, Tag};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::CONTENT_TYPE;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rand::RngCore;
use serde::Deserialize;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;

#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const PREFIX: &str = "rt1.";
const NONCE: usize = 12;
const TAG: usize = 16;
const TTL_SECS: u64 = 600;
/// The schema of the one question, as roundtrip words it.
const SCHEMA: &str = r#"{"type":"object","properties":{"region":{"type":"string"}},"required":["region"]}"#;
/// Issued and expiry times, then the SHA-256 digest: the part of the plaintext that is not
/// padding.
const CLAIMS: usize = 8 + 8 + 32;

/// A request, typed; strings borrow from the body unless they hold escapes.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    id: &'a RawValue,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: Params<'a>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Params<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    arguments: &'a RawValue,
    #[serde(borrow, default)]
    input_responses: Option<Answers<'a>>,
    #[serde(borrow, default)]
    request_state: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Answers<'a> {
    #[serde(borrow)]
    region: Answer<'a>,
}

#[derive(Deserialize)]
struct Answer<'a> {
    #[serde(borrow)]
    action: Cow<'a, str>,
    #[serde(borrow)]
    content: Option<Region<'a>>,
}

#[derive(Deserialize)]
struct Region<'a> {
    #[serde(borrow)]
    region: Cow<'a, str>,
}

#[derive(Deserialize)]
struct Arguments<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
}

struct Floor {
    cipher: Aes256Gcm,
    state_bytes: usize,
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl Floor {
    /// The digest that pins the answer to the question shown and binds the state to the call.
    fn digest(message: &str, arguments: &RawValue) -> [u8; 32] {
        Sha256::new()
            .chain_update(message)
            .chain_update(SCHEMA)
            .chain_update(arguments.get())
            .finalize()
            .into()
    }

    fn seal(&self, digest: &[u8; 32]) -> Option<String> {
        let mut buf = Vec::with_capacity(NONCE + self.state_bytes + TAG);
        let mut nonce = [0u8; NONCE];
        rand::thread_rng().fill_bytes(&mut nonce);
        buf.extend_from_slice(&nonce);
        let issued = now();
        buf.extend_from_slice(&issued.to_be_bytes());
        buf.extend_from_slice(&(issued + TTL_SECS).to_be_bytes());
        buf.extend_from_slice(digest);
        buf.resize(NONCE + self.state_bytes.max(CLAIMS), 0);
        let tag = self.cipher.encrypt_in_place_detached(Nonce::from_slice(&nonce), PREFIX.as_bytes(), &mut buf[NONCE..]).ok()?;
        buf.extend_from_slice(&tag);
        let mut token = String::with_capacity(PREFIX.len() + base64::encoded_len(buf.len(), false)?);
        token.push_str(PREFIX);
        URL_SAFE_NO_PAD.encode_string(&buf, &mut token);
        Some(token)
    }

    /// The sealed digest, when the token opens and has not expired.
    fn open(&self, token: &str) -> Option<[u8; 32]> {
        let mut buf = URL_SAFE_NO_PAD.decode(token.strip_prefix(PREFIX)?).ok()?;
        if buf.len() < NONCE + CLAIMS + TAG {
            return None;
        }
        let (head, rest) = buf.split_at_mut(NONCE);
        let (plain, tag) = rest.split_at_mut(rest.len() - TAG);
        self.cipher
            .decrypt_in_place_detached(Nonce::from_slice(head), PREFIX.as_bytes(), plain, Tag::from_slice(tag))
            .ok()?;
        let expires = u64::from_be_bytes(plain[8..16].try_into().ok()?);
        if expires < now() {
            return None;
        }
        plain[16..48].try_into().ok()
    }

    fn leg(&self, body: &[u8]) -> Result<String, &'static str> {
        let request: Envelope<'_> = serde_json::from_slice(body).map_err(|_| "not a request")?;
        if request.method != "tools/call" || request.params.name != "provision" {
            return Err("not a provision call");
        }
        let arguments: Arguments<'_> = serde_json::from_str(request.params.arguments.get()).map_err(|_| "no name")?;
        let message = format!("Which region should {} live in?", arguments.name);
        let digest = Self::digest(&message, request.params.arguments);
        let mut out = String::with_capacity(1024);
        let id = request.id.get();
        match (request.params.request_state, request.params.input_responses) {
            (None, _) => {
                let token = self.seal(&digest).ok_or("could not seal")?;
                let _ = write!(
                    out,
                    r#"{{"jsonrpc":"2.0","id":{id},"result":{{"inputRequests":{{"region":{{"method":"elicitation/create","params":{{"mode":"form","message":{},"requestedSchema":{SCHEMA}}}}}}},"requestState":"{token}","resultType":"input_required"}}}}"#,
                    serde_json::to_string(&message).map_err(|_| "message")?,
                );
            }
            (Some(token), Some(answers)) => {
                if self.open(&token) != Some(digest) {
                    return Err("Invalid or expired requestState");
                }
                let region = match (answers.region.action.as_ref(), answers.region.content) {
                    ("accept", Some(c)) => c.region,
                    _ => return Err("declined"),
                };
                let text = format!("Provisioned '{}' in {region}.", arguments.name);
                let _ = write!(
                    out,
                    r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":{}}}],"isError":false,"resultType":"complete"}}}}"#,
                    serde_json::to_string(&text).map_err(|_| "text")?,
                );
            }
            (Some(_), None) => return Err("a state without answers"),
        }
        Ok(out)
    }
}

fn arg(args: &[String], flag: &str) -> Option<String> {
    args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(addr) = args.first().cloned() else {
        return Err("usage: essential-floor ADDR [--state-bytes N]".into());
    };
    let state_bytes = match arg(&args, "--state-bytes") {
        Some(n) => n.parse().map_err(|e| format!("--state-bytes {n}: {e}"))?,
        None => 120,
    };
    let mut secret = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut secret);
    let key: [u8; 32] = Sha256::new().chain_update(b"essential-floor").chain_update(secret).finalize().into();
    let floor = Arc::new(Floor { cipher: Aes256Gcm::new_from_slice(&key)?, state_bytes });
    let listener = TcpListener::bind(&addr).await?;
    eprintln!("essential-floor ({state_bytes} bytes of state) at http://{}/mcp", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let floor = floor.clone();
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            let floor = floor.clone();
            async move {
                let body = request.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
                let (status, out) = match floor.leg(&body) {
                    Ok(out) => (StatusCode::OK, out),
                    Err(why) => (StatusCode::BAD_REQUEST, format!(r#"{{"error":"{why}"}}"#)),
                };
                let mut response = Response::new(Full::new(Bytes::from(out)));
                *response.status_mut() = status;
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
