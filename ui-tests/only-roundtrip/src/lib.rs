//! A small application that depends on roundtrip alone: its forms, choices and structured
//! output derive `Deserialize`, `Serialize` and `JsonSchema` from roundtrip's prelude, with
//! serde's and schemars' attributes, and no `serde` or `schemars` in its `Cargo.toml`.

use roundtrip::prelude::*;

/// A size to choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "lowercase")]
pub enum Size {
    /// Small.
    #[schemars(title = "Small cup")]
    Small,
    /// Large.
    #[schemars(title = "Large cup")]
    Large,
}

/// An order, asked as one form.
#[derive(Debug, Deserialize, JsonSchema, Elicit)]
pub struct Order {
    /// How many cups.
    #[schemars(range(min = 1, max = 9))]
    pub count: u8,
    /// Which size.
    pub size: Size,
    /// For whom.
    #[serde(default)]
    pub name: Option<String>,
}

/// What was ordered, as structured output.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Receipt {
    /// The order, in words.
    pub summary: String,
    /// Cups in all.
    pub cups: u8,
}

/// Order coffee: asks what, in one form.
#[tool]
pub async fn order(#[resolve(elicit = "What would you like?")] order: Order) -> Json<Receipt> {
    let who = order.name.unwrap_or_else(|| "you".into());
    Json(Receipt { summary: format!("{} {:?} for {who}", order.count, order.size), cups: order.count })
}

/// The server.
pub fn server() -> Server {
    Server::new("coffee", "1.0.0").tools(tools![order])
}
