use roundtrip::prelude::*;
/// The dashboard.
pub const DASHBOARD: &str = "<!doctype html><p>dashboard</p>";
#[doc(hidden)]
#[allow(non_camel_case_types)]
pub struct __roundtrip_resource_DASHBOARD;
impl ::roundtrip::__private::ResourceFactory for __roundtrip_resource_DASHBOARD {
    const NAME: &'static str = "dashboard";
    fn def() -> ::roundtrip::server::ResourceEntry {
        ::roundtrip::server::ResourceEntry::Static(
            <Self as ::roundtrip::__private::ViewFactory>::view(),
        )
    }
}
impl ::roundtrip::__private::ViewFactory for __roundtrip_resource_DASHBOARD {
    const URI: &'static str = "ui://demo/dashboard";
    fn view() -> ::roundtrip::server::ResourceDef {
        ::roundtrip::__private::view_text(
            ::roundtrip::__private::ViewSpec {
                uri: "ui://demo/dashboard",
                name: "dashboard",
                title: ::core::option::Option::None,
                description: ::core::option::Option::Some("The dashboard."),
                connect_domains: &["https://api.example.com"],
                resource_domains: &[],
                frame_domains: &[],
                base_uri_domains: &[],
                permissions: &[],
                domain: ::core::option::Option::None,
                prefers_border: ::core::option::Option::Some(true),
            },
            DASHBOARD,
        )
    }
}
/// Refresh the dashboard: only the view calls it.
pub async fn refresh() -> String {
    "refreshed".into()
}
#[doc(hidden)]
#[allow(non_camel_case_types)]
pub struct __roundtrip_tool_refresh;
impl ::roundtrip::__private::ToolFactory for __roundtrip_tool_refresh {
    const NAME: &'static str = "refresh";
    fn def() -> ::roundtrip::server::ToolDef {
        const __RETURNS: ::roundtrip::__private::Returns<String> = <String as ::roundtrip::ToolReturn>::RETURNS;
        #[allow(unused)]
        fn __assert() {}
        let __fn = refresh;
        let __graph = ::roundtrip::__private::graph(
            ::std::vec::Vec::from([]),
            ::std::vec::Vec::from([]),
            ::std::vec::Vec::from([]),
        );
        ::roundtrip::__private::tool(
                ::roundtrip::__private::ToolSpec {
                    name: "refresh",
                    title: ::core::option::Option::None,
                    description: ::core::option::Option::Some(
                        "Refresh the dashboard: only the view calls it.",
                    ),
                    annotations: ::core::option::Option::Some(
                        <::roundtrip::protocol::ToolAnnotations as ::core::default::Default>::default()
                            .with_read_only_hint(true),
                    ),
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
                    _: ::roundtrip::__private::Values,
                    _: ::roundtrip::server::RequestContext|
                { async move { (__RETURNS.outcome)(__fn().await) } },
            )
            .with_view(
                <__roundtrip_resource_DASHBOARD as ::roundtrip::__private::ViewFactory>::view(),
            )
            .visibility([::roundtrip::protocol::Visibility::App])
            .silent()
    }
}
