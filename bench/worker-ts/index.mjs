// The peer of scripts/bench-worker.sh: the `provision` tool of examples/src/provision.rs written
// with the official TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0) and served by its
// createMcpHandler on the same workerd: two legs, the region asked by a form, the name carried
// in a requestState signed by the SDK's own codec (createRequestStateCodec: HMAC-SHA256) with
// the key in the binding ROUNDTRIP_STATE_KEYS, as the roundtrip worker's.
import { McpServer, acceptedContent, createMcpHandler, createRequestStateCodec, inputRequired } from "@modelcontextprotocol/server";
import * as z from "zod";

const Region = z.object({ region: z.string() });

function handler(env) {
  const codec = createRequestStateCodec({ key: env.ROUNDTRIP_STATE_KEYS });
  return createMcpHandler(
    () => {
      const server = new McpServer({ name: "provision", version: "1.0.0" }, { requestState: { verify: codec.verify } });
      server.registerTool(
        "provision",
        { description: "Provision a database. Asks which region to put it in.", inputSchema: z.object({ name: z.string() }) },
        async ({ name }, ctx) => {
          const answer = acceptedContent(ctx.mcpReq.inputResponses, "region", Region);
          if (answer === undefined) {
            return inputRequired({
              inputRequests: {
                region: inputRequired.elicit({ message: `Which region should ${name} live in?`, requestedSchema: Region }),
              },
              requestState: await codec.mint({ name }),
            });
          }
          return { content: [{ type: "text", text: `Provisioned '${name}' in ${answer.region}.` }] };
        },
      );
      return server;
    },
    { legacy: "reject" },
  );
}

let served;

export default {
  async fetch(request, env) {
    if (new URL(request.url).pathname !== "/mcp") {
      return new Response("Not Found: the MCP endpoint is /mcp", { status: 404 });
    }
    served ??= handler(env);
    return served.fetch(request);
  },
};
