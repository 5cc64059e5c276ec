//! The command line and the environment, read into a [`Config`]; every mistake is an error
//! naming the flag or variable.
//!
//! Parsed by hand: a dozen flags do not need a parser crate's compile time, and the help text
//! is written to read well rather than generated.

use std::net::SocketAddr;

/// What to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mode {
    Stdio,
    Http(String),
    /// An AWS Lambda function (no mode flag, and `AWS_LAMBDA_RUNTIME_API` is set).
    Lambda,
    Describe(Format),
    Help,
}

/// `--describe` formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Json,
    Markdown,
}

/// The command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Args {
    pub mode: Mode,
    pub playground: bool,
    pub metrics: Option<SocketAddr>,
    pub allowed_hosts: Vec<String>,
    pub allowed_origins: Vec<String>,
    pub allow_any_host: bool,
    pub trusted_proxies: Vec<String>,
    pub forwarded_header: Option<String>,
    pub identity_header: Option<String>,
    pub limits: Vec<(String, String)>,
    /// `--shutdown-timeout SECS`: [`HttpOptions::shutdown_timeout`](roundtrip_transport::http::HttpOptions::shutdown_timeout).
    pub shutdown_timeout: Option<std::time::Duration>,
}

pub(crate) fn usage(program: &str) -> String {
    format!(
        "usage: {program} --stdio | --http ADDR [--playground] [--metrics ADDR] [--allowed-host NAME]… \
         [--allowed-origin ORIGIN]… [--allow-any-host] [--trusted-proxy CIDR]… [--forwarded-header H] [--identity-header NAME] \
         [--limit NAME=VALUE]… [--shutdown-timeout SECS] | --describe json|markdown | --help

  --stdio               serve MCP on stdin/stdout (logs go to stderr)
  --http ADDR           serve streamable HTTP at http://ADDR/mcp, with /healthz and /readyz beside it
  --playground          also serve the playground page (loopback addresses only)
  --metrics ADDR        serve Prometheus metrics at http://ADDR/metrics
  --allowed-host NAME   a Host name the endpoint answers to (repeat; also ROUNDTRIP_ALLOWED_HOSTS)
  --allowed-origin O    a browser origin accepted, like https://app.example.com (repeat; also
                        ROUNDTRIP_ALLOWED_ORIGINS)
  --allow-any-host      answer any Host name on an address that is not loopback (behind a proxy that
                        checks it; also ROUNDTRIP_ALLOW_ANY_HOST=1); without it or --allowed-host,
                        such an address is refused
  --trusted-proxy CIDR  a reverse proxy whose X-Forwarded-For or Forwarded names the client, like
                        127.0.0.1 or 10.0.0.0/8 (repeat; also ROUNDTRIP_TRUSTED_PROXIES)
  --forwarded-header H  the header the proxies write: x-forwarded-for (default) or forwarded (also
                        ROUNDTRIP_FORWARDED_HEADER)
  --identity-header H   the header in which a trusted proxy names the authenticated caller (also
                        ROUNDTRIP_IDENTITY_HEADER)
  --limit NAME=VALUE    set a limit, like max_streams_per_caller=64, idle_timeout=30s or a rate
                        per caller, tool_rate=30/1m (repeat; also ROUNDTRIP_LIMITS,
                        comma-separated); the names: {limits}
  --shutdown-timeout S  on SIGTERM, wait at most S seconds for the requests in hand (default 20;
                        also ROUNDTRIP_SHUTDOWN_TIMEOUT)
  --describe FORMAT     print the tools, prompts, resources and their questions, then exit
  --help                print this

environment:
  ROUNDTRIP_STATE_KEYS        keys sealing requestState, comma-separated hex or base64 (first seals)
  ROUNDTRIP_TASK_STORE        redis://host:port/db or rediss://…: tasks, used states, the bus in Redis
  ROUNDTRIP_AUTH_ISSUER       require bearer tokens (JWT) of this authorization server …
  ROUNDTRIP_AUTH_RESOURCE     … issued for this endpoint's URL
  ROUNDTRIP_AUTH_SCOPES       scopes every request needs, space-separated
  ROUNDTRIP_ALLOWED_HOSTS     Host names, comma-separated
  ROUNDTRIP_ALLOWED_ORIGINS   browser origins, comma-separated
  ROUNDTRIP_SHUTDOWN_TIMEOUT  seconds to wait for the requests in hand on SIGTERM (default 20)
  RUST_LOG                    log level and filters (default info)
  OTEL_EXPORTER_OTLP_ENDPOINT export traces and metrics by OTLP (with OTEL_EXPORTER_OTLP_PROTOCOL
                              http/protobuf or grpc, OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER, …)",
        limits = crate::limits::NAMES.join(", ")
    )
}

/// Read the command line (without the program name); `on_lambda`: the Lambda runtime started
/// the program (`AWS_LAMBDA_RUNTIME_API` is set), which serves the function unless a flag
/// chooses another mode.
pub(crate) fn parse(args: &[String], on_lambda: bool) -> Result<Args, String> {
    let mut mode = None;
    let mut parsed = Args {
        mode: Mode::Help,
        playground: false,
        metrics: None,
        allowed_hosts: Vec::new(),
        allowed_origins: Vec::new(),
        allow_any_host: false,
        trusted_proxies: Vec::new(),
        forwarded_header: None,
        identity_header: None,
        limits: Vec::new(),
        shutdown_timeout: None,
    };
    let mut rest = args.iter();
    let set = |m: Mode, flag: &str, mode: &mut Option<Mode>| match mode {
        Some(_) => Err(format!("{flag}: choose one of --stdio, --http, --describe and --help")),
        None => {
            *mode = Some(m);
            Ok(())
        }
    };
    while let Some(flag) = rest.next() {
        let mut value = |what: &str| rest.next().cloned().ok_or_else(|| format!("{flag} needs {what}"));
        match flag.as_str() {
            "--stdio" => set(Mode::Stdio, flag, &mut mode)?,
            "--http" => {
                let addr = value("an address, like 127.0.0.1:8080")?;
                set(Mode::Http(addr), flag, &mut mode)?;
            }
            "--describe" => {
                let format = match value("a format, json or markdown")?.as_str() {
                    "json" => Format::Json,
                    "markdown" => Format::Markdown,
                    other => return Err(format!("--describe takes json or markdown, not `{other}`")),
                };
                set(Mode::Describe(format), flag, &mut mode)?;
            }
            "--help" | "-h" => set(Mode::Help, flag, &mut mode)?,
            "--playground" => parsed.playground = true,
            "--metrics" => {
                let addr = value("an address, like 127.0.0.1:9464")?;
                parsed.metrics = Some(
                    addr.parse().map_err(|_| format!("--metrics takes IP:PORT, like 127.0.0.1:9464, not `{addr}`"))?,
                );
            }
            "--allowed-host" => parsed.allowed_hosts.push(value("a host name")?),
            "--allowed-origin" => parsed.allowed_origins.push(value("an origin, like https://app.example.com")?),
            "--allow-any-host" => parsed.allow_any_host = true,
            "--trusted-proxy" => parsed.trusted_proxies.push(value("an address or network, like 10.0.0.0/8")?),
            "--forwarded-header" => parsed.forwarded_header = Some(value("x-forwarded-for or forwarded")?),
            "--identity-header" => parsed.identity_header = Some(value("a header name, like x-authenticated-user")?),
            "--limit" => parsed.limits.push(crate::limits::parse_pair(&value("NAME=VALUE")?)?),
            "--shutdown-timeout" => {
                let secs = value("a number of seconds, like 20")?;
                parsed.shutdown_timeout = Some(seconds(&secs).map_err(|e| format!("--shutdown-timeout {e}"))?);
            }
            other => return Err(format!("unknown flag `{other}` (see --help)")),
        }
    }
    parsed.mode = match mode {
        Some(mode) => mode,
        None if on_lambda => Mode::Lambda,
        None => return Err("choose --stdio, --http ADDR or --describe json|markdown (see --help)".into()),
    };
    if parsed.playground && !matches!(parsed.mode, Mode::Http(_)) {
        return Err("--playground needs --http ADDR".into());
    }
    Ok(parsed)
}

/// A comma-separated list in `name`, when set.
pub(crate) fn env_list(name: &str) -> Option<Vec<String>> {
    let value = std::env::var(name).ok()?;
    Some(value.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect())
}

/// A number of seconds (`20`, `2.5`), at most a day.
pub(crate) fn seconds(value: &str) -> Result<std::time::Duration, String> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && (0.0..=86_400.0).contains(s))
        .map(std::time::Duration::from_secs_f64)
        .ok_or_else(|| format!("takes a number of seconds up to 86400, like 20, not `{value}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Result<Args, String> {
        parse(&line.split_whitespace().map(String::from).collect::<Vec<_>>(), false)
    }

    #[test]
    fn flags() {
        let a = args("--http 0.0.0.0:8080 --metrics 127.0.0.1:9464 --allowed-host mcp.example.com").expect("valid");
        assert_eq!(a.mode, Mode::Http("0.0.0.0:8080".into()));
        assert_eq!(a.metrics, Some("127.0.0.1:9464".parse().expect("an address")));
        assert_eq!(a.allowed_hosts, vec!["mcp.example.com"]);
        assert_eq!(args("--describe markdown").expect("valid").mode, Mode::Describe(Format::Markdown));
        assert_eq!(args("--stdio").expect("valid").mode, Mode::Stdio);
        let on_lambda = |line: &str| parse(&line.split_whitespace().map(String::from).collect::<Vec<_>>(), true);
        assert_eq!(on_lambda("").expect("valid").mode, Mode::Lambda);
        assert_eq!(on_lambda("--stdio").expect("valid").mode, Mode::Stdio);
        assert!(args("").is_err());
        let a = args(
            "--http 0.0.0.0:80 --allow-any-host --trusted-proxy 10.0.0.0/8 --trusted-proxy ::1 \
                      --identity-header x-user --limit max_streams_per_caller=64",
        )
        .expect("valid");
        assert!(a.allow_any_host);
        assert_eq!(a.trusted_proxies, vec!["10.0.0.0/8", "::1"]);
        assert_eq!(a.identity_header.as_deref(), Some("x-user"));
        assert_eq!(a.limits, vec![("max_streams_per_caller".to_owned(), "64".to_owned())]);
        let a = args("--http 127.0.0.1:8080 --shutdown-timeout 2.5").expect("valid");
        assert_eq!(a.shutdown_timeout, Some(std::time::Duration::from_millis(2500)));
    }

    #[test]
    fn mistakes_name_the_flag() {
        for (line, says) in [
            ("", "choose --stdio"),
            ("--http", "--http needs an address"),
            ("--describe yaml", "--describe takes json or markdown, not `yaml`"),
            ("--stdio --http 1.2.3.4:5", "--http: choose one"),
            ("--metrics localhost", "--metrics takes IP:PORT"),
            ("--verbose", "unknown flag `--verbose`"),
            ("--stdio --playground", "--playground needs --http"),
            ("--http 1.2.3.4:5 --limit max_streams", "NAME=VALUE"),
            ("--http 1.2.3.4:5 --limit max_stream=1", "unknown limit `max_stream`"),
            ("--http 1.2.3.4:5 --shutdown-timeout soon", "--shutdown-timeout takes a number of seconds"),
            ("--http 1.2.3.4:5 --shutdown-timeout -1", "--shutdown-timeout takes a number of seconds"),
        ] {
            let e = args(line).expect_err(line);
            assert!(e.contains(says), "{line}: {e}");
        }
    }
}
