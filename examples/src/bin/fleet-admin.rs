//! An operator's process on a fleet: it registers and removes the `provision` example's held
//! tool (`maintenance_notice`) through the fleet's Redis bus while the replicas serve, as an
//! administration job would. It serves nothing itself: it is a `Server` built as the replicas
//! are, on the same bus, whose run-time registrations every replica makes too.
//!
//! ```text
//! fleet-admin --redis redis://127.0.0.1:6379/ [--toggles 21] [--every-ms 100]
//! ```
//!
//! Adds the tool, removes it, adds it… `--toggles` times (an odd count leaves it added), one
//! change every `--every-ms`, then waits until the bus has sent every change (at most 30 s:
//! exit status 1 beyond) and says what it did.

use std::process::ExitCode;
use std::time::Duration;

use roundtrip::prelude::*;
use roundtrip::redis::RedisBus;
use roundtrip_examples::provision;

#[tokio::main]
async fn main() -> ExitCode {
    let (mut redis, mut toggles, mut every) = (None, 21_u32, Duration::from_millis(100));
    let mut args = std::env::args().skip(1);
    while let (Some(flag), Some(value)) = (args.next(), args.next()) {
        match (flag.as_str(), value.parse::<u64>()) {
            ("--redis", _) => redis = Some(value),
            ("--toggles", Ok(n)) => toggles = u32::try_from(n).unwrap_or(u32::MAX),
            ("--every-ms", Ok(ms)) => every = Duration::from_millis(ms),
            _ => return usage(),
        }
    }
    let Some(redis) = redis else { return usage() };
    let bus = match RedisBus::connect(&redis).await {
        Ok(bus) => std::sync::Arc::new(bus),
        Err(e) => {
            eprintln!("fleet-admin: {e}");
            return ExitCode::FAILURE;
        }
    };
    let server = provision::server().bus(bus.clone());
    for i in 0..toggles {
        if i % 2 == 0 {
            if let Err(e) = server.add_tools(tools![provision::maintenance_notice]) {
                eprintln!("fleet-admin: {e}");
                return ExitCode::FAILURE;
            }
        } else {
            server.remove_tool("maintenance_notice");
        }
        tokio::time::sleep(every).await;
    }
    for _ in 0..300 {
        if bus.pending() == 0 {
            let last = if toggles % 2 == 1 { "added" } else { "removed" };
            println!("fleet-admin: {toggles} changes of maintenance_notice sent, the last: {last}");
            return ExitCode::SUCCESS;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    eprintln!("fleet-admin: {} changes still unsent after 30 s", bus.pending());
    ExitCode::FAILURE
}

fn usage() -> ExitCode {
    eprintln!("usage: fleet-admin --redis URL [--toggles N] [--every-ms MS]");
    ExitCode::from(2)
}
