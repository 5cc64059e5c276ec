//! The sandbox of the playground's MCP Apps host: the document a view runs in, served with a
//! Content Security Policy built from the view's metadata.
//!
//! The extension's specification has web hosts put a *sandbox proxy* between themselves and a
//! view: an iframe on another origin, which receives the view's HTML in
//! `ui/notifications/sandbox-resource-ready`, renders it in an inner iframe under a CSP built
//! from the view's `_meta.ui.csp`, and relays every other message both ways. The playground is
//! one page on one origin (the server's), so it follows that recipe with one change:
//!
//! - The proxy is `GET …/playground/sandbox?csp=…` on the playground's own origin, and the page
//!   frames it with `sandbox="allow-scripts"` and *without* `allow-same-origin`: the browser
//!   gives it an opaque origin, so neither the proxy nor the view inside it can reach the
//!   page, its storage or the server's endpoint (a request from an opaque origin carries
//!   `Origin: null`, which the endpoint's origin check refuses). The specification's outer
//!   frame has `allow-same-origin` because its origin is a separate sandbox domain; here that
//!   flag would hand the view the playground itself. The cost: a view has no origin of its own
//!   (no storage, and `domain` cannot be honoured).
//! - The policy is an HTTP header of the proxy document, built here from the `csp` query
//!   parameter (the view's `_meta.ui.csp` as base64url JSON). The view is the proxy's inner
//!   `srcdoc` iframe, and a `srcdoc` document inherits its parent's policy, so the header
//!   governs the view; a view cannot loosen it (unlike a `<meta>` policy in its own HTML). The
//!   policy is the specification's (`default-src 'none'`, `frame-src` and `connect-src` only
//!   the declared origins, `object-src 'none'`, …) made stricter where the playground's origin
//!   would otherwise leak in: `'self'` is allowed only in `script-src`, for the proxy's own
//!   script, and not in `connect-src`, `img-src` or `style-src` (in the specification `'self'`
//!   is the sandbox origin; here it would be the server).
//! - Every origin is checked ([`UiCsp::is_origin`]); a query that holds anything else, or more
//!   than the bounds allow, is refused with `400`, never loosened.

use base64::Engine as _;

use roundtrip_wire::UiCsp;

/// The proxy document: no content of its own, its script relays.
pub(super) const HTML: &str = include_str!("sandbox.html");
/// The proxy's script.
pub(super) const JS: &str = include_str!("sandbox.js");

/// The most a `csp` query parameter may hold, encoded.
const MAX_QUERY: usize = 16 * 1024;
/// The most origins one directive may list.
const MAX_ORIGINS: usize = 64;

/// The view's CSP lists, from the sandbox's query string (`csp=<base64url of the JSON>`);
/// none means the restrictive default. Refused: a query too long, not base64url JSON of the
/// lists, a list too long, or an entry that is not an origin.
pub(super) fn parse(query: Option<&str>) -> Result<UiCsp, String> {
    let Some(query) = query.filter(|q| !q.is_empty()) else { return Ok(UiCsp::default()) };
    if query.len() > MAX_QUERY {
        return Err(format!("the csp parameter is over {MAX_QUERY} bytes"));
    }
    let Some(encoded) = query.split('&').find_map(|pair| pair.strip_prefix("csp=")) else {
        return Ok(UiCsp::default());
    };
    let json = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(encoded.trim_end_matches('='))
        .map_err(|_| "the csp parameter is not base64url".to_owned())?;
    let object: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&json).map_err(|e| format!("the csp parameter is not a JSON object: {e}"))?;
    const LISTS: [&str; 4] = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"];
    if let Some(unknown) = object.keys().find(|k| !LISTS.contains(&k.as_str())) {
        return Err(format!("the csp parameter has {unknown:?}, which is not one of {}", LISTS.join(", ")));
    }
    let csp: UiCsp = serde_json::from_value(serde_json::Value::Object(object))
        .map_err(|e| format!("the csp parameter is not a view's csp: {e}"))?;
    for (name, list) in [
        ("connectDomains", &csp.connect_domains),
        ("resourceDomains", &csp.resource_domains),
        ("frameDomains", &csp.frame_domains),
        ("baseUriDomains", &csp.base_uri_domains),
    ] {
        if list.len() > MAX_ORIGINS {
            return Err(format!("{name} lists more than {MAX_ORIGINS} origins"));
        }
        if let Some(bad) = list.iter().find(|o| !UiCsp::is_origin(o)) {
            return Err(format!("{name} holds {bad:?}, which is not an origin"));
        }
    }
    Ok(csp)
}

/// The policy of the sandbox (and so of the view in it).
pub(super) fn policy(csp: &UiCsp) -> String {
    let join = |list: &[String], base: &str, empty: &str| {
        let mut sources: Vec<&str> = base.split(' ').filter(|s| !s.is_empty()).collect();
        sources.extend(list.iter().map(String::as_str));
        if sources.is_empty() { empty.to_owned() } else { sources.join(" ") }
    };
    let resources = &csp.resource_domains;
    [
        "default-src 'none'".to_owned(),
        format!("script-src {}", join(resources, "'self' 'unsafe-inline'", "'none'")),
        format!("style-src {}", join(resources, "'unsafe-inline'", "'none'")),
        format!("img-src {}", join(resources, "data:", "'none'")),
        format!("font-src {}", join(resources, "", "'none'")),
        format!("media-src {}", join(resources, "data:", "'none'")),
        format!("connect-src {}", join(&csp.connect_domains, "", "'none'")),
        format!("frame-src {}", join(&csp.frame_domains, "", "'none'")),
        "object-src 'none'".to_owned(),
        format!("base-uri {}", join(&csp.base_uri_domains, "", "'self'")),
        "form-action 'none'".to_owned(),
        "frame-ancestors 'self'".to_owned(),
    ]
    .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(json: &str) -> String {
        format!("csp={}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json))
    }

    #[test]
    fn no_metadata_is_the_restrictive_default() {
        let csp = parse(None).unwrap_or_default();
        assert_eq!(
            policy(&csp),
            "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; \
             font-src 'none'; media-src data:; connect-src 'none'; frame-src 'none'; object-src 'none'; \
             base-uri 'self'; form-action 'none'; frame-ancestors 'self'"
        );
    }

    #[test]
    fn declared_origins_reach_their_directives_and_nothing_else() {
        let q = query(
            r#"{"connectDomains":["https://api.example.com"],"resourceDomains":["https://*.cdn.example.com"],
                "frameDomains":["https://www.youtube.com"],"baseUriDomains":["https://cdn.example.com"]}"#,
        );
        let p = policy(&parse(Some(&q)).unwrap_or_default());
        assert!(p.contains("connect-src https://api.example.com;"), "{p}");
        assert!(p.contains("script-src 'self' 'unsafe-inline' https://*.cdn.example.com;"), "{p}");
        assert!(p.contains("img-src data: https://*.cdn.example.com;"), "{p}");
        assert!(p.contains("font-src https://*.cdn.example.com;"), "{p}");
        assert!(p.contains("frame-src https://www.youtube.com;"), "{p}");
        assert!(p.contains("base-uri https://cdn.example.com;"), "{p}");
        assert!(!p.contains("connect-src 'self'"), "{p}");
    }

    #[test]
    fn anything_that_is_not_an_origin_is_refused_never_loosened() {
        for bad in [
            r#"{"connectDomains":["https://a.example.com; script-src *"]}"#,
            r#"{"connectDomains":["*"]}"#,
            r#"{"connectDomains":["https://*"]}"#,
            r#"{"connectDomains":["https://*.com"]}"#,
            r#"{"resourceDomains":["https://*.co.uk"]}"#,
            r#"{"resourceDomains":["'unsafe-eval'"]}"#,
            r#"{"frameDomains":["https://a.example.com/path"]}"#,
            r#"{"connect":["https://a.example.com"]}"#,
            r#"{"connectDomains":"https://a.example.com"}"#,
        ] {
            assert!(parse(Some(&query(bad))).is_err(), "{bad}");
        }
        assert!(parse(Some("csp=%%%")).is_err());
        assert!(parse(Some(&"csp=".repeat(MAX_QUERY))).is_err());
        let many: Vec<String> = (0..=MAX_ORIGINS).map(|i| format!("https://h{i}.example.com")).collect();
        let json = serde_json::json!({ "connectDomains": many }).to_string();
        assert!(parse(Some(&query(&json))).is_err());
    }
}
