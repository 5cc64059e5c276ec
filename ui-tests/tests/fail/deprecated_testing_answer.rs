#![deny(deprecated)]

// An application written before `testing::Answer` was renamed `Scripted`: the old name still
// builds, with a warning naming the new one (denied here, to show it).
fn main() {
    let server = roundtrip::Server::new("old", "1");
    let _ = roundtrip::testing::TestKit::new(server).script("slot", roundtrip::testing::Answer::Decline);
}
