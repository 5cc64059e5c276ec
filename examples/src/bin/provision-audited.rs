//! The `provision` example with one interceptor: it counts the requests it sees and the legs
//! that asked a question, and does nothing else. It is what the least audit costs, which
//! `scripts/bench-peers.sh --intercepted` measures beside the plain server.
//!
//! ```text
//! provision-audited --http 127.0.0.1:8080
//! ```

use std::sync::atomic::{AtomicU64, Ordering};

use roundtrip::server::{Call, Interceptor};

/// Counts, per process.
#[derive(Default)]
struct Counted {
    requests: AtomicU64,
    asked: AtomicU64,
}

impl Interceptor for Counted {
    fn after(&self, call: &Call) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        if call.asked() {
            self.asked.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn main() -> std::process::ExitCode {
    roundtrip::cli::run(roundtrip_examples::provision::server().intercept(Counted::default()))
}
