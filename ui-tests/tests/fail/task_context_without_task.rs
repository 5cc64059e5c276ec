use roundtrip::prelude::*;

#[tool]
async fn backup(database: String, task: TaskContext) -> Result<String, Error> {
    let go = task.ask_as::<bool>(Question::confirm("Overwrite?", "overwrite")).await?;
    Ok(format!("{database}: {go:?}"))
}

fn main() {}
