//! Message templates with `{placeholders}` naming arguments or resolved parameters.

use serde_json::Value;

/// A piece of a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Literal text.
    Lit(&'static str),
    /// The value of a parameter.
    Ref(&'static str),
}

/// A parsed template (the macro parses and checks it at compile time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Template(pub &'static [Part]);

impl Template {
    /// The parameters it refers to.
    pub fn refs(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0.iter().filter_map(|p| match p {
            Part::Ref(r) => Some(*r),
            Part::Lit(_) => None,
        })
    }

    /// Render with known values; `None` if a referenced value is not known yet.
    pub fn render<'v>(&self, known: &impl Fn(&str) -> Option<&'v Value>) -> Option<String> {
        // Sized once for the text and a short value in each placeholder (growing from empty
        // reallocated on most messages).
        let capacity = self.0.iter().map(|p| if let Part::Lit(l) = p { l.len() } else { 16 }).sum();
        let mut out = String::with_capacity(capacity);
        for part in self.0 {
            match part {
                Part::Lit(l) => out.push_str(l),
                Part::Ref(r) => display(known(r)?, &mut out),
            }
        }
        Some(out)
    }

    /// The template as written, `{name}` for each placeholder.
    pub fn source(&self) -> String {
        self.0
            .iter()
            .map(|p| match p {
                Part::Lit(l) => l.replace('{', "{{").replace('}', "}}"),
                Part::Ref(r) => format!("{{{r}}}"),
            })
            .collect()
    }
}

/// How a value shows in a message: strings as they are, numbers and booleans as written, a
/// one-property object as its property, anything else as compact JSON; `null` (a declined
/// answer) as nothing.
pub fn display(value: &Value, out: &mut String) {
    match value {
        Value::Null => {}
        Value::String(s) => out.push_str(s),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Object(o) if o.len() == 1 => {
            if let Some(v) = o.values().next() {
                display(v, out);
            }
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn renders_values_by_their_display_rule() {
        let t =
            Template(&[Part::Lit("Put "), Part::Ref("name"), Part::Lit(" in "), Part::Ref("region"), Part::Lit("?")]);
        let name = json!("db");
        let region = json!({"region": "eu-west"});
        let known = |k: &str| match k {
            "name" => Some(&name),
            "region" => Some(&region),
            _ => None,
        };
        assert_eq!(t.render(&known).as_deref(), Some("Put db in eu-west?"));
        assert_eq!(t.render(&|_: &str| None), None);
        assert_eq!(t.source(), "Put {name} in {region}?");
        let mut s = String::new();
        display(&json!([1, 2]), &mut s);
        display(&json!(2.5), &mut s);
        display(&json!(null), &mut s);
        assert_eq!(s, "[1,2]2.5");
    }
}
