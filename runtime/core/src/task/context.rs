//! What a task's body holds: [`TaskContext`], to ask while running and report progress, and
//! the link to its record.

use std::ops::Deref;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::{TaskRecord, Tasks};
use crate::error::Error;
use crate::protocol::{ErrorObject, InputRequest, Notification, TaskProgress, TaskStatus};
use crate::request::{Peer, RequestContext};
use crate::resolve::{Answer, Extract, Question, Resolved, ask_again, interpret};

/// The running body's link to its task.
pub(crate) struct TaskLink {
    pub(crate) id: String,
    tasks: Tasks,
    cancel: CancellationToken,
    /// Woken when this task's record may have changed.
    woken: watch::Receiver<()>,
    /// The latest progress reported: what the finished task shows, whether or not its (spawned)
    /// update landed before the end.
    last_message: Mutex<Option<(String, Option<TaskProgress>)>>,
}

impl std::fmt::Debug for TaskLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskLink").field("id", &self.id).finish_non_exhaustive()
    }
}

impl TaskLink {
    pub(crate) fn new(id: String, tasks: Tasks, cancel: CancellationToken, woken: watch::Receiver<()>) -> Self {
        Self { id, tasks, cancel, woken, last_message: Mutex::new(None) }
    }

    /// The latest progress the body reported, if any.
    pub(crate) fn last_message(&self) -> Option<(String, Option<TaskProgress>)> {
        self.last_message.lock().ok().and_then(|m| m.clone())
    }

    pub(crate) fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Ask `request` under a key not used before in this task (`base`, `base-2`, …) and wait
    /// for its answer. A store that fails meanwhile is tried again (see
    /// [`persist`](Self::persist)).
    async fn ask(&self, base: &str, request: InputRequest) -> Result<Value, Error> {
        let mut woken = self.woken.clone();
        woken.borrow_and_update();
        let chosen: Mutex<Option<String>> = Mutex::new(None);
        let post = |r: &mut TaskRecord| {
            let Ok(mut chosen) = chosen.lock() else { return false };
            // A try that failed for the caller may still have been written (a store that
            // answered too late): the question is then asked already, not asked twice.
            if let Some(key) = chosen.as_ref()
                && (r.pending.contains_key(key) || r.answers.contains_key(key))
            {
                return false;
            }
            let key = std::iter::once(base.to_owned())
                .chain((2..).map(|n| format!("{base}-{n}")))
                .find(|k| !r.used_keys.contains(k))
                .unwrap_or_else(|| base.to_owned());
            r.used_keys.insert(key.clone());
            r.pending.insert(key.clone(), request.clone());
            r.status = TaskStatus::InputRequired;
            *chosen = Some(key);
            true
        };
        self.persist("asking", || self.tasks.store_modify(&self.id, &post)).await?.ok_or_else(gone)?;
        let key = chosen.lock().ok().and_then(|mut c| c.take()).ok_or_else(gone)?;
        let deadline = tokio::time::Instant::now() + self.tasks.options.input_timeout;
        loop {
            let take = |r: &mut TaskRecord| r.answers.remove(&key).is_some();
            let before = self.persist("waiting for an answer", || self.tasks.store_get(&self.id)).await?;
            let record = before.ok_or_else(gone)?;
            if let Some(answer) = record.answers.get(&key).cloned() {
                self.persist("taking an answer", || self.tasks.store_modify(&self.id, &take)).await?;
                return Ok(answer);
            }
            if record.cancel_requested || record.status.is_terminal() {
                return Err(Error::new("the task was cancelled while it waited for an answer"));
            }
            // Wait for a change of this task or cancellation. Changes made in this process wake
            // this task's body directly; an answer given on another replica wakes it through the
            // task's watcher, which looks at the store for it. Nothing else wakes it, so parked
            // tasks do not wake each other.
            // Biased: the same branch wins every time several are ready (a seeded simulation
            // replays exactly).
            tokio::select! {
                biased;
                () = self.cancel.cancelled() => return Err(Error::new("the task was cancelled")),
                woke = woken.changed() => if woke.is_err() {
                    return Err(gone());
                },
                () = tokio::time::sleep_until(deadline) => return Err(self.unanswered(&key).await),
            }
        }
    }

    /// `op` until the store answers it. A store that fails is tried again, after 50 ms doubling
    /// to a second, for as long as the body runs: the task's runner stops the body once its
    /// lease runs out unrenewed, which bounds the wait.
    async fn persist<T, Fut>(&self, what: &str, op: impl Fn() -> Fut) -> Result<T, Error>
    where
        Fut: Future<Output = Result<T, super::StoreError>>,
    {
        let mut backoff = std::time::Duration::from_millis(50);
        let mut warned = false;
        loop {
            match op().await {
                Ok(value) => return Ok(value),
                Err(e) if !warned => {
                    tracing::warn!(target: "roundtrip::task", task = %self.id, "{what}: {e}; trying again");
                    warned = true;
                }
                Err(e) => tracing::debug!(target: "roundtrip::task", task = %self.id, "{what}: {e}; trying again"),
            }
            tokio::select! {
                biased;
                () = self.cancel.cancelled() => return Err(Error::new("the task was stopped")),
                () = tokio::time::sleep(backoff) => {}
            }
            backoff = (backoff * 2).min(std::time::Duration::from_secs(1));
        }
    }

    /// Nobody answered `key` within [`TaskOptions::input_timeout`](super::TaskOptions): the
    /// task fails saying so, and its body is stopped (a parked body holds memory).
    async fn unanswered(&self, key: &str) -> Error {
        let timeout = self.tasks.options.input_timeout;
        let message = format!(
            "nobody answered `{key}` within {} (TaskOptions::input_timeout)",
            humantime::format_duration(timeout)
        );
        let fail = |r: &mut TaskRecord| {
            if r.status.is_terminal() {
                return false;
            }
            r.status = TaskStatus::Failed;
            r.pending.clear();
            r.status_message = Some(message.clone());
            r.error = Some(ErrorObject::limit_reached(
                "input_timeout",
                usize::try_from(timeout.as_secs()).unwrap_or(usize::MAX),
                message.clone(),
            ));
            true
        };
        if let Err(e) = self.tasks.modify(&self.id, &fail).await {
            tracing::warn!(target: "roundtrip::task", task = %self.id, "could not fail an unanswered task: {}", e.message);
        }
        self.cancel.cancel();
        Error::new(message)
    }

    /// The latest progress: its words as the task's status message, its numbers (when there
    /// are any) as the record's progress.
    fn status_message(&self, message: String, progress: Option<TaskProgress>) {
        self.tasks.progressed(&self.id, progress, &message);
        if let Ok(mut last) = self.last_message.lock() {
            *last = Some((message.clone(), progress));
        }
        let tasks = self.tasks.clone();
        let id = self.id.clone();
        self.tasks.spawn_halting(async move {
            let set = |r: &mut TaskRecord| {
                if r.status.is_terminal() {
                    return false;
                }
                r.status_message = Some(message.clone());
                if progress.is_some() {
                    r.progress = progress;
                }
                true
            };
            if let Err(e) = tasks.store_modify(&id, &set).await {
                tracing::debug!(target: "roundtrip::task", task = %id, "status message not recorded: {e}");
            }
        });
    }
}

fn gone() -> Error {
    Error::internal("the task's record is gone (expired or removed)")
}

/// The peer of a task's body: progress becomes the task's status message; other
/// notifications (logs) are not sent on tasks; nothing is asked through it.
pub(crate) struct TaskPeer(pub(crate) Arc<TaskLink>);

impl Peer for TaskPeer {
    fn notify(&self, notification: Notification) {
        if notification.method != "notifications/progress" {
            return;
        }
        let params = notification.params.unwrap_or(Value::Null);
        let message = match (params["message"].as_str(), params["progress"].as_f64(), params["total"].as_f64()) {
            (Some(m), _, _) => m.to_owned(),
            (None, Some(p), Some(t)) => format!("{p} of {t}"),
            (None, Some(p), None) => format!("{p}"),
            _ => return,
        };
        let progress = params["progress"].as_f64().map(|progress| {
            let mut progress = TaskProgress::new(progress);
            progress.total = params["total"].as_f64();
            progress
        });
        self.0.status_message(message, progress);
    }

    fn request(&self, _: &str, _: Value) -> Option<BoxFuture<'static, Result<Value, ErrorObject>>> {
        None
    }

    fn can_request(&self) -> bool {
        false
    }
}

/// The context of a task tool's body: everything a [`RequestContext`] offers (it derefs to
/// one), and [`ask`](Self::ask) to ask while running.
///
/// Declared as a parameter of a `#[tool(task)]` fn; a tool that is not a task cannot take
/// one (compile error). When the call runs as a task, asking moves the task to
/// `input_required` until `tasks/update` answers. When it runs synchronously (a client
/// without the extension calling an optional task tool), a 2025-era session is asked over
/// its back-channel, and a 2026-07-28 client cannot be asked mid-call: `ask` returns an error
/// saying so.
///
/// ```
/// use roundtrip::prelude::*;
///
/// /// Back up a database; asks before overwriting.
/// #[tool(task)]
/// async fn backup(database: String, task: TaskContext) -> Result<String, Error> {
///     task.progress(0.5, Some(1.0), Some("copying"));
///     let overwrite = task.ask_as::<bool>(Question::confirm("Overwrite yesterday's backup?", "overwrite")).await?;
///     Ok(match overwrite {
///         Answer::Accepted(true) => format!("Backed up {database} (overwritten)."),
///         _ => format!("Backed up {database} beside yesterday's."),
///     })
/// }
/// ```
pub struct TaskContext {
    cx: RequestContext,
}

impl std::fmt::Debug for TaskContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskContext").field("task", &self.task_id()).field("cx", &self.cx).finish()
    }
}

impl Deref for TaskContext {
    type Target = RequestContext;

    fn deref(&self) -> &RequestContext {
        &self.cx
    }
}

impl RequestContext {
    /// This context, for a body that runs as `task`: progress becomes the task's status
    /// message, logs are not sent, cancellation follows `tasks/cancel`.
    pub(crate) fn into_task(mut self, link: Arc<TaskLink>) -> Self {
        self.peer = Arc::new(TaskPeer(link.clone()));
        self.cancel = link.cancellation().clone();
        self.task = Some(link);
        self
    }
}

impl From<RequestContext> for TaskContext {
    fn from(cx: RequestContext) -> Self {
        Self { cx }
    }
}

impl TaskContext {
    /// The task's id, when the call runs as a task.
    pub fn task_id(&self) -> Option<&str> {
        self.link().map(|t| t.id.as_str())
    }

    /// The task this body runs as.
    fn link(&self) -> Option<&TaskLink> {
        self.cx.task.as_deref()
    }

    /// Whether [`ask`](Self::ask) can reach the user in this call: it runs as a task, or on a
    /// 2025-era session with a back-channel. A 2026-07-28 client that did not declare the
    /// tasks extension gets the tool run synchronously and cannot be asked mid-call.
    pub fn can_ask(&self) -> bool {
        self.link().is_some() || (!self.cx.version.is_modern() && self.cx.peer.can_request())
    }

    /// Ask `question` and wait for the answer: accepted (the value, checked against the
    /// form), declined or cancelled. An answer that does not fit is asked again, saying why.
    pub async fn ask(&self, question: Question) -> Result<Answer<Value>, Error> {
        let base = match &question.extract {
            Extract::Property(p) => p.clone().into_owned(),
            _ => "input".to_owned(),
        };
        if let Some(property) = question.without_choices() {
            return Err(Error::new(format!(
                "The question `{base}` offers no choices (its `{property}` has none), so it cannot be answered."
            )));
        }
        let mut request = question.request.clone();
        loop {
            let answer = self.send(&base, request.clone()).await?;
            match interpret(&question, &answer) {
                Ok(Resolved::Accepted(v)) => return Ok(Answer::Accepted(v)),
                Ok(Resolved::Declined) => return Ok(Answer::Declined),
                Ok(Resolved::Cancelled) => return Ok(Answer::Cancelled),
                Err(why) => request = ask_again(question.request.clone(), &why),
            }
        }
    }

    /// [`ask`](Self::ask), with the answer as `T`.
    pub async fn ask_as<T: DeserializeOwned>(&self, question: Question) -> Result<Answer<T>, Error> {
        Ok(match self.ask(question).await? {
            Answer::Accepted(v) => Answer::Accepted(
                serde_json::from_value(v)
                    .map_err(|e| Error::internal(format!("an answer did not fit its type: {e}")))?,
            ),
            Answer::Declined => Answer::Declined,
            Answer::Cancelled => Answer::Cancelled,
        })
    }

    /// Ask `request` as it is (an elicitation, a sampling request, a roots request) under a
    /// key made from `key` (`key`, `key-2`, … if this task used it before), and wait for the
    /// client's raw answer, unchecked: for a body that passes on another server's question
    /// (a gateway's). [`ask`](Self::ask) checks answers against a form.
    pub async fn ask_input(&self, key: &str, request: InputRequest) -> Result<Value, Error> {
        self.send(key, request).await
    }

    async fn send(&self, base: &str, request: InputRequest) -> Result<Value, Error> {
        if let Some(link) = self.link() {
            return link.ask(base, request).await;
        }
        if !self.cx.version.is_modern() {
            let params = request.legacy_params(self.cx.version).map_err(Error::rpc)?;
            if let Some(answer) = self.cx.peer.request(request.method(), params) {
                return answer.await.map_err(|e| {
                    Error::rpc(ErrorObject::internal(format!("the client answered with an error: {}", e.message)))
                });
            }
        }
        Err(Error::new(format!(
            "`{}` needs to ask while it runs, which needs a task: this call runs synchronously because the \
             client did not declare the tasks extension ({})",
            self.cx.target(),
            json!(roundtrip_wire::TASKS_EXTENSION)
        )))
    }
}
