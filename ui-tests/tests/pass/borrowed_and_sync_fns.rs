use roundtrip::prelude::*;

/// A check that needs no await, borrowing its argument.
fn known(service: &str) -> Result<(), String> {
    if service == "api" { Ok(()) } else { Err(format!("unknown service `{service}`")) }
}

/// A `with` fn that borrows too, and is sync.
fn default_env(service: &str) -> Resolve<String> {
    Resolve::Value(format!("{service}-prod"))
}

/// Deploys, after a sync check and a sync `with` fn, both borrowing.
#[tool(check = known(service))]
async fn deploy(service: String, #[resolve(with = default_env(service))] environment: String) -> String {
    format!("{service} to {environment}")
}

#[derive(Debug, Default)]
struct Ops;

#[toolset]
impl Ops {
    /// A borrowing method used by `with`.
    async fn instance_of(&self, service: &str) -> Resolve<String> {
        Resolve::Value(format!("{service}-1"))
    }

    /// Restarts an instance.
    #[tool]
    async fn restart(&self, service: String, #[resolve(with = self.instance_of(service))] instance: String) -> String {
        format!("{service}: {instance}")
    }
}

fn main() {
    let _ = Server::new("ops", "1").tools(tools![deploy]).toolset(std::sync::Arc::new(Ops));
}
