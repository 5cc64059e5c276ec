//! RFC 6570 level-1 URI templates (`scheme://{var}/path`): parsing and matching.

use std::fmt;

/// A parsed level-1 template: literal text and `{name}` variables.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UriTemplate {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Var(String),
}

/// Why a template does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TemplateError {
    /// A `{` without its `}`.
    #[error("the `{{` at byte {0} is not closed")]
    Unclosed(usize),
    /// A `}` without its `{`.
    #[error("the `}}` at byte {0} has no `{{`")]
    Unopened(usize),
    /// `{}` or a name with characters outside `[A-Za-z0-9_]`.
    #[error(
        "`{{{0}}}` is not a level-1 variable: use `{{name}}` with letters, digits and `_` (operators such as `+` and `#` are not supported)"
    )]
    BadName(String),
    /// Two variables with nothing between them cannot be told apart.
    #[error("`{{{0}}}` and `{{{1}}}` are adjacent: put literal text between them")]
    Adjacent(String, String),
    /// The same variable twice.
    #[error("`{{{0}}}` appears twice")]
    Duplicate(String),
}

impl UriTemplate {
    /// Parse a template.
    pub fn parse(template: &str) -> Result<Self, TemplateError> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut chars = template.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '{' => {
                    let mut name = String::new();
                    let mut closed = false;
                    for (_, c) in chars.by_ref() {
                        if c == '}' {
                            closed = true;
                            break;
                        }
                        name.push(c);
                    }
                    if !closed {
                        return Err(TemplateError::Unclosed(i));
                    }
                    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                        return Err(TemplateError::BadName(name));
                    }
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    if let Some(Part::Var(prev)) = parts.last() {
                        return Err(TemplateError::Adjacent(prev.clone(), name));
                    }
                    if parts.iter().any(|p| matches!(p, Part::Var(v) if *v == name)) {
                        return Err(TemplateError::Duplicate(name));
                    }
                    parts.push(Part::Var(name));
                }
                '}' => return Err(TemplateError::Unopened(i)),
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(Self { parts })
    }

    /// The variable names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var(v) => Some(v.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// Match a URI; on success, the variables with their (percent-decoded) values.
    ///
    /// A variable matches one or more characters other than `/`, `?` and `#`.
    pub fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let mut rest = uri;
        let mut vars = Vec::new();
        let mut i = 0;
        while i < self.parts.len() {
            match &self.parts[i] {
                Part::Literal(lit) => rest = rest.strip_prefix(lit.as_str())?,
                Part::Var(name) => {
                    let end = match self.parts.get(i + 1) {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    let value = &rest[..end];
                    if value.is_empty() || value.contains(['/', '?', '#']) {
                        return None;
                    }
                    vars.push((name.clone(), percent_decode(value)?));
                    rest = &rest[end..];
                }
            }
            i += 1;
        }
        rest.is_empty().then_some(vars)
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.parts {
            match p {
                Part::Literal(l) => f.write_str(l)?,
                Part::Var(v) => write!(f, "{{{v}}}")?,
            }
        }
        Ok(())
    }
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            // Two hex digits: `from_str_radix` alone would also take a sign (`%+9`).
            let hex = s.get(i + 1..i + 3).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_level_one_templates() {
        let t = UriTemplate::parse("test://template/{id}/data").unwrap();
        assert_eq!(t.matches("test://template/123/data"), Some(vec![("id".into(), "123".into())]));
        assert_eq!(t.matches("test://template//data"), None);
        assert_eq!(t.matches("test://template/1/2/data"), None);
        assert_eq!(t.matches("test://template/123/datax"), None);
        let t = UriTemplate::parse("notes://{id}").unwrap();
        assert_eq!(t.matches("notes://4%202"), Some(vec![("id".into(), "4 2".into())]));
        assert_eq!(t.to_string(), "notes://{id}");
    }

    #[test]
    fn percent_escapes_are_two_hex_digits() {
        // Found by fuzzing: `%+9` was read as a tab (`u8::from_str_radix` takes a leading `+`).
        let t = UriTemplate::parse("notes://{id}").unwrap();
        assert_eq!(t.matches("notes://%+9"), None);
        assert_eq!(t.matches("notes://a%+f"), None);
        assert_eq!(t.matches("notes://%4"), None);
        assert_eq!(t.matches("notes://%2b%2B"), Some(vec![("id".into(), "++".into())]));
    }

    #[test]
    fn rejects_bad_templates() {
        assert_eq!(UriTemplate::parse("a://{id"), Err(TemplateError::Unclosed(4)));
        assert_eq!(UriTemplate::parse("a://id}"), Err(TemplateError::Unopened(6)));
        assert!(matches!(UriTemplate::parse("a://{}"), Err(TemplateError::BadName(_))));
        assert!(matches!(UriTemplate::parse("a://{+x}"), Err(TemplateError::BadName(_))));
        assert!(matches!(UriTemplate::parse("a://{x}{y}"), Err(TemplateError::Adjacent(..))));
        assert!(matches!(UriTemplate::parse("a://{x}/{x}"), Err(TemplateError::Duplicate(_))));
    }
}
