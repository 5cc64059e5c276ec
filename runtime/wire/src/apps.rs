//! MCP Apps (SEP-1865, the extension `io.modelcontextprotocol/ui`, stable 2026-01-26): tools
//! that come with an interactive view.
//!
//! A *view* is a resource at a `ui://` URI whose contents are an HTML document of the MIME
//! type [`VIEW_MIME_TYPE`]; its content item carries `_meta.ui` ([`UiResourceMeta`]: the
//! origins its Content Security Policy may allow, the browser permissions it asks for, a
//! dedicated sandbox domain, a border preference). A tool links to its view with
//! `_meta.ui.resourceUri` ([`UiToolMeta`]), and says who may see and call it with
//! `_meta.ui.visibility` (the model, the view, or both). A host renders the view in a
//! sandboxed iframe and talks to it over `postMessage`; the server only serves metadata,
//! resources and tool calls.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ClientCapabilities, JsonObject};

/// The extension's identifier, in client and server capabilities.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of a view's contents (the only one the extension defines).
pub const VIEW_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The `_meta` key of a tool's [`UiToolMeta`] and of a view's [`UiResourceMeta`].
pub const META_UI: &str = "ui";

/// The flat `_meta` key hosts of the first drafts read a tool's view from. Deprecated by the
/// extension ("will be removed before GA") but still read by hosts; the official server helper
/// writes both keys, and so does roundtrip.
pub const META_UI_RESOURCE_URI: &str = "ui/resourceUri";

/// Who may see and call a tool (`_meta.ui.visibility`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Visibility {
    /// The model (the agent's tool list).
    Model,
    /// Views of this server, calling through the host.
    App,
}

/// A tool's `_meta.ui`: its view and its visibility.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UiToolMeta {
    /// The `ui://` URI of the view that renders the tool's results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Who may see and call the tool; absent means both the model and views.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<Visibility>>,
}

setters!(UiToolMeta {
    with_resource_uri => resource_uri: String,
    with_visibility => visibility: Vec<Visibility>,
});

impl UiToolMeta {
    /// A tool's `_meta.ui`, read from its `_meta` (the flat `ui/resourceUri` key counts when
    /// `ui.resourceUri` is absent, as hosts read it). `None` when the tool has neither.
    pub fn of(meta: Option<&JsonObject>) -> Option<Self> {
        let meta = meta?;
        let mut ui = meta.get(META_UI).and_then(|v| Self::deserialize(v).ok());
        let flat = meta.get(META_UI_RESOURCE_URI).and_then(Value::as_str);
        match (&mut ui, flat) {
            (Some(ui), Some(flat)) if ui.resource_uri.is_none() => ui.resource_uri = Some(flat.to_owned()),
            (None, Some(flat)) => ui = Some(Self { resource_uri: Some(flat.to_owned()), visibility: None }),
            _ => {}
        }
        ui
    }

    /// Whether the model may see the tool (visibility absent, or naming `model`).
    pub fn model_visible(&self) -> bool {
        self.visibility.as_ref().is_none_or(|v| v.contains(&Visibility::Model))
    }

    /// Whether views may call the tool (visibility absent, or naming `app`).
    pub fn app_visible(&self) -> bool {
        self.visibility.as_ref().is_none_or(|v| v.contains(&Visibility::App))
    }
}

/// A view's `_meta.ui`: what the host's sandbox should allow it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UiResourceMeta {
    /// The origins its Content Security Policy may allow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<UiCsp>,
    /// The browser features it asks for (hosts may grant them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<UiPermissions>,
    /// A dedicated sandbox origin; its format is the host's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// `true` asks for a visible border and background, `false` for none; absent, the host
    /// decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

/// The origins a view's Content Security Policy may allow, by directive. An empty list is
/// the restrictive default of its directive.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UiCsp {
    /// `connect-src`: `fetch`, XHR and WebSocket.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connect_domains: Vec<String>,
    /// `script-src`, `style-src`, `img-src`, `font-src`, `media-src`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_domains: Vec<String>,
    /// `frame-src`: nested iframes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frame_domains: Vec<String>,
    /// `base-uri`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub base_uri_domains: Vec<String>,
}

setters!(UiResourceMeta {
    with_csp => csp: UiCsp,
    with_permissions => permissions: UiPermissions,
    with_domain => domain: String,
    with_prefers_border => prefers_border: bool,
});

impl UiCsp {
    /// Whether `s` is an origin a list may hold, by roundtrip's rule (the `#[view]` macro
    /// checks the same at compile time, and the playground's sandbox refuses anything else):
    /// `scheme://host[:port]` with scheme `http`, `https`, `ws` or `wss`; a host name whose
    /// first label may be `*`, or a bracketed IPv6 address; a port of digits or `*`. No path,
    /// and nothing (a space, a quote, a `;`) that would change the policy built from it.
    ///
    /// A wildcard stands only below a registrable domain, never for a whole public suffix:
    /// what follows `*.` has at least two labels, and at least three when its last two are a
    /// suffix under which anyone may register a name (`co.uk`, `com.au`, `co.jp`, `github.io`,
    /// … from a short built-in list, not the whole Public Suffix List). So
    /// `https://*.example.com` and `https://*.example.co.uk` are origins, and `https://*`,
    /// `https://*.com` and `https://*.co.uk` are not.
    ///
    /// ```
    /// use roundtrip_wire::UiCsp;
    /// assert!(UiCsp::is_origin("https://*.cdn.example.com"));
    /// assert!(UiCsp::is_origin("https://*.example.co.uk"));
    /// assert!(UiCsp::is_origin("wss://live.example.com:8443"));
    /// assert!(!UiCsp::is_origin("https://*.com"));
    /// assert!(!UiCsp::is_origin("https://*.co.uk"));
    /// assert!(!UiCsp::is_origin("https://*"));
    /// assert!(!UiCsp::is_origin("https://api.example.com; script-src *"));
    /// assert!(!UiCsp::is_origin("'self'"));
    /// ```
    pub fn is_origin(s: &str) -> bool {
        let Some((scheme, rest)) = s.split_once("://") else { return false };
        if !matches!(scheme, "http" | "https" | "ws" | "wss") || s.len() > 255 {
            return false;
        }
        let (host, port) = match rest.strip_prefix('[') {
            Some(v6) => match v6.split_once(']') {
                Some((addr, after)) if !addr.is_empty() && addr.chars().all(|c| c.is_ascii_hexdigit() || c == ':') => {
                    (None, after)
                }
                _ => return false,
            },
            None => match rest.find(':') {
                Some(i) => (Some(&rest[..i]), &rest[i..]),
                None => (Some(rest), ""),
            },
        };
        let host_ok = host.is_none_or(|h| match h.strip_prefix("*.") {
            Some(domain) => is_host(domain) && wildcard_may_cover(domain),
            None => is_host(h),
        });
        let port_ok = match port.strip_prefix(':') {
            None => port.is_empty(),
            Some("*") => true,
            Some(p) => !p.is_empty() && p.len() <= 5 && p.chars().all(|c| c.is_ascii_digit()),
        };
        host_ok && port_ok
    }

    /// The public suffix a wildcard origin would cover whole (`com` of `https://*.com`), when it
    /// is otherwise well formed: why [`is_origin`](Self::is_origin) refuses it. The `#[view]`
    /// macro says so at compile time.
    #[doc(hidden)]
    pub fn too_broad_wildcard(origin: &str) -> Option<&str> {
        let (_, rest) = origin.split_once("://")?;
        let domain = rest.strip_prefix("*.")?;
        let domain = domain.split(':').next().unwrap_or(domain);
        (is_host(domain) && !wildcard_may_cover(domain)).then_some(domain)
    }

    /// Whether `s` is a host name: dot-separated labels of letters, digits and `-` (the
    /// `#[view]` macro's `domain`).
    #[doc(hidden)]
    pub fn is_host(s: &str) -> bool {
        is_host(s)
    }

    /// Whether no list has an origin.
    pub fn is_empty(&self) -> bool {
        self.connect_domains.is_empty()
            && self.resource_domains.is_empty()
            && self.frame_domains.is_empty()
            && self.base_uri_domains.is_empty()
    }
}

/// The browser features a view asks for; each is `{}` on the wire when asked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UiPermissions {
    /// The `camera` feature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<JsonObject>,
    /// The `microphone` feature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microphone: Option<JsonObject>,
    /// The `geolocation` feature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<JsonObject>,
    /// The `clipboard-write` feature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clipboard_write: Option<JsonObject>,
}

setters!(UiPermissions {
    with_camera => camera: JsonObject,
    with_microphone => microphone: JsonObject,
    with_geolocation => geolocation: JsonObject,
    with_clipboard_write => clipboard_write: JsonObject,
});

impl UiPermissions {
    /// Whether no feature is asked for.
    pub fn is_empty(&self) -> bool {
        self.camera.is_none()
            && self.microphone.is_none()
            && self.geolocation.is_none()
            && self.clipboard_write.is_none()
    }
}

/// Suffixes of two labels under which anyone may register a name: the multi-part public
/// suffixes of the [Public Suffix List](https://publicsuffix.org) most often met (`co.uk`,
/// `com.au`, `co.jp`, …) and the hosting platforms whose every subdomain is someone else's
/// site (`github.io`, `vercel.app`, …). A short list, not the whole one: a wildcard under a
/// suffix it lacks (`*.gov.bd`) passes the two-label rule.
///
/// The `#[view]` macro checks its origins with this list too ([`UiCsp::is_origin`]).
#[rustfmt::skip]
const REGISTRY_SUFFIXES: &[&str] = &[
    "co.uk", "org.uk", "ac.uk", "gov.uk", "ltd.uk", "plc.uk", "me.uk", "net.uk", "sch.uk", "nhs.uk",
    "com.au", "net.au", "org.au", "edu.au", "gov.au", "asn.au", "id.au", "co.nz", "net.nz", "org.nz",
    "govt.nz", "ac.nz", "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "ad.jp", "ed.jp", "gr.jp",
    "lg.jp", "co.kr", "or.kr", "ne.kr", "go.kr", "ac.kr", "co.za", "org.za", "gov.za", "ac.za",
    "net.za", "co.in", "net.in", "org.in", "gov.in", "ac.in", "firm.in", "gen.in", "ind.in", "co.il",
    "org.il", "ac.il", "gov.il", "co.id", "or.id", "ac.id", "go.id", "web.id", "co.th", "in.th",
    "ac.th", "go.th", "or.th", "com.br", "net.br", "org.br", "gov.br", "edu.br", "com.cn", "net.cn",
    "org.cn", "gov.cn", "edu.cn", "com.hk", "org.hk", "net.hk", "edu.hk", "gov.hk", "com.tw", "org.tw",
    "net.tw", "edu.tw", "gov.tw", "com.sg", "org.sg", "net.sg", "edu.sg", "gov.sg", "com.my", "org.my",
    "net.my", "edu.my", "gov.my", "com.mx", "org.mx", "net.mx", "gob.mx", "edu.mx", "com.ar", "org.ar",
    "net.ar", "gob.ar", "edu.ar", "com.tr", "org.tr", "net.tr", "gov.tr", "edu.tr", "com.ua", "org.ua",
    "net.ua", "gov.ua", "edu.ua", "com.ph", "org.ph", "net.ph", "gov.ph", "edu.ph", "com.vn", "net.vn",
    "org.vn", "gov.vn", "edu.vn", "com.pk", "org.pk", "net.pk", "gov.pk", "edu.pk", "com.eg", "org.eg",
    "gov.eg", "edu.eg", "com.sa", "org.sa", "gov.sa", "edu.sa", "com.co", "org.co", "gov.co", "edu.co",
    "com.pe", "org.pe", "gob.pe", "edu.pe", "co.ke", "or.ke", "go.ke", "ac.ke", "com.ng", "org.ng",
    "gov.ng", "edu.ng", "github.io", "gitlab.io", "herokuapp.com", "vercel.app", "netlify.app",
    "pages.dev", "workers.dev", "web.app", "firebaseapp.com", "appspot.com", "azurewebsites.net",
    "cloudfront.net", "blogspot.com", "amazonaws.com", "onrender.com", "fly.dev",
];

/// Whether `*.{domain}` stays below a registrable domain ([`UiCsp::is_origin`]): `domain` has
/// two labels or more, and three or more when its last two are one of [`REGISTRY_SUFFIXES`].
fn wildcard_may_cover(domain: &str) -> bool {
    let labels = domain.split('.').count();
    let last_two = domain.rsplitn(3, '.').take(2).collect::<Vec<_>>();
    let suffix = match last_two.as_slice() {
        [last, before] => format!("{before}.{last}").to_ascii_lowercase(),
        _ => return false,
    };
    labels >= 3 || (labels == 2 && !REGISTRY_SUFFIXES.contains(&suffix.as_str()))
}

/// A host name: dot-separated labels of letters, digits and `-`.
fn is_host(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
}

impl ClientCapabilities {
    /// Whether the client hosts views: it declared the extension with [`VIEW_MIME_TYPE`]
    /// among its `mimeTypes` (the check the extension's specification gives servers).
    pub fn supports_ui(&self) -> bool {
        let Some(ui) = self.extensions.as_ref().and_then(|e| e.get(UI_EXTENSION)) else { return false };
        ui.get("mimeTypes").and_then(Value::as_array).is_some_and(|m| m.iter().any(|t| t == VIEW_MIME_TYPE))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_wildcard_stands_below_a_registrable_domain_only() {
        for ok in [
            "https://*.example.com",
            "https://*.cdn.example.com",
            "https://*.example.co.uk",
            "https://*.EXAMPLE.CO.UK",
            "wss://*.example.io:443",
            "https://*.someone.github.io",
            "https://example.com",
            "https://com",
        ] {
            assert!(UiCsp::is_origin(ok), "{ok}");
        }
        for refused in [
            "https://*",
            "https://*.com",
            "https://*.co.uk",
            "https://*.CO.UK",
            "https://*.com.au",
            "https://*.co.jp",
            "https://*.github.io",
            "https://*.com:443",
            "https://*.*.example.com",
        ] {
            assert!(!UiCsp::is_origin(refused), "{refused}");
        }
    }

    #[test]
    fn a_tools_ui_is_read_from_either_key() {
        let nested: JsonObject =
            serde_json::from_value(json!({"ui": {"resourceUri": "ui://a", "visibility": ["app"]}})).unwrap_or_default();
        let ui = UiToolMeta::of(Some(&nested)).unwrap_or_default();
        assert_eq!(ui.resource_uri.as_deref(), Some("ui://a"));
        assert!(ui.app_visible() && !ui.model_visible());
        let flat: JsonObject = serde_json::from_value(json!({"ui/resourceUri": "ui://b"})).unwrap_or_default();
        let ui = UiToolMeta::of(Some(&flat)).unwrap_or_default();
        assert_eq!(ui.resource_uri.as_deref(), Some("ui://b"));
        assert!(ui.app_visible() && ui.model_visible());
        assert_eq!(UiToolMeta::of(Some(&JsonObject::new())), None);
    }

    #[test]
    fn only_a_client_that_names_the_mime_type_hosts_views() {
        let caps = |v: Value| serde_json::from_value::<ClientCapabilities>(v).unwrap_or_default();
        assert!(caps(json!({"extensions": {UI_EXTENSION: {"mimeTypes": [VIEW_MIME_TYPE]}}})).supports_ui());
        assert!(!caps(json!({"extensions": {UI_EXTENSION: {}}})).supports_ui());
        assert!(!caps(json!({"extensions": {UI_EXTENSION: {"mimeTypes": ["text/html"]}}})).supports_ui());
        assert!(!caps(json!({})).supports_ui());
    }

    #[test]
    fn empty_lists_and_unasked_features_stay_off_the_wire() {
        let meta = UiResourceMeta {
            csp: Some(UiCsp { connect_domains: vec!["https://api.example.com".into()], ..UiCsp::default() }),
            permissions: Some(UiPermissions { camera: Some(JsonObject::new()), ..UiPermissions::default() }),
            domain: None,
            prefers_border: Some(true),
        };
        assert_eq!(
            serde_json::to_value(&meta).unwrap_or_default(),
            json!({"csp": {"connectDomains": ["https://api.example.com"]}, "permissions": {"camera": {}}, "prefersBorder": true})
        );
    }
}
