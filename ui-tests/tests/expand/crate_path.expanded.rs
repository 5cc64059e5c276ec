use roundtrip::prelude::*;
mod sdk {
    pub use roundtrip;
}
/// Say hello, through a re-export of roundtrip.
async fn hello(name: String) -> String {
    name
}
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct __roundtrip_tool_hello;
impl sdk::roundtrip::__private::ToolFactory for __roundtrip_tool_hello {
    const NAME: &'static str = "hello";
    fn def() -> sdk::roundtrip::server::ToolDef {
        const __RETURNS: sdk::roundtrip::__private::Returns<String> = <String as sdk::roundtrip::ToolReturn>::RETURNS;
        #[allow(unused)]
        fn __assert() {}
        let __fn = hello;
        let __graph = sdk::roundtrip::__private::graph(
            ::std::vec::Vec::from(["name"]),
            ::std::vec::Vec::from([]),
            ::std::vec::Vec::from([]),
        );
        sdk::roundtrip::__private::tool(
                sdk::roundtrip::__private::ToolSpec {
                    name: "hello",
                    title: ::core::option::Option::None,
                    description: ::core::option::Option::Some(
                        "Say hello, through a re-export of roundtrip.",
                    ),
                    annotations: ::core::option::Option::None,
                    task: sdk::roundtrip::protocol::TaskSupport::Forbidden,
                },
                sdk::roundtrip::__private::input_schema(
                    ::std::vec::Vec::from([
                        sdk::roundtrip::__private::Field {
                            name: "name",
                            schema: sdk::roundtrip::__private::argument_schema::<
                                String,
                            >(),
                            description: ::core::option::Option::Some("Who to greet."),
                            required: true,
                            flatten: false,
                        },
                    ]),
                ),
                (__RETURNS.output_schema)(),
                __graph,
                |__args: &sdk::roundtrip::__private::JsonObject| {
                    let name = sdk::roundtrip::__private::argument::<
                        String,
                    >("hello", __args, "name")?;
                    ::core::result::Result::Ok((name,))
                },
                move |
                    (name,),
                    _: sdk::roundtrip::__private::Values,
                    _: sdk::roundtrip::server::RequestContext|
                { async move { (__RETURNS.outcome)(__fn(name).await) } },
            )
            .silent()
    }
}
