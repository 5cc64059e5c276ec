//! The load driver of `scripts/fleet.sh`: mixed flows through a load balancer, counted per
//! kind of flow and per phase.
//!
//! ```text
//! fleet-load --url http://127.0.0.1:8080/mcp [--flows 6000] [--seconds 120] [--concurrency 24]
//!            [--phase-file PATH] [--min-rate 5]
//! ```
//!
//! Four kinds of flow, each run by its own share of the workers (so that a kind that stalls,
//! as tasks do while Redis is away, does not starve the others): `provision` (one question),
//! `wizard` (two rounds), `backup` (a question, then a task that asks mid-run), all three
//! idempotent, and `confirm_delete` (one question; destructive, not idempotent, so the client
//! never sends it again on its own). Each worker holds one Rust `Client` and runs flows of its
//! kind until the flow budget or the end.
//!
//! Each flow ends as one of: completed (the expected answer); failed visibly (the caller got
//! an error it can act on: the client gave up after its retries and said why); lost (no
//! answer within 30 s, or a wrong one). The rule: idempotent flows are never lost nor failed;
//! a flow that is not idempotent is never lost (a visible failure of a call in flight on a
//! replica that was killed is allowed, and counted).
//!
//! `--phase-file` names a file the orchestrating script writes the current phase into
//! (`steady`, `kill-9`, `rotate-1`, …); it is read every 20 ms, each flow is counted in the
//! phase it started in, and the run ends when the file says `end` (`--seconds` is then only a
//! safety limit: reaching it fails the run). Without it the run is one phase, `steady`, of
//! `--seconds`. Every phase must have started at least `--min-rate` flows per second of its
//! length (the floor, printed beside it): a phase that carried (almost) nothing proves
//! nothing, so it fails the run. (A kind may start none in a phase when its flows are slower
//! than the phase: `backup` flows that wait out a 10 s Redis pause are counted in the phase
//! they started in.)
//!
//! The report goes to stdout, with, for each kind in each phase, how many of its flows ended in
//! a later phase (they ran across the change: a `backup` that waited out the Redis pause); the
//! exit status is 1 if the rule or a floor was broken.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use roundtrip::client::{Client, ClientError};
use roundtrip::protocol::{ElicitAction, ElicitResult, JsonObject};
use serde_json::{Value, json};
use tokio::sync::Mutex;

/// How long a flow may take before it is lost.
const FLOW_DEADLINE: Duration = Duration::from_secs(30);

/// How long a worker waits after a flow failed before it starts the next.
const FAIL_PAUSE: Duration = Duration::from_millis(100);

/// The phase that ends the run.
const END: &str = "end";

struct Options {
    url: String,
    flows: u64,
    seconds: u64,
    concurrency: usize,
    phase_file: Option<String>,
    min_rate: f64,
}

fn options() -> Result<Options, String> {
    let mut o =
        Options { url: String::new(), flows: 6000, seconds: 120, concurrency: 24, phase_file: None, min_rate: 5.0 };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).cloned().ok_or_else(|| format!("{} needs a value", pair[0]))?;
        match pair[0].as_str() {
            "--url" => o.url = value,
            "--flows" => o.flows = value.parse().map_err(|_| "--flows N")?,
            "--seconds" => o.seconds = value.parse::<u64>().map_err(|_| "--seconds N")?.min(3600),
            "--concurrency" => o.concurrency = value.parse::<usize>().map_err(|_| "--concurrency N")?.clamp(1, 512),
            "--phase-file" => o.phase_file = Some(value),
            "--min-rate" => {
                o.min_rate = value.parse::<f64>().ok().filter(|r| r.is_finite() && *r >= 0.0).ok_or("--min-rate R")?;
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    if o.url.is_empty() {
        return Err("usage: fleet-load --url URL [--flows N] [--seconds S] [--concurrency C] [--phase-file PATH] \
                    [--min-rate R]"
            .into());
    }
    Ok(o)
}

/// A kind of flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Provision,
    Wizard,
    Backup,
    ConfirmDelete,
}

impl Kind {
    const ALL: [Kind; 4] = [Kind::Provision, Kind::Wizard, Kind::Backup, Kind::ConfirmDelete];

    fn tool(self) -> &'static str {
        match self {
            Kind::Provision => "provision",
            Kind::Wizard => "wizard",
            Kind::Backup => "backup",
            Kind::ConfirmDelete => "confirm_delete",
        }
    }

    /// Whether the tool is marked idempotent (the client may send it again on its own).
    fn idempotent(self) -> bool {
        !matches!(self, Kind::ConfirmDelete)
    }

    /// The arguments of flow `n`, and the text it must answer.
    fn flow(self, n: u64) -> (Value, String) {
        match self {
            Kind::Provision => (json!({"name": format!("db{n}")}), format!("Provisioned 'db{n}' in eu-west.")),
            Kind::Wizard => (json!({}), "Hello Ada, you are 36.".to_owned()),
            Kind::Backup => (
                json!({"database": format!("db{n}")}),
                format!("Backed up db{n} to backups/eu-west/db{n}.dump (overwritten)."),
            ),
            Kind::ConfirmDelete => (json!({"path": format!("/srv/fleet/{n}")}), format!("Deleted /srv/fleet/{n}.")),
        }
    }
}

/// Counts of one kind in one phase.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    started: u64,
    completed: u64,
    /// The caller got an error it can act on.
    failed: u64,
    /// No answer within the deadline, or a wrong one.
    lost: u64,
    /// Of those that ended, how many ended in a later phase (they ran across its change).
    later: u64,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.started += other.started;
        self.completed += other.completed;
        self.failed += other.failed;
        self.lost += other.lost;
        self.later += other.later;
    }
}

#[derive(Default)]
struct Report {
    by_phase: BTreeMap<String, BTreeMap<Kind, Tally>>,
    errors: Vec<String>,
}

impl Report {
    fn tally(&mut self, phase: &str, kind: Kind, f: impl Fn(&mut Tally)) {
        f(self.by_phase.entry(phase.to_owned()).or_default().entry(kind).or_default());
    }
}

/// The phases seen, in order, with when each began; `None` once the run has ended.
struct Phases {
    seen: Vec<(String, Instant)>,
    ended: Option<Instant>,
}

impl Phases {
    fn current(&self) -> Option<&str> {
        if self.ended.is_some() {
            return None;
        }
        self.last()
    }

    /// The latest phase seen, also once the run has ended.
    fn last(&self) -> Option<&str> {
        self.seen.last().map(|(p, _)| p.as_str())
    }
}

fn answer(message: &str) -> Value {
    if message.starts_with("Which region") {
        json!({"region": "eu-west"})
    } else if message.starts_with("What is your name") {
        json!({"name": "Ada"})
    } else if message.starts_with("How old") {
        json!({"age": 36})
    } else if message.starts_with("Really delete") {
        json!({"confirm": true})
    } else {
        json!({"overwrite": true})
    }
}

async fn client(url: &str) -> Result<Client, ClientError> {
    let client = Client::builder("fleet-load", env!("CARGO_PKG_VERSION"))
        .on_elicit(|params| async move {
            let content: Option<JsonObject> = answer(params.message()).as_object().cloned();
            Ok(ElicitResult::new(ElicitAction::Accept, content))
        })
        .connect_http(url)
        .await?;
    // The retry rule needs to know which tools are idempotent.
    client.list_tools().await?;
    Ok(client)
}

fn read_phase(file: &str) -> Option<String> {
    std::fs::read_to_string(file).ok().map(|p| p.trim().to_owned()).filter(|p| !p.is_empty())
}

/// Follow the phase file every 20 ms until it says `end` (or `limit` passes).
async fn follow_phases(file: String, phases: Arc<std::sync::Mutex<Phases>>, limit: Instant) {
    loop {
        let now = Instant::now();
        // A file being rewritten may read empty: the phase then stays what it was.
        let phase = read_phase(&file);
        if let Ok(mut p) = phases.lock() {
            if phase.as_deref() == Some(END) || now >= limit {
                p.ended = Some(now);
                return;
            }
            let phase = phase.or_else(|| p.seen.is_empty().then(|| "steady".to_owned()));
            if let Some(phase) = phase
                && p.seen.last().is_none_or(|(last, _)| *last != phase)
            {
                p.seen.push((phase, now));
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
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
    let started_at = Instant::now();
    let limit = started_at + Duration::from_secs(o.seconds);
    let phases = Arc::new(std::sync::Mutex::new(Phases { seen: vec![("steady".to_owned(), started_at)], ended: None }));
    let follower = match o.phase_file.clone() {
        Some(file) => {
            if let Ok(mut p) = phases.lock() {
                p.seen.clear();
            }
            Some(tokio::spawn(follow_phases(file, phases.clone(), limit)))
        }
        None => {
            let phases = phases.clone();
            Some(tokio::spawn(async move {
                tokio::time::sleep_until(limit.into()).await;
                if let Ok(mut p) = phases.lock() {
                    p.ended = Some(Instant::now());
                }
            }))
        }
    };
    // The first phase is known before any flow starts.
    while phases.lock().map(|p| p.seen.is_empty() && p.ended.is_none()).unwrap_or(false) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let next = Arc::new(AtomicU64::new(0));
    let retries = Arc::new(AtomicU64::new(0));
    let report = Arc::new(Mutex::new(Report::default()));
    let mut workers = Vec::new();
    for w in 0..o.concurrency {
        let kind = Kind::ALL[w % Kind::ALL.len()];
        let (next, retries, report, phases) = (next.clone(), retries.clone(), report.clone(), phases.clone());
        let (url, flows) = (o.url.clone(), o.flows);
        workers.push(tokio::spawn(async move {
            let mut connected = None;
            while let Some(phase) = phases.lock().ok().and_then(|p| p.current().map(str::to_owned)) {
                let n = next.fetch_add(1, Ordering::SeqCst);
                if n >= flows {
                    break;
                }
                let (arguments, expected) = kind.flow(n);
                report.lock().await.tally(&phase, kind, |t| t.started += 1);
                let outcome = tokio::time::timeout(FLOW_DEADLINE, async {
                    if connected.is_none() {
                        connected = Some(client(&url).await?);
                    }
                    let c = connected.as_ref().ok_or_else(|| ClientError::Protocol("no client".into()))?;
                    c.call_tool(kind.tool(), arguments).await
                })
                .await;
                let tool = kind.tool();
                // Ok, or the error and whether the flow was lost (rather than failed visibly).
                let result = match outcome {
                    Ok(Ok(result)) => {
                        let text = result.content.first().and_then(|c| c.as_text()).unwrap_or_default().to_owned();
                        if text == expected { Ok(()) } else { Err((true, format!("{tool}: a wrong answer `{text}`"))) }
                    }
                    Ok(Err(e)) => Err((false, format!("{tool}: {e}"))),
                    Err(_) => Err((true, format!("{tool}: no answer within {}s", FLOW_DEADLINE.as_secs()))),
                };
                let failed = result.is_err();
                let later = phases.lock().is_ok_and(|p| p.last() != Some(phase.as_str()));
                {
                    let mut report = report.lock().await;
                    if later {
                        report.tally(&phase, kind, |t| t.later += 1);
                    }
                    match result {
                        Ok(()) => report.tally(&phase, kind, |t| t.completed += 1),
                        Err((lost, e)) => {
                            report.tally(&phase, kind, |t| if lost { t.lost += 1 } else { t.failed += 1 });
                            if report.errors.len() < 30 {
                                let what = if lost { "lost" } else { "failed" };
                                report.errors.push(format!("[{phase}] {what}: {e}"));
                            }
                        }
                    }
                }
                if failed {
                    // As a caller told of a failure would: not again within the millisecond
                    // (which would also make the counts of a bad second mean nothing).
                    tokio::time::sleep(FAIL_PAUSE).await;
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
    if let Some(f) = follower {
        f.abort();
    }
    let elapsed = started_at.elapsed();
    let report = report.lock().await;
    let (seen, ended) = match phases.lock() {
        Ok(p) => (p.seen.clone(), p.ended),
        Err(_) => (Vec::new(), None),
    };
    let mut failures: Vec<String> = Vec::new();
    if o.phase_file.is_some() && ended.is_some_and(|e| e >= limit) {
        failures.push(format!("the run reached --seconds {} before the script ended it", o.seconds));
    }
    let mut total = Tally::default();
    let mut kinds: BTreeMap<Kind, Tally> = BTreeMap::new();
    for phase in report.by_phase.values() {
        for (kind, t) in phase {
            total.add(t);
            kinds.entry(*kind).or_default().add(t);
        }
    }
    println!(
        "fleet-load: {} flows started, {} completed, {} failed visibly, {} lost, {} requests or calls retried by \
         the client, in {:.1} s ({:.0} flows/s)",
        total.started,
        total.completed,
        total.failed,
        total.lost,
        retries.load(Ordering::Relaxed),
        elapsed.as_secs_f64(),
        total.completed as f64 / elapsed.as_secs_f64().max(0.001),
    );
    let end = ended.unwrap_or_else(Instant::now);
    for (i, (phase, began)) in seen.iter().enumerate() {
        let until = seen.get(i + 1).map_or(end, |(_, b)| *b);
        let seconds = until.saturating_duration_since(*began).as_secs_f64();
        let floor = (seconds * o.min_rate).floor() as u64;
        let empty = BTreeMap::new();
        let tallies = report.by_phase.get(phase).unwrap_or(&empty);
        let mut sum = Tally::default();
        tallies.values().for_each(|t| sum.add(t));
        let verdict = if sum.started < floor { "  BELOW THE FLOOR" } else { "" };
        println!(
            "  phase {phase:<14} {seconds:>5.1} s  floor {floor:>5}  started {:>6}  completed {:>6}  failed {:>4}  \
             lost {:>4}{verdict}",
            sum.started, sum.completed, sum.failed, sum.lost
        );
        if sum.started < floor {
            failures.push(format!(
                "phase {phase} started {} flows in {seconds:.1} s, under its floor of {floor} ({} per second)",
                sum.started, o.min_rate
            ));
        }
        for kind in Kind::ALL {
            let t = tallies.get(&kind).copied().unwrap_or_default();
            println!(
                "    {:<16}{:>27}  started {:>6}  completed {:>6}  failed {:>4}  lost {:>4}  (ended in a later \
                 phase: {})",
                kind.tool(),
                if kind.idempotent() { "idempotent" } else { "not idempotent" },
                t.started,
                t.completed,
                t.failed,
                t.lost,
                t.later
            );
        }
    }
    for kind in Kind::ALL {
        let t = kinds.get(&kind).copied().unwrap_or_default();
        println!(
            "  flow  {:<16} ({}) started {:>6}  completed {:>6}  failed {:>4}  lost {:>4}",
            kind.tool(),
            if kind.idempotent() { "idempotent" } else { "not idempotent" },
            t.started,
            t.completed,
            t.failed,
            t.lost
        );
        if t.lost > 0 {
            failures.push(format!("{} {} flow(s) lost", t.lost, kind.tool()));
        }
        if kind.idempotent() && t.failed > 0 {
            failures.push(format!("{} idempotent {} flow(s) failed", t.failed, kind.tool()));
        }
        if t.started != t.completed + t.failed + t.lost {
            failures.push(format!("{} flows of {} not accounted for", t.started, kind.tool()));
        }
    }
    for e in &report.errors {
        println!("  {e}");
    }
    if failures.is_empty() {
        println!(
            "fleet-load: rule kept (idempotent flows: 0 lost, 0 failed; others: 0 lost) and every phase over its floor"
        );
        ExitCode::SUCCESS
    } else {
        for f in &failures {
            println!("fleet-load: FAILED: {f}");
        }
        ExitCode::FAILURE
    }
}
