use roundtrip::prelude::*;
/// Provision a database.
async fn provision(name: String, region: String) -> String {
    let _ = &name;
    name + &region
}
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct __roundtrip_tool_provision;
impl ::roundtrip::__private::ToolFactory for __roundtrip_tool_provision {
    const NAME: &'static str = "provision";
    fn def() -> ::roundtrip::server::ToolDef {
        const __RETURNS: ::roundtrip::__private::Returns<String> = <String as ::roundtrip::ToolReturn>::RETURNS;
        const _: () = ::roundtrip::__private::refuse_manual_form(__RETURNS.may_ask);
        #[allow(unused)]
        fn __assert() {}
        let __fn = provision;
        let __graph = ::roundtrip::__private::graph(
            ::std::vec::Vec::from(["name"]),
            ::std::vec::Vec::from([
                ::roundtrip::__private::Node {
                    name: "region",
                    resolver: ::roundtrip::__private::Resolver::Elicit {
                        message: ::roundtrip::__private::Template(
                            &[
                                ::roundtrip::__private::Part::Lit("Which region should "),
                                ::roundtrip::__private::Part::Ref("name"),
                                ::roundtrip::__private::Part::Lit(" live in?"),
                            ],
                        ),
                        schema: ::roundtrip::__private::elicit_schema::<
                            String,
                        >("region"),
                        property: if <String as ::roundtrip::Elicit>::SINGLE {
                            ::core::option::Option::Some("region")
                        } else {
                            ::core::option::Option::None
                        },
                    },
                    refusable: false,
                    check: ::roundtrip::__private::check::<String>,
                    static_pin: "e8f835910bc55bad",
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
                    name: "provision",
                    title: ::core::option::Option::None,
                    description: ::core::option::Option::Some("Provision a database."),
                    annotations: ::core::option::Option::None,
                    task: ::roundtrip::protocol::TaskSupport::Forbidden,
                },
                ::roundtrip::__private::input_schema(
                    ::std::vec::Vec::from([
                        ::roundtrip::__private::Field {
                            name: "name",
                            schema: ::roundtrip::__private::argument_schema::<String>(),
                            description: ::core::option::Option::None,
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
                    >("provision", __args, "name")?;
                    ::core::result::Result::Ok((name,))
                },
                move |
                    (name,),
                    mut __values: ::roundtrip::__private::Values,
                    _: ::roundtrip::server::RequestContext|
                {
                    async move {
                        let region: String = __values.take::<String>("region")?;
                        (__RETURNS.outcome)(__fn(name, region).await)
                    }
                },
            )
            .silent()
    }
}
