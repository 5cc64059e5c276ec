// The sandbox proxy of the playground's MCP Apps host (see sandbox.rs for why it looks like
// this). It runs with an opaque origin, under the Content Security Policy the server built from
// the view's metadata; it renders the view's HTML, which the page sends in
// `ui/notifications/sandbox-resource-ready`, in an inner `srcdoc` iframe (which inherits that
// policy), and relays every other message between the page and the view, unchanged. It
// originates nothing but `ui/notifications/sandbox-proxy-ready`.
"use strict";
(() => {
  // The page that framed this document is on the origin of its URL (this document's own origin
  // is opaque): messages go up to that origin only.
  const HOST = new URL(location.href).origin;
  // What the inner frame may be allowed, whatever the page asks: never `allow-same-origin`
  // (the view would share the proxy's origin) nor top navigation.
  const SANDBOX = ["allow-scripts", "allow-forms", "allow-popups", "allow-modals", "allow-downloads"];
  // MCP Apps permissions and the Permissions-Policy features they map to.
  const FEATURES = { camera: "camera", microphone: "microphone", geolocation: "geolocation", clipboardWrite: "clipboard-write" };
  let view = null;

  const reserved = (data) =>
    data !== null && typeof data === "object" && typeof data.method === "string" && data.method.startsWith("ui/notifications/sandbox-");

  function render(params) {
    if (view || !params || typeof params.html !== "string") return; // one view per sandbox
    view = document.createElement("iframe");
    const asked = typeof params.sandbox === "string" ? params.sandbox.split(/\s+/) : ["allow-scripts"];
    view.setAttribute("sandbox", asked.filter((t) => SANDBOX.includes(t)).join(" "));
    const allow = Object.keys(params.permissions || {}).map((p) => FEATURES[p]).filter(Boolean);
    if (allow.length) view.setAttribute("allow", allow.join("; "));
    view.setAttribute("title", "MCP Apps view");
    view.srcdoc = params.html;
    document.body.append(view);
  }

  addEventListener("message", (event) => {
    const data = event.data;
    if (event.source === parent) {
      if (reserved(data)) {
        if (data.method === "ui/notifications/sandbox-resource-ready") render(data.params);
        return;
      }
      if (view) view.contentWindow.postMessage(data, "*");
    } else if (view && event.source === view.contentWindow) {
      if (!reserved(data)) parent.postMessage(data, HOST);
    }
  });

  parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, HOST);
})();
