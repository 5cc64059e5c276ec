//! Where telemetry goes: OTLP (HTTP with protobuf, or gRPC) configured by the standard
//! `OTEL_*` variables, and Prometheus text for a scrape endpoint.

use std::fmt;
use std::time::Duration;

use opentelemetry::global;
use opentelemetry::propagation::TextMapCompositePropagator;
use opentelemetry_otlp::{WithExportConfig as _, WithHttpConfig as _, WithTonicConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use opentelemetry_sdk::trace::{Config, SdkTracerProvider};

use super::http_client::ReqwestOnRuntime;
use super::sampler::{RemoteParentSampler, TrustRemoteSampled};

/// The OTLP wire protocol (`OTEL_EXPORTER_OTLP_PROTOCOL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Protocol {
    /// `http/protobuf` (the default): `POST {endpoint}/v1/traces` and `/v1/metrics`.
    #[default]
    HttpProtobuf,
    /// `grpc`.
    Grpc,
}

/// What [`init`] sets up.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct OtelSettings {
    /// Export by OTLP: the endpoint is taken from `OTEL_EXPORTER_OTLP_ENDPOINT` (or the
    /// per-signal `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `..._METRICS_ENDPOINT`) by the exporter.
    pub otlp: bool,
    /// The OTLP protocol.
    pub protocol: Protocol,
    /// Keep metrics for Prometheus to scrape ([`OtelGuard::prometheus_text`]).
    pub prometheus: bool,
    /// `service.name` when `OTEL_SERVICE_NAME` does not say.
    pub service_name: Option<String>,
    /// Whose remote parent's sampled flag is followed (default: authenticated callers' only;
    /// see [`TrustRemoteSampled`] for why). [`init`] wraps the sampler of
    /// `OTEL_TRACES_SAMPLER` in a [`RemoteParentSampler`] that applies it.
    pub trust_remote_sampled: TrustRemoteSampled,
}

/// A setting that cannot be used, naming it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtelError(pub String);

impl fmt::Display for OtelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OtelError {}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

impl OtelSettings {
    /// From the environment: OTLP when an OTLP endpoint variable is set (and
    /// `OTEL_SDK_DISABLED` is not `true`), with the protocol of `OTEL_EXPORTER_OTLP_PROTOCOL`
    /// (`http/protobuf` or `grpc`; `http/json` is not built in). `OTEL_SERVICE_NAME`,
    /// `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER` (and `_ARG`), `OTEL_BSP_*`,
    /// `OTEL_METRIC_EXPORT_INTERVAL` and the other `OTEL_EXPORTER_OTLP_*` variables are read
    /// by the SDK itself. `ROUNDTRIP_OTEL_TRUST_REMOTE_SAMPLED` (`authenticated`, `all` or
    /// `never`) sets [`trust_remote_sampled`](Self::trust_remote_sampled).
    pub fn from_env() -> Result<Self, OtelError> {
        let disabled = env("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let endpoint = [
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
        ]
        .iter()
        .any(|v| env(v).is_some());
        let protocol = match env("OTEL_EXPORTER_OTLP_PROTOCOL").as_deref() {
            None | Some("http/protobuf") => Protocol::HttpProtobuf,
            Some("grpc") => Protocol::Grpc,
            Some(other) => {
                return Err(OtelError(format!(
                    "OTEL_EXPORTER_OTLP_PROTOCOL is `{other}`; roundtrip exports `http/protobuf` or `grpc`"
                )));
            }
        };
        let trust_remote_sampled = match env("ROUNDTRIP_OTEL_TRUST_REMOTE_SAMPLED") {
            None => TrustRemoteSampled::default(),
            Some(value) => TrustRemoteSampled::parse(&value).ok_or_else(|| {
                OtelError(format!(
                    "ROUNDTRIP_OTEL_TRUST_REMOTE_SAMPLED is `{value}`; it takes authenticated, all or never"
                ))
            })?,
        };
        Ok(Self { otlp: endpoint && !disabled, protocol, prometheus: false, service_name: None, trust_remote_sampled })
    }

    /// Whose remote parent's sampled flag is followed (see
    /// [`trust_remote_sampled`](Self::trust_remote_sampled)).
    pub fn with_trust_remote_sampled(mut self, trust: TrustRemoteSampled) -> Self {
        self.trust_remote_sampled = trust;
        self
    }
}

/// The installed providers: flushes and stops them when dropped (or at
/// [`shutdown`](Self::shutdown)), and renders Prometheus text.
pub struct OtelGuard {
    tracer: Option<SdkTracerProvider>,
    meter: Option<SdkMeterProvider>,
    registry: Option<prometheus::Registry>,
}

impl fmt::Debug for OtelGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OtelGuard")
            .field("traces", &self.tracer.is_some())
            .field("metrics", &self.meter.is_some())
            .field("prometheus", &self.registry.is_some())
            .finish()
    }
}

impl OtelGuard {
    /// The metrics in the Prometheus text format (names by the OpenTelemetry-to-Prometheus
    /// rules: `mcp_server_operation_duration_seconds`, labels `mcp_method_name`…), when
    /// [`OtelSettings::prometheus`] was set.
    pub fn prometheus_text(&self) -> Option<String> {
        let registry = self.registry.as_ref()?;
        let mut text = String::new();
        prometheus::TextEncoder::new().encode_utf8(&registry.gather(), &mut text).ok()?;
        Some(text)
    }

    /// Export what is pending and stop exporting.
    pub fn shutdown(&mut self) {
        if let Some(tracer) = self.tracer.take()
            && let Err(e) = tracer.shutdown()
        {
            tracing::warn!(target: "roundtrip::otel", "stopping the trace exporter: {e}");
        }
        if let Some(meter) = self.meter.take()
            && let Err(e) = meter.shutdown()
        {
            tracing::warn!(target: "roundtrip::otel", "stopping the metric exporter: {e}");
        }
    }
}

impl Drop for OtelGuard {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Install the tracer and meter providers that `settings` describe as OpenTelemetry's global
/// ones, W3C trace context and baggage as the global propagator, and [`enable`](super::enable)
/// roundtrip's telemetry. Call it inside a Tokio runtime (the exporters run on it).
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// // OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 OTEL_SERVICE_NAME=provisioner
/// let settings = roundtrip::otel::OtelSettings::from_env()?;
/// let _telemetry = roundtrip::otel::init(settings)?;
/// // … serve; dropping the guard flushes what is pending.
/// # Ok(())
/// # }
/// ```
pub fn init(settings: OtelSettings) -> Result<OtelGuard, OtelError> {
    let mut resource = Resource::builder();
    if env("OTEL_SERVICE_NAME").is_none()
        && let Some(name) = &settings.service_name
    {
        resource = resource.with_service_name(name.clone());
    }
    let resource = resource.build();
    let failed = |what: &str, e: &dyn fmt::Display| OtelError(format!("could not build the OTLP {what} exporter: {e}"));
    let tls = || tonic::transport::ClientTlsConfig::new().with_native_roots();
    let mut guard = OtelGuard { tracer: None, meter: None, registry: None };
    let mut meter = SdkMeterProvider::builder().with_resource(resource.clone());
    if settings.otlp {
        let (spans, metrics) = match settings.protocol {
            Protocol::HttpProtobuf => {
                let client = || {
                    ReqwestOnRuntime::new(Duration::from_secs(10))
                        .ok_or_else(|| OtelError("roundtrip::otel::init runs inside a Tokio runtime".into()))
                };
                let spans = opentelemetry_otlp::SpanExporter::builder()
                    .with_http()
                    .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
                    .with_http_client(client()?)
                    .build()
                    .map_err(|e| failed("trace", &e))?;
                let metrics = opentelemetry_otlp::MetricExporter::builder()
                    .with_http()
                    .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
                    .with_http_client(client()?)
                    .build()
                    .map_err(|e| failed("metric", &e))?;
                (spans, metrics)
            }
            Protocol::Grpc => {
                let spans = opentelemetry_otlp::SpanExporter::builder()
                    .with_tonic()
                    .with_tls_config(tls())
                    .build()
                    .map_err(|e| failed("trace", &e))?;
                let metrics = opentelemetry_otlp::MetricExporter::builder()
                    .with_tonic()
                    .with_tls_config(tls())
                    .build()
                    .map_err(|e| failed("metric", &e))?;
                (spans, metrics)
            }
        };
        // The sampler of `OTEL_TRACES_SAMPLER` (the SDK reads it into its default
        // configuration), deciding untrusted callers' remote parents as roots.
        let sampler = RemoteParentSampler::new(Config::default().sampler, settings.trust_remote_sampled);
        let tracer = SdkTracerProvider::builder()
            .with_resource(resource.clone())
            .with_sampler(sampler)
            .with_batch_exporter(spans)
            .build();
        global::set_tracer_provider(tracer.clone());
        guard.tracer = Some(tracer);
        meter = meter.with_reader(PeriodicReader::builder(metrics).build());
    }
    if settings.prometheus {
        let registry = prometheus::Registry::new();
        let exporter = opentelemetry_prometheus::exporter()
            .with_registry(registry.clone())
            .build()
            .map_err(|e| OtelError(format!("could not build the Prometheus exporter: {e}")))?;
        meter = meter.with_reader(exporter);
        guard.registry = Some(registry);
    }
    if settings.otlp || settings.prometheus {
        let meter = meter.build();
        global::set_meter_provider(meter.clone());
        guard.meter = Some(meter);
    }
    global::set_text_map_propagator(TextMapCompositePropagator::new(vec![
        Box::new(TraceContextPropagator::new()),
        Box::new(BaggagePropagator::new()),
    ]));
    if guard.tracer.is_some() || guard.meter.is_some() {
        super::enable();
    }
    Ok(guard)
}
