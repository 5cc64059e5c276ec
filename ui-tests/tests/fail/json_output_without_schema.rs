use roundtrip::prelude::*;

#[derive(Serialize)]
struct Forecast {
    celsius: i32,
}

/// Today's forecast.
#[tool]
async fn forecast(city: String) -> Json<Forecast> {
    let _ = city;
    Json(Forecast { celsius: 20 })
}

fn main() {}
