//! Canonical JSON for the arguments digest: object keys sorted (by UTF-8 bytes), no whitespace,
//! integer-valued numbers written as integers (`2.0` ≡ `2`, `-0.0` ≡ `0`), strings with the
//! minimal escaping. Two argument objects that mean the same digest the same.

use serde_json::{Number, Value};
use sha2::{Digest, Sha256};

use crate::protocol::JsonObject;

/// SHA-256 of the canonical form of `arguments`, written straight into the digest (the
/// arguments are digested on every leg that seals or opens a state; a copy of their text was
/// an allocation each time).
pub(crate) fn arguments_digest(arguments: &JsonObject) -> [u8; 32] {
    let mut out = Sha256::new();
    write_object(arguments, &mut out);
    out.finalize().into()
}

/// Where canonical text goes: a buffer, or straight into a digest.
trait Out: std::io::Write {
    fn push(&mut self, byte: u8) {
        self.put(&[byte]);
    }

    fn put(&mut self, bytes: &[u8]);
}

impl Out for Vec<u8> {
    fn push(&mut self, byte: u8) {
        Vec::push(self, byte);
    }

    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

impl Out for Sha256 {
    fn put(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }
}

/// The canonical text of `value`.
#[cfg(test)]
pub(crate) fn canonical(value: &Value) -> String {
    let mut out = Vec::new();
    write_value(value, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn write_value(value: &Value, out: &mut impl Out) {
    match value {
        Value::Null => out.put(b"null"),
        Value::Bool(true) => out.put(b"true"),
        Value::Bool(false) => out.put(b"false"),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(item, out);
            }
            out.push(b']');
        }
        Value::Object(map) => write_object(map, out),
    }
}

fn write_object(map: &JsonObject, out: &mut impl Out) {
    write_map(map.iter(), out);
}

/// An object from its entries in any order. serde_json's default map iterates in key order
/// already; sort only when the entries are not (e.g. with its `preserve_order` feature).
fn write_map<'a, I>(entries: I, out: &mut impl Out)
where
    I: Iterator<Item = (&'a String, &'a Value)> + Clone,
{
    out.push(b'{');
    let mut keys = entries.clone().map(|(k, _)| k.as_bytes());
    let sorted =
        keys.next().is_none_or(|first| keys.try_fold(first, |prev, key| (prev < key).then_some(key)).is_some());
    if sorted {
        write_entries(entries, out);
    } else {
        let mut sorted: Vec<(&String, &Value)> = entries.collect();
        sorted.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        write_entries(sorted.into_iter(), out);
    }
    out.push(b'}');
}

fn write_entries<'a>(entries: impl Iterator<Item = (&'a String, &'a Value)>, out: &mut impl Out) {
    for (i, (key, value)) in entries.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_string(key, out);
        out.push(b':');
        write_value(value, out);
    }
}

/// -2^63 and 2^64 as f64 (both exact).
const I64_MIN_F: f64 = -9_223_372_036_854_775_808.0;
const U64_END_F: f64 = 18_446_744_073_709_551_616.0;

fn write_number(n: &Number, out: &mut impl Out) {
    // Writing to a Vec or a digest cannot fail.
    let _ = if let Some(i) = n.as_i64() {
        write!(out, "{i}")
    } else if let Some(u) = n.as_u64() {
        write!(out, "{u}")
    } else if let Some(f) = n.as_f64()
        && f.is_finite()
        && f.fract() == 0.0
        && (I64_MIN_F..U64_END_F).contains(&f)
    {
        // Exact: an integer-valued f64 in this range converts to i128 without rounding.
        #[allow(clippy::cast_possible_truncation)]
        let i = f as i128;
        write!(out, "{i}")
    } else {
        // Shortest round-trip form (ryu), deterministic for a given f64.
        write!(out, "{n}")
    };
}

fn write_string(s: &str, out: &mut impl Out) {
    out.push(b'"');
    // Only ASCII bytes are ever escaped, and no byte of a multi-byte UTF-8 sequence is ASCII:
    // copy the runs between escapes whole.
    let bytes = s.as_bytes();
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..0x20 => b"",
            _ => continue,
        };
        out.put(&bytes[run..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.put(escape);
        }
        run = i + 1;
    }
    out.put(&bytes[run..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn obj(v: Value) -> JsonObject {
        match v {
            Value::Object(m) => m,
            _ => JsonObject::new(),
        }
    }

    #[test]
    fn key_order_and_number_form_do_not_matter() {
        let a: Value = serde_json::from_str(r#"{"b":1,"a":2.0}"#).expect("json");
        let b: Value = serde_json::from_str(r#"{ "a" : 2, "b" : 1 }"#).expect("json");
        assert_eq!(canonical(&a), r#"{"a":2,"b":1}"#);
        assert_eq!(arguments_digest(&obj(a)), arguments_digest(&obj(b)));
    }

    #[test]
    fn nested_and_edge_numbers() {
        let v: Value =
            serde_json::from_str(r#"{"z":[{"y":-0.0,"x":1e3},0.5,1.5e300],"a":"q\"\u0001é"}"#).expect("json");
        assert_eq!(canonical(&v), "{\"a\":\"q\\\"\\u0001é\",\"z\":[{\"x\":1000,\"y\":0},0.5,1.5e+300]}");
        let big: Value = serde_json::from_str("[18446744073709551615, 1152921504606846976.0, 1e20]").expect("json");
        assert_eq!(canonical(&big), "[18446744073709551615,1152921504606846976,1e+20]");
    }

    #[test]
    fn entries_out_of_order_are_sorted() {
        let (a, b, c) = ("a".to_owned(), "b".to_owned(), "é".to_owned());
        let (one, two) = (json!(1), json!(2.0));
        let entries = [(&c, &one), (&b, &two), (&a, &one)];
        let mut out = Vec::new();
        write_map(entries.iter().copied(), &mut out);
        assert_eq!(String::from_utf8_lossy(&out), r#"{"a":1,"b":2,"é":1}"#);
    }

    #[test]
    fn the_digest_written_into_sha256_is_the_digest_of_the_canonical_text() {
        let long = "é\"x".repeat(150);
        let cases = [
            json!({}),
            json!({"a": 1}),
            json!({"name": "orders", "n": 2.0}),
            json!({"long": long, "after": [1, 2, {"z": null, "y": long}]}),
            json!({"k": "x".repeat(246), "l": "y".repeat(256), "m": "z".repeat(769)}),
            Value::Object((0..200).map(|i| (format!("key{i}"), json!(i))).collect()),
        ];
        for case in cases {
            let text = canonical(&case);
            assert_eq!(arguments_digest(&obj(case)), <[u8; 32]>::from(Sha256::digest(text.as_bytes())), "{text}");
        }
    }

    #[test]
    fn different_values_differ() {
        let digest = |v: Value| arguments_digest(&obj(v));
        assert_ne!(digest(json!({"a": 1})), digest(json!({"a": 2})));
        assert_ne!(digest(json!({"a": 1})), digest(json!({"a": "1"})));
        assert_ne!(digest(json!({"a": 1.5})), digest(json!({"a": 1})));
        assert_ne!(digest(json!({"a": [1, 2]})), digest(json!({"a": [2, 1]})));
        assert_ne!(digest(json!({"a,": 1})), digest(json!({"a": ",1"})));
        assert_eq!(digest(json!({})), digest(json!({})));
    }
}
