// An MCP server over stdio built on the TypeScript SDK's McpServer.
// mcpconform's own tests run the suite against it to see how a real
// implementation fares.
//
// It serves the same resources as the Go test servers (see
// ../fixture/fixture.go; keep the values in step): three static resources
// (JSON, plain text, a PNG blob), the templates greeting://{name} (text) and
// test://bytes/{count} (blob), resource subscriptions, and a tool "touch" that
// sends notifications/resources/updated for a URI the client subscribed to.
// McpServer does not paginate, and registers no subscribe handler of its own:
// the handlers below are set on the underlying Server, as the SDK documents.
// Everything but JSON-RPC stays off stdout.
//
// With --port PORT (or --http PORT) it serves the same server over
// Streamable HTTP (StreamableHTTPServerTransport, stateful: a session id
// per client, one McpServer each, a DELETE ends it) on 127.0.0.1:PORT,
// endpoint /mcp; port 0 takes a free one, which stderr names.

import http from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const CONFIG_TEXT = '{"greeting":"Hello","maxItems":3}';
const NOTE_TEXT = "A plain text note from an mcpconform test server.";
const PIXEL_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR42mNgAAIAAAUAAen63NgAAAAASUVORK5CYII=";
const MAX_BYTES = 64;

function makeServer() {
const server = new McpServer(
  { name: "mcpconform-ts", version: "0.1.0" },
  { capabilities: { resources: { subscribe: true, listChanged: true } } },
);

const text = (mimeType, body) => (uri) => ({ contents: [{ uri: uri.href, mimeType, text: body }] });

server.registerResource("config", "test://static/config.json", { mimeType: "application/json" },
  text("application/json", CONFIG_TEXT));
server.registerResource("note", "test://static/note.txt", { mimeType: "text/plain" },
  text("text/plain", NOTE_TEXT));
server.registerResource("pixel", "test://static/pixel.png", { mimeType: "image/png", size: 68 },
  (uri) => ({ contents: [{ uri: uri.href, mimeType: "image/png", blob: PIXEL_BASE64 }] }));

server.registerResource("greeting", new ResourceTemplate("greeting://{name}", { list: undefined }),
  { mimeType: "text/plain" },
  (uri, { name }) => ({
    contents: [{ uri: uri.href, mimeType: "text/plain", text: `Hello, ${decodeURIComponent(String(name))}!` }],
  }));
server.registerResource("bytes", new ResourceTemplate("test://bytes/{count}", { list: undefined }),
  { mimeType: "application/octet-stream" },
  (uri, { count }) => {
    const n = Number(count);
    if (!Number.isInteger(n) || n < 1 || n > MAX_BYTES) {
      throw new Error(`count ${JSON.stringify(count)} is not an integer in [1, ${MAX_BYTES}]`);
    }
    const blob = Buffer.from(Array.from({ length: n }, (_, i) => i)).toString("base64");
    return { contents: [{ uri: uri.href, mimeType: "application/octet-stream", blob }] };
  });

const subscribed = new Set();
server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
  subscribed.add(request.params.uri);
  return {};
});
server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
  subscribed.delete(request.params.uri);
  return {};
});

server.registerTool("touch", {
  description: "Send notifications/resources/updated for a URI to its subscribers.",
  inputSchema: { uri: z.string().describe("the URI of the resource that changed") },
}, async ({ uri }) => {
  if (subscribed.has(uri)) {
    await server.server.sendResourceUpdated({ uri });
  }
  return { content: [{ type: "text", text: `touched ${uri}` }] };
});

// A read-only tool with an output schema: the suite calls it by default
// and judges its structured result.
server.registerTool("add", {
  description: "Adds a and b.",
  inputSchema: { a: z.number(), b: z.number() },
  outputSchema: { sum: z.number() },
  annotations: { readOnlyHint: true },
}, async ({ a, b }) => {
  const out = { sum: a + b };
  return { content: [{ type: "text", text: JSON.stringify(out) }], structuredContent: out };
});

// A prompt with a required argument: the suite gets it, and gets it
// without the argument.
server.registerPrompt("greet", {
  description: "Greets someone by name.",
  argsSchema: { name: z.string() },
}, ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Say hello to ${name}.` } }] }));

return server;
}

const at = process.argv.findIndex((a) => a === "--port" || a === "--http");
if (at < 0) {
  await makeServer().connect(new StdioServerTransport());
} else {
  const port = Number(process.argv[at + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`${process.argv[at]} needs a port number, got ${JSON.stringify(process.argv[at + 1])}`);
    process.exit(2);
  }
  const sessions = new Map();
  const httpServer = http.createServer(async (req, res) => {
    if (new URL(req.url, "http://localhost").pathname !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (!transport) {
      if (typeof id === "string") {
        res.writeHead(404).end();
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  httpServer.listen(port, "127.0.0.1", () => {
    console.error(`serving Streamable HTTP at http://127.0.0.1:${httpServer.address().port}/mcp`);
  });
}
