// The roundtrip playground: lists what the server offers, calls it over the 2026-07-28 wire
// on this page's own origin, and renders every question of every round as an HTML form.
// No framework, no build step: plain DOM, and every text from the server goes in as text.
"use strict";
(() => {
  const PROTOCOL = "2026-07-28";
  const ENDPOINT = document.querySelector('meta[name="mcp-endpoint"]').content;
  const CLIENT_INFO = { name: "roundtrip-playground", version: "1.0.0" };
  const CAPABILITIES = {
    elicitation: { form: {}, url: {} },
    sampling: {},
    roots: {},
    extensions: {
      "io.modelcontextprotocol/tasks": {},
      // MCP Apps: the playground hosts views (apps.js).
      "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] },
    },
  };
  const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";
  const TASKS_PROGRESS = "roundtrip/progress";
  const MAX_LEGS = 20;
  const $ = (id) => document.getElementById(id);

  // A bearer token for an endpoint that needs one: asked for when it answers 401, kept for
  // this tab only, sent to this origin only.
  let token = sessionStorage.getItem("roundtrip-playground-token") || "";
  const authorization = () => (token ? { Authorization: "Bearer " + token } : {});

  let nextId = 1;
  let description = { tools: [], prompts: [], resourceTemplates: [] };
  let flow = null; // the running flow: { stopped, view }
  const tools = new Map(); // the tools/list result, by name (a view's calls are checked against it)
  const Apps = window.RoundtripApps; // apps.js: the MCP Apps host

  // ---------------------------------------------------------------------------------------
  // DOM

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k in node && typeof v !== "string") node[k] = v;
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  const svgNs = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(svgNs, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  }

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const bytes = (s) => new TextEncoder().encode(s).length;
  const short = (v) => {
    const s = JSON.stringify(v);
    return s.length > 200 ? s.slice(0, 200) + "…" : s;
  };

  // ---------------------------------------------------------------------------------------
  // The wire

  /** `Mcp-Name` / `Mcp-Param-*` values: plain visible ASCII as is, anything else base64. */
  function headerValue(value) {
    const s = typeof value === "string" ? value : String(value);
    const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(s) && !/^=\?base64\?.*\?=$/.test(s);
    if (plain) return s;
    let binary = "";
    for (const b of new TextEncoder().encode(s)) binary += String.fromCharCode(b);
    return "=?base64?" + btoa(binary) + "?=";
  }

  /** Arguments marked `x-mcp-header` travel in `Mcp-Param-{Name}` headers too. */
  function paramHeaders(schema, args) {
    const out = [];
    for (const [name, prop] of Object.entries((schema && schema.properties) || {})) {
      const header = prop && prop["x-mcp-header"];
      const v = args[name];
      if (!header || v === undefined || v === null || typeof v === "object") continue;
      out.push([header, v]);
    }
    return out;
  }

  /** One JSON-RPC request; its result, or a thrown Error carrying the JSON-RPC error. */
  async function rpc(method, params, options = {}) {
    const id = nextId++;
    const meta = Object.assign({}, params._meta, {
      "io.modelcontextprotocol/protocolVersion": PROTOCOL,
      "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
      "io.modelcontextprotocol/clientCapabilities": CAPABILITIES,
      // Show the tool's logs in the timeline (2026-07-28 sends none unless asked).
      "io.modelcontextprotocol/logLevel": "info",
    });
    if (options.progress) meta.progressToken = "playground-" + id;
    const body = { jsonrpc: "2.0", id, method, params: Object.assign({}, params, { _meta: meta }) };
    const headers = {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": PROTOCOL,
      "Mcp-Method": method,
    };
    if (options.name !== undefined) headers["Mcp-Name"] = headerValue(options.name);
    for (const [k, v] of options.params || []) headers["Mcp-Param-" + k] = headerValue(v);
    Object.assign(headers, authorization());
    const response = await fetch(ENDPOINT, { method: "POST", headers, body: JSON.stringify(body) });
    if (response.status === 401) {
      askForToken();
      throw new Error("the endpoint needs a bearer token: enter one above");
    }
    const type = response.headers.get("content-type") || "";
    let message = null;
    if (type.startsWith("text/event-stream")) {
      message = await readEvents(response, id, options.onNotification || (() => {}));
    } else {
      const text = await response.text();
      try {
        message = JSON.parse(text);
      } catch (_) {
        throw new Error(`HTTP ${response.status}: ${text.slice(0, 300) || response.statusText}`);
      }
    }
    if (!message) throw new Error(`HTTP ${response.status}: the stream ended without a response`);
    if (message.error) {
      const e = new Error(`${message.error.message} (JSON-RPC ${message.error.code})`);
      e.rpc = message.error;
      throw e;
    }
    return message.result;
  }

  /** An SSE response: notifications as they come, then the response to `id`. */
  async function readEvents(response, id, onNotification) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (value) buffer += decoder.decode(value, { stream: true });
      buffer = buffer.replace(/\r\n/g, "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = event
          .split("\n")
          .filter((l) => l.startsWith("data:"))
          .map((l) => l.slice(5).replace(/^ /, ""))
          .join("\n");
        if (!data) continue;
        let message;
        try {
          message = JSON.parse(data);
        } catch (_) {
          continue;
        }
        if (message.id === id && ("result" in message || "error" in message)) {
          // The server ends the stream after the response: read it to its end, beside the
          // caller, rather than cancel it (a cancelled fetch is a failed request in the
          // console, whenever the cancel wins the race with the stream's last chunk).
          (async () => {
            try {
              while (!(await reader.read()).done) {}
            } catch (_) {}
          })();
          return message;
        }
        if (message.method) onNotification(message);
      }
      if (done) return null;
    }
  }

  async function listAll(method, key) {
    const items = [];
    let cursor;
    for (let page = 0; page < 50; page++) {
      const result = await rpc(method, cursor ? { cursor } : {});
      items.push(...(result[key] || []));
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return items;
  }

  // ---------------------------------------------------------------------------------------
  // The catalog

  function askForToken() {
    const form = $("token-form");
    if (!form.hidden) return;
    form.hidden = false;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      token = $("token").value.trim();
      sessionStorage.setItem("roundtrip-playground-token", token);
      location.reload();
    });
  }

  async function start() {
    $("endpoint").textContent = ENDPOINT;
    try {
      const found = await fetch("playground/describe.json", { headers: authorization() });
      if (found.status === 401) askForToken();
      if (found.ok) description = await found.json();
    } catch (_) {
      // Graphs are drawn only when the description is there.
    }
    // What the server offers (`capabilities` of server/discover); unknown if discover failed.
    let capabilities = null;
    try {
      const discovered = await rpc("server/discover", {});
      const info = (discovered._meta || {})["io.modelcontextprotocol/serverInfo"] || {};
      $("server").textContent = `${info.title || info.name || "server"} ${info.version || ""}`.trim();
      capabilities = discovered.capabilities || {};
    } catch (e) {
      $("server").textContent = "server/discover failed: " + e.message;
    }
    // Each list is asked for only when the server advertises it (a skills extension, only
    // then); without discover's answer, the core lists are tried and the extension is not.
    const offers = (has) => (capabilities ? has(capabilities) : true);
    const lists = [
      ["tools", "tools/list", "tools", (t) => t.title || t.name, (t) => showTool(t), offers((c) => c.tools)],
      ["prompts", "prompts/list", "prompts", (p) => p.title || p.name, (p) => showPrompt(p), offers((c) => c.prompts)],
      [
        "resources",
        "resources/list",
        "resources",
        (r) => r.name || r.uri,
        (r) => showResource(r),
        offers((c) => c.resources),
      ],
      [
        "templates",
        "resources/templates/list",
        "resourceTemplates",
        (t) => t.uriTemplate,
        (t) => showTemplate(t),
        offers((c) => c.resources),
      ],
      [
        "skills",
        "skills/list",
        "skills",
        (s) => (s.frontmatter && s.frontmatter.name) || s.uri,
        (s) => showSkill(s),
        Boolean(capabilities && (capabilities.extensions || {})[SKILLS_EXTENSION]),
      ],
    ];
    await Promise.all(
      lists.map(async ([id, method, key, label, open, offered]) => {
        const list = $(id);
        let items = [];
        try {
          if (offered) items = await listAll(method, key);
        } catch (_) {
          // A list that fails shows none.
        }
        list.replaceChildren();
        if (!items.length) list.append(el("li", {}, el("span", { class: "empty", text: "none" })));
        for (const item of items) {
          const about = item.description || (item.frontmatter && item.frontmatter.description) || "";
          const button = el("button", { type: "button", text: label(item), title: about });
          button.dataset.name = item.uriTemplate || item.uri || item.name;
          if (id === "tools") catalogTool(button, item);
          button.addEventListener("click", () => {
            document.querySelectorAll("nav button.selected").forEach((b) => b.classList.remove("selected"));
            button.classList.add("selected");
            open(item);
          });
          list.append(el("li", {}, button));
        }
      }),
    );
    document.body.dataset.ready = "true";
  }

  function openItem(title, text, described) {
    if (flow) stop(flow);
    flow = null;
    $("intro").hidden = true;
    $("item").hidden = false;
    $("item-title").textContent = title;
    $("item-description").textContent = text || "";
    $("timeline").replaceChildren();
    $("result").replaceChildren();
    drawGraph($("graph"), described);
    return $("arguments");
  }

  function showTool(tool) {
    const described = (description.tools || []).find((t) => t.name === tool.name);
    const form = openItem(`tool ${tool.name}`, tool.description, described);
    const task = tool.execution && tool.execution.taskSupport;
    const fields = schemaFields(tool.inputSchema || {}, "arg");
    form.replaceChildren(
      ...[
      fields.length ? el("fieldset", {}, el("legend", { text: "Arguments" }), fields.map((f) => f.node)) : el("p", { class: "muted", text: "No arguments." }),
      task && task !== "forbidden" ? el("p", { class: "muted", text: `Runs as a task (taskSupport: ${task}): status, progress and mid-run questions show below.` }) : null,
      appsNote(tool),
      el("div", { class: "buttons" }, el("button", { type: "submit", class: "primary", text: "Call tool" })),
      ].filter(Boolean),
    );
    form.onsubmit = (event) => {
      event.preventDefault();
      const args = readFields(fields);
      if (!args) return;
      runFlow({
        method: "tools/call",
        params: { name: tool.name, arguments: args },
        name: tool.name,
        headers: paramHeaders(tool.inputSchema, args),
        render: renderToolResult,
        view: Apps && Apps.viewUri(tool) ? { tool, args } : null,
      });
    };
  }

  function showPrompt(prompt) {
    const described = (description.prompts || []).find((p) => p.name === prompt.name);
    const form = openItem(`prompt ${prompt.name}`, prompt.description, described);
    const schema = { type: "object", properties: {}, required: [] };
    for (const a of prompt.arguments || []) {
      schema.properties[a.name] = { type: "string", description: a.description, title: a.title };
      if (a.required) schema.required.push(a.name);
    }
    const fields = schemaFields(schema, "arg");
    form.replaceChildren(
      fields.length ? el("fieldset", {}, el("legend", { text: "Arguments" }), fields.map((f) => f.node)) : el("p", { class: "muted", text: "No arguments." }),
      el("div", { class: "buttons" }, el("button", { type: "submit", class: "primary", text: "Get prompt" })),
    );
    form.onsubmit = (event) => {
      event.preventDefault();
      const args = readFields(fields);
      if (!args) return;
      runFlow({ method: "prompts/get", params: { name: prompt.name, arguments: args }, name: prompt.name, render: renderPromptResult });
    };
  }

  function showResource(resource) {
    const form = openItem(`resource ${resource.uri}`, resource.description, null);
    form.replaceChildren(el("div", { class: "buttons" }, el("button", { type: "submit", class: "primary", text: "Read resource" })));
    form.onsubmit = (event) => {
      event.preventDefault();
      runFlow({ method: "resources/read", params: { uri: resource.uri }, name: resource.uri, render: renderResourceResult });
    };
  }

  /** A skill (skills extension): its files as listed, and its SKILL.md read on demand. */
  function showSkill(skill) {
    const form = openItem(`skill ${skill.frontmatter.name}`, skill.frontmatter.description, null);
    const files = Array.isArray(skill.resources) ? skill.resources : [];
    form.replaceChildren(
      el("ul", { class: "muted" }, files.map((f) => el("li", { text: `${f.uri} (${f.size} bytes)` }))),
      el("div", { class: "buttons" }, el("button", { type: "submit", class: "primary", text: "Read SKILL.md" })),
    );
    form.onsubmit = (event) => {
      event.preventDefault();
      runFlow({ method: "resources/read", params: { uri: skill.uri }, name: skill.uri, render: renderResourceResult });
    };
  }

  /** The variables of an RFC 6570 template, with the operator of their expression. */
  function templateVariables(template) {
    const out = [];
    for (const m of template.matchAll(/\{([+#./;?&]?)([^}]*)\}/g)) {
      for (const v of m[2].split(",")) out.push({ op: m[1], name: v.replace(/[*]$|:\d+$/, "") });
    }
    return out;
  }

  function expandTemplate(template, values) {
    return template.replace(/\{([+#./;?&]?)([^}]*)\}/g, (_, op, list) => {
      const names = list.split(",").map((v) => v.replace(/[*]$|:\d+$/, ""));
      const present = names.filter((n) => values[n] !== undefined && values[n] !== "");
      const enc = (v) => (op === "+" || op === "#" ? encodeURI(v) : encodeURIComponent(v));
      if (op === "?" || op === "&") {
        const parts = present.map((n) => `${n}=${enc(values[n])}`);
        return parts.length ? (op === "?" ? "?" : "&") + parts.join("&") : "";
      }
      const sep = { "": ",", "+": ",", "#": ",", ".": ".", "/": "/", ";": ";" }[op];
      const prefix = op === "+" || op === "" ? "" : op;
      const parts = present.map((n) => (op === ";" ? `${n}=${enc(values[n])}` : enc(values[n])));
      return parts.length ? prefix + parts.join(sep) : "";
    });
  }

  function showTemplate(template) {
    const described = (description.resourceTemplates || []).find((t) => t.uriTemplate === template.uriTemplate);
    const form = openItem(`template ${template.uriTemplate}`, template.description, described);
    const schema = { type: "object", properties: {}, required: [] };
    for (const v of templateVariables(template.uriTemplate)) {
      schema.properties[v.name] = { type: "string" };
      schema.required.push(v.name);
    }
    const fields = schemaFields(schema, "arg");
    form.replaceChildren(
      el("fieldset", {}, el("legend", { text: "Template variables" }), fields.map((f) => f.node)),
      el("div", { class: "buttons" }, el("button", { type: "submit", class: "primary", text: "Read resource" })),
    );
    form.onsubmit = (event) => {
      event.preventDefault();
      const values = readFields(fields);
      if (!values) return;
      const uri = expandTemplate(template.uriTemplate, values);
      runFlow({ method: "resources/read", params: { uri }, name: uri, render: renderResourceResult });
    };
  }

  // ---------------------------------------------------------------------------------------
  // The question graph, drawn from describe's JSON (the same graph as its Mermaid)

  function drawGraph(container, described) {
    container.replaceChildren();
    const questions = (described && described.questions) || [];
    if (!described) return;
    if (!questions.length) {
      container.append(el("p", { class: "muted", text: "No declared questions (a tool written by hand may still ask; its rounds show below)." }));
      return;
    }
    const keys = new Set(questions.map((q) => q.key));
    const args = [];
    for (const q of questions) for (const d of q.dependsOn || []) if (!keys.has(d) && !args.includes(d)) args.push(d);
    const columns = [];
    if (args.length) columns.push({ label: "arguments", nodes: args.map((a) => ({ id: a, title: a, sub: "argument", kind: "argument" })) });
    const rounds = Math.max(...questions.map((q) => q.round || 1));
    for (let r = 1; r <= rounds; r++) {
      const nodes = questions.filter((q) => (q.round || 1) === r).map((q) => ({ id: q.key, title: q.key, sub: kindWord(q.kind), kind: "question" }));
      if (nodes.length) columns.push({ label: `round ${r}`, nodes });
    }
    const W = 150, H = 40, GX = 70, GY = 18, TOP = 26, LEFT = 8;
    const where = new Map();
    columns.forEach((c, ci) => c.nodes.forEach((n, ni) => where.set(n.id, { col: ci, x: LEFT + ci * (W + GX), y: TOP + ni * (H + GY) })));
    // Edges that skip a round run along the bottom, under the nodes they pass.
    const skips = questions.some((q) => (q.dependsOn || []).some((d) => where.has(d) && where.get(q.key).col - where.get(d).col > 1));
    const lane = TOP + Math.max(...columns.map((c) => c.nodes.length)) * (H + GY);
    const height = lane + (skips ? 14 : 0);
    const width = LEFT * 2 + columns.length * W + (columns.length - 1) * GX;
    const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": "question graph" });
    root.append(svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "9", refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto" }, svg("path", { d: "M0,0 L10,5 L0,10 z" }))));
    columns.forEach((c, ci) => root.append(svg("text", { class: "round-label", x: LEFT + ci * (W + GX), y: 14 }, c.label)));
    for (const q of questions) {
      for (const d of q.dependsOn || []) {
        const a = where.get(d), b = where.get(q.key);
        if (!a || !b) continue;
        const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x - 2, y2 = b.y + H / 2, mx = (x1 + x2) / 2;
        const d2 =
          b.col - a.col > 1
            ? `M${x1},${y1} C${x1 + GX / 2},${y1} ${x1 + GX / 2},${lane} ${x1 + GX},${lane} L${x2 - GX},${lane} C${x2 - GX / 2},${lane} ${x2 - GX / 2},${y2} ${x2},${y2}`
            : `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`;
        // As in the Mermaid graph: a `with` fn's inputs are dashed, placeholders solid.
        const edge = svg("path", { class: q.kind === "with" ? "edge with" : "edge", d: d2, "marker-end": "url(#arrow)" });
        edge.dataset.from = d;
        edge.dataset.to = q.key;
        root.append(edge);
      }
    }
    for (const c of columns) {
      for (const n of c.nodes) {
        const p = where.get(n.id);
        const g = svg("g", { class: `node ${n.kind}`, transform: `translate(${p.x},${p.y})` });
        g.dataset.key = n.id;
        g.append(svg("rect", { width: W, height: H, rx: 6 }));
        g.append(svg("text", { x: 9, y: 17 }, n.title.length > 20 ? n.title.slice(0, 19) + "…" : n.title));
        g.append(svg("text", { class: "sub", x: 9, y: 32 }, n.sub));
        root.append(g);
      }
    }
    container.append(root);
  }

  function kindWord(kind) {
    return { elicit: "form", elicit_url: "URL", sample: "sampling", roots: "roots", with: "with fn" }[kind] || kind;
  }

  // ---------------------------------------------------------------------------------------
  // Forms from JSON schemas (arguments and elicitations alike)

  /** The first non-null type a property schema names. */
  function typeOf(schema) {
    const t = schema.type;
    if (Array.isArray(t)) return t.find((x) => x !== "null") || "string";
    if (t) return t;
    if (schema.enum || schema.oneOf || schema.anyOf) return "string";
    return "any";
  }

  /** A schema's choices as [value, label], or null. */
  function choicesOf(schema) {
    if (!schema) return null;
    if (Array.isArray(schema.enum)) {
      return schema.enum.filter((v) => v !== null).map((v, i) => [v, (schema.enumNames && schema.enumNames[i]) || String(v)]);
    }
    const options = schema.oneOf || schema.anyOf;
    if (Array.isArray(options)) {
      const list = options.filter((o) => o && "const" in o).map((o) => [o.const, o.title || String(o.const)]);
      return list.length ? list : null;
    }
    return null;
  }

  function constraintHint(schema, type) {
    const parts = [];
    if (schema.description) parts.push(schema.description);
    const c = [];
    if (type === "integer" || type === "number") {
      c.push(type);
      if (schema.minimum !== undefined) c.push(`at least ${schema.minimum}`);
      if (schema.maximum !== undefined) c.push(`at most ${schema.maximum}`);
    }
    if (type === "string") {
      if (schema.format) c.push(schema.format);
      if (schema.minLength !== undefined) c.push(`at least ${schema.minLength} characters`);
      if (schema.maxLength !== undefined) c.push(`at most ${schema.maxLength} characters`);
    }
    if (type === "array") {
      if (schema.minItems !== undefined) c.push(`choose at least ${schema.minItems}`);
      if (schema.maxItems !== undefined) c.push(`choose at most ${schema.maxItems}`);
    }
    if (c.length) parts.push(`(${c.join(", ")})`);
    return parts.join(" ");
  }

  let fieldCount = 0;

  /** One field: its node, and read() giving { value } / { skip } / { error }. */
  function schemaField(name, schema, required) {
    const id = `f${++fieldCount}`;
    const type = typeOf(schema);
    const label = el("label", { for: id }, schema.title || name, required ? el("span", { class: "req", text: " *" }) : null);
    const hint = constraintHint(schema, type);
    const has = (v) => v !== undefined && v !== null;
    const def = schema.default;
    let input, read;
    const single = type !== "array" ? choicesOf(schema) : null;
    const multi = type === "array" ? choicesOf(schema.items) : null;
    if (single) {
      input = el("select", { id, name, required });
      if (!has(def)) input.append(el("option", { value: "", text: "— choose —" }));
      single.forEach(([v, l], i) => input.append(el("option", { value: String(i), text: l, selected: has(def) && v === def })));
      read = () => (input.value === "" ? { skip: true } : { value: single[Number(input.value)][0] });
    } else if (multi) {
      const boxes = multi.map(([v, l], i) =>
        el("label", {}, el("input", { type: "checkbox", name, value: String(i), checked: Array.isArray(def) && def.includes(v) }), " ", l),
      );
      input = el("div", { class: "choices", id, role: "group" }, boxes);
      read = () => ({ value: boxes.map((b) => b.querySelector("input")).filter((b) => b.checked).map((b) => multi[Number(b.value)][0]) });
    } else if (type === "boolean") {
      input = el("input", { type: "checkbox", id, name, checked: def === true });
      read = () => ({ value: input.checked });
    } else if (type === "integer" || type === "number") {
      input = el("input", { type: "number", id, name, step: type === "integer" ? "1" : "any", min: schema.minimum, max: schema.maximum, value: has(def) ? String(def) : undefined, required });
      read = () => {
        const raw = input.value.trim();
        if (raw === "") return input.validity.badInput ? { error: `${name}: not a number` } : { skip: true };
        return { value: Number(raw) };
      };
    } else if (type === "string") {
      const kinds = { email: "email", uri: "url", date: "date" };
      input = el("input", {
        type: kinds[schema.format] || "text", id, name,
        minlength: schema.minLength, maxlength: schema.maxLength, value: has(def) ? String(def) : undefined, required,
        placeholder: schema.format === "date-time" ? "2026-07-28T12:00:00Z" : undefined,
      });
      read = () => (input.value === "" && !required ? { skip: true } : { value: input.value });
    } else {
      input = el("textarea", { id, name, class: "json", placeholder: "JSON", required });
      if (has(def)) input.value = JSON.stringify(def, null, 2);
      read = () => {
        if (input.value.trim() === "") return { skip: true };
        try {
          return { value: JSON.parse(input.value) };
        } catch (e) {
          return { error: `${name}: not JSON (${e.message})` };
        }
      };
    }
    const node = el("div", { class: "field" }, label, input, hint ? el("div", { class: "hint", text: hint }) : null);
    return { name, node, read, required };
  }

  function schemaFields(schema, _prefix) {
    const required = new Set(schema.required || []);
    return Object.entries(schema.properties || {}).map(([name, prop]) => schemaField(name, prop || {}, required.has(name)));
  }

  /** The fields' values as an object; null (and the errors shown) when one does not parse. */
  function readFields(fields, errorsInto) {
    const out = {};
    const errors = [];
    for (const f of fields) {
      const r = f.read();
      if (r.error) errors.push(r.error);
      else if (!r.skip) out[f.name] = r.value;
    }
    if (errors.length) {
      const into = errorsInto || $("result");
      into.replaceChildren(el("p", { class: "error-text", text: errors.join("\n") }));
      return null;
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------
  // A flow: legs until a complete result

  function entry(title, detail, cls) {
    const head = el("div", { class: "leg-head" }, title, detail ? el("span", { class: "muted", text: " " + detail }) : null);
    const body = el("div", { class: "leg-body" });
    const li = el("li", { class: cls || "" }, head, body);
    $("timeline").append(li);
    return { li, head, body, note: (text, c) => body.append(el("div", { class: c || "muted", text })) };
  }

  async function runFlow(spec) {
    if (flow) stop(flow);
    const me = (flow = { stopped: false, view: null });
    $("timeline").replaceChildren();
    $("result").replaceChildren();
    // A tool with a view (MCP Apps): the view renders while the call runs, as hosts do. (The
    // previous flow's view, if any, removes itself once it answered its teardown.)
    if (spec.view) me.view = mountView(spec.view, me);
    let result;
    try {
      result = await runLegs(spec, me);
    } catch (error) {
      showError(error);
      if (me.view) me.view.cancel(error.message);
      return;
    }
    if (result === undefined) {
      if (me.view && !me.stopped) me.view.cancel("the call was not finished");
      return;
    }
    spec.render(result);
    if (me.view) me.view.deliver(result);
  }

  /** A flow no longer shown: its legs stop, its view is told and removed. */
  function stop(old) {
    old.stopped = true;
    if (old.view) old.view.close();
  }

  /** The legs of one request until its final result (a task's too). The result, or undefined
   *  when the flow was stopped, abandoned at a question or ran out of legs; throws on an error,
   *  which its leg shows. */
  async function runLegs(spec, me) {
    let responses, state;
    let backoff = 50;
    for (let leg = 1; leg <= MAX_LEGS; leg++) {
      if (me.stopped) return;
      const params = Object.assign({}, spec.params);
      const sent = [];
      if (responses) {
        params.inputResponses = responses;
        sent.push(`${Object.keys(responses).length} answer(s)`);
      }
      if (state !== undefined) {
        params.requestState = state;
        sent.push(`requestState (${bytes(state)} bytes)`);
      }
      const e = entry(`Leg ${leg}: ${spec.method}`, sent.length ? "with " + sent.join(" and ") : "");
      let bar = null;
      let result;
      try {
        result = await rpc(spec.method, params, {
          name: spec.name,
          params: spec.headers,
          progress: true,
          onNotification: (n) => {
            if (n.method === "notifications/progress") {
              bar = bar || e.body.appendChild(el("progress", { max: 1 }));
              const p = n.params || {};
              if (p.total) {
                bar.max = p.total;
                bar.value = p.progress;
              }
              if (p.message) e.note(`progress: ${p.message}`);
            } else if (n.method === "notifications/message") {
              const p = n.params || {};
              e.note(`[${p.level}] ${typeof p.data === "string" ? p.data : short(p.data)}`);
            }
          },
        });
      } catch (error) {
        e.li.className = "error";
        e.note(error.message, "error-text");
        throw error;
      }
      if (me.stopped) return undefined;
      const type = result.resultType || "complete";
      if (type === "input_required") {
        e.li.className = "input_required";
        const requests = result.inputRequests || {};
        const keys = Object.keys(requests);
        state = result.requestState;
        e.head.append(el("span", { class: "muted", text: ` → input_required: ${keys.length} question(s)` + (state !== undefined ? `, requestState ${bytes(state)} bytes (sealed; contents not shown)` : "") }));
        if (!keys.length) {
          e.note(`nothing to answer: retrying in ${backoff} ms`);
          await sleep(backoff);
          backoff = Math.min(backoff * 2, 250);
          responses = undefined;
          continue;
        }
        responses = await askAll(e.body, requests, me);
        if (!responses) {
          e.note("the flow was cancelled here: no retry is sent");
          return undefined;
        }
        continue;
      }
      if (type === "task") {
        e.li.className = "task";
        e.head.append(el("span", { class: "muted", text: ` → task ${result.taskId}` }));
        return await followTask(result, me);
      }
      if (type !== "complete") {
        e.li.className = "error";
        e.note(`unknown resultType ${JSON.stringify(type)}`, "error-text");
        return undefined;
      }
      e.li.className = "complete";
      e.head.append(el("span", { class: "muted", text: " → complete" }));
      return result;
    }
    entry(`Stopped after ${MAX_LEGS} legs`, "", "error");
    return undefined;
  }

  /** Render every question of a round; the answers by key once all are answered, or null if
   *  the user abandoned the flow. */
  function askAll(container, requests, me) {
    return new Promise((resolve) => {
      const answers = {};
      const keys = Object.keys(requests);
      let left = keys.length;
      let finished = false;
      for (const key of keys) {
        container.append(
          questionCard(key, requests[key], (answer) => {
            if (finished) return;
            answers[key] = answer;
            if (--left === 0) {
              finished = true;
              resolve(me.stopped ? null : answers);
            }
          }, () => {
            if (finished) return;
            finished = true;
            // The flow ends here: the round's other questions can no longer be answered.
            container.querySelectorAll(".question:not(.answered) button").forEach((b) => (b.disabled = true));
            resolve(null);
          }),
        );
      }
    });
  }

  /** One question as a card: its form, and once answered, what was answered. */
  function questionCard(key, request, answer, abandon) {
    const card = el("div", { class: "question" });
    card.dataset.key = key;
    const method = request.method;
    const params = request.params || {};
    const done = (value, summary) => {
      card.classList.add("answered");
      card.querySelectorAll("form, .buttons").forEach((n) => n.remove());
      card.append(el("p", { class: "answer" }, "answered: ", el("code", { text: summary })));
      answer(value);
    };
    const buttons = (...list) => el("div", { class: "buttons" }, list);
    const button = (text, cls, onclick) => el("button", { type: "button", class: cls, text, onclick });
    if (method === "elicitation/create" && params.mode === "url") {
      card.append(el("div", { class: "kind", text: `elicitation (URL) · ${key}` }), el("p", { class: "message", text: params.message || "" }));
      const url = String(params.url || "");
      card.append(/^https?:\/\//i.test(url) ? el("p", {}, el("a", { href: url, target: "_blank", rel: "noopener noreferrer", text: url })) : el("p", { text: url }));
      card.append(
        buttons(
          button("Done", "primary", () => done({ action: "accept" }, "accept (opened the URL)")),
          button("Decline", "secondary", () => done({ action: "decline" }, "decline")),
          button("Cancel", "danger", () => done({ action: "cancel" }, "cancel")),
        ),
      );
    } else if (method === "elicitation/create") {
      const schema = params.requestedSchema || { type: "object", properties: {} };
      card.append(el("div", { class: "kind", text: `elicitation (form) · ${key}` }), el("p", { class: "message", text: params.message || "" }));
      const fields = schemaFields(schema);
      const errors = el("div");
      const form = el("form", { novalidate: true }, fields.map((f) => f.node), errors);
      const accept = () => {
        const content = readFields(fields, errors);
        if (content) done({ action: "accept", content }, "accept " + short(content));
      };
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        accept();
      });
      card.append(
        form,
        buttons(
          button("Accept", "primary", accept),
          button("Decline", "secondary", () => done({ action: "decline" }, "decline")),
          button("Cancel", "danger", () => done({ action: "cancel" }, "cancel")),
        ),
      );
    } else if (method === "sampling/createMessage") {
      card.append(el("div", { class: "kind", text: `sampling · ${key} · at most ${params.maxTokens} tokens` }));
      if (params.systemPrompt) card.append(el("p", { class: "muted", text: `system: ${params.systemPrompt}` }));
      for (const m of params.messages || []) {
        const blocks = Array.isArray(m.content) ? m.content : [m.content];
        const text = blocks.map((b) => (b && b.type === "text" ? b.text : short(b))).join("\n");
        card.append(el("div", { class: "sampling-messages" }, el("strong", { text: `${m.role}: ` }), text));
      }
      const reply = el("textarea", { name: "reply", placeholder: "Reply as the model" });
      const model = el("input", { type: "text", name: "model", value: "human (playground)" });
      card.append(
        el("form", { novalidate: true }, el("div", { class: "field" }, el("label", { text: "Reply" }), reply), el("div", { class: "field" }, el("label", { text: "Model" }), model)),
        buttons(
          button("Send reply", "primary", () =>
            done({ role: "assistant", content: { type: "text", text: reply.value }, model: model.value || "human", stopReason: "endTurn" }, "reply " + short(reply.value)),
          ),
          button("Cancel", "danger", abandon),
        ),
      );
    } else if (method === "roots/list") {
      card.append(el("div", { class: "kind", text: `roots · ${key}` }), el("p", { class: "message", text: "The server asks for your roots (the folders it may work in)." }));
      const list = el("div", { class: "roots" });
      const row = (uri, name) => {
        const r = el("div", { class: "root" }, el("input", { type: "text", name: "uri", value: uri, placeholder: "file:///path" }), el("input", { type: "text", name: "rootName", value: name, placeholder: "name (optional)" }));
        r.append(button("Remove", "secondary", () => r.remove()));
        list.append(r);
      };
      row("file:///home/user/project", "project");
      card.append(
        el("form", { novalidate: true }, list),
        buttons(
          button("Add root", "secondary", () => row("", "")),
          button("Send roots", "primary", () => {
            const roots = [...list.querySelectorAll(".root")]
              .map((r) => ({ uri: r.querySelector('[name="uri"]').value.trim(), name: r.querySelector('[name="rootName"]').value.trim() }))
              .filter((r) => r.uri)
              .map((r) => (r.name ? r : { uri: r.uri }));
            done({ roots }, short(roots.map((r) => r.uri)));
          }),
          button("Cancel", "danger", abandon),
        ),
      );
    } else {
      card.append(el("div", { class: "kind", text: `${method} · ${key}` }), el("pre", { text: JSON.stringify(params, null, 2) }));
      const raw = el("textarea", { class: "json", placeholder: "the answer, as JSON" });
      card.append(raw, buttons(button("Send", "primary", () => {
        try {
          const v = JSON.parse(raw.value);
          done(v, short(v));
        } catch (e) {
          raw.setCustomValidity(e.message);
          raw.reportValidity();
        }
      }), button("Cancel", "danger", abandon)));
    }
    return card;
  }

  // ---------------------------------------------------------------------------------------
  // Tasks (io.modelcontextprotocol/tasks)

  async function followTask(created, me) {
    const id = created.taskId;
    const status = el("span", { class: "status", text: created.status });
    const message = el("span", { class: "muted", text: created.statusMessage ? ` ${created.statusMessage}` : "" });
    const bar = el("progress", {});
    const cancel = el("button", { type: "button", class: "danger", text: "Cancel task" });
    const panel = el("div", { class: "task-panel" }, el("div", {}, `Task ${id}: `, status, message), bar, el("div", { class: "buttons" }, cancel));
    panel.dataset.taskId = id;
    const e = entry("Task", id, "task");
    e.body.append(panel);
    cancel.addEventListener("click", async () => {
      cancel.disabled = true;
      try {
        await rpc("tasks/cancel", { taskId: id }, { name: id });
      } catch (error) {
        e.note(error.message, "error-text");
      }
    });
    const asked = new Set();
    let interval = Math.min(Math.max(created.pollIntervalMs || 500, 100), 2000);
    let shown = "";
    for (;;) {
      if (me.stopped) return undefined;
      await sleep(interval);
      let got;
      try {
        got = await rpc("tasks/get", { taskId: id }, { name: id });
      } catch (error) {
        e.note(error.message, "error-text");
        throw error;
      }
      interval = Math.min(Math.max(got.pollIntervalMs || interval, 100), 2000);
      status.textContent = got.status;
      message.textContent = got.statusMessage ? ` ${got.statusMessage}` : "";
      panel.dataset.status = got.status;
      const progress = (got._meta || {})[TASKS_PROGRESS];
      if (progress && progress.total) {
        bar.max = progress.total;
        bar.value = Math.min(progress.progress, progress.total);
      }
      const line = `${got.status}${got.statusMessage ? ": " + got.statusMessage : ""}`;
      if (line !== shown) {
        e.note(`tasks/get → ${line}`);
        shown = line;
      }
      if (got.status === "input_required") {
        const fresh = Object.fromEntries(Object.entries(got.inputRequests || {}).filter(([k]) => !asked.has(k)));
        if (!Object.keys(fresh).length) continue;
        Object.keys(fresh).forEach((k) => asked.add(k));
        const round = entry("Mid-run question", `task ${id} asks ${Object.keys(fresh).length} question(s)`, "input_required");
        const answers = await askAll(round.body, fresh, me);
        if (!answers) {
          round.note("not answered: cancelling the task");
          await rpc("tasks/cancel", { taskId: id }, { name: id }).catch(() => {});
          continue;
        }
        try {
          await rpc("tasks/update", { taskId: id, inputResponses: answers }, { name: id });
          round.note(`tasks/update with ${Object.keys(answers).length} answer(s)`);
        } catch (error) {
          round.note(error.message, "error-text");
        }
        interval = 100;
        continue;
      }
      if (got.status === "completed") {
        // Done is all the way, whatever the body last reported.
        bar.value = bar.max;
        cancel.disabled = true;
        e.li.className = "complete";
        return got.result || {};
      }
      if (got.status === "failed" || got.status === "cancelled") {
        cancel.disabled = true;
        e.li.className = "error";
        throw new Error(got.status === "failed" ? `the task failed: ${(got.error && got.error.message) || ""}` : `the task was cancelled${got.statusMessage ? ": " + got.statusMessage : ""}`);
      }
    }
  }

  // ---------------------------------------------------------------------------------------
  // MCP Apps (apps.js is the host; here, what the playground gives it)

  /** A tool in the catalog: remembered for the views' calls, marked when only views see it. */
  function catalogTool(button, tool) {
    tools.set(tool.name, tool);
    if (!Apps) return;
    // The playground is a developer's tool with no model, so it lists every tool; one that
    // only views may call is marked (a host's agent would not see it).
    if (!Apps.visibility(tool).includes("model")) button.append(" ", el("span", { class: "badge", text: "app only", title: "Visible to views only (MCP Apps)" }));
    if (Apps.viewUri(tool)) button.append(" ", el("span", { class: "badge", text: "view", title: `Has a view: ${Apps.viewUri(tool)}` }));
  }

  /** What the tool's form says about its view and visibility. */
  function appsNote(tool) {
    if (!Apps) return null;
    const uri = Apps.viewUri(tool);
    const visibility = Apps.visibility(tool);
    const parts = [];
    if (uri) parts.push(`Renders its result in the view ${uri} (MCP Apps): the view shows below while the call runs.`);
    if (!visibility.includes("model")) parts.push("Only views call it (visibility: app): a host keeps it from its model.");
    else if (!visibility.includes("app")) parts.push("Views cannot call it (visibility: model).");
    return parts.length ? el("p", { class: "muted apps-note", text: parts.join(" ") }) : null;
  }

  /** Render a tool's view; its calls run as the playground's own, in this flow's timeline. */
  function mountView({ tool, args }, me) {
    return Apps.mount({
      tool,
      args,
      container: $("view"),
      tools,
      rpc: (method, params) => rpc(method, params, { name: params.name || params.uri }),
      call: async (method, params, label) => {
        if (me.stopped) return undefined;
        const head = entry("The view calls", `${method} ${label}`, "view-call");
        const result = await runLegs({ method, params, name: label }, me);
        head.li.className = result === undefined ? "error" : "complete";
        if (result !== undefined) head.note(`→ answered to the view${result.isError ? " (isError)" : ""}`);
        return result;
      },
    });
  }

  // ---------------------------------------------------------------------------------------
  // Results

  function showError(error) {
    $("result").replaceChildren(el("div", { class: "card is-error" }, el("strong", { text: "Error" }), el("p", { class: "error-text", text: error.message }), error.rpc && error.rpc.data !== undefined ? el("pre", { text: JSON.stringify(error.rpc.data, null, 2) }) : null));
  }

  function contentBlock(b) {
    if (!b) return null;
    switch (b.type) {
      case "text":
        return el("pre", { text: b.text });
      case "image":
        return el("img", { src: `data:${b.mimeType};base64,${b.data}`, alt: "image result" });
      case "audio":
        return el("audio", { controls: true, src: `data:${b.mimeType};base64,${b.data}` });
      case "resource_link":
        return el("p", {}, "resource link: ", el("code", { text: b.uri }), b.name ? ` (${b.name})` : "");
      case "resource":
        return resourceContents(b.resource || {});
      default:
        return el("pre", { text: JSON.stringify(b, null, 2) });
    }
  }

  function resourceContents(c) {
    const head = el("div", { class: "muted" }, el("code", { text: c.uri || "" }), c.mimeType ? ` ${c.mimeType}` : "");
    if (typeof c.text === "string") return el("div", {}, head, el("pre", { text: c.text }));
    if (typeof c.blob === "string" && /^image\//.test(c.mimeType || "")) return el("div", {}, head, el("img", { src: `data:${c.mimeType};base64,${c.blob}`, alt: c.uri }));
    return el("div", {}, head, el("p", { class: "muted", text: `${(c.blob || "").length} characters of base64` }));
  }

  function renderToolResult(result) {
    const card = el("div", { class: "card" + (result.isError ? " is-error" : "") }, el("strong", { text: result.isError ? "Tool error" : "Result" }));
    for (const b of result.content || []) card.append(contentBlock(b));
    if (result.structuredContent !== undefined) card.append(el("div", { class: "muted", text: "structuredContent" }), el("pre", { text: JSON.stringify(result.structuredContent, null, 2) }));
    $("result").replaceChildren(card);
  }

  function renderPromptResult(result) {
    const card = el("div", { class: "card" }, el("strong", { text: "Prompt" }));
    if (result.description) card.append(el("p", { text: result.description }));
    for (const m of result.messages || []) card.append(el("div", { class: "muted", text: m.role }), contentBlock(m.content));
    $("result").replaceChildren(card);
  }

  function renderResourceResult(result) {
    const card = el("div", { class: "card" }, el("strong", { text: "Contents" }));
    for (const c of result.contents || []) card.append(resourceContents(c));
    $("result").replaceChildren(card);
  }

  start();
})();
