//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a `tools/call` may be
//! answered with a task handle that the client polls (`tasks/get`), answers (`tasks/update`)
//! and cancels (`tasks/cancel`).

use serde::{Deserialize, Serialize};

use super::{ErrorObject, InputRequests, JsonObject, ResultType};

/// The extension's identifier, under `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// `error.data` of a task that failed because the replica running it stopped: a client may
/// start an idempotent call again.
pub const RUNNER_LOST: &str = "taskRunnerLost";

/// The `_meta` key of a `tasks/get` result that carries the body's latest progress as
/// numbers, `{"progress": p, "total": t}` (the extension has no progress notifications; its
/// status message carries only the words). The playground draws its progress bar from it.
pub const TASK_PROGRESS_META: &str = "roundtrip/progress";

/// The latest progress a task's body reported.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskProgress {
    /// How far it is.
    pub progress: f64,
    /// Out of how much, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
}

/// Where a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the answers in `inputRequests`.
    InputRequired,
    /// Done; the result is inlined (a tool's `isError` result too).
    Completed,
    /// Ended by a JSON-RPC error, inlined.
    Failed,
    /// Cancelled before it finished.
    Cancelled,
}

impl TaskStatus {
    /// The wire word: `working`, `input_required`, `completed`, `failed`, `cancelled`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// `completed`, `failed` or `cancelled`: nothing changes any more.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

/// How a tool takes part in the extension (`execution.taskSupport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never a task (the default).
    #[default]
    Forbidden,
    /// A task when the client declared the extension; otherwise run synchronously.
    Optional,
    /// Only as a task: a client without the extension gets `-32021`.
    Required,
}

/// `execution` of a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolExecution {
    /// Whether calls may become tasks.
    pub task_support: TaskSupport,
}

/// A task's state as the wire shows it (the base of `CreateTaskResult`, `tasks/get` and
/// `notifications/tasks`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// Its identifier (unguessable).
    pub task_id: String,
    /// Where it is.
    pub status: TaskStatus,
    /// A word on the current state (progress, why it failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601.
    pub created_at: String,
    /// ISO 8601.
    pub last_updated_at: String,
    /// How long after creation the task is kept, in milliseconds; `null` for unlimited.
    pub ttl_ms: Option<u64>,
    /// How often to poll, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

/// A task with what its status carries: the outstanding questions, the result or the error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DetailedTask {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// While `input_required`: every outstanding question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Once `completed`: the result of the original request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<JsonObject>,
    /// Once `failed`: the JSON-RPC error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
}

/// The answer to a `tools/call` that became a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateTaskResult {
    /// Always `task`.
    pub result_type: TaskResultType,
    /// The task's seed state.
    #[serde(flatten)]
    pub task: Task,
}

/// The `task` discriminator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum TaskResultType {
    /// `"task"`.
    #[default]
    #[serde(rename = "task")]
    Task,
}

/// The answer to `tasks/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetTaskResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// The task and what its status carries.
    #[serde(flatten)]
    pub task: DetailedTask,
    /// `_meta`: the latest progress under [`TASK_PROGRESS_META`], when the body reported one.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// `tasks/get` and `tasks/cancel` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
}

/// `tasks/update` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UpdateTaskParams {
    /// The task.
    pub task_id: String,
    /// Answers to outstanding questions, by key.
    pub input_responses: JsonObject,
}

impl TaskProgress {
    /// `progress` done, of an unknown total.
    pub fn new(progress: f64) -> Self {
        Self { progress, total: None }
    }
}

setters!(TaskProgress { with_total => total = f64 });

impl ToolExecution {
    /// How calls of a tool take part in the tasks extension.
    pub fn new(task_support: TaskSupport) -> Self {
        Self { task_support }
    }
}

impl Task {
    /// A task's handle: its id, status and RFC 3339 times of creation and last change.
    pub fn new(
        task_id: impl Into<String>,
        status: TaskStatus,
        created_at: impl Into<String>,
        last_updated_at: impl Into<String>,
    ) -> Self {
        Self {
            task_id: task_id.into(),
            status,
            status_message: None,
            created_at: created_at.into(),
            last_updated_at: last_updated_at.into(),
            ttl_ms: None,
            poll_interval_ms: None,
        }
    }
}

setters!(Task {
    with_status_message => status_message: String,
    with_ttl_ms => ttl_ms = u64,
    with_poll_interval_ms => poll_interval_ms = u64,
});

impl DetailedTask {
    /// A task with nothing beyond its handle (yet).
    pub fn new(task: Task) -> Self {
        Self { task, input_requests: None, result: None, error: None }
    }
}

setters!(DetailedTask {
    with_input_requests => input_requests: InputRequests,
    with_result => result: JsonObject,
    with_error => error: ErrorObject,
});

impl CreateTaskResult {
    /// The answer to a call that became `task`.
    pub fn new(task: Task) -> Self {
        Self { result_type: TaskResultType::Task, task }
    }
}

impl GetTaskResult {
    /// The answer to `tasks/get`.
    pub fn new(task: DetailedTask) -> Self {
        Self { result_type: ResultType::Complete, task, meta: None }
    }
}

setters!(GetTaskResult { with_meta => meta: JsonObject });

impl TaskIdParams {
    /// Params naming one task.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self { task_id: task_id.into() }
    }
}

impl UpdateTaskParams {
    /// `tasks/update` params: answers for a task waiting on input.
    pub fn new(task_id: impl Into<String>, input_responses: JsonObject) -> Self {
        Self { task_id: task_id.into(), input_responses }
    }
}
