use roundtrip::prelude::*;

#[tool]
async fn restart(
    service: String,
    #[resolve(with = self.instances(service))] instance: String,
) -> String {
    format!("Restarted {instance}.")
}

fn main() {}
