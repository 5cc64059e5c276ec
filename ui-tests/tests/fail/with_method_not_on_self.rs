use roundtrip::prelude::*;

struct Inventory;

#[toolset]
impl Inventory {
    #[tool]
    async fn restart(
        &self,
        service: String,
        #[resolve(with = inventory.instances(service))] instance: String,
    ) -> String {
        format!("Restarted {service}/{instance}.")
    }
}

fn main() {}
