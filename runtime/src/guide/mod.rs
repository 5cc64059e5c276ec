//! The guide, a chapter a topic: its contents page. Each chapter is a module with no items of
//! its own; its examples are doctests, compiled and run by `cargo test`.
//!
//! 1. [Declaring a tool](tools): a fn becomes a tool; its arguments, the input schema
//! 2. [Resolvers](resolvers): `#[resolve]`: questions (`elicit`, `elicit_url`, `sample`, `roots`, `with`) and `Answer<T>`
//! 3. [Pins](pins): why a changed question is asked again, not answered from an old state
//! 4. [State](state): `#[toolset]`, `State<T>` and state per caller
//! 5. [Checks before questions](checks): `check = …`: refuse before asking anything
//! 6. [Questions built from data](questions): `with` fns that build questions, run once per flow
//! 7. [Long-running tools: tasks](tasks): the tasks extension: a tool that runs on after its call
//! 8. [Errors](errors): `roundtrip::Error`, `isError` results and JSON-RPC errors
//! 9. [The request context](context): what a handler sees of its request
//! 10. [Prompts and resources](prompts_and_resources): `#[prompt]`, `#[resource]`, `#[resource_template]`
//! 11. [MCP Apps: tools with a view](apps): `#[view]` and a tool's `ui`
//! 12. [The manual form](manual): building `InputRequiredResult` rounds and protocol values by hand
//! 13. [Serving](serving): stdio, streamable HTTP, an axum router, and the runner `roundtrip::cli`
//! 14. [Serverless: AWS Lambda and Cloudflare Workers](serverless): the same server as a Lambda function and as a Worker; what each cannot do
//! 15. [Who is calling](callers): one caller identity, trusted proxies, the limits a caller meets, rates
//! 16. [Changing what a server offers while it serves](run_time): tools added and removed at run time, and per tenant
//! 17. [Interceptors](interceptors): the application's own code around every request, on every transport
//! 18. [Composing servers](composition): several servers mounted into one, each under a namespace
//! 19. [Telemetry](telemetry): spans and metrics by the OpenTelemetry conventions for MCP
//! 20. [TLS: `https` and `rediss`](tls): outgoing connections and the roots they trust
//! 21. [Authorization](auth): the OAuth 2.1 resource server
//! 22. [Skills](skills): serving `SKILL.md` trees
//! 23. [The client](client): calling MCP servers, both eras
//! 24. [Testing with `TestKit`](testing): a server's contract in tests, and `describe`
//! 25. [Mistakes the compiler catches](mistakes): each misuse, one error at the token to change
//! 26. [Coming from rmcp](from_rmcp): the same servers, side by side

/// A chapter: the module `$name`, whose documentation is the file `$file`. Its links resolve
/// as they would at the crate root.
macro_rules! chapter {
    ($name:ident, $file:literal) => {
        pub mod $name {
            #![doc = include_str!($file)]
            #[allow(unused_imports)]
            use crate::*;
        }
    };
}

chapter!(tools, "tools.md");
chapter!(resolvers, "resolvers.md");
chapter!(pins, "pins.md");
chapter!(state, "state.md");
chapter!(checks, "checks.md");
chapter!(questions, "questions.md");
chapter!(tasks, "tasks.md");
chapter!(errors, "errors.md");
chapter!(context, "context.md");
chapter!(prompts_and_resources, "prompts_and_resources.md");
chapter!(apps, "apps.md");
chapter!(manual, "manual.md");
chapter!(serving, "serving.md");
chapter!(serverless, "serverless.md");
chapter!(callers, "callers.md");
chapter!(run_time, "run_time.md");
chapter!(interceptors, "interceptors.md");
chapter!(composition, "composition.md");
chapter!(telemetry, "telemetry.md");
chapter!(tls, "tls.md");
chapter!(auth, "auth.md");
chapter!(skills, "skills.md");
chapter!(client, "client.md");
chapter!(testing, "testing.md");
chapter!(mistakes, "mistakes.md");
chapter!(from_rmcp, "from_rmcp.md");
