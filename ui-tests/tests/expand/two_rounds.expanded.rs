use roundtrip::prelude::*;
async fn wizard(name: String, age: Answer<u32>) -> String {
    name
}
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct __roundtrip_tool_wizard;
impl ::roundtrip::__private::ToolFactory for __roundtrip_tool_wizard {
    const NAME: &'static str = "wizard";
    fn def() -> ::roundtrip::server::ToolDef {
        const __RETURNS: ::roundtrip::__private::Returns<String> = <String as ::roundtrip::ToolReturn>::RETURNS;
        const _: () = ::roundtrip::__private::refuse_manual_form(__RETURNS.may_ask);
        #[allow(unused)]
        fn __assert() {}
        let __fn = wizard;
        let __graph = ::roundtrip::__private::graph(
            ::std::vec::Vec::from([]),
            ::std::vec::Vec::from([
                ::roundtrip::__private::Node {
                    name: "name",
                    resolver: ::roundtrip::__private::Resolver::Elicit {
                        message: ::roundtrip::__private::Template(
                            &[::roundtrip::__private::Part::Lit("What is your name?")],
                        ),
                        schema: ::roundtrip::__private::elicit_schema::<String>("name"),
                        property: if <String as ::roundtrip::Elicit>::SINGLE {
                            ::core::option::Option::Some("name")
                        } else {
                            ::core::option::Option::None
                        },
                    },
                    refusable: false,
                    check: ::roundtrip::__private::check::<String>,
                    static_pin: "dd9bfcae279d6d4a",
                    fallback: ::roundtrip::__private::Fallback {
                        argument: false,
                        form: false,
                        default: ::core::option::Option::None,
                    },
                },
                ::roundtrip::__private::Node {
                    name: "age",
                    resolver: ::roundtrip::__private::Resolver::Elicit {
                        message: ::roundtrip::__private::Template(
                            &[
                                ::roundtrip::__private::Part::Lit("How old are you, "),
                                ::roundtrip::__private::Part::Ref("name"),
                                ::roundtrip::__private::Part::Lit("?"),
                            ],
                        ),
                        schema: ::roundtrip::__private::elicit_schema::<u32>("age"),
                        property: if <u32 as ::roundtrip::Elicit>::SINGLE {
                            ::core::option::Option::Some("age")
                        } else {
                            ::core::option::Option::None
                        },
                    },
                    refusable: true,
                    check: ::roundtrip::__private::check::<u32>,
                    static_pin: "a9ef25ae96b85134",
                    fallback: ::roundtrip::__private::Fallback {
                        argument: false,
                        form: false,
                        default: ::core::option::Option::None,
                    },
                },
            ]),
            ::std::vec::Vec::from([]),
        );
        ::roundtrip::__private::tool(
                ::roundtrip::__private::ToolSpec {
                    name: "wizard",
                    title: ::core::option::Option::None,
                    description: ::core::option::Option::None,
                    annotations: ::core::option::Option::None,
                    task: ::roundtrip::protocol::TaskSupport::Forbidden,
                },
                ::roundtrip::__private::input_schema(::std::vec::Vec::from([])),
                (__RETURNS.output_schema)(),
                __graph,
                |__args: &::roundtrip::__private::JsonObject| {
                    ::core::result::Result::Ok(())
                },
                move |
                    (),
                    mut __values: ::roundtrip::__private::Values,
                    _: ::roundtrip::server::RequestContext|
                {
                    async move {
                        let name: String = __values.take::<String>("name")?;
                        let age: Answer<u32> = __values.answer::<u32>("age")?;
                        (__RETURNS.outcome)(__fn(name, age).await)
                    }
                },
            )
            .silent()
    }
}
