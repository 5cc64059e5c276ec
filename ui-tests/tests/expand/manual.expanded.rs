use roundtrip::prelude::*;
async fn slow_sum(n: u64, cx: &RequestContext) -> Outcome<CallToolResult> {
    match cx.state::<u64>() {
        Some(n) => Outcome::Complete(CallToolResult::text(n.to_string())),
        None => InputRequired::new().state(&n).into(),
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct __roundtrip_tool_slow_sum;
impl ::roundtrip::__private::ToolFactory for __roundtrip_tool_slow_sum {
    const NAME: &'static str = "slow_sum";
    fn def() -> ::roundtrip::server::ToolDef {
        #[allow(unused_imports)]
        use ::roundtrip::__private::Plain as _;
        const __RETURNS: ::roundtrip::__private::Returns<Outcome<CallToolResult>> = <Outcome<
            CallToolResult,
        > as ::roundtrip::ToolReturn>::RETURNS;
        const _: () = if <::roundtrip::__private::Role<RequestContext>>::TASK {
            {
                ::core::panicking::panic_fmt(
                    format_args!(
                        "a TaskContext asks while the tool runs, which needs a task: declare the tool with #[tool(task)] (or take a RequestContext)",
                    ),
                );
            }
        };
        #[allow(unused)]
        fn __assert() {}
        let __fn = slow_sum;
        let __graph = ::roundtrip::__private::graph(
            ::std::vec::Vec::from(["n"]),
            ::std::vec::Vec::from([]),
            ::std::vec::Vec::from([]),
        );
        ::roundtrip::__private::tool(
            ::roundtrip::__private::ToolSpec {
                name: "slow_sum",
                title: ::core::option::Option::None,
                description: ::core::option::Option::None,
                annotations: ::core::option::Option::None,
                task: ::roundtrip::protocol::TaskSupport::Forbidden,
            },
            ::roundtrip::__private::input_schema(
                ::std::vec::Vec::from([
                    ::roundtrip::__private::Field {
                        name: "n",
                        schema: ::roundtrip::__private::argument_schema::<u64>(),
                        description: ::core::option::Option::None,
                        required: true,
                        flatten: false,
                    },
                ]),
            ),
            (__RETURNS.output_schema)(),
            __graph,
            |__args: &::roundtrip::__private::JsonObject| {
                let n = ::roundtrip::__private::argument::<
                    u64,
                >("slow_sum", __args, "n")?;
                ::core::result::Result::Ok((n,))
            },
            move |
                (n,),
                _: ::roundtrip::__private::Values,
                __cx: ::roundtrip::server::RequestContext|
            {
                async move {
                    let mut __slot = ::core::option::Option::Some(__cx);
                    let __cx_held: RequestContext = ::roundtrip::__private::borrowed_context::<
                        RequestContext,
                    >(&mut __slot)?;
                    (__RETURNS.outcome)(__fn(n, &__cx_held).await)
                }
            },
        )
    }
}
