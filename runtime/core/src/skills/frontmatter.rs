//! The YAML frontmatter of a `SKILL.md`: found as the conformance suite finds it (a leading
//! `---` line, the YAML, a closing `---` line; a byte order mark first is ignored), parsed
//! with `serde_yaml_ng` (YAML 1.2 scalars: `2.1` is a number, `"2.1"` a string, `yes` a
//! string), and compared the way a host compares it with a listing.

use serde_json::Value;

use crate::protocol::JsonObject;

/// Why a `SKILL.md` has no usable frontmatter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontmatterError {
    /// The text does not start with a `---` line, or no closing `---` line follows.
    #[error("it does not start with YAML frontmatter (a `---` line, the YAML, then a closing `---` line)")]
    Missing,
    /// The YAML does not parse.
    #[error("its frontmatter is not valid YAML: {0}")]
    Yaml(String),
    /// The YAML is not a mapping.
    #[error("its frontmatter is not a mapping of keys to values")]
    NotAMapping,
}

/// The frontmatter's YAML and the body after it, or `None` when the text has no frontmatter.
///
/// The same as the regular expression `^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)` after a
/// leading byte order mark is stripped.
pub fn split(text: &str) -> Option<(&str, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text.strip_prefix("---")?;
    let rest = rest.strip_prefix("\r\n").or_else(|| rest.strip_prefix('\n'))?;
    let start = text.len() - rest.len();
    let bytes = text.as_bytes();
    let mut i = start;
    while i < bytes.len() {
        let after_newline = if bytes[i..].starts_with(b"\r\n") {
            Some(i + 2)
        } else if bytes[i] == b'\n' {
            Some(i + 1)
        } else {
            None
        };
        if let Some(line) = after_newline
            && text[line..].starts_with("---")
        {
            let mut end = line + 3;
            while end < bytes.len() && (bytes[end] == b' ' || bytes[end] == b'\t') {
                end += 1;
            }
            let body = if end == bytes.len() {
                Some(end)
            } else if bytes[end..].starts_with(b"\r\n") {
                Some(end + 2)
            } else if bytes[end] == b'\n' {
                Some(end + 1)
            } else {
                None
            };
            if let Some(body) = body {
                return Some((&text[start..i], &text[body..]));
            }
        }
        i += 1;
    }
    None
}

/// The frontmatter of `text` as a JSON object, every key of it.
pub fn parse(text: &str) -> Result<JsonObject, FrontmatterError> {
    let (yaml, _) = split(text).ok_or(FrontmatterError::Missing)?;
    match serde_yaml_ng::from_str::<Value>(yaml) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(FrontmatterError::NotAMapping),
        Err(e) => Err(FrontmatterError::Yaml(e.to_string())),
    }
}

/// Whether two frontmatters say the same: every key of either compared, a missing key
/// counting as `null`, numbers by value (`1` equals `1.0`).
pub fn same(a: &JsonObject, b: &JsonObject) -> bool {
    let missing = Value::Null;
    a.keys().chain(b.keys()).all(|k| equal(a.get(k).unwrap_or(&missing), b.get(k).unwrap_or(&missing)))
}

/// The first key whose values differ, for a message.
pub fn first_difference<'a>(a: &'a JsonObject, b: &'a JsonObject) -> Option<&'a str> {
    let missing = Value::Null;
    a.keys()
        .chain(b.keys())
        .find(|k| !equal(a.get(*k).unwrap_or(&missing), b.get(*k).unwrap_or(&missing)))
        .map(String::as_str)
}

fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frontmatter_is_found_as_the_suite_finds_it() {
        assert_eq!(split("---\nname: a\n---\nbody"), Some(("name: a", "body")));
        assert_eq!(split("\u{feff}---\r\nname: a\r\n---  \r\nbody"), Some(("name: a", "body")));
        assert_eq!(split("---\nname: a\n---"), Some(("name: a", "")));
        // The first closing line ends it; `----` is not one.
        assert_eq!(split("---\na: 1\n----\nb: 2\n---\nrest"), Some(("a: 1\n----\nb: 2", "rest")));
        assert_eq!(split("---\n\n---\n"), Some(("", "")));
        assert_eq!(split("no frontmatter"), None);
        assert_eq!(split("---\nname: a\n"), None);
        assert_eq!(split(" ---\nname: a\n---\n"), None);
    }

    #[test]
    fn yaml_scalars_keep_their_json_types() {
        let fm = parse("---\nname: a\ndescription: d\nversion: 2.1\nquoted: \"2.1\"\nflag: yes\nlist: [1, two]\n---\n")
            .expect("parses");
        assert_eq!(
            Value::Object(fm),
            json!({"name": "a", "description": "d", "version": 2.1, "quoted": "2.1", "flag": "yes", "list": [1, "two"]})
        );
        assert_eq!(parse("---\n- a\n---\n"), Err(FrontmatterError::NotAMapping));
        assert!(matches!(parse("---\nname: [a\n---\n"), Err(FrontmatterError::Yaml(_))));
        assert_eq!(parse("# title\n"), Err(FrontmatterError::Missing));
    }

    #[test]
    fn comparison_takes_the_union_of_keys() {
        let obj = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert!(same(&obj(json!({"a": 1, "b": null})), &obj(json!({"a": 1.0}))));
        assert!(!same(&obj(json!({"a": 1})), &obj(json!({"a": 1, "b": 2}))));
        assert!(!same(&obj(json!({"d": "Extract"})), &obj(json!({"d": "Exfiltrate"}))));
        assert_eq!(first_difference(&obj(json!({"d": "x", "n": 1})), &obj(json!({"d": "y", "n": 1}))), Some("d"));
    }
}
