//! The provision and ops examples document themselves: each tool's arguments, its questions in round
//! order, and their schemas. Review a changed snapshot with `cargo insta review`.

#[test]
fn provision_markdown() {
    insta::assert_snapshot!(roundtrip_examples::provision::server().describe().to_markdown());
}

#[test]
fn provision_json() {
    insta::assert_json_snapshot!(roundtrip_examples::provision::server().describe().to_json());
}

#[test]
fn ops_markdown() {
    insta::assert_snapshot!(roundtrip_examples::ops::server().describe().to_markdown());
}
