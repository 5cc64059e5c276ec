// The official TypeScript client (@modelcontextprotocol/client v2) against one MCP endpoint:
// in the 2026-07-28 era (versionNegotiation "auto"), answering each question from the
// answers given, it calls each tool named and prints one JSON line:
// {"protocolVersion", "results": {tool: text}, "asked": [messages]}.
//
//   node ts_client.mjs URL '{"region": "eu-west-1", "name": "Ada", "age": 36}' provision:'{"name":"orders"}' wizard
//
// Run from a folder whose node_modules holds the client (tests/serverless copies it into the
// one setup-tools.sh installs).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const [url, answersJson, ...calls] = process.argv.slice(2);
const answers = JSON.parse(answersJson);
const asked = [];
const client = new Client(
  { name: "serverless-ts", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } },
);
client.setRequestHandler("elicitation/create", async (request) => {
  asked.push(request.params.message);
  const fields = Object.keys(request.params.requestedSchema?.properties ?? {});
  return { action: "accept", content: Object.fromEntries(fields.map((f) => [f, answers[f]])) };
});
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const results = {};
for (const call of calls) {
  const [name, args] = call.includes(":") ? [call.slice(0, call.indexOf(":")), JSON.parse(call.slice(call.indexOf(":") + 1))] : [call, {}];
  const result = await client.callTool({ name, arguments: args });
  results[name] = result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
}
console.log(JSON.stringify({ protocolVersion: client.transport.protocolVersion ?? null, results, asked }));
await client.close();
