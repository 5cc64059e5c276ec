//! The load driver of `scripts/fleet.sh`: mixed flows through a load balancer, counted.
//!
//! ```text
//! fleet-load --url http://127.0.0.1:8080/mcp [--flows 6000] [--seconds 120] [--concurrency 24]
//!            [--phase-file PATH]
//! ```
//!
//! Each worker holds one Rust `Client` and runs flows until the flow budget or the deadline:
//! `provision` (one question), `wizard` (two rounds) and `backup` (a question, then a task that
//! asks mid-run), in turn. A flow is lost when the client gives up on it (after its retries) or
//! when it takes longer than 30 s. `--phase-file` names a file the orchestrating script writes
//! the current phase into (`steady`, `kill-9`, `rotate-1`, …); each flow is counted in the phase
//! it started in. The report goes to stdout; the exit status is 1 if any flow was lost.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use roundtrip::client::{Client, ClientError};
use roundtrip::protocol::{ElicitAction, ElicitResult, JsonObject};
use serde_json::{Value, json};
use tokio::sync::Mutex;

struct Options {
    url: String,
    flows: u64,
    seconds: u64,
    concurrency: usize,
    phase_file: Option<String>,
}

fn options() -> Result<Options, String> {
    let mut o = Options { url: String::new(), flows: 6000, seconds: 120, concurrency: 24, phase_file: None };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).cloned().ok_or_else(|| format!("{} needs a value", pair[0]))?;
        match pair[0].as_str() {
            "--url" => o.url = value,
            "--flows" => o.flows = value.parse().map_err(|_| "--flows N")?,
            "--seconds" => o.seconds = value.parse::<u64>().map_err(|_| "--seconds N")?.min(3600),
            "--concurrency" => o.concurrency = value.parse::<usize>().map_err(|_| "--concurrency N")?.clamp(1, 512),
            "--phase-file" => o.phase_file = Some(value),
            other => return Err(format!("unknown option {other}")),
        }
    }
    if o.url.is_empty() {
        return Err(
            "usage: fleet-load --url URL [--flows N] [--seconds S] [--concurrency C] [--phase-file PATH]".into()
        );
    }
    Ok(o)
}

/// Counts of one phase.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    started: u64,
    completed: u64,
    lost: u64,
}

#[derive(Default)]
struct Report {
    phases: BTreeMap<String, Tally>,
    order: Vec<String>,
    kinds: BTreeMap<&'static str, Tally>,
    errors: Vec<String>,
}

impl Report {
    fn tally(&mut self, phase: &str, kind: &'static str, f: impl Fn(&mut Tally)) {
        if !self.phases.contains_key(phase) {
            self.order.push(phase.to_owned());
        }
        f(self.phases.entry(phase.to_owned()).or_default());
        f(self.kinds.entry(kind).or_default());
    }
}

fn answer(message: &str) -> Value {
    if message.starts_with("Which region") {
        json!({"region": "eu-west"})
    } else if message.starts_with("What is your name") {
        json!({"name": "Ada"})
    } else if message.starts_with("How old") {
        json!({"age": 36})
    } else {
        json!({"overwrite": true})
    }
}

async fn client(url: &str) -> Result<Client, ClientError> {
    let client = Client::builder("fleet-load", env!("CARGO_PKG_VERSION"))
        .on_elicit(|params| async move {
            let content: Option<JsonObject> = answer(params.message()).as_object().cloned();
            Ok(ElicitResult { action: ElicitAction::Accept, content })
        })
        .connect_http(url)
        .await?;
    // The retry rule needs to know which tools are idempotent.
    client.list_tools().await?;
    Ok(client)
}

/// One flow: the tool, its arguments and the text it must answer.
fn flow(n: u64) -> (&'static str, Value, String) {
    match n % 3 {
        0 => ("provision", json!({"name": format!("db{n}")}), format!("Provisioned 'db{n}' in eu-west.")),
        1 => ("wizard", json!({}), "Hello Ada, you are 36.".to_owned()),
        _ => (
            "backup",
            json!({"database": format!("db{n}")}),
            format!("Backed up db{n} to backups/eu-west/db{n}.dump (overwritten)."),
        ),
    }
}

fn phase(file: Option<&str>) -> String {
    file.and_then(|f| std::fs::read_to_string(f).ok())
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "steady".to_owned())
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("fleet-load: {e}");
            return ExitCode::from(2);
        }
    };
    let next = Arc::new(AtomicU64::new(0));
    let retries = Arc::new(AtomicU64::new(0));
    let report = Arc::new(Mutex::new(Report::default()));
    let deadline = Instant::now() + Duration::from_secs(o.seconds);
    let started_at = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..o.concurrency {
        let (next, retries, report) = (next.clone(), retries.clone(), report.clone());
        let (url, phase_file, flows) = (o.url.clone(), o.phase_file.clone(), o.flows);
        workers.push(tokio::spawn(async move {
            let mut connected = None;
            loop {
                if Instant::now() >= deadline {
                    break;
                }
                let n = next.fetch_add(1, Ordering::SeqCst);
                if n >= flows {
                    break;
                }
                let (tool, arguments, expected) = flow(n);
                let phase = phase(phase_file.as_deref());
                report.lock().await.tally(&phase, tool, |t| t.started += 1);
                let outcome = tokio::time::timeout(Duration::from_secs(30), async {
                    if connected.is_none() {
                        connected = Some(client(&url).await?);
                    }
                    let c = connected.as_ref().ok_or_else(|| ClientError::Protocol("no client".into()))?;
                    c.call_tool(tool, arguments).await
                })
                .await;
                let result = match outcome {
                    Ok(Ok(result)) => {
                        let text = result.content.first().and_then(|c| c.as_text()).unwrap_or_default().to_owned();
                        if text == expected { Ok(()) } else { Err(format!("{tool}: unexpected answer `{text}`")) }
                    }
                    Ok(Err(e)) => Err(format!("{tool}: {e}")),
                    Err(_) => Err(format!("{tool}: no answer within 30 s")),
                };
                let mut report = report.lock().await;
                match result {
                    Ok(()) => report.tally(&phase, tool, |t| t.completed += 1),
                    Err(e) => {
                        report.tally(&phase, tool, |t| t.lost += 1);
                        if report.errors.len() < 20 {
                            report.errors.push(format!("[{phase}] {e}"));
                        }
                    }
                }
            }
            if let Some(c) = connected {
                retries.fetch_add(c.retries(), Ordering::Relaxed);
            }
        }));
    }
    for w in workers {
        let _ = w.await;
    }
    let elapsed = started_at.elapsed();
    let report = report.lock().await;
    let total = report.phases.values().fold(Tally::default(), |a, t| Tally {
        started: a.started + t.started,
        completed: a.completed + t.completed,
        lost: a.lost + t.lost,
    });
    println!(
        "fleet-load: {} flows started, {} completed, {} lost, {} requests or calls retried by the client, in {:.1} s ({:.0} flows/s)",
        total.started,
        total.completed,
        total.lost,
        retries.load(Ordering::Relaxed),
        elapsed.as_secs_f64(),
        total.completed as f64 / elapsed.as_secs_f64().max(0.001),
    );
    for phase in &report.order {
        let t = report.phases[phase];
        println!("  phase {phase:<12} started {:>6}  completed {:>6}  lost {:>4}", t.started, t.completed, t.lost);
    }
    for (kind, t) in &report.kinds {
        println!("  flow  {kind:<12} started {:>6}  completed {:>6}  lost {:>4}", t.started, t.completed, t.lost);
    }
    for e in &report.errors {
        println!("  lost: {e}");
    }
    if total.lost > 0 || total.completed < total.started { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
