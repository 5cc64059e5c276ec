//! The provision example documents itself: each tool's arguments, its questions in round
//! order, and their schemas. Review a changed snapshot with `cargo insta review`.

#[test]
fn provision_markdown() {
    insta::assert_snapshot!(roundtrip_examples::provision::server().describe().to_markdown());
}

#[test]
fn provision_json() {
    insta::assert_json_snapshot!(roundtrip_examples::provision::server().describe().to_json());
}
