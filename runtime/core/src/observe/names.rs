//! The names of attributes and instruments: those of the OpenTelemetry semantic conventions
//! for MCP (written here rather than taken from `opentelemetry-semantic-conventions`, whose MCP
//! constants are deprecated there since the conventions moved to their own repository), and
//! roundtrip's own under the `roundtrip.` prefix.

use crate::protocol::Method;

// The conventions'.
pub const MCP_METHOD_NAME: &str = "mcp.method.name";
pub const MCP_PROTOCOL_VERSION: &str = "mcp.protocol.version";
pub const MCP_SESSION_ID: &str = "mcp.session.id";
pub const MCP_RESOURCE_URI: &str = "mcp.resource.uri";
pub const GEN_AI_TOOL_NAME: &str = "gen_ai.tool.name";
pub const GEN_AI_PROMPT_NAME: &str = "gen_ai.prompt.name";
pub const GEN_AI_OPERATION_NAME: &str = "gen_ai.operation.name";
pub const JSONRPC_REQUEST_ID: &str = "jsonrpc.request.id";
pub const RPC_RESPONSE_STATUS_CODE: &str = "rpc.response.status_code";
pub const ERROR_TYPE: &str = "error.type";
pub const NETWORK_TRANSPORT: &str = "network.transport";
pub const NETWORK_PROTOCOL_NAME: &str = "network.protocol.name";
pub const NETWORK_PROTOCOL_VERSION: &str = "network.protocol.version";
pub const CLIENT_ADDRESS: &str = "client.address";

pub const SERVER_OPERATION_DURATION: &str = "mcp.server.operation.duration";
pub const CLIENT_OPERATION_DURATION: &str = "mcp.client.operation.duration";

// roundtrip's: a leg of a multi-round flow.
/// The leg's round: 0 for a first leg, n for the leg that answers the n-th round of questions.
pub const ROUND: &str = "roundtrip.round";
pub const QUESTIONS_ASKED: &str = "roundtrip.questions.asked";
pub const QUESTIONS_ANSWERED: &str = "roundtrip.questions.answered";
pub const REASKED: &str = "roundtrip.questions.reasked";
pub const STATE_BYTES: &str = "roundtrip.state.bytes";
/// Why a `requestState` was refused (`expired`, `tampered`, `wrong_binding`…): on the span and
/// the metric only, never on the wire.
pub const STATE_REJECTED: &str = "roundtrip.state.rejected";
pub const TASK_ID: &str = "roundtrip.task.id";
pub const TASK_STATUS: &str = "roundtrip.task.status";
pub const LIMIT: &str = "roundtrip.limit";
pub const FLOW_OUTCOME: &str = "roundtrip.flow.outcome";
/// What befell an event of the fleet's bus: `published`, `received`, `duplicate`,
/// `unreadable`, `unheld` (a registration of what this replica does not hold), `dropped`
/// (queued beyond the bus's limit) or `outage` (the bus stopped delivering).
pub const BUS_EVENT: &str = "roundtrip.bus.event";

pub const FLOWS: &str = "roundtrip.server.flows";
pub const FLOW_ROUNDS: &str = "roundtrip.server.flow.rounds";
pub const REASKS: &str = "roundtrip.server.reasks";
pub const STATES_REFUSED: &str = "roundtrip.server.states.refused";
pub const TASKS: &str = "roundtrip.server.tasks";
pub const TASK_DURATION: &str = "roundtrip.server.task.duration";
pub const LIMITS: &str = "roundtrip.server.limits";
pub const CLIENT_FLOWS: &str = "roundtrip.client.flows";
pub const BUS_EVENTS: &str = "roundtrip.server.bus.events";

/// The conventions' bucket boundaries for the operation histograms, in seconds.
pub const DURATION_BUCKETS: [f64; 14] =
    [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];

/// What a label or attribute says for a value the server did not declare and the protocol does
/// not name: a tool or prompt the server has not registered, a method MCP does not define, a
/// protocol version it does not know. It is the value the OpenTelemetry semantic conventions
/// use for a value outside a known set (as for `http.request.method`), and it keeps the
/// number of series bounded by what the server declared, whatever its callers send.
pub const OTHER: &str = "_OTHER";

/// The longest span name, in bytes. A name is `{method} {target}` with a declared target, so
/// it is short unless a declaration's name is not: 256 bytes holds any sensible tool or prompt
/// name and keeps a span's name from carrying a caller's payload.
pub const MAX_NAME_BYTES: usize = 256;

pub use super::{MAX_ATTRIBUTE_BYTES, capped};

/// `method` as a label: itself when MCP defines it ([`Method`]: both eras, the extensions
/// roundtrip serves), else [`OTHER`].
pub fn method_label(method: &str) -> &'static str {
    Method::parse(method).map_or(OTHER, Method::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_bounded() {
        assert_eq!(method_label("tools/call"), "tools/call");
        assert_eq!(method_label("tools/call2"), OTHER);
        assert_eq!(method_label(&"x".repeat(1 << 20)), OTHER);
        assert_eq!(capped("héllo", 2), "h", "cut on a character boundary");
        assert_eq!(capped("héllo", 3), "hé");
        assert_eq!(capped("short", MAX_NAME_BYTES), "short");
        assert_eq!(capped(&"x".repeat(1 << 20), MAX_ATTRIBUTE_BYTES).len(), MAX_ATTRIBUTE_BYTES);
    }
}
