//! A result serialized once for the wire, with room in front for the response around it.
//!
//! For speed: a result used to be serialized into a `Box<RawValue>` (serde_json's buffer
//! grown from 128 bytes, then shrunk into the box) and copied into the response body after a
//! pass that measured it. Here it is written once, into a buffer the thread keeps, with
//! [`ROOM`] bytes kept in front, and copied out at its size. The response's opening
//! (`{"jsonrpc":"2.0","id":…,"result":`) goes into that room when it is sent: the body is the
//! copy itself.

#[cfg(feature = "http")]
use bytes::{Buf, Bytes};
use serde::Serialize;
use serde_json::value::RawValue;

#[cfg(feature = "http")]
use crate::protocol::RequestId;

/// Bytes kept in front of a result: `{"jsonrpc":"2.0","id":` and `,"result":` take 32, so an
/// id of up to 48 bytes (a quoted UUID takes 38) is written in place; a longer one costs a
/// copy of the result.
const ROOM: usize = 80;

/// The first capacity of the buffer: most results (a text, a question and its state) fit.
const FIRST_CAPACITY: usize = 1024;

/// The largest buffer a thread keeps between results.
const KEPT_CAPACITY: usize = 64 * 1024;

thread_local! {
    /// Where each thread serializes results; the buffer is kept for the next one.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The text of a result (the `result` member of a response), serialized from its typed form.
#[derive(Clone)]
pub struct ResultJson {
    /// [`ROOM`] spaces, then the result's JSON text; its capacity is one byte more, for the
    /// closing brace of the message around it.
    text: String,
}

impl ResultJson {
    /// `value` serialized.
    pub(crate) fn serialize<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Self> {
        Self::serialize_with_state(value, None)
    }

    /// `value`, an object, serialized, with `"requestState":"{token}"` added at its end when
    /// there is a token.
    ///
    /// For speed:
    /// - A sealed token is written as it is. It is base64url after an ASCII prefix, with
    ///   nothing to escape, and serde_json would look at each of its few hundred bytes for
    ///   something to escape.
    /// - The result is written into a buffer the thread keeps, then copied out at its size
    ///   (and a byte for the message's closing brace): a body made of a full vector is taken
    ///   as it is, where one with room left allocates to be shared.
    pub(crate) fn serialize_with_state<T: Serialize + ?Sized>(
        value: &T,
        state: Option<&str>,
    ) -> serde_json::Result<Self> {
        SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
            Ok(mut buf) => {
                let written = Self::write(&mut buf, value, state);
                if buf.capacity() > KEPT_CAPACITY {
                    *buf = Vec::new();
                }
                written
            }
            // Serialized from inside a serialization: a buffer of its own.
            Err(_) => Self::write(&mut Vec::new(), value, state),
        })
    }

    fn write<T: Serialize + ?Sized>(buf: &mut Vec<u8>, value: &T, state: Option<&str>) -> serde_json::Result<Self> {
        buf.clear();
        buf.reserve(FIRST_CAPACITY);
        buf.resize(ROOM, b' ');
        serde_json::to_writer(&mut *buf, value)?;
        if let Some(token) = state {
            debug_assert!(token.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)), "{token}");
            debug_assert!(buf.ends_with(b"}"), "a result object");
            buf.pop();
            if !buf.ends_with(b"{") {
                buf.push(b',');
            }
            buf.extend_from_slice(br#""requestState":""#);
            buf.extend_from_slice(token.as_bytes());
            buf.extend_from_slice(b"\"}");
        }
        let mut text = Vec::with_capacity(buf.len() + 1);
        text.extend_from_slice(buf);
        // serde_json writes UTF-8 only; the check is one quick pass.
        let text = String::from_utf8(text).map_err(|e| serde::ser::Error::custom(e.utf8_error()))?;
        Ok(Self { text })
    }

    /// The result's JSON text.
    pub fn get(&self) -> &str {
        &self.text[ROOM..]
    }

    /// The whole response message `{"jsonrpc":"2.0","id":…,"result":…}` answering `id`,
    /// written around the result where it lies.
    #[cfg(feature = "http")]
    #[doc(hidden)]
    pub fn into_message(self, id: &RequestId) -> Bytes {
        let mut head = [0u8; ROOM];
        let mut room: &mut [u8] = &mut head;
        let fits = write_head(&mut room, id).is_ok();
        let len = ROOM - room.len();
        let mut buf = self.text.into_bytes();
        if !fits {
            // An id too long for the room: the message is written anew. A `RequestId` is a
            // string or a number, which serialize without fail.
            let mut message = Vec::with_capacity(buf.len() + 64);
            let _ = write_head(&mut message, id);
            message.extend_from_slice(&buf[ROOM..]);
            message.push(b'}');
            return Bytes::from(message);
        }
        buf[ROOM - len..ROOM].copy_from_slice(&head[..len]);
        buf.push(b'}');
        let mut bytes = Bytes::from(buf);
        bytes.advance(ROOM - len);
        bytes
    }

    /// As a `RawValue`, for a serializer to write as it is (checked by one scan).
    pub(crate) fn as_raw(&self) -> Option<&RawValue> {
        serde_json::from_str(self.get()).ok()
    }
}

/// `{"jsonrpc":"2.0","id":<id>,"result":`, the opening of a response around a result.
#[cfg(feature = "http")]
fn write_head(w: &mut impl std::io::Write, id: &RequestId) -> std::io::Result<()> {
    w.write_all(br#"{"jsonrpc":"2.0","id":"#)?;
    serde_json::to_writer(&mut *w, id)?;
    w.write_all(br#","result":"#)
}

impl From<&RawValue> for ResultJson {
    fn from(raw: &RawValue) -> Self {
        let mut text = String::with_capacity(ROOM + raw.get().len() + 1);
        text.extend(std::iter::repeat_n(' ', ROOM));
        text.push_str(raw.get());
        Self { text }
    }
}

impl std::fmt::Debug for ResultJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ResultJson").field(&self.get()).finish()
    }
}

impl Serialize for ResultJson {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.as_raw() {
            Some(raw) => raw.serialize(s),
            None => Err(serde::ser::Error::custom("a result that is not JSON")),
        }
    }
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn message(id: RequestId, result: &Value) -> Value {
        let bytes = ResultJson::serialize(result).expect("serializes").into_message(&id);
        serde_json::from_slice(&bytes).expect("a JSON message")
    }

    #[test]
    fn the_message_is_written_around_the_result_for_every_kind_of_id() {
        let result = json!({"content": [{"type": "text", "text": "héllo \"quoted\""}], "isError": false});
        for id in [
            RequestId::Number(7),
            RequestId::Number(-123456789012),
            RequestId::String("a".into()),
            RequestId::String("6f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f".into()),
            // Longer than the room in front: written anew.
            RequestId::String("x".repeat(200)),
            RequestId::String("\"\\\u{1}".into()),
        ] {
            let expected = json!({"jsonrpc": "2.0", "id": id, "result": result});
            assert_eq!(message(id, &result), expected);
        }
    }

    #[test]
    fn a_result_larger_than_the_first_buffer_is_whole() {
        let result = json!({"text": "y".repeat(5000)});
        assert_eq!(message(RequestId::Number(1), &result)["result"], result);
        let json = ResultJson::serialize(&result).unwrap();
        assert_eq!(serde_json::from_str::<Value>(json.get()).unwrap(), result);
        assert_eq!(serde_json::to_value(&json).unwrap(), result);
    }

    #[test]
    fn a_state_is_added_at_the_end_of_the_object() {
        let result = json!({"resultType": "input_required", "n": 1});
        let json = ResultJson::serialize_with_state(&result, Some("rt1.AbC-_9")).unwrap();
        let read: Value = serde_json::from_str(json.get()).unwrap();
        assert_eq!(read, json!({"resultType": "input_required", "n": 1, "requestState": "rt1.AbC-_9"}));
        let empty = ResultJson::serialize_with_state(&json!({}), Some("rt1.x")).unwrap();
        assert_eq!(empty.get(), r#"{"requestState":"rt1.x"}"#);
    }

    #[test]
    fn a_raw_value_reads_the_same() {
        let raw = serde_json::value::to_raw_value(&json!([1, {"a": null}])).unwrap();
        let json = ResultJson::from(&*raw);
        assert_eq!(json.get(), raw.get());
        assert_eq!(&message(RequestId::Number(2), &json!([1, {"a": null}]))["result"], &json!([1, {"a": null}]));
    }
}
