//! What happens to the tasks of this process, as it happens: every change of a record (the
//! record after it) and every progress report of a body. Nothing is kept or sent unless someone
//! listens ([`Tasks::observe`](super::Tasks::observe)): the test kit does, to record a task's
//! life without polling.

use tokio::sync::broadcast;

use super::TaskRecord;

/// One thing that happened to a task.
#[derive(Debug, Clone, PartialEq)]
#[doc(hidden)]
pub enum Observed {
    /// The record, right after a change.
    Record(Box<TaskRecord>),
    /// The body reported progress.
    Progress { task_id: String, progress: f64, total: Option<f64>, message: Option<String> },
}

/// The channel of [`Observed`] events.
#[derive(Debug, Clone)]
pub(super) struct Events(broadcast::Sender<Observed>);

impl Default for Events {
    fn default() -> Self {
        Self(broadcast::channel(4096).0)
    }
}

impl Events {
    pub(super) fn subscribe(&self) -> broadcast::Receiver<Observed> {
        self.0.subscribe()
    }

    /// Send what `event` makes, if anyone listens (otherwise nothing is built).
    pub(super) fn emit(&self, event: impl FnOnce() -> Observed) {
        if self.0.receiver_count() > 0 {
            let _ = self.0.send(event());
        }
    }
}
