// The playground as an MCP Apps host (extension `io.modelcontextprotocol/ui`, specification
// 2026-01-26): a tool linked to a view (`_meta.ui.resourceUri`) gets the view rendered beside its
// result, and the view talks to this page over `postMessage` (JSON-RPC 2.0):
//
// - The page reads the view (`resources/read`, MIME type `text/html;profile=mcp-app`) and frames
//   the sandbox proxy (`playground/sandbox?csp=…`, an opaque origin whose Content Security
//   Policy the server builds from the view's `_meta.ui.csp`; sandbox.rs says why), which renders
//   the HTML it is sent in `ui/notifications/sandbox-resource-ready`.
// - It answers `ui/initialize` (host capabilities, host context), waits for
//   `ui/notifications/initialized`, then sends `ui/notifications/tool-input` and, when the call
//   ends, `ui/notifications/tool-result` (or `tool-cancelled`).
// - It carries out what the view asks: `tools/call` and `resources/read` go to the server as the
//   playground's own calls do, leg by leg, so a call that asks questions gets its forms in the
//   timeline and a task is followed to its end; a tool whose visibility lacks "app" is refused
//   (the host's duty). `ui/open-link` is shown to the user as a link (never opened by itself),
//   `ui/message`, `ui/update-model-context` and logs are shown in the view's panel,
//   `ui/notifications/size-changed` resizes the frame.
// - Before the view goes, it sends `ui/resource-teardown` and waits (a little) for the answer.
//
// No SDK, no build step: the host side is small enough to write out (the specification says as
// much), and the official `AppBridge` has no self-contained build. The browser tests check this
// host against the official view SDK, and the example's view against the official AppBridge.
"use strict";
window.RoundtripApps = (() => {
  const EXTENSION = "io.modelcontextprotocol/ui";
  const MIME = "text/html;profile=mcp-app";
  const PROTOCOL = "2026-01-26";
  const HOST_INFO = { name: "roundtrip-playground", version: "1.0.0" };
  // What the inner frame may do: scripts and forms; no origin of its own (see sandbox.rs).
  const SANDBOX = "allow-scripts allow-forms";
  const PERMISSIONS = { camera: "camera", microphone: "microphone", geolocation: "geolocation", clipboardWrite: "clipboard-write" };
  const MAX_HEIGHT = 4000;
  const MAX_LOG = 200;
  // The server's rule (UiCsp::is_origin) but for its check that a wildcard stands below a
  // registrable domain; the server refuses anything else (the sandbox answers 400).
  const ORIGIN = /^(https?|wss?):\/\/(\[[0-9a-fA-F:]+\]|(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*)(:(\d{1,5}|\*))?$/;
  const CSP_LISTS = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"];

  /** The view a tool links to (`_meta.ui.resourceUri`, else the deprecated flat key), if any. */
  function viewUri(tool) {
    const meta = (tool && tool._meta) || {};
    const uri = (meta.ui && meta.ui.resourceUri) || meta["ui/resourceUri"];
    return typeof uri === "string" && uri.startsWith("ui://") ? uri : null;
  }

  /** Who may see and call a tool; absent means both. */
  function visibility(tool) {
    const v = tool && tool._meta && tool._meta.ui && tool._meta.ui.visibility;
    return Array.isArray(v) ? v : ["model", "app"];
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) node.append(c);
    return node;
  }

  const short = (v) => {
    const s = typeof v === "string" ? v : JSON.stringify(v);
    return s.length > 300 ? s.slice(0, 300) + "…" : s;
  };

  /** base64url of UTF-8 text. */
  function base64url(text) {
    let binary = "";
    for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  /** A view's contents as HTML text (`text`, or UTF-8 in base64 `blob`). */
  function htmlOf(contents) {
    if (typeof contents.text === "string") return contents.text;
    if (typeof contents.blob === "string") {
      const bytes = Uint8Array.from(atob(contents.blob), (c) => c.charCodeAt(0));
      return new TextDecoder().decode(bytes);
    }
    return null;
  }

  /** The result a view sees: a CallToolResult, without the 2026-07-28 envelope's fields. */
  function callToolResult(result) {
    const out = { content: Array.isArray(result.content) ? result.content : [] };
    for (const k of ["structuredContent", "isError", "_meta"]) if (result[k] !== undefined) out[k] = result[k];
    return out;
  }

  /**
   * Render the view of `tool` in `container` and talk to it.
   *
   * options: { tool, args, container, tools (Map of name to tool), rpc(method, params),
   *            call(method, params, label) -> Promise<result | undefined> (the playground's
   *            legs, with questions as forms), alive() -> bool }
   * Returns { deliver(result), cancel(reason), close() }.
   */
  function mount(options) {
    const { tool, args, container } = options;
    const uri = viewUri(tool);
    const status = el("span", { class: "muted", text: "reading the view…" });
    const audit = el("div", { class: "view-audit muted" });
    const frameBox = el("div", { class: "view-frame" });
    const log = el("ul", { class: "view-log", "aria-label": "What the view did" });
    const panel = el("section", { class: "view-panel", "aria-label": "MCP Apps view" }, el("div", { class: "view-head" }, el("strong", { text: "View " }), el("code", { text: uri }), " · ", status), audit, frameBox, log);
    panel.dataset.uri = uri;
    panel.dataset.state = "loading";
    // Appended: a view that is closing stays (its frame must answer the teardown) until it goes.
    container.append(panel);

    let frame = null;
    let initialized = false;
    let closing = false;
    let closed = false;
    let nextId = 0;
    const pending = new Map(); // our requests to the view, by id
    const queue = []; // what waits for `initialized`
    let applied = { csp: {}, permissions: {} };

    const note = (text, cls, ...extra) => {
      log.append(el("li", { class: cls || "" }, text, ...extra));
      while (log.children.length > MAX_LOG) log.firstChild.remove();
    };
    const setState = (state, text) => {
      panel.dataset.state = state;
      status.textContent = text;
    };

    function post(message) {
      if (frame && frame.contentWindow && !closed) frame.contentWindow.postMessage(message, "*");
    }
    const notify = (method, params) => post({ jsonrpc: "2.0", method, params });
    const respond = (id, result) => post({ jsonrpc: "2.0", id, result });
    const fail = (id, code, message) => post({ jsonrpc: "2.0", id, error: { code, message } });

    /** Send to the view now if it is initialized, else once it is. */
    function whenReady(send) {
      if (initialized) send();
      else queue.push(send);
    }

    function request(method, params, timeoutMs) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${method}: no answer within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, { resolve, reject, timer });
        post({ jsonrpc: "2.0", id, method, params });
      });
    }

    function hostContext() {
      const dark = window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches;
      return {
        toolInfo: { tool },
        theme: dark ? "dark" : "light",
        displayMode: "inline",
        availableDisplayModes: ["inline"],
        // No `containerDimensions`: the frame is as tall as the view says it is (size-changed,
        // up to MAX_HEIGHT) and as wide as the page. (The extension's schema.json, generated
        // from an intersection of types, would accept only `{}` here anyway.)
        locale: navigator.language,
        timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
        platform: "web",
        deviceCapabilities: { touch: matchMedia("(pointer: coarse)").matches, hover: matchMedia("(hover: hover)").matches },
      };
    }

    function initializeResult(params) {
      const asked = params && params.protocolVersion;
      const sandbox = {};
      if (Object.keys(applied.csp).length) sandbox.csp = applied.csp;
      if (Object.keys(applied.permissions).length) sandbox.permissions = applied.permissions;
      return {
        protocolVersion: asked === PROTOCOL ? asked : PROTOCOL,
        hostInfo: HOST_INFO,
        hostCapabilities: {
          openLinks: {},
          serverTools: {},
          serverResources: {},
          logging: {},
          message: { text: {} },
          updateModelContext: { text: {}, structuredContent: {} },
          sandbox,
        },
        hostContext: hostContext(),
      };
    }

    /** The view calls the server: as the playground's own calls, leg by leg. */
    async function callServer(id, method, params) {
      params = Object.assign({}, params);
      delete params._meta; // the view's progress tokens mean nothing to the server
      if (method === "tools/call") {
        const target = options.tools.get(params.name);
        // Fail closed: a tool missing from the listing has no visibility to check, so it is
        // refused too (it may be one the server hides from views, or none at all).
        if (!target) {
          note(`refused: the view called ${short(params.name)}, which is not in the server's tool listing`, "error-text");
          return fail(id, -32602, `Tool ${params.name} is not available to views: it is not in the server's tool listing`);
        }
        if (!visibility(target).includes("app")) {
          note(`refused: the view called ${params.name}, which is not visible to views (visibility ${JSON.stringify(visibility(target))})`, "error-text");
          return fail(id, -32602, `Tool ${params.name} is not available to views: its visibility does not include "app"`);
        }
      }
      const label = method === "tools/call" ? params.name : params.uri;
      note(`the view calls ${method} ${label}`);
      try {
        const result = await options.call(method, params, label);
        if (result === undefined) return fail(id, -32603, "The user did not finish the call in the playground");
        const answer = method === "tools/call" ? callToolResult(result) : { contents: result.contents || [] };
        if (method === "tools/call") {
          const text = (answer.content || []).filter((b) => b.type === "text").map((b) => b.text).join(" ");
          note(`${label} → ${answer.isError ? "error: " : ""}${short(text || answer.structuredContent || "")}`);
        }
        respond(id, answer);
      } catch (error) {
        note(`${label} failed: ${error.message}`, "error-text");
        fail(id, (error.rpc && error.rpc.code) || -32603, (error.rpc && error.rpc.message) || error.message);
      }
    }

    function openLink(id, params) {
      const url = String((params && params.url) || "");
      if (!/^https?:\/\//i.test(url)) {
        note(`the view asked to open ${short(url)}, which is not an http(s) link: refused`, "error-text");
        return respond(id, { isError: true });
      }
      // Shown, never opened by the page itself: the user decides.
      note("the view asks to open ", "open-link", el("a", { href: url, target: "_blank", rel: "noopener noreferrer", text: url }));
      respond(id, {});
    }

    function onRequest(message) {
      const { id, method, params } = message;
      switch (method) {
        case "ui/initialize":
          return respond(id, initializeResult(params));
        case "ping":
          return respond(id, {});
        case "tools/call":
        case "resources/read":
          return callServer(id, method, params || {});
        case "ui/open-link":
          return openLink(id, params);
        case "ui/message": {
          const blocks = Array.isArray(params && params.content) ? params.content : [];
          const text = blocks.map((b) => (b && b.type === "text" ? b.text : short(b))).join(" ");
          note(`the view sends a message for the conversation: ${short(text)}`, "view-message");
          return respond(id, {});
        }
        case "ui/update-model-context":
          note(`the view updates the model's context: ${short(params || {})}`, "view-context");
          return respond(id, {});
        case "ui/request-display-mode":
          return respond(id, { mode: "inline" });
        default:
          return fail(id, -32601, `Method not found: ${method}`);
      }
    }

    function onNotification(message) {
      const { method, params } = message;
      if (method === "ui/notifications/initialized") {
        if (initialized) return;
        initialized = true;
        setState("ready", "connected");
        for (const send of queue.splice(0)) send();
      } else if (method === "ui/notifications/size-changed") {
        const height = Number(params && params.height);
        if (frame && Number.isFinite(height) && height > 0) {
          // The height is the view's; the frame is sized border-box (playground.css), so its
          // borders come on top, or the view would be that much shorter than it asked and scroll.
          const style = getComputedStyle(frame);
          const chrome = ["borderTopWidth", "borderBottomWidth", "paddingTop", "paddingBottom"].reduce((sum, k) => sum + (parseFloat(style[k]) || 0), 0);
          frame.style.height = `${Math.min(Math.ceil(height), MAX_HEIGHT) + chrome}px`;
        }
      } else if (method === "notifications/message") {
        const p = params || {};
        note(`[${p.level || "info"}]${p.logger ? " " + p.logger + ":" : ""} ${short(p.data)}`, "view-log-line");
      } else if (method === "ui/notifications/request-teardown") {
        note("the view asks to be closed");
        close();
      }
    }

    function onMessage(event) {
      if (!frame || event.source !== frame.contentWindow || closed) return;
      const message = event.data;
      if (!message || typeof message !== "object" || message.jsonrpc !== "2.0") return;
      if (message.method === "ui/notifications/sandbox-proxy-ready") {
        return notify("ui/notifications/sandbox-resource-ready", ready);
      }
      if (typeof message.method === "string") {
        if (message.id !== undefined && message.id !== null) onRequest(message);
        else onNotification(message);
        return;
      }
      const waiting = pending.get(message.id);
      if (waiting) {
        pending.delete(message.id);
        clearTimeout(waiting.timer);
        if (message.error) waiting.reject(new Error(message.error.message));
        else waiting.resolve(message.result);
      }
    }

    let ready = null;
    window.addEventListener("message", onMessage);

    (async () => {
      let read;
      try {
        read = await options.rpc("resources/read", { uri });
      } catch (error) {
        setState("error", `could not read the view: ${error.message}`);
        return;
      }
      const contents = (read.contents || []).find((c) => c.uri === uri) || (read.contents || [])[0];
      if (!contents || contents.mimeType !== MIME) {
        setState("error", `${uri} is not a view: its MIME type is ${contents ? contents.mimeType : "missing"}, not ${MIME}`);
        return;
      }
      const html = htmlOf(contents);
      if (html === null) {
        setState("error", `${uri} has neither text nor blob`);
        return;
      }
      const ui = (contents._meta && contents._meta.ui) || {};
      const csp = {};
      for (const list of CSP_LISTS) {
        const origins = Array.isArray(ui.csp && ui.csp[list]) ? ui.csp[list] : [];
        const good = origins.filter((o) => typeof o === "string" && ORIGIN.test(o));
        for (const o of origins.filter((o) => !good.includes(o))) note(`ignored ${short(o)} in ${list}: not an origin`, "error-text");
        if (good.length) csp[list] = good;
      }
      const permissions = {};
      for (const p of Object.keys(ui.permissions || {})) if (PERMISSIONS[p]) permissions[p] = {};
      applied = { csp, permissions };
      const declared = CSP_LISTS.filter((l) => csp[l]).map((l) => `${l} ${csp[l].join(" ")}`);
      audit.textContent =
        `${Math.round(html.length / 1024)} KB of HTML; sandbox: ${declared.length ? declared.join("; ") : "no origin beyond the view itself"}` +
        (Object.keys(permissions).length ? `; asks for ${Object.keys(permissions).join(", ")}` : "") +
        (ui.domain ? `; asks for the domain ${ui.domain}, which a one-origin playground cannot give` : "");
      panel.classList.toggle("borderless", ui.prefersBorder === false);
      ready = { html, sandbox: SANDBOX, csp, permissions };
      frame = el("iframe", {
        class: "view",
        title: `MCP Apps view ${uri}`,
        sandbox: "allow-scripts",
        src: `playground/sandbox?csp=${base64url(JSON.stringify(csp))}`,
      });
      const allow = Object.keys(permissions).map((p) => PERMISSIONS[p]).join("; ");
      if (allow) frame.setAttribute("allow", allow);
      frameBox.replaceChildren(frame);
      setState("loading", "starting…");
    })();

    whenReady(() => notify("ui/notifications/tool-input", { arguments: args || {} }));

    function deliver(result) {
      whenReady(() => notify("ui/notifications/tool-result", callToolResult(result)));
    }

    function cancel(reason) {
      whenReady(() => notify("ui/notifications/tool-cancelled", { reason: String(reason || "cancelled") }));
    }

    /** Tell the view it is going (`ui/resource-teardown`), wait for its answer (at most a
     *  second), then remove it. */
    async function close() {
      if (closed || closing) return;
      closing = true;
      setState("closing", "closing…");
      if (initialized) {
        try {
          await request("ui/resource-teardown", {}, 1000);
        } catch (_) {
          // A view that does not answer is removed all the same.
        }
      }
      closed = true;
      window.removeEventListener("message", onMessage);
      for (const { reject, timer } of pending.values()) {
        clearTimeout(timer);
        reject(new Error("the view was closed"));
      }
      pending.clear();
      panel.remove();
    }

    return { deliver, cancel, close };
  }

  return { EXTENSION, MIME, viewUri, visibility, mount };
})();
