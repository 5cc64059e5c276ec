use roundtrip::prelude::*;
/// Say hello.
async fn hello(name: String) -> String {
    name
}
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct __roundtrip_tool_hello;
impl ::roundtrip::__private::ToolFactory for __roundtrip_tool_hello {
    const NAME: &'static str = "hello";
    fn def() -> ::roundtrip::server::ToolDef {
        const __RETURNS: ::roundtrip::__private::Returns<String> = <String as ::roundtrip::ToolReturn>::RETURNS;
        #[allow(unused)]
        fn __assert() {}
        let __fn = hello;
        let __graph = ::roundtrip::__private::graph(
            ::std::vec::Vec::from(["name"]),
            ::std::vec::Vec::from([]),
            ::std::vec::Vec::from([]),
        );
        ::roundtrip::__private::tool(
                ::roundtrip::__private::ToolSpec {
                    name: "hello",
                    title: ::core::option::Option::None,
                    description: ::core::option::Option::Some("Say hello."),
                    annotations: ::core::option::Option::None,
                    task: ::roundtrip::protocol::TaskSupport::Forbidden,
                },
                ::roundtrip::__private::input_schema(
                    ::std::vec::Vec::from([
                        ::roundtrip::__private::Field {
                            name: "name",
                            schema: ::roundtrip::__private::argument_schema::<String>(),
                            description: ::core::option::Option::Some("Who to greet."),
                            required: true,
                            flatten: false,
                        },
                    ]),
                ),
                (__RETURNS.output_schema)(),
                __graph,
                |__args: &::roundtrip::__private::JsonObject| {
                    let name = ::roundtrip::__private::argument::<
                        String,
                    >("hello", __args, "name")?;
                    ::core::result::Result::Ok((name,))
                },
                move |
                    (name,),
                    _: ::roundtrip::__private::Values,
                    _: ::roundtrip::server::RequestContext|
                { async move { (__RETURNS.outcome)(__fn(name).await) } },
            )
            .silent()
    }
}
