//! One leg of a declarative flow: evaluate what is known, record new answers, ask every
//! question whose inputs are known, or hand the values to the body.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::by_name::ByName;
use super::form;
use super::graph::{Graph, Node, Resolution, Resolver};
use super::question::{Extract, Question};
use super::{Answer, template::Template};

use crate::error::Error;
use crate::protocol::{
    AnswerRef, CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult, InputRequest,
    JsonObject, ListRootsParams, ListRootsResult, Text,
};
use crate::request::{Answerable, InputRequired, RequestContext};

/// The plaintext state a declarative flow carries between legs (sealed on the wire).
///
/// Names and pins borrow from the opened plaintext (read) or from the graph and this leg's
/// pins (written), instead of a copy of each: a leg reads and writes one of each per question.
/// The names are parameter names and the pins hex digits, so they hold no escapes to undo.
#[derive(Debug, Default, Serialize, Deserialize)]
struct FlowState<'a> {
    /// Recorded answers by parameter.
    #[serde(borrow, default, rename = "r")]
    records: ByName<&'a str, Record<'a>>,
    /// The pins of the questions asked in the previous leg, by parameter.
    #[serde(borrow, default, rename = "q")]
    asked: ByName<&'a str, Text<'a>>,
    /// How many rounds of questions the flow has asked (for telemetry).
    #[serde(default, rename = "n", skip_serializing_if = "is_zero")]
    rounds: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Record<'a> {
    /// The pin of the question this answers.
    #[serde(borrow, rename = "p")]
    pin: Cow<'a, str>,
    /// `a`ccepted, `d`eclined or `c`ancelled.
    #[serde(rename = "o")]
    outcome: char,
    /// The value, when accepted.
    #[serde(default, rename = "v", skip_serializing_if = "Value::is_null")]
    value: Value,
}

/// The outcome of one resolved parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    /// Answered; the value as JSON.
    Accepted(Value),
    /// The user said no.
    Declined,
    /// The user dismissed the question.
    Cancelled,
}

/// What the leg leads to.
#[derive(Debug)]
pub enum Leg {
    /// Everything is known: call the body with these values.
    Ready(Values),
    /// Ask these questions (and carry this state).
    Ask(InputRequired),
    /// A bare-typed parameter was declined or cancelled: the call ends without the body.
    Refused {
        /// The parameter.
        name: &'static str,
        /// Declined or cancelled.
        outcome: Resolved,
    },
}

/// The resolved values handed to the body.
#[derive(Debug, Default)]
pub struct Values(ByName<&'static str, Resolved>);

impl Values {
    /// A bare-typed parameter's value.
    pub fn take<T: DeserializeOwned>(&mut self, name: &str) -> Result<T, Error> {
        match self.0.remove(name) {
            Some(Resolved::Accepted(v)) => convert(name, v),
            _ => Err(Error::internal(format!("`{name}` was not resolved"))),
        }
    }

    /// An `Answer<T>` parameter's value.
    pub fn answer<T: DeserializeOwned>(&mut self, name: &str) -> Result<Answer<T>, Error> {
        match self.0.remove(name) {
            Some(Resolved::Accepted(v)) => convert(name, v).map(Answer::Accepted),
            Some(Resolved::Declined) => Ok(Answer::Declined),
            Some(Resolved::Cancelled) => Ok(Answer::Cancelled),
            None => Err(Error::internal(format!("`{name}` was not resolved"))),
        }
    }
}

fn convert<T: DeserializeOwned>(name: &str, v: Value) -> Result<T, Error> {
    serde_json::from_value(v)
        .map_err(|e| Error::internal(format!("the answer for `{name}` does not fit its type: {e}")))
}

/// Evaluate one leg of `graph` for the request in `cx`: run the checks, then resolve what can
/// be resolved. An error (a check or a `with` fn that refused) ends the call.
///
/// A `with` fn runs once per flow: the value it gives, or the answer to the question it
/// asked, is recorded in the sealed state under a pin of its inputs, and later legs take it
/// from there. A `with` fn that asks runs again on the leg that carries the answer, so that
/// the answer is checked against the question as it is now (options that changed re-ask).
pub async fn evaluate(graph: &Graph, cx: &RequestContext) -> Result<Leg, Error> {
    let inputs = cx.inputs();
    for check in graph.checks() {
        (check.f)(check.args.iter().map(|a| inputs.get(*a).cloned().unwrap_or(Value::Null)).collect(), cx).await?;
    }
    if graph.nodes().is_empty() {
        return Ok(Leg::Ready(Values::default()));
    }
    // A state that does not read as a flow's (a key with an escape would be one) starts over.
    let mut previous: FlowState<'_> =
        cx.raw_state().and_then(|bytes| serde_json::from_slice(bytes).ok()).unwrap_or_default();
    let mut values = Values::default();
    let mut next = FlowState { rounds: previous.rounds + 1, ..FlowState::default() };
    let mut round = InputRequired::new();
    let mut reasked = 0;
    // What the client can answer, read when a node with a fallback first needs it.
    let mut answerable: Option<Answerable> = None;
    for (i, node) in graph.nodes().iter().enumerate() {
        let known = Known { graph, arguments: &inputs, values: &values };
        if !node.resolver.each_dep().all(|d| known.get(d).is_some()) {
            continue; // waits for an answer of this round
        }
        // Given as an argument: that is the value, and nothing is asked.
        if node.fallback.argument
            && let Some(given) = inputs.get(node.name).filter(|v| !v.is_null())
        {
            (node.check)(given).map_err(|why| Error::invalid_argument(cx.target(), node.name, why))?;
            values.0.insert(node.name, Resolved::Accepted(given.clone()));
            continue;
        }
        // A `with` fn's outcome is recorded under a pin of its inputs, so it runs once.
        let input_pin = match &node.resolver {
            Resolver::With { args, .. } => {
                let inputs: Vec<&Value> = args.iter().map(|a| known.get(a).unwrap_or(&NULL)).collect();
                Some(pin(node.static_pin, &inputs))
            }
            _ => None,
        };
        let recorded_with = match &input_pin {
            Some(p) if previous.records.get(node.name).is_some_and(|r| r.pin == p.as_str()) => {
                previous.records.remove(node.name)
            }
            _ => None,
        };
        let mut question = match recorded_with {
            Some(record) => {
                if let Some(leg) = settle(node, record, &mut values, &mut next) {
                    return Ok(leg);
                }
                continue;
            }
            None => match question_for(node, &known, cx).await? {
                Resolution::Value(v) => {
                    if let Some(p) = input_pin {
                        let record = Record { pin: p.to_cow(), outcome: 'a', value: v.clone() };
                        next.records.insert(node.name, record);
                    }
                    values.0.insert(node.name, Resolved::Accepted(v));
                    continue;
                }
                Resolution::Ask(q) => q,
            },
        };
        if !node.fallback.is_none()
            && let answerable = answerable.get_or_insert_with(|| Answerable::of(&cx.meta.client_capabilities))
            && let Some(lack) = answerable.lacks(&question.request)
        {
            let as_form = node.fallback.form.then(|| question.url_as_form()).flatten();
            match (as_form.filter(|form| answerable.lacks(&form.request).is_none()), node.fallback.default) {
                (Some(form), _) => question = form,
                (None, Some(default)) => {
                    values.0.insert(node.name, Resolved::Accepted(default()));
                    continue;
                }
                (None, None) if node.fallback.argument => return Err(cannot_ask(node.name, lack.name)),
                // `or_form` alone, on a client without forms either: refused as any question
                // the client cannot answer is (`-32021`).
                (None, None) => {}
            }
        }
        let pin = match (graph.schema_digest(i), &question.request) {
            // A declared elicitation: its schema is the node's, digested once.
            (Some(schema), InputRequest::Elicit(ElicitParams::Form(form))) => {
                elicitation_pin(node.static_pin, schema, &form.message)
            }
            (_, request) => pin(node.static_pin, request),
        };
        let recorded = previous.records.remove(node.name).filter(|r| r.pin == pin.as_str());
        let asked = previous.asked.get(node.name).filter(|asked| asked.0 == pin.as_str());
        let record = match (recorded, asked) {
            (Some(r), _) => Some(r),
            // The answer is recorded under the pin it answers, as the previous leg wrote it.
            (None, Some(asked)) => match cx.answer(node.name) {
                Some(answer) => match accept(node, &question, answer) {
                    Ok(record) => {
                        Some(Record { pin: input_pin.map_or_else(|| asked.0.clone(), Pin::to_cow), ..record })
                    }
                    Err(why) => {
                        tracing::debug!(target: "roundtrip::resolve", param = node.name, "answer refused: {why}");
                        reasked += 1;
                        round = round.ask(node.name, reask(question.request.clone(), &why));
                        next.asked.insert(node.name, Text(pin.to_cow()));
                        continue;
                    }
                },
                None => None,
            },
            (None, None) => None,
        };
        let Some(record) = record else {
            // Asked on the previous leg in another form (a `with` fn's options changed, as when
            // a slot was taken meanwhile) and answered: asked anew, saying why when the answer
            // does not fit the question as it is now.
            let changed = previous.asked.get(node.name).is_some_and(|asked| asked.0 != pin.as_str());
            let refused = match cx.answer(node.name) {
                Some(answer) if changed => accept(node, &question, answer).err(),
                _ => None,
            };
            let request = match refused {
                Some(why) => {
                    tracing::debug!(target: "roundtrip::resolve", param = node.name, "answer to a changed question refused: {why}");
                    reasked += 1;
                    reask(question.request, &no_longer(&why))
                }
                None => question.request,
            };
            round = round.ask(node.name, request);
            next.asked.insert(node.name, Text(pin.to_cow()));
            continue;
        };
        if let Some(leg) = settle(node, record, &mut values, &mut next) {
            return Ok(leg);
        }
    }
    if reasked > 0 {
        crate::observe::reasked(reasked);
    }
    if round.requests().is_empty() {
        if values.0.len() == graph.nodes().len() {
            if previous.rounds > 0 {
                crate::observe::flow_completed(cx.method(), previous.rounds);
            }
            return Ok(Leg::Ready(values));
        }
        return Err(Error::internal("the resolver graph could not make progress"));
    }
    crate::observe::round(previous.rounds);
    // The accepted values `settle` moved to the body's values go back into the state.
    for (name, record) in next.records.iter_mut() {
        if let (true, Some(Resolved::Accepted(value))) = (record.value.is_null(), values.0.get(name)) {
            record.value = value.clone();
        }
    }
    Ok(Leg::Ask(round.state(&next)))
}

/// The end of a call whose question for `name` the client cannot answer (it lacks
/// `capability`), where the parameter may be given as an argument instead.
fn cannot_ask(name: &str, capability: &str) -> Error {
    Error::new(format!(
        "This client cannot be asked for `{name}`: it does not support {capability}. \
         Pass `{name}` as an argument instead."
    ))
}

/// Take a recorded outcome: the value becomes known and travels on in the state; a refusal of
/// a bare-typed parameter ends the call.
///
/// An accepted value moves to the body's values: a leg that completes writes no state, and a
/// leg that asks copies it back into the record before it writes one.
fn settle<'a>(node: &Node, mut record: Record<'a>, values: &mut Values, next: &mut FlowState<'a>) -> Option<Leg> {
    let outcome = match record.outcome {
        'a' => Resolved::Accepted(std::mem::take(&mut record.value)),
        'd' => Resolved::Declined,
        _ => Resolved::Cancelled,
    };
    if !node.refusable && !matches!(outcome, Resolved::Accepted(_)) {
        return Some(Leg::Refused { name: node.name, outcome });
    }
    values.0.insert(node.name, outcome);
    next.records.insert(node.name, record);
    None
}

/// What a question's template or a `with` fn sees: the arguments, and the values resolved so
/// far (`null` for a question declined or cancelled). Read where they lie, not copied.
struct Known<'a> {
    graph: &'a Graph,
    arguments: &'a JsonObject,
    values: &'a Values,
}

/// `null`, for an argument not given and a refused question.
static NULL: Value = Value::Null;

impl<'a> Known<'a> {
    /// The value of `name`, if it is known yet.
    fn get(&self, name: &str) -> Option<&'a Value> {
        if self.graph.arguments().contains(&name) {
            return Some(self.arguments.get(name).unwrap_or(&NULL));
        }
        match self.values.0.get(name)? {
            Resolved::Accepted(v) => Some(v),
            Resolved::Declined | Resolved::Cancelled => Some(&NULL),
        }
    }
}

/// The question of a node given known values (a `with` resolver may answer instead).
async fn question_for(node: &Node, known: &Known<'_>, cx: &RequestContext) -> Result<Resolution, Error> {
    let render = |t: &Template| t.render(&|k: &str| known.get(k)).unwrap_or_default();
    Ok(Resolution::Ask(match &node.resolver {
        Resolver::Elicit { message, schema, property } => match property {
            Some(p) => Question::property(render(message), schema.clone(), *p),
            None => Question::form(render(message), schema.clone()),
        },
        Resolver::ElicitUrl { url, message } => Question::url(render(message), render(url)),
        Resolver::Sample { prompt, max_tokens, full, options } => Question {
            request: InputRequest::CreateMessage(
                options.apply(CreateMessageParams::prompt(render(prompt), *max_tokens)),
            ),
            extract: if *full { Extract::SampleResult } else { Extract::SampleText },
        },
        Resolver::Roots => {
            Question { request: InputRequest::ListRoots(ListRootsParams::default()), extract: Extract::Roots }
        }
        Resolver::With { args, f, .. } => {
            let inputs = args.iter().map(|a| known.get(a).cloned().unwrap_or(Value::Null)).collect();
            let resolution = f(inputs, cx).await?;
            if let Resolution::Ask(question) = &resolution
                && let Some(property) = question.without_choices()
            {
                return Err(Error::new(format!(
                    "The question for `{}` offers no choices (its `{property}` has none), so it cannot be answered.",
                    node.name
                )));
            }
            return Ok(resolution);
        }
    }))
}

/// The pin of a declared elicitation: the declaration's digest, the digest of its requested
/// schema and the rendered message (the whole question as sent, without serializing it).
fn elicitation_pin(static_pin: &str, schema: &[u8; 32], message: &str) -> Pin {
    let mut h = Sha256::new();
    h.update(static_pin.as_bytes());
    h.update([1]);
    h.update(schema);
    h.update(message.as_bytes());
    hex_pin(&h.finalize())
}

/// The pin of a rendered question (the declaration's digest and the question as sent), or of
/// a `with` fn's inputs.
fn pin(static_pin: &str, request: &impl Serialize) -> Pin {
    let mut h = Sha256::new();
    h.update(static_pin.as_bytes());
    h.update([0]);
    // The question serialized straight into the digest (a `Sha256` is an `io::Write` that
    // never fails), with no buffer in between.
    let _ = serde_json::to_writer(&mut h, request);
    hex_pin(&h.finalize())
}

/// A question's pin: the first 96 bits of a digest, in hex, on the stack (a leg compares it
/// with the one the state carries, and copies it only into a state it writes).
#[derive(Clone, Copy)]
struct Pin([u8; 24]);

impl Pin {
    fn as_str(&self) -> &str {
        // Only hex digits are ever written.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }

    fn to_cow<'a>(self) -> Cow<'a, str> {
        Cow::Owned(self.as_str().to_owned())
    }
}

fn hex_pin(digest: &[u8]) -> Pin {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut pin = [0; 24];
    for (i, b) in digest.iter().take(12).enumerate() {
        pin[2 * i] = HEX[usize::from(b >> 4)];
        pin[2 * i + 1] = HEX[usize::from(b & 0xf)];
    }
    Pin(pin)
}

/// An answer read the way [`ElicitResult`](roundtrip_wire::ElicitResult) reads one (`None`
/// where that fails), borrowing its content instead of copying it: what the user did, and the
/// submitted form.
fn elicit_result(answer: &Value) -> Option<(ElicitAction, Option<&JsonObject>)> {
    // The carrier lets only objects through as answers.
    let answer = answer.as_object()?;
    let action = ElicitAction::deserialize(answer.get("action")?).ok()?;
    let content = match answer.get("content") {
        None | Some(Value::Null) => None,
        Some(Value::Object(content)) => Some(content),
        Some(_) => return None,
    };
    Some((action, content))
}

/// The same question again, saying what was wrong with the answer.
fn reask(request: InputRequest, why: &str) -> InputRequest {
    match request {
        InputRequest::Elicit(ElicitParams::Form(mut f)) => {
            f.message = format!("{} ({why}; please answer again)", f.message);
            InputRequest::Elicit(ElicitParams::Form(f))
        }
        other => other,
    }
}

/// Why an answer given to an earlier form of a question does not fit it as it is now: a value
/// outside the options is "no longer one of the choices" (they changed since it was chosen).
fn no_longer(why: &str) -> String {
    if why.contains(form::NOT_A_CHOICE) {
        why.replace(form::NOT_A_CHOICE, "is no longer one of the choices")
    } else {
        format!("{why}, since the question changed")
    }
}

/// Turn an answer into a record, or say in plain words why it does not fit.
fn accept(node: &Node, question: &Question, answer: AnswerRef<'_>) -> Result<Record<'static>, String> {
    let record = |outcome, value| Record { pin: Cow::Borrowed(""), outcome, value };
    match read_answer(question, answer)? {
        Resolved::Accepted(value) => {
            (node.check)(&value)?;
            Ok(record('a', value))
        }
        Resolved::Declined => Ok(record('d', Value::Null)),
        Resolved::Cancelled => Ok(record('c', Value::Null)),
    }
}

/// What an answer to `question` says: the value it gives (checked against the form), a
/// decline or a cancel; or, in plain words, why it does not fit.
pub fn interpret(question: &Question, answer: &Value) -> Result<Resolved, String> {
    read_answer(question, AnswerRef::Value(answer))
}

/// [`interpret`] for an answer where it lies: a `Value`, or the text it arrived as (read
/// into its type, without a `Value` of it). The two read alike but for an answer that repeats
/// one of its own members (`"action"` twice): read as text it is no result, and is asked
/// again; a `Value` of it kept the last.
fn read_answer(question: &Question, answer: AnswerRef<'_>) -> Result<Resolved, String> {
    let value = match (&question.request, &question.extract) {
        (InputRequest::Elicit(params), extract) => {
            let (action, content) = match answer {
                AnswerRef::Value(v) => elicit_result(v).map(|(action, content)| (action, content.map(Cow::Borrowed))),
                AnswerRef::Text(_) => {
                    answer.read::<ElicitResult>().map(|result| (result.action, result.content.map(Cow::Owned)))
                }
            }
            .ok_or("the answer is not an elicitation result")?;
            match action {
                ElicitAction::Decline => return Ok(Resolved::Declined),
                ElicitAction::Cancel => return Ok(Resolved::Cancelled),
                ElicitAction::Accept => {}
                _ => return Err("the answer's action is not accept, decline or cancel".to_owned()),
            }
            match (params, extract) {
                (ElicitParams::Form(form_params), Extract::Form | Extract::Property(_)) => {
                    let content = content.ok_or("the form was accepted without content")?;
                    form::validate(&form_params.requested_schema, &content)?;
                    match (extract, content) {
                        (Extract::Property(p), Cow::Owned(mut content)) => {
                            content.remove(p.as_ref()).unwrap_or(Value::Null)
                        }
                        (Extract::Property(p), Cow::Borrowed(content)) => {
                            content.get(p.as_ref()).cloned().unwrap_or(Value::Null)
                        }
                        (_, content) => Value::Object(content.into_owned()),
                    }
                }
                _ => Value::Null,
            }
        }
        (InputRequest::CreateMessage(_), extract) => {
            let result =
                answer.read::<CreateMessageResult>().ok_or_else(|| "the answer is not a model reply".to_owned())?;
            match extract {
                Extract::SampleResult => serde_json::to_value(&result).map_err(|e| e.to_string())?,
                _ => Value::String(result.content.as_text().ok_or("the model's reply has no text")?.to_owned()),
            }
        }
        (InputRequest::ListRoots(_), _) => {
            let result =
                answer.read::<ListRootsResult>().ok_or_else(|| "the answer is not a list of roots".to_owned())?;
            result.check()?;
            serde_json::to_value(result.roots).map_err(|e| e.to_string())?
        }
        _ => return Err("the server cannot read an answer to this kind of question".to_owned()),
    };
    Ok(Resolved::Accepted(value))
}

/// The same question again, saying what was wrong with the answer (form questions; others
/// are asked as they were).
pub fn ask_again(request: InputRequest, why: &str) -> InputRequest {
    reask(request, why)
}

/// A requested schema for a type, for the generated code: the whole form for a struct, or a
/// one-property form named `property` for a primitive or enum.
pub fn requested_schema(generated: &Value, property: Option<&str>) -> Result<JsonObject, String> {
    match property {
        Some(p) => form::single_property_form(p, generated),
        None => form::form_schema(generated),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ElicitResult;
    use serde_json::json;

    #[test]
    fn an_answer_kept_as_text_reads_as_its_value_does() {
        let schema = json!({"type": "object", "properties": {"region": {"type": "string", "enum": ["eu", "us"]}},
            "required": ["region"]});
        let Value::Object(schema) = schema else { unreachable!() };
        let questions = [
            Question::property("Where?", schema.clone(), "region"),
            Question::form("Where?", schema),
            Question::sample("Say", 10),
            Question { request: InputRequest::ListRoots(ListRootsParams::default()), extract: Extract::Roots },
        ];
        let answers = [
            r#"{"action": "accept", "content": {"region": "eu"}}"#,
            r#"{"action": "accept", "content": {"region": "mars"}}"#,
            r#"{"action": "accept", "content": {"region": "us", "extra": [1, {"b": null}]}, "_meta": {"x": 1}}"#,
            r#"{"action": "accept", "content": {}}"#,
            r#"{"action": "accept", "content": null}"#,
            r#"{"action": "accept"}"#,
            r#"{"action": "decline"}"#,
            r#"{"action": "cancel", "content": {"region": "eu"}}"#,
            r#"{"action": "accept", "content": "text"}"#,
            r#"{"action": "ACCEPT"}"#,
            r#"{"content": {}}"#,
            r#"{"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}"#,
            r#"{"role": "assistant", "content": {"type": "image", "data": "", "mimeType": "image/png"}, "model": "m"}"#,
            r#"{"roots": [{"uri": "file:///a", "name": "a"}]}"#,
            r#"{"roots": "none"}"#,
            r#"{}"#,
        ];
        // The one difference: an answer that repeats a member of its own is no result as text.
        let repeated = r#"{"action": "decline", "action": "accept", "content": {"region": "eu"}}"#;
        let as_value: Value = serde_json::from_str(repeated).expect("json");
        assert_eq!(read_answer(&questions[0], AnswerRef::Value(&as_value)), Ok(Resolved::Accepted(json!("eu"))));
        assert!(read_answer(&questions[0], AnswerRef::Text(repeated)).is_err());
        for question in &questions {
            for text in answers {
                let value: Value = serde_json::from_str(text).expect("json");
                assert_eq!(
                    read_answer(question, AnswerRef::Text(text)),
                    read_answer(question, AnswerRef::Value(&value)),
                    "{text} to {:?}",
                    question.request
                );
            }
        }
    }

    #[test]
    fn roots_must_be_file_uris() {
        let question =
            Question { request: InputRequest::ListRoots(ListRootsParams::default()), extract: Extract::Roots };
        let files = json!({"roots": [{"uri": "file:///home/a"}, {"uri": "FILE:///b", "name": "b"}]});
        assert_eq!(
            interpret(&question, &files),
            Ok(Resolved::Accepted(json!([{"uri": "file:///home/a"}, {"uri": "FILE:///b", "name": "b"}])))
        );
        for uri in ["javascript:alert(1)", "https://example.com/repo", "file:/a", "data:,x", ""] {
            let answer = json!({"roots": [{"uri": "file:///ok"}, {"uri": uri}]});
            let why = interpret(&question, &answer).expect_err(uri);
            assert!(why.contains("not a file:// URI"), "{uri}: {why}");
        }
    }

    #[test]
    fn an_answer_is_read_as_an_elicit_result_would_read_it() {
        let answers = [
            json!({"action": "accept", "content": {"region": "eu"}}),
            json!({"action": "accept", "content": {"a": [1, {"b": null}]}, "_meta": {"x": 1}}),
            json!({"action": "accept", "content": null}),
            json!({"action": "accept"}),
            json!({"action": "decline"}),
            json!({"action": "cancel", "content": {}}),
            json!({"action": "accept", "content": "text"}),
            json!({"action": "accept", "content": [1]}),
            json!({"action": "ACCEPT"}),
            json!({"action": 1}),
            json!({"action": null}),
            json!({"content": {}}),
            json!({}),
        ];
        for answer in &answers {
            let typed = ElicitResult::deserialize(answer).ok();
            let read = elicit_result(answer);
            assert_eq!(
                read.map(|(action, content)| (action, content.cloned())),
                typed.map(|r| (r.action, r.content)),
                "{answer}"
            );
        }
    }
}
