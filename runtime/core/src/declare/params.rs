//! What a resolved parameter's type must be, per resolver kind. Each trait explains itself
//! at the parameter's type when it is not implemented.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::protocol::{CreateMessageResult, RequestedSchema, Root};
use crate::resolve::Consent;

/// A type that can be asked for with `elicit`: a flat struct (derive [`Elicit`]), a
/// primitive, or a unit-variant enum (derive [`Elicit`]). Its form is generated from its
/// [`FormSchema`] (schemars 1's `JsonSchema`), which asking for it needs too: a bound of its
/// own rather than a supertrait, so that a type deriving another `JsonSchema` (schemars 0.8's)
/// gets one error, where it is asked for, saying which schemars roundtrip needs.
///
/// [`Elicit`]: crate::declare::Elicit
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be elicited: it is not a flat form",
    label = "not a flat form",
    note = "use String, bool, an integer or a float; or `#[derive(Deserialize, JsonSchema, Elicit)]` on a struct of such fields or on an enum of unit variants"
)]
pub trait Elicit: DeserializeOwned {
    /// A primitive or enum: asked as a one-property form named after the parameter.
    const SINGLE: bool;
    /// That one property may be left out (an `Option` of a primitive or enum).
    const OPTIONAL: bool = false;
}

/// `Option<String>`, `Option<u32>`, `Option<MyEnum>`…: a one-property form whose property is
/// not required; leaving it empty gives `None`.
impl<T: Elicit + FormField> Elicit for Option<T> {
    const SINGLE: bool = true;
    const OPTIONAL: bool = true;
}

/// A type whose JSON schema roundtrip can read: schemars 1.x's `JsonSchema` (the prelude's
/// derive reaches it through roundtrip). An elicited type's form is generated from it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no JSON schema roundtrip can read: it needs schemars 1.x's `JsonSchema`",
    label = "needs JsonSchema (schemars 1.x)",
    note = "derive the prelude's `JsonSchema` (`use roundtrip::prelude::*`; it reaches schemars 1 through roundtrip), or schemars 1.x's; a `JsonSchema` derived from schemars 0.8 (an older `schemars` in your Cargo.toml) is another trait, which roundtrip cannot use"
)]
pub trait FormSchema: JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: JsonSchema + ?Sized> FormSchema for T {}

/// A type that can be one field of an elicitation form.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a form field: elicitation forms are flat",
    label = "not text, a number, a boolean or an enum choice",
    note = "a form field is String, bool, an integer, a float, a unit-variant enum deriving Elicit, Vec of such an enum (multi-select), or an Option of one of these"
)]
pub trait FormField {}

macro_rules! primitives {
    ($($t:ty),*) => {$(
        impl Elicit for $t { const SINGLE: bool = true; }
        impl FormField for $t {}
    )*};
}
primitives!(String, bool, i8, i16, i32, i64, u8, u16, u32, u64, isize, usize, f32, f64);

impl<T: FormField> FormField for Option<T> {}

/// A unit-variant enum usable as a form field (multi-select in a `Vec`).
pub trait Choice {}

#[diagnostic::do_not_recommend]
impl<T: Choice> FormField for Vec<T> {}

/// A type `sample` can give: the reply's text (`String`) or the whole reply.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot receive a model's reply",
    label = "`sample` gives a String or a CreateMessageResult",
    note = "declare the parameter as String (the reply's text) or CreateMessageResult (the whole reply)"
)]
pub trait SampleOutput: DeserializeOwned {
    /// The whole reply, not just its text.
    const FULL: bool;
}

impl SampleOutput for String {
    const FULL: bool = false;
}

impl SampleOutput for CreateMessageResult {
    const FULL: bool = true;
}

/// A type `roots` can give.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot receive the client's roots",
    label = "`roots` gives a Vec<Root>",
    note = "declare the parameter as Vec<roundtrip::protocol::Root>"
)]
pub trait RootsOutput: DeserializeOwned {}

impl RootsOutput for Vec<Root> {}

/// A type `elicit_url` can give.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot receive a URL elicitation's outcome",
    label = "`elicit_url` gives Consent",
    note = "declare the parameter as roundtrip::Consent, or Answer<Consent> to handle a decline"
)]
pub trait UrlOutput: DeserializeOwned {}

impl UrlOutput for Consent {}

/// A type a tool argument can have.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument",
    label = "needs Deserialize and JsonSchema (schemars 1.x)",
    note = "derive `Deserialize` and `JsonSchema` on it (arguments form the tool's input schema): the prelude's (`use roundtrip::prelude::*`), or serde's and schemars 1.x's; a `JsonSchema` derived from schemars 0.8 (an older `schemars` in your Cargo.toml) is another trait, which roundtrip cannot use"
)]
pub trait Argument: DeserializeOwned + JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> Argument for T {}

/// The requested schema for an elicited type (a one-property form named `param` for a
/// primitive or enum).
///
/// # Panics
/// When the type's schema is not flat, which the `Elicit` derive rules out at compile time;
/// a hand-written `Elicit` impl can still get it wrong, and the server then refuses to start.
pub fn elicit_schema<T: Elicit + FormSchema>(param: &str) -> RequestedSchema {
    let mut generated = schema_of::<T>();
    if let Some(root) = generated.as_object_mut() {
        // The root title is the type's name ("string", "Region"), not something to show.
        root.remove("title");
        root.remove("$schema");
        if let Some(Value::Object(properties)) = root.get_mut("properties") {
            properties.values_mut().for_each(unwrap_nullable);
        }
    }
    let form = crate::resolve::requested_schema(&generated, T::SINGLE.then_some(param));
    match form {
        Ok(mut form) => {
            if T::OPTIONAL {
                form.remove("required");
            }
            RequestedSchema::new(form)
        }
        Err(why) => panic!("`{param}` cannot be elicited: {why}"),
    }
}

/// An elicited parameter's form with its `or_default` value as the form's `default`s (so a
/// yes/no question shows its "no"): the one field of a primitive's form (`single`), or each
/// field of a struct's form that the value names. Without a default, the form as it is.
pub fn form_defaults(
    mut schema: RequestedSchema,
    param: &str,
    single: bool,
    default: Option<fn() -> Value>,
) -> RequestedSchema {
    let Some(default) = default else { return schema };
    let value = default();
    let form = schema.make_mut();
    let Some(Value::Object(properties)) = form.get_mut("properties") else { return schema };
    let mut set = |name: &str, value: &Value| {
        if let (Some(Value::Object(field)), false) = (properties.get_mut(name), value.is_null()) {
            field.insert("default".into(), value.clone());
        }
    };
    match &value {
        _ if single => set(param, &value),
        Value::Object(fields) => fields.iter().for_each(|(name, value)| set(name, value)),
        _ => {}
    }
    schema
}

/// An optional field whose type's schema has subschemas (a titled enum's `oneOf`) is
/// generated as `{"anyOf": [<T>, {"type": "null"}], <the field's keywords>}`; in a form it is
/// simply not required, so it becomes `<T>` with the field's keywords (its description), as
/// the strict schema profile writes it. (A primitive or plain enum gets
/// `"type": [<t>, "null"]` instead, which the form keeps as `<t>`.)
fn unwrap_nullable(schema: &mut Value) {
    if let Some(field) = schema.as_object_mut() {
        crate::server::optional_as_value(field, "anyOf");
    }
}

pub use crate::resolve::schema_of;

/// An `or_default = …` value of a parameter of type `T`, as the engine keeps values (JSON).
pub fn fallback_value<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Whether an extracted answer converts into `T`.
pub fn check<T: DeserializeOwned>(value: &Value) -> Result<(), String> {
    T::deserialize(value).map(drop).map_err(|_| "does not fit the expected type".to_owned())
}

/// A type a prompt argument or a URI template variable can have: the protocol sends these as
/// strings.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a prompt argument or URI variable: those are strings",
    label = "not a string",
    note = "declare it as String (or Option<String> for an optional prompt argument) and parse it in the body"
)]
pub trait TextArgument: DeserializeOwned + JsonSchema {}

impl TextArgument for String {}
impl TextArgument for Option<String> {}

impl crate::resolve::Question {
    /// A form question for `T`, for a `with` resolver that decides to ask: a struct deriving
    /// `Elicit` is the whole form; a primitive or enum is asked as one property named
    /// `property`. The answer becomes the resolver's value.
    ///
    /// ```
    /// use roundtrip::prelude::*;
    /// use roundtrip::resolve::Question;
    ///
    /// async fn region_for(name: String) -> Resolve<String> {
    ///     match name.as_str() {
    ///         "orders" => Resolve::Value("eu-west".into()),
    ///         _ => Resolve::Ask(Question::elicit::<String>(format!("Region for {name}?"), "region")),
    ///     }
    /// }
    /// ```
    pub fn elicit<T: Elicit + FormSchema>(message: impl Into<String>, property: &str) -> Self {
        let schema = elicit_schema::<T>(property);
        if T::SINGLE { Self::property(message, schema, property.to_owned()) } else { Self::form(message, schema) }
    }
}
