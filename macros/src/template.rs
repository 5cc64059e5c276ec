//! `{placeholder}` templates, parsed at compile time.

use roundtrip_wire::uri_template::UriTemplate;

/// A piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Lit(String),
    Ref(String),
}

/// Parse a template; the error says what to write instead.
pub fn parse(source: &str) -> Result<Vec<Piece>, String> {
    let mut parts = Vec::new();
    let mut lit = String::new();
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                lit.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                lit.push('}');
            }
            '{' => {
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => name.push(c),
                        None => {
                            return Err(format!(
                                "unclosed placeholder `{{{name}`: close it with `}}`, or write `{{{{` for a literal brace"
                            ));
                        }
                    }
                }
                let name = name.trim().to_owned();
                let ident = name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_alphanumeric() || c == '_');
                if !ident {
                    return Err(format!(
                        "`{{{name}}}` is not a placeholder: write `{{parameter_name}}`, or `{{{{` for a literal brace"
                    ));
                }
                if !lit.is_empty() {
                    parts.push(Piece::Lit(std::mem::take(&mut lit)));
                }
                parts.push(Piece::Ref(name));
            }
            '}' => return Err("unmatched `}`: write `}}` for a literal brace".into()),
            c => lit.push(c),
        }
    }
    if !lit.is_empty() {
        parts.push(Piece::Lit(lit));
    }
    Ok(parts)
}

pub fn refs(pieces: &[Piece]) -> impl Iterator<Item = &str> {
    pieces.iter().filter_map(|p| match p {
        Piece::Ref(r) => Some(r.as_str()),
        Piece::Lit(_) => None,
    })
}

/// The variables of an RFC 6570 level-1 URI template (`scheme://{var}/…`), by the grammar the
/// runtime matches URIs with (`roundtrip::server::uri_template`).
pub fn uri_variables(source: &str) -> Result<Vec<String>, String> {
    let template = UriTemplate::parse(source).map_err(|e| e.to_string())?;
    Ok(template.variables().map(str::to_owned).collect())
}
