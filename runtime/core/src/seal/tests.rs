use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::json;

use super::*;

fn args(v: Value) -> JsonObject {
    v.as_object().cloned().unwrap_or_default()
}

fn binding<'a>(arguments: &'a JsonObject, principal: Option<&'a str>) -> Binding<'a> {
    Binding { method: "tools/call", target: "t", arguments, principal }
}

#[test]
fn seals_and_unseals() {
    let sealer = Sealer::new(None, "s").expect("default policy");
    let a = args(json!({"b": 1, "a": 2.0}));
    let token = sealer.seal(&binding(&a, Some("alice")), b"state").expect("seals");
    assert!(token.starts_with("rt1."));
    let reordered = args(json!({"a": 2, "b": 1}));
    assert_eq!(sealer.unseal(&binding(&reordered, Some("alice")), &Value::String(token)), Ok(b"state".to_vec()));
}

#[test]
fn empty_server_name_needs_an_audience() {
    assert!(Sealer::new(None, "").is_ok());
    let refused = Sealer::new(Some(RequestStateSecurity::new()), " ");
    assert!(refused.is_err_and(|e| e.0.contains("audience")));
    assert!(Sealer::new(Some(RequestStateSecurity::new().audience("aud")), "").is_ok());
}

#[test]
fn keys_and_codec_are_exclusive() {
    struct Plain;
    impl Codec for Plain {
        fn seal(&self, bytes: &[u8]) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
            Ok(keys::hex(bytes))
        }
        fn unseal(&self, _: &str) -> Result<Vec<u8>, Box<dyn std::error::Error + Send + Sync>> {
            Err("never".into())
        }
    }
    let policy = RequestStateSecurity::new().keys([*b"roundtrip test key 1: not secret"]).codec(Plain);
    assert!(Sealer::new(Some(policy), "s").is_err());
}

#[test]
fn clock_drives_expiry() {
    static NOW: AtomicU64 = AtomicU64::new(10_000);
    let policy = RequestStateSecurity::new()
        .keys([*b"roundtrip test key 3: not secret"])
        .ttl(std::time::Duration::from_secs(30))
        .clock(|| NOW.load(Ordering::SeqCst));
    let sealer = Sealer::new(Some(policy), "s").expect("valid");
    let a = JsonObject::new();
    let token = Value::String(sealer.seal(&binding(&a, None), b"x").expect("seals"));
    NOW.store(10_029, Ordering::SeqCst);
    assert!(sealer.unseal(&binding(&a, None), &token).is_ok());
    NOW.store(10_030, Ordering::SeqCst);
    assert_eq!(sealer.unseal(&binding(&a, None), &token), Err(ErrorObject::invalid_request_state()));
}

#[test]
fn oversized_states_are_not_sealed() {
    let sealer = Sealer::new(None, "s").expect("default");
    let a = JsonObject::new();
    let err = sealer.seal(&binding(&a, None), &vec![0u8; 60 * 1024]).expect_err("too large");
    assert_eq!(err.code, crate::protocol::codes::INVALID_PARAMS);
    assert!(err.message.contains("too large to carry"), "{}", err.message);
    assert_eq!(err.data.as_ref().map(|d| d["limit"].clone()), Some(serde_json::json!("requestState")));
    // The documented size fits; a little more does not.
    assert!(sealer.seal(&binding(&a, None), &vec![0u8; super::MAX_PLAINTEXT]).is_ok());
    assert!(sealer.seal(&binding(&a, None), &vec![0u8; super::MAX_PLAINTEXT + 300]).is_err());
}

#[test]
fn fuzz_entry_point_smoke() {
    for data in [&b""[..], b"rt1.", b"\"rt1.AAAA\"", b"{}", b"12", &[0xff, 0x00, 0x41], &[4u8; 300]] {
        __fuzz_unseal(data);
    }
}
