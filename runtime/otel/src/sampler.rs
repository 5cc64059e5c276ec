//! Whose sampled flag counts: a remote parent's `traceparent` flag is the caller's word, and
//! a caller the server does not know must not be able to force its spans out past the
//! sampler.

use opentelemetry::trace::{Link, SpanKind, TraceContextExt as _, TraceId};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::trace::{SamplingResult, ShouldSample};

use roundtrip_core::observe::RemoteCaller;

/// Whose remote parent's sampled flag is followed
/// ([`OtelSettings::trust_remote_sampled`](super::OtelSettings::trust_remote_sampled),
/// `ROUNDTRIP_OTEL_TRUST_REMOTE_SAMPLED`).
///
/// A request's `traceparent` (in `params._meta` or its HTTP headers) says whether the caller
/// sampled its trace, and OpenTelemetry's default sampler (`parentbased_*`) follows it: a
/// parent that says "sampled" is exported, whatever the local sampler's ratio. From a caller
/// the server does not know that is a lever on the server's costs: any client could set the
/// flag on every request and have every span exported with `OTEL_TRACES_SAMPLER_ARG=0`. So by
/// default only an authenticated caller's flag is followed (one whose bearer token was
/// accepted, cargo feature `auth`); for anyone else the local sampler decides as it would for a
/// root span. Either way the server's span keeps the caller's trace and parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TrustRemoteSampled {
    /// Follow the flag of authenticated callers only (the default).
    #[default]
    Authenticated,
    /// Follow every caller's flag (OpenTelemetry's own behaviour): for a server reached only
    /// by callers you trust, e.g. behind a gateway that sets the flag itself.
    All,
    /// Follow no caller's flag: the local sampler decides every request.
    Never,
}

impl TrustRemoteSampled {
    /// From `ROUNDTRIP_OTEL_TRUST_REMOTE_SAMPLED`'s value: `authenticated`, `all` (also `true`,
    /// `1`) or `never` (also `false`, `0`).
    pub fn parse(value: &str) -> Option<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "authenticated" => Some(Self::Authenticated),
            "all" | "true" | "1" => Some(Self::All),
            "never" | "none" | "false" | "0" => Some(Self::Never),
            _ => None,
        }
    }

    fn trusts(self, caller: RemoteCaller) -> bool {
        match self {
            Self::Authenticated => caller.authenticated,
            Self::All => true,
            Self::Never => false,
        }
    }
}

/// A sampler that decides a request's span with a remote parent as [`TrustRemoteSampled`]
/// says, and everything else as `inner` does.
///
/// For a caller whose flag is not followed, `inner` is asked as for a root span (no parent):
/// `parentbased_traceidratio` then decides by its ratio, `always_on` samples. The span still
/// has the caller's trace id and its parent, and keeps its `tracestate`. [`init`](super::init)
/// installs it around the sampler of `OTEL_TRACES_SAMPLER`; with providers of your own
/// ([`enable`](super::enable)), install it yourself:
///
/// ```
/// use opentelemetry_sdk::trace::{Sampler, SdkTracerProvider};
/// use roundtrip::otel::{RemoteParentSampler, TrustRemoteSampled};
///
/// let sampler = Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(0.1)));
/// let provider = SdkTracerProvider::builder()
///     .with_sampler(RemoteParentSampler::new(sampler, TrustRemoteSampled::Authenticated))
///     .build();
/// # drop(provider);
/// ```
#[derive(Debug, Clone)]
pub struct RemoteParentSampler {
    inner: Box<dyn ShouldSample>,
    trust: TrustRemoteSampled,
}

impl RemoteParentSampler {
    /// `inner`, with the remote parents of callers `trust` does not name decided as roots.
    pub fn new(inner: impl Into<Box<dyn ShouldSample>>, trust: TrustRemoteSampled) -> Self {
        Self { inner: inner.into(), trust }
    }
}

impl ShouldSample for RemoteParentSampler {
    fn should_sample(
        &self,
        parent_context: Option<&Context>,
        trace_id: TraceId,
        name: &str,
        span_kind: &SpanKind,
        attributes: &[KeyValue],
        links: &[Link],
    ) -> SamplingResult {
        // Only a request's span has its remote parent as parent: its children have it (a
        // local span) instead, and are decided by their parent as usual.
        let untrusted = parent_context.filter(|cx| {
            cx.get::<RemoteCaller>().is_some_and(|caller| !self.trust.trusts(*caller))
                && cx.span().span_context().is_remote()
        });
        match untrusted {
            Some(cx) => {
                let mut result = self.inner.should_sample(None, trace_id, name, span_kind, attributes, links);
                result.trace_state = cx.span().span_context().trace_state().clone();
                result
            }
            None => self.inner.should_sample(parent_context, trace_id, name, span_kind, attributes, links),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::trace::{SpanContext, SpanId, TraceFlags, TraceState};
    use opentelemetry_sdk::trace::{Sampler, SamplingDecision};

    /// A remote parent that says "sampled", from a caller authenticated or not.
    fn remote(authenticated: Option<bool>) -> Context {
        let parent = SpanContext::new(
            TraceId::from(0x35f7_7337_8add_9455_0314_d897_59df_fb9d),
            SpanId::from(0x8b40_a165_86fb_b490),
            TraceFlags::SAMPLED,
            true,
            TraceState::from_key_value([("vendor", "x")]).expect("a trace state"),
        );
        let cx = Context::new().with_remote_span_context(parent);
        match authenticated {
            Some(authenticated) => cx.with_value(RemoteCaller { authenticated }),
            None => cx,
        }
    }

    fn decide(trust: TrustRemoteSampled, cx: &Context) -> SamplingResult {
        let zero = Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(0.0)));
        let sampler = RemoteParentSampler::new(zero, trust);
        let trace_id = cx.span().span_context().trace_id();
        sampler.should_sample(Some(cx), trace_id, "tools/call x", &SpanKind::Server, &[], &[])
    }

    #[test]
    fn the_flag_counts_only_for_callers_trusted() {
        use SamplingDecision::{Drop, RecordAndSample};
        use TrustRemoteSampled::{All, Authenticated, Never};
        for (trust, authenticated, decision) in [
            (Authenticated, false, Drop),
            (Authenticated, true, RecordAndSample),
            (All, false, RecordAndSample),
            (Never, true, Drop),
        ] {
            let result = decide(trust, &remote(Some(authenticated)));
            assert_eq!(result.decision, decision, "{trust:?}, authenticated: {authenticated}");
            assert_eq!(result.trace_state.get("vendor"), Some("x"), "the caller's tracestate is kept");
        }
        // A parent with no caller noted (not a request's: a span of the application's own).
        assert_eq!(decide(Never, &remote(None)).decision, RecordAndSample);
        assert_eq!(TrustRemoteSampled::parse(" ALL "), Some(All));
        assert_eq!(TrustRemoteSampled::parse("0"), Some(Never));
        assert_eq!(TrustRemoteSampled::parse("maybe"), None);
    }
}
