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
}

pub(crate) fn usage(program: &str) -> String {
    format!(
        "usage: {program} --stdio | --http ADDR [--playground] [--metrics ADDR] [--allowed-host NAME]… \
         [--allowed-origin ORIGIN]… | --describe json|markdown | --help

  --stdio               serve MCP on stdin/stdout (logs go to stderr)
  --http ADDR           serve streamable HTTP at http://ADDR/mcp, with /healthz and /readyz beside it
  --playground          also serve the playground page (loopback addresses only)
  --metrics ADDR        serve Prometheus metrics at http://ADDR/metrics
  --allowed-host NAME   a Host name the endpoint answers to (repeat; also ROUNDTRIP_ALLOWED_HOSTS)
  --allowed-origin O    a browser origin accepted, like https://app.example.com (repeat; also
                        ROUNDTRIP_ALLOWED_ORIGINS)
  --describe FORMAT     print the tools, prompts, resources and their questions, then exit
  --help                print this

environment:
  ROUNDTRIP_STATE_KEYS        keys sealing requestState, comma-separated hex or base64 (first seals)
  ROUNDTRIP_TASK_STORE        redis://host:port/db or rediss://…: tasks and used states in Redis
  ROUNDTRIP_AUTH_ISSUER       require bearer tokens (JWT) of this authorization server …
  ROUNDTRIP_AUTH_RESOURCE     … issued for this endpoint's URL
  ROUNDTRIP_AUTH_SCOPES       scopes every request needs, space-separated
  ROUNDTRIP_ALLOWED_HOSTS     Host names, comma-separated
  ROUNDTRIP_ALLOWED_ORIGINS   browser origins, comma-separated
  RUST_LOG                    log level and filters (default info)
  OTEL_EXPORTER_OTLP_ENDPOINT export traces and metrics by OTLP (with OTEL_EXPORTER_OTLP_PROTOCOL
                              http/protobuf or grpc, OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER, …)"
    )
}

/// Read the command line (without the program name).
pub(crate) fn parse(args: &[String]) -> Result<Args, String> {
    let mut mode = None;
    let mut parsed = Args {
        mode: Mode::Help,
        playground: false,
        metrics: None,
        allowed_hosts: Vec::new(),
        allowed_origins: Vec::new(),
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
            other => return Err(format!("unknown flag `{other}` (see --help)")),
        }
    }
    parsed.mode = mode.ok_or("choose --stdio, --http ADDR or --describe json|markdown (see --help)")?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Result<Args, String> {
        parse(&line.split_whitespace().map(String::from).collect::<Vec<_>>())
    }

    #[test]
    fn flags() {
        let a = args("--http 0.0.0.0:8080 --metrics 127.0.0.1:9464 --allowed-host mcp.example.com").expect("valid");
        assert_eq!(a.mode, Mode::Http("0.0.0.0:8080".into()));
        assert_eq!(a.metrics, Some("127.0.0.1:9464".parse().expect("an address")));
        assert_eq!(a.allowed_hosts, vec!["mcp.example.com"]);
        assert_eq!(args("--describe markdown").expect("valid").mode, Mode::Describe(Format::Markdown));
        assert_eq!(args("--stdio").expect("valid").mode, Mode::Stdio);
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
        ] {
            let e = args(line).expect_err(line);
            assert!(e.contains(says), "{line}: {e}");
        }
    }
}
