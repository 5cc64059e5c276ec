//! URI templates (`roundtrip::server::uri_template`, from roundtrip-wire): arbitrary templates, and arbitrary URIs against
//! them.
//!
//! The input is text: the first line is a template, the rest a URI; the lines of the rest are
//! also values for the template's variables. Checked:
//! - parsing never panics, and a template that parses prints back to its own text;
//! - matching an arbitrary URI never panics, and a match names the template's variables in
//!   order with non-empty values, and is stable: the values, expanded again, match again and
//!   come back the same (where the expansion is unambiguous);
//! - expanding a template with values (every byte percent-encoded, or RFC 6570 simple
//!   expansion) gives a URI that matches and yields the values back, unless a value's encoding
//!   contains the literal text that follows its variable (then the match is ambiguous);
//! - percent-decoding agrees with a strict RFC 3986 decoder (`%` and two hex digits).
//!
//! `cd fuzz && cargo fuzz run -s none uri_template corpus/uri_template -- -max_total_time=60`

#![no_main]

use libfuzzer_sys::fuzz_target;
use roundtrip::server::uri_template::UriTemplate;

/// The template's parts, from its printed form: literal text and variable names.
#[derive(Debug, Clone, PartialEq)]
enum Part {
    Literal(String),
    Var(String),
}

fn parts(template: &UriTemplate) -> Vec<Part> {
    let text = template.to_string();
    let mut parts = Vec::new();
    let mut rest = text.as_str();
    while !rest.is_empty() {
        match rest.find('{') {
            Some(0) => {
                let end = rest.find('}').expect("a parsed template closes its variables");
                parts.push(Part::Var(rest[1..end].to_owned()));
                rest = &rest[end + 1..];
            }
            Some(i) => {
                parts.push(Part::Literal(rest[..i].to_owned()));
                rest = &rest[i..];
            }
            None => {
                parts.push(Part::Literal(rest.to_owned()));
                rest = "";
            }
        }
    }
    parts
}

/// Every byte as `%XX`.
fn encode_all(value: &str) -> String {
    value.bytes().map(|b| format!("%{b:02X}")).collect()
}

/// RFC 6570 simple string expansion: unreserved characters as they are, the rest `%XX`.
fn encode_simple(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => char::from(b).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The template expanded with `values` (by variable, in order) encoded by `encode`; `None`
/// when the match of the result would be ambiguous: a value's encoding holds the literal text
/// that follows its variable.
fn expand(parts: &[Part], values: &[String], encode: fn(&str) -> String) -> Option<String> {
    let mut uri = String::new();
    let mut next_value = values.iter();
    for (i, part) in parts.iter().enumerate() {
        match part {
            Part::Literal(l) => uri.push_str(l),
            Part::Var(_) => {
                let encoded = encode(next_value.next()?);
                if let Some(Part::Literal(next)) = parts.get(i + 1) {
                    let joined = format!("{encoded}{next}");
                    if joined.find(next.as_str()) != Some(encoded.len()) {
                        return None;
                    }
                }
                uri.push_str(&encoded);
            }
        }
    }
    Some(uri)
}

/// A strict RFC 3986 percent-decoder; `None` for a malformed escape or bytes that are not
/// UTF-8.
fn strict_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = |b: u8| char::from(b).to_digit(16);
            let (hi, lo) = (hex(*bytes.get(i + 1)?)?, hex(*bytes.get(i + 2)?)?);
            out.push(u8::try_from(hi * 16 + lo).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn check_match(template: &UriTemplate, parts: &[Part], uri: &str) {
    let Some(vars) = template.matches(uri) else { return };
    let names: Vec<&str> = template.variables().collect();
    let got: Vec<&str> = vars.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(got, names, "a match names the template's variables in order");
    assert!(vars.iter().all(|(_, v)| !v.is_empty()), "a variable matches one or more characters: {vars:?}");
    // Stable: the values, expanded again, match again and come back the same.
    let values: Vec<String> = vars.into_iter().map(|(_, v)| v).collect();
    for encode in [encode_all as fn(&str) -> String, encode_simple] {
        if let Some(again) = expand(parts, &values, encode) {
            let back: Option<Vec<String>> = template.matches(&again).map(|v| v.into_iter().map(|(_, v)| v).collect());
            assert_eq!(back.as_ref(), Some(&values), "{template} expanded to {again:?}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (template_text, rest) = text.split_once('\n').unwrap_or((text, ""));

    // Parsing: never panics; what parses prints back to itself.
    if let Ok(template) = UriTemplate::parse(template_text) {
        assert_eq!(template.to_string(), template_text, "a template prints back to its text");
        assert_eq!(UriTemplate::parse(&template.to_string()).as_ref(), Ok(&template));
        let parts = parts(&template);

        // An arbitrary URI: whole, and each line of it.
        check_match(&template, &parts, rest);
        for line in rest.lines() {
            check_match(&template, &parts, line);
        }

        // Expansion with the lines as values matches and yields them back.
        let mut values: Vec<String> = rest.lines().filter(|l| !l.is_empty()).map(str::to_owned).collect();
        let vars = template.variables().count();
        while values.len() < vars {
            values.push(format!("v{}", values.len()));
        }
        values.truncate(vars);
        for encode in [encode_all as fn(&str) -> String, encode_simple] {
            if let Some(uri) = expand(&parts, &values, encode) {
                let back: Option<Vec<String>> = template.matches(&uri).map(|v| v.into_iter().map(|(_, v)| v).collect());
                assert_eq!(back.as_ref(), Some(&values), "{template} expanded to {uri:?}");
            }
        }
    }

    // Percent-decoding agrees with a strict decoder: one variable that takes the whole rest.
    if let Ok(single) = UriTemplate::parse("t://{v}") {
        let line = rest.lines().next().unwrap_or("");
        let uri = format!("t://{line}");
        let expected = (!line.is_empty() && !line.contains(['/', '?', '#']))
            .then(|| strict_decode(line))
            .flatten()
            .map(|v| vec![("v".to_owned(), v)]);
        assert_eq!(single.matches(&uri), expected, "the match of {uri:?}");
    }
});
