//! Questions: what a resolver asks (the input request) and how the answer becomes the
//! parameter's value. A `with` fn builds them at run time, e.g. a choice whose options come
//! from the application's state.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Value, json};

use crate::protocol::{
    CreateMessageParams, ElicitParams, InputRequest, JsonObject, ListRootsParams, ModelHint, ModelPreferences,
    RequestedSchema,
};

/// A question and how its answer becomes the parameter's value.
///
/// The question as rendered (message, schema, options) is part of its answer's pin: an answer
/// given to other options (a redeploy, or state that changed between legs) is asked again.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// What goes into `inputRequests`.
    pub request: InputRequest,
    /// How the answer becomes the value.
    pub extract: Extract,
}

/// How an answer becomes a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extract {
    /// The whole accepted form.
    Form,
    /// One property of the accepted form (a declared question's name is not copied per leg).
    Property(Cow<'static, str>),
    /// URL-mode consent: the value is `null` (see [`Consent`](super::Consent)).
    Consent,
    /// The text of the model's reply.
    SampleText,
    /// The model's whole reply.
    SampleResult,
    /// The list of roots.
    Roots,
}

impl Question {
    /// A form question whose answer is the whole form.
    pub fn form(message: impl Into<String>, schema: impl Into<RequestedSchema>) -> Self {
        Self { request: InputRequest::Elicit(ElicitParams::form(message, schema)), extract: Extract::Form }
    }

    /// A form question whose fields are `T`'s, and whose answer is the whole form (decode it
    /// as `T`): `T` is a flat struct of text, numbers, booleans and enum choices (what
    /// `#[resolve(elicit = …)]` asks for a struct). `Err` names the field that cannot be a
    /// form field, and why.
    ///
    /// ```
    /// use roundtrip::prelude::*;
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Color {
    ///     /// Your favorite color.
    ///     color: String,
    /// }
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Nested {
    ///     home: Color,
    /// }
    ///
    /// assert!(Question::form_of::<Color>("What is your favorite color?").is_ok());
    /// assert_eq!(
    ///     Question::form_of::<Nested>("Where?").unwrap_err(),
    ///     "field `home` is a nested struct or map; a form is flat",
    /// );
    /// ```
    pub fn form_of<T: schemars::JsonSchema>(message: impl Into<String>) -> Result<Self, String> {
        Ok(Self::form(message, super::form::form_schema(&super::form::schema_of::<T>())?))
    }

    /// A one-property form question whose answer is that property.
    pub fn property(
        message: impl Into<String>,
        schema: impl Into<RequestedSchema>,
        property: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self {
            request: InputRequest::Elicit(ElicitParams::form(message, schema)),
            extract: Extract::Property(property.into()),
        }
    }

    /// One choice among `options`, each a `(value, title)`; the answer is the chosen value
    /// (a `String`). An answer outside the options is asked again.
    ///
    /// ```
    /// use roundtrip::resolve::Question;
    ///
    /// let instances = ["api-1", "api-2"];
    /// let q = Question::choice("Restart which instance?", "instance", instances.map(|i| (i, i)));
    /// # let _ = q;
    /// ```
    pub fn choice<V: Into<String>, T: Into<String>>(
        message: impl Into<String>,
        property: &str,
        options: impl IntoIterator<Item = (V, T)>,
    ) -> Self {
        let schema = json!({"type": "string", "oneOf": titled(options)});
        Self::property(message, one_property(property, schema), property.to_owned())
    }

    /// [`choice`](Self::choice), refused where it is built when `options` is empty: nobody
    /// could answer a choice among nothing. A `with` fn whose options come from data that may
    /// run out returns the error with `?` (it then returns `Result<Resolve<T>, Error>`), and
    /// the call ends with it. (An empty [`choice`](Self::choice) is refused too, when it is
    /// about to be asked; this says so where it is made.)
    ///
    /// ```
    /// use roundtrip::resolve::Question;
    ///
    /// let free: Vec<(String, String)> = Vec::new();
    /// let refused = Question::try_choice("Which slot?", "slot", free).unwrap_err();
    /// assert_eq!(refused.message(), "The question `slot` offers no choices, so it cannot be answered.");
    /// assert!(Question::try_choice("Which slot?", "slot", [("09:00", "9 am")]).is_ok());
    /// ```
    pub fn try_choice<V: Into<String>, T: Into<String>>(
        message: impl Into<String>,
        property: &str,
        options: impl IntoIterator<Item = (V, T)>,
    ) -> Result<Self, crate::error::Error> {
        let question = Self::choice(message, property, options);
        match question.without_choices() {
            Some(_) => Err(crate::error::Error::new(format!(
                "The question `{property}` offers no choices, so it cannot be answered."
            ))),
            None => Ok(question),
        }
    }

    /// Any number of choices among `options`, each a `(value, title)`; the answer is the list
    /// of chosen values (a `Vec<String>`).
    pub fn multi_select<V: Into<String>, T: Into<String>>(
        message: impl Into<String>,
        property: &str,
        options: impl IntoIterator<Item = (V, T)>,
    ) -> Self {
        let schema = json!({"type": "array", "items": {"anyOf": titled(options)}});
        Self::property(message, one_property(property, schema), property.to_owned())
    }

    /// The first form property that asks to choose among no options at all (a
    /// [`choice`](Self::choice) built from an empty list): nobody could answer it, so it is
    /// never sent.
    pub fn without_choices(&self) -> Option<&str> {
        let InputRequest::Elicit(ElicitParams::Form(form)) = &self.request else { return None };
        let properties = form.requested_schema.get("properties").and_then(Value::as_object)?;
        let empty = |v: Option<&Value>| v.and_then(Value::as_array).is_some_and(Vec::is_empty);
        properties.iter().find_map(|(name, p)| {
            let items = p.get("items");
            let none = empty(p.get("oneOf"))
                || empty(p.get("enum"))
                || empty(items.and_then(|i| i.get("anyOf")))
                || empty(items.and_then(|i| i.get("enum")));
            none.then_some(name.as_str())
        })
    }

    /// A yes/no question; the answer is a `bool`.
    pub fn confirm(message: impl Into<String>, property: &str) -> Self {
        Self::property(message, one_property(property, json!({"type": "boolean"})), property.to_owned())
    }

    /// Fill form property `property` with `value` as its default (e.g. taken from state).
    /// A property the form does not have is left alone.
    pub fn with_default(mut self, property: &str, value: impl Serialize) -> Self {
        if let InputRequest::Elicit(ElicitParams::Form(form)) = &mut self.request
            && let Some(Value::Object(prop)) =
                form.requested_schema.make_mut().get_mut("properties").and_then(|p| p.get_mut(property))
            && let Ok(value) = serde_json::to_value(value)
        {
            prop.insert("default".into(), value);
        }
        self
    }

    /// A URL to open.
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self { request: InputRequest::Elicit(ElicitParams::url(message, url)), extract: Extract::Consent }
    }

    /// A URL question asked as a form with no fields whose message carries the link, for a
    /// client that answers forms but has no URL mode (`or_form`). Accepting it is the consent
    /// a URL question's accept is; `None` for any other question.
    pub(crate) fn url_as_form(&self) -> Option<Self> {
        let InputRequest::Elicit(ElicitParams::Url(url)) = &self.request else { return None };
        let message = format!("{}\n\nOpen this link, then accept here when you are done: {}", url.message, url.url);
        let mut schema = crate::protocol::JsonObject::new();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), crate::protocol::JsonObject::new().into());
        Some(Self { request: InputRequest::Elicit(ElicitParams::form(message, schema)), extract: Extract::Consent })
    }

    /// A prompt for the client's model; the answer is the reply's text.
    pub fn sample(prompt: impl Into<String>, max_tokens: u32) -> Self {
        Self::sampling(CreateMessageParams::prompt(prompt, max_tokens))
    }

    /// A request for the client's model with every option (system prompt, temperature, stop
    /// sequences, model preferences, context); the answer is the reply's text.
    ///
    /// ```
    /// use roundtrip::protocol::CreateMessageParams;
    /// use roundtrip::resolve::Question;
    ///
    /// let q = Question::sampling(
    ///     CreateMessageParams::prompt("Summarize the logs of api.", 300).system_prompt("You are an SRE.").temperature(0.2),
    /// );
    /// # let _ = q;
    /// ```
    pub fn sampling(params: CreateMessageParams) -> Self {
        Self { request: InputRequest::CreateMessage(params), extract: Extract::SampleText }
    }

    /// The client's roots; the answer is a `Vec<Root>`.
    pub fn roots() -> Self {
        Self { request: InputRequest::ListRoots(ListRootsParams::default()), extract: Extract::Roots }
    }
}

fn titled<V: Into<String>, T: Into<String>>(options: impl IntoIterator<Item = (V, T)>) -> Vec<Value> {
    options.into_iter().map(|(v, t)| json!({"const": v.into(), "title": t.into()})).collect()
}

fn one_property(property: &str, schema: Value) -> JsonObject {
    let mut form = JsonObject::new();
    form.insert("type".into(), json!("object"));
    form.insert("properties".into(), json!({ property: schema }));
    form.insert("required".into(), json!([property]));
    form
}

/// The sampling options of `#[resolve(sample = …)]`, fixed at compile time.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SampleOptions {
    /// `systemPrompt`.
    pub system_prompt: Option<&'static str>,
    /// `temperature`.
    pub temperature: Option<f64>,
    /// `stopSequences`.
    pub stop_sequences: &'static [&'static str],
    /// `modelPreferences.hints`, by model name.
    pub model_hints: &'static [&'static str],
    /// `modelPreferences.costPriority` (0 to 1).
    pub cost_priority: Option<f64>,
    /// `modelPreferences.speedPriority` (0 to 1).
    pub speed_priority: Option<f64>,
    /// `modelPreferences.intelligencePriority` (0 to 1).
    pub intelligence_priority: Option<f64>,
    /// `includeContext`: `none`, `thisServer` or `allServers`.
    pub include_context: Option<&'static str>,
}

impl SampleOptions {
    /// Set these options on a request.
    pub fn apply(&self, mut params: CreateMessageParams) -> CreateMessageParams {
        if let Some(s) = self.system_prompt {
            params = params.system_prompt(s);
        }
        if let Some(t) = self.temperature {
            params = params.temperature(t);
        }
        if !self.stop_sequences.is_empty() {
            params = params.stop_sequences(self.stop_sequences.iter().copied());
        }
        let mut preferences = ModelPreferences::default();
        preferences.hints = self.model_hints.iter().map(|h| ModelHint::new(*h)).collect();
        preferences.cost_priority = self.cost_priority;
        preferences.speed_priority = self.speed_priority;
        preferences.intelligence_priority = self.intelligence_priority;
        if preferences != ModelPreferences::default() {
            params = params.model_preferences(preferences);
        }
        if let Some(c) = self.include_context {
            params.include_context = Some(c.to_owned());
        }
        params
    }
}
