use roundtrip::prelude::*;

#[prompt]
async fn review(file: String, task: TaskContext) -> String {
    format!("Review {file} ({:?})", task.task_id())
}

fn main() {}
