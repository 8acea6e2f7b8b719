// An everything client on the TypeScript SDK (@modelcontextprotocol/sdk): a
// client under test for the scenarios of docs/client-guide.md, "The
// contract". It runs the scenario named by MCP_CONFORMANCE_SCENARIO once and
// exits 0 when it completed, 1 when it failed, 2 for an unknown scenario and
// 3 for one the SDK cannot do.
//
// Over stdio it spawns the server that MCP_CONFORMANCE_SERVER_COMMAND names
// (StdioClientTransport); without that variable it connects to the URL given
// as its last argument (StreamableHTTPClientTransport). By hand, from the
// root of this repository, with mcpconform on the PATH:
//
//   (cd examples/everything/ts && npm ci)     # or internal/testservers/setup.sh
//   MCP_CONFORMANCE_SCENARIO=resources MCP_CONFORMANCE_SERVER_COMMAND='["mcpconform","mock"]' node examples/everything/ts/client.mjs
//   MCP_CONFORMANCE_SCENARIO=tools_call node examples/everything/ts/client.mjs http://127.0.0.1:3001/mcp
//
// SDK 1.32.2 speaks the handshake versions only, and always offers its newest,
// 2025-11-25, whatever MCP_CONFORMANCE_PROTOCOL_VERSION says (Client.connect
// takes no version): request-metadata and sep-2322-client-request-state,
// which need 2026-07-28, exit 3.

import process from "node:process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";

const NAME = "everything-ts";

// The contract's scenarios; examples/everything/internal/contract keeps the
// same list, and the Go test runs every one of them here.
const SCENARIOS = [
  "initialize",
  "tools_call",
  "resources",
  "prompts",
  "list-changed",
  "server-requests",
  "elicitation-sep1034-client-defaults",
  "cancellation",
  "shutdown",
  "version-negotiation",
  "session-expiry",
  "request-metadata",
  "sep-2322-client-request-state",
];

const EXIT = { completed: 0, failed: 1, usage: 2, unsupported: 3 };
const DEADLINE_MS = 25_000; // the harness allows 30 s: close the server ourselves first
const ROOT_URI = "file:///tmp/mcpconform-root";
const SAMPLED_TEXT = "A fixed reply from an mcpconform everything client.";
const SAMPLED_MODEL = "mcpconform-fixed-reply";
const LIST_CHANGED_WINDOW_MS = 2000;
const MAX_PAGES = 1000;

class UsageError extends Error {}
class UnsupportedError extends Error {}

const out = (line) => process.stdout.write(line + "\n");
const quote = (s) => JSON.stringify(String(s));

function parseJSON(name) {
  try {
    return JSON.parse(process.env[name]);
  } catch (e) {
    throw new UsageError(`${name} is not JSON: ${e.message}`);
  }
}

function parseEnv(scenario) {
  const env = { scenario, context: { name: scenario }, command: null, url: null };
  if (process.env.MCP_CONFORMANCE_CONTEXT) {
    const ctx = parseJSON("MCP_CONFORMANCE_CONTEXT");
    if (ctx === null || typeof ctx !== "object" || Array.isArray(ctx)) {
      throw new UsageError("MCP_CONFORMANCE_CONTEXT is not a JSON object");
    }
    env.context = { name: scenario, ...ctx };
  }
  if (process.env.MCP_CONFORMANCE_SERVER_COMMAND) {
    const argv = parseJSON("MCP_CONFORMANCE_SERVER_COMMAND");
    if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === "string") || argv[0] === "") {
      throw new UsageError("MCP_CONFORMANCE_SERVER_COMMAND is not a JSON array of strings naming a command");
    }
    env.command = argv;
    return env;
  }
  const last = process.argv.at(-1);
  if (process.argv.length < 3 || !last.includes("://")) {
    throw new UsageError("no server: set MCP_CONFORMANCE_SERVER_COMMAND to its argv, or give its URL as the last argument");
  }
  env.url = last;
  return env;
}

function newClient(options = {}) {
  return new Client({ name: "mcpconform-everything-ts", version: "0.1.0" }, options);
}

// connect connects client to the server env names; a session is the
// client and the server's capabilities.
async function connect(env, client = newClient()) {
  const transport = env.command
    ? new StdioClientTransport({ command: env.command[0], args: env.command.slice(1), stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(env.url));
  // The SDK hands the negotiated version to a transport that asks for it
  // (the HTTP one does, for its header); the stdio one does not, so ask here.
  let version = "";
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (v) => {
    version = v;
    setVersion?.(v);
  };
  await client.connect(transport);
  out(`protocol version ${version} (handshake era: initialize)`);
  return { client, caps: client.getServerCapabilities() ?? {} };
}

async function closeSession({ client }) {
  try {
    // For a spawned server, close is the stdio shutdown: close stdin, wait,
    // SIGTERM, wait, SIGKILL (StdioClientTransport, 2 s steps).
    await client.close();
  } catch (e) {
    process.stderr.write(`${NAME}: closing: ${e.message}\n`);
  }
}

// withSession runs body on a session of client and closes it afterwards.
async function withSession(env, client, body) {
  const session = await connect(env, client);
  try {
    return await body(session);
  } finally {
    await closeSession(session);
  }
}

// walk follows a list's cursors to its last page. A plain loop on
// nextCursor never ends on a server whose cursors loop: a cursor handed out
// twice in one walk ends it with an error.
async function walk(kind, page) {
  const items = [];
  const seen = new Set();
  let cursor;
  for (let pages = 1; ; pages++) {
    const result = await page(cursor === undefined ? {} : { cursor });
    items.push(...result.items);
    const next = result.nextCursor;
    if (next === undefined) {
      out(`${kind}: ${items.length} on ${pages} pages`);
      return items;
    }
    if (seen.has(next)) throw new Error(`listing ${kind}: page ${pages} hands out cursor ${quote(next)} again: a cursor loop`);
    if (pages === MAX_PAGES) throw new Error(`listing ${kind}: more than ${MAX_PAGES} pages`);
    seen.add(next);
    cursor = next;
  }
}

const lists = {
  tools: (client) => walk("tools", async (p) => { const r = await client.listTools(p); return { items: r.tools, nextCursor: r.nextCursor }; }),
  resources: (client) => walk("resources", async (p) => { const r = await client.listResources(p); return { items: r.resources, nextCursor: r.nextCursor }; }),
  prompts: (client) => walk("prompts", async (p) => { const r = await client.listPrompts(p); return { items: r.prompts, nextCursor: r.nextCursor }; }),
};
const listTemplates = (client) =>
  walk("resource templates", async (p) => { const r = await client.listResourceTemplates(p); return { items: r.resourceTemplates, nextCursor: r.nextCursor }; });

async function callTool(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  out(`${name}: ${quote(text)}`);
  if (result.isError) throw new Error(`tool ${quote(name)} answered with isError`);
}

// answeringClient declares roots (with listChanged), sampling and
// elicitation, and answers the server's requests for them; the handlers are
// in place before the handshake, since a server may ask at once. With
// form.applyDefaults the SDK fills every property's schema default into an
// accepted elicitation's content.
function answeringClient() {
  const client = newClient({
    capabilities: {
      roots: { listChanged: true },
      sampling: {},
      elicitation: { form: { applyDefaults: true } },
    },
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    out("roots/list: one root");
    return { roots: [{ uri: ROOT_URI, name: "mcpconform-root" }] };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    out(`sampling/createMessage: ${req.params.messages.length} messages`);
    return { role: "assistant", content: { type: "text", text: SAMPLED_TEXT }, model: SAMPLED_MODEL, stopReason: "endTurn" };
  });
  client.setRequestHandler(ElicitRequestSchema, async () => {
    out("elicitation/create: accepting the defaults");
    return { action: "accept", content: {} };
  });
  return client;
}

const scenarios = {
  async initialize(env) {
    await withSession(env, newClient(), async ({ client, caps }) => {
      if (!caps.tools) return out("the server declares no tools");
      await lists.tools(client);
    });
  },

  // Over Streamable HTTP the server ends the session at a request: what the
  // SDK does then (a new session, or an error) is what is judged.
  async "session-expiry"(env) {
    await scenarios.initialize(env);
  },

  async tools_call(env) {
    await withSession(env, newClient(), async ({ client }) => {
      const tools = await lists.tools(client);
      if (!tools.some((t) => t.name === "add_numbers")) throw new Error("the server lists no tool add_numbers");
      await callTool(client, "add_numbers", { a: 2, b: 3 });
    });
  },

  async resources(env) {
    await withSession(env, newClient(), async ({ client, caps }) => {
      if (!caps.resources) return out("the server declares no resources");
      const list = await lists.resources(client);
      await listTemplates(client);
      for (const r of list) {
        const res = await client.readResource({ uri: r.uri });
        out(`read ${quote(r.uri)}: ${res.contents.length} contents`);
      }
    });
  },

  async prompts(env) {
    await withSession(env, newClient(), async ({ client, caps }) => {
      if (!caps.prompts) return out("the server declares no prompts");
      for (const p of await lists.prompts(client)) {
        const args = {};
        for (const a of p.arguments ?? []) if (a.required) args[a.name] = "x";
        const res = await client.getPrompt({ name: p.name, arguments: args });
        out(`prompt ${quote(p.name)}: ${res.messages.length} messages`);
      }
    });
  },

  async "list-changed"(env) {
    // The SDK's listChanged option installs a handler for each kind whose
    // listChanged the server declares; without autoRefresh (which fetches
    // the first page only) it just tells us, and we list again ourselves.
    let changed;
    const first = new Promise((resolve) => (changed = resolve));
    const on = (kind) => ({ autoRefresh: false, debounceMs: 0, onChanged: () => changed(kind) });
    const listChanged = { tools: on("tools"), resources: on("resources"), prompts: on("prompts") };
    await withSession(env, newClient({ listChanged }), async ({ client, caps }) => {
      for (const kind of ["tools", "resources", "prompts"]) if (caps[kind]) await lists[kind](client);
      let timer;
      const window = new Promise((resolve) => (timer = setTimeout(() => resolve(""), LIST_CHANGED_WINDOW_MS)));
      const kind = await Promise.race([first, window]);
      clearTimeout(timer);
      if (!kind) return out(`no list_changed within ${LIST_CHANGED_WINDOW_MS / 1000}s`);
      out(`notifications/${kind}/list_changed: listing again`);
      await lists[kind](client);
    });
  },

  async "server-requests"(env) {
    await withSession(env, answeringClient(), async ({ client }) => {
      await lists.tools(client);
      if (env.context.tool) await callTool(client, env.context.tool, env.context.arguments ?? {});
    });
  },

  async "elicitation-sep1034-client-defaults"(env) {
    await withSession(env, answeringClient(), async ({ client }) => {
      await callTool(client, "test_client_elicitation_defaults", {});
    });
  },

  async cancellation(env) {
    const { tool, uri } = env.context;
    if (!tool && !uri) throw new Error("the context names neither a tool nor a uri");
    const timeout = env.context.timeoutMs > 0 ? env.context.timeoutMs : 1000;
    await withSession(env, newClient(), async ({ client }) => {
      // On timeout the SDK sends notifications/cancelled for the request
      // and rejects it with RequestTimeout.
      try {
        if (tool) await client.callTool({ name: tool, arguments: env.context.arguments ?? {} }, undefined, { timeout });
        else await client.readResource({ uri }, { timeout });
        out(`answered within ${timeout}ms: nothing to cancel`);
      } catch (e) {
        if (!(e instanceof McpError) || e.code !== ErrorCode.RequestTimeout) throw e;
        out(`no answer within ${timeout}ms: cancelled`);
      }
    });
  },

  async shutdown(env) {
    const session = await connect(env);
    await session.client.ping();
    out("ping answered");
    const start = Date.now();
    await closeSession(session);
    out(`closed in ${Date.now() - start}ms`);
  },

  async "version-negotiation"(env) {
    // The SDK offers its newest version and accepts any counter-offer it
    // supports; connect fails otherwise.
    await closeSession(await connect(env));
  },

  async "request-metadata"() {
    throw new UnsupportedError("@modelcontextprotocol/sdk 1.32.2 does not speak 2026-07-28");
  },

  async "sep-2322-client-request-state"() {
    throw new UnsupportedError("@modelcontextprotocol/sdk 1.32.2 has no multi round-trip requests (2026-07-28)");
  },
};

async function main() {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  if (!scenario) throw new UsageError("MCP_CONFORMANCE_SCENARIO is not set");
  if (!SCENARIOS.includes(scenario)) throw new UsageError(`unknown scenario ${quote(scenario)}`);
  const env = parseEnv(scenario);
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not done within ${DEADLINE_MS / 1000}s`)), DEADLINE_MS);
  });
  try {
    await Promise.race([scenarios[scenario](env), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

let code = EXIT.completed;
try {
  await main();
} catch (e) {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  if (e instanceof UsageError) {
    process.stderr.write(`${NAME}: ${e.message}\n`);
    code = EXIT.usage;
  } else if (e instanceof UnsupportedError) {
    process.stderr.write(`${NAME}: scenario ${scenario}: unsupported by this SDK: ${e.message}\n`);
    code = EXIT.unsupported;
  } else {
    process.stderr.write(`${NAME}: scenario ${scenario} failed: ${e?.message ?? e}\n`);
    code = EXIT.failed;
  }
}
// Exit now: a server's grandchild that keeps a pipe open would keep Node's
// event loop alive. Writes to pipes and files are synchronous on POSIX.
process.exit(code);
