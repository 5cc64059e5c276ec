//! `--limit NAME=VALUE` and `ROUNDTRIP_LIMITS`: every limit of the HTTP endpoint and of tasks,
//! by the name of its option ([`HttpOptions`], [`TaskOptions`]).
//!
//! Counts are whole numbers; durations are humantime (`30s`, `10m`, `1h`); a duration that may
//! be switched off (`keep_alive`, `stream_idle_timeout`) also takes `off`. Rates per caller
//! ([`Server::rate_limit`]) are `CALLS/PERIOD` (`30/1m`): `tool_rate` for every tool,
//! `tool_rate:NAME` for the tool `NAME`. The variable holds the same pairs, comma-separated; a
//! flag wins over the variable for the same name.

use std::time::Duration;

use roundtrip_core::server::Server;
use roundtrip_core::task::TaskOptions;
use roundtrip_transport::http::HttpOptions;

/// Every name `--limit` takes, for the help text and for the error on an unknown one.
pub(super) const NAMES: &[&str] = &[
    "max_body_bytes",
    "max_connections",
    "max_in_flight",
    "max_streams",
    "max_streams_per_caller",
    "max_sessions",
    "max_sessions_per_caller",
    "header_read_timeout",
    "idle_timeout",
    "request_body_timeout",
    "session_idle_timeout",
    "stream_idle_timeout",
    "keep_alive",
    "max_tasks",
    "max_tasks_per_caller",
    "task_ttl",
    "task_input_timeout",
    "tool_rate",
    "tool_rate:NAME",
];

/// The prefix of a tool's own rate: `tool_rate:NAME`.
const TOOL_RATE: &str = "tool_rate:";

/// One `NAME=VALUE`, checked for its form (the value is read by [`apply`]).
pub(super) fn parse_pair(pair: &str) -> Result<(String, String), String> {
    let (name, value) = pair
        .split_once('=')
        .ok_or_else(|| format!("--limit takes NAME=VALUE, like max_streams_per_caller=64, not `{pair}`"))?;
    let name = name.trim();
    let tool_rate = name.strip_prefix(TOOL_RATE).is_some_and(|tool| !tool.is_empty());
    if !tool_rate && !NAMES.contains(&name) {
        return Err(format!("--limit: unknown limit `{name}`; the limits are {}", NAMES.join(", ")));
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

/// The pairs of `ROUNDTRIP_LIMITS`, then those of the flags (which win).
pub(super) fn from_env_and_flags(flags: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    if let Ok(value) = std::env::var("ROUNDTRIP_LIMITS") {
        for pair in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            pairs.push(parse_pair(pair).map_err(|e| format!("ROUNDTRIP_LIMITS: {e}"))?);
        }
    }
    pairs.extend(flags.iter().cloned());
    Ok(pairs)
}

/// The task limits of `pairs` applied to `tasks`.
pub(super) fn tasks(pairs: &[(String, String)], mut tasks: TaskOptions) -> Result<TaskOptions, String> {
    for (name, value) in pairs {
        match name.as_str() {
            "max_tasks" => tasks.max_tasks = count(name, value)?,
            "max_tasks_per_caller" => tasks.max_tasks_per_caller = count(name, value)?,
            "task_ttl" => tasks.ttl = duration(name, value)?,
            "task_input_timeout" => tasks.input_timeout = duration(name, value)?,
            _ => {}
        }
    }
    Ok(tasks)
}

/// The rates of `pairs` applied to `server`.
pub(super) fn rates(pairs: &[(String, String)], mut server: Server) -> Result<Server, String> {
    for (name, value) in pairs {
        if name == "tool_rate" {
            let (calls, per) = rate(name, value)?;
            server = server.rate_limit(calls, per);
        } else if let Some(tool) = name.strip_prefix(TOOL_RATE) {
            let (calls, per) = rate(name, value)?;
            server = server.tool_rate_limit(tool, calls, per);
        }
    }
    Ok(server)
}

/// The HTTP limits of `pairs` applied to `options`.
pub(super) fn http(pairs: &[(String, String)], mut options: HttpOptions) -> Result<HttpOptions, String> {
    for (name, value) in pairs {
        match name.as_str() {
            "max_body_bytes" => options.max_body_bytes = count(name, value)?,
            "max_connections" => options.max_connections = count(name, value)?,
            "max_in_flight" => options.max_in_flight = count(name, value)?,
            "max_streams" => options.max_streams = count(name, value)?,
            "max_streams_per_caller" => options.max_streams_per_caller = count(name, value)?,
            "max_sessions" => options.max_sessions = count(name, value)?,
            "max_sessions_per_caller" => options.max_sessions_per_caller = count(name, value)?,
            "header_read_timeout" => options.header_read_timeout = duration(name, value)?,
            "idle_timeout" => options.idle_timeout = duration(name, value)?,
            "request_body_timeout" => options.request_body_timeout = duration(name, value)?,
            "session_idle_timeout" => options.session_idle_timeout = duration(name, value)?,
            "stream_idle_timeout" => options.stream_idle_timeout = optional_duration(name, value)?,
            "keep_alive" => options.keep_alive = optional_duration(name, value)?,
            _ => {}
        }
    }
    Ok(options)
}

fn count(name: &str, value: &str) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("--limit {name}: `{value}` is not a count (a whole number above 0)")),
    }
}

fn duration(name: &str, value: &str) -> Result<Duration, String> {
    match humantime::parse_duration(value) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => Err(format!("--limit {name}: `{value}` is not a duration like 30s, 10m or 1h")),
    }
}

/// `CALLS/PERIOD`: a count and a humantime duration (`30/1m`, `5/10s`).
fn rate(name: &str, value: &str) -> Result<(u32, Duration), String> {
    let form = || format!("--limit {name}: `{value}` is not a rate like 30/1m (calls per period)");
    let (calls, per) = value.split_once('/').ok_or_else(form)?;
    let calls = calls.trim().parse::<u32>().ok().filter(|n| *n > 0).ok_or_else(form)?;
    let per = humantime::parse_duration(per.trim()).ok().filter(|d| !d.is_zero()).ok_or_else(form)?;
    Ok((calls, per))
}

fn optional_duration(name: &str, value: &str) -> Result<Option<Duration>, String> {
    if value.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    duration(name, value).map(Some).map_err(|e| format!("{e}, or off"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[&str]) -> Vec<(String, String)> {
        list.iter().map(|p| parse_pair(p).expect("valid")).collect()
    }

    #[test]
    fn every_limit_is_set_by_its_name() {
        let p = pairs(&[
            "max_body_bytes=1024",
            "max_connections=50",
            "max_in_flight=8",
            "max_streams=9",
            "max_streams_per_caller=3",
            "max_sessions=7",
            "max_sessions_per_caller=2",
            "header_read_timeout=2s",
            "idle_timeout=1m",
            "request_body_timeout=5s",
            "session_idle_timeout=10m",
            "stream_idle_timeout=off",
            "keep_alive=20s",
            "max_tasks=40",
            "max_tasks_per_caller=4",
            "task_ttl=2h",
            "task_input_timeout=90s",
            "tool_rate=30/1m",
            "tool_rate:provision=5/10s",
        ]);
        assert_eq!(p.len(), NAMES.len(), "every name is tried");
        let o = http(&p, HttpOptions::default()).expect("valid");
        assert_eq!((o.max_body_bytes, o.max_connections, o.max_in_flight), (1024, 50, 8));
        assert_eq!((o.max_streams, o.max_streams_per_caller, o.max_sessions, o.max_sessions_per_caller), (9, 3, 7, 2));
        assert_eq!((o.header_read_timeout, o.idle_timeout), (Duration::from_secs(2), Duration::from_secs(60)));
        assert_eq!(o.request_body_timeout, Duration::from_secs(5));
        assert_eq!(o.session_idle_timeout, Duration::from_secs(600));
        assert_eq!((o.stream_idle_timeout, o.keep_alive), (None, Some(Duration::from_secs(20))));
        let t = tasks(&p, TaskOptions::default()).expect("valid");
        assert_eq!((t.max_tasks, t.max_tasks_per_caller), (40, 4));
        assert_eq!((t.ttl, t.input_timeout), (Duration::from_secs(7200), Duration::from_secs(90)));
        assert!(rates(&p, Server::new("s", "1")).is_ok());
        assert_eq!(rate("tool_rate", "30/1m"), Ok((30, Duration::from_secs(60))));
        assert_eq!(rate("tool_rate", " 5 / 10s "), Ok((5, Duration::from_secs(10))));
    }

    #[test]
    fn mistakes_name_the_limit_and_the_form() {
        for (pair, says) in [
            ("max_streams", "NAME=VALUE"),
            ("max_stream=3", "unknown limit `max_stream`"),
            ("tool_rate:=3/1s", "unknown limit `tool_rate:`"),
        ] {
            let e = parse_pair(pair).expect_err(pair);
            assert!(e.contains(says), "{pair}: {e}");
        }
        for (pair, says) in [
            ("max_streams=0", "not a count"),
            ("max_streams=-1", "not a count"),
            ("idle_timeout=soon", "not a duration"),
            ("keep_alive=never", "or off"),
        ] {
            let e = http(&pairs(&[pair]), HttpOptions::default()).expect_err(pair);
            assert!(e.contains(says), "{pair}: {e}");
        }
        for pair in ["tool_rate=30", "tool_rate=0/1m", "tool_rate=3/soon", "tool_rate:t=3/0s", "tool_rate=x/1m"] {
            let e = rates(&pairs(&[pair]), Server::new("s", "1")).expect_err(pair);
            assert!(e.contains("is not a rate like 30/1m"), "{pair}: {e}");
        }
    }
}
