use roundtrip::prelude::*;

#[derive(Deserialize, JsonSchema, Elicit)]
struct Volume {
    size: u32,
}

async fn volume_form(name: String) -> Resolve<Volume> {
    Resolve::Ask(Question::elicit::<Volume>(format!("Volume for {name}?"), "volume"))
}

#[tool]
async fn create(name: String, #[resolve(with = volume_form(name))] volume: Volume) -> String {
    format!("{name}: {}", volume.size)
}

fn main() {}
