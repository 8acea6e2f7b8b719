// A small MCP client on the TypeScript SDK (@modelcontextprotocol/sdk),
// the second worked example of docs/client-guide.md. It spawns a stdio
// server, pages through every resource with a guard against cursor loops,
// reads each resource (checking and decoding blobs as strict base64), lists
// the resource templates, and prints a JSON summary:
//
//   node examples/tsclient/client.mjs -- mcpconform mock
//   node examples/tsclient/client.mjs --read test://nowhere -- mcpconform mock
//   node examples/tsclient/client.mjs --timeout-ms 1000 -- mcpconform mock --fault hang-on-read
//
// Exit status: 0 when everything was listed and read, 1 when the session
// failed or a read returned an error, 2 for a usage error.
//
// In a project of your own, install the SDK and import it by name:
//   import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// This repository has no package.json at its root, so the example loads the
// copy that internal/testservers/setup.sh installs (or the package folder
// named by MCP_SDK_DIR), through the same paths the package's exports map.

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

function sdkDir() {
  if (process.env.MCP_SDK_DIR) return path.resolve(process.env.MCP_SDK_DIR);
  // The node_modules folders Node would search from internal/testservers/ts.
  // (require.resolve of the package's package.json would not do: the
  // exports map sends it into dist/cjs.)
  const require = createRequire(path.join(here, "..", "..", "internal", "testservers", "ts", "package.json"));
  for (const dir of require.resolve.paths("@modelcontextprotocol/sdk") ?? []) {
    const pkg = path.join(dir, "@modelcontextprotocol", "sdk");
    if (existsSync(path.join(pkg, "package.json"))) return pkg;
  }
  throw new Error("@modelcontextprotocol/sdk is not installed: run internal/testservers/setup.sh, or set MCP_SDK_DIR");
}

// The exports map of the SDK sends "import" of "@modelcontextprotocol/sdk/X"
// to dist/esm/X.
const sdk = (subpath) => import(pathToFileURL(path.join(sdkDir(), "dist", "esm", subpath)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { ErrorCode, McpError, ResourceUpdatedNotificationSchema, ResourceListChangedNotificationSchema } = await sdk("types.js");

class CursorLoopError extends Error {}

function usage(msg) {
  if (msg) process.stderr.write(`tsclient: ${msg}\n`);
  process.stderr.write("usage: node client.mjs [--timeout-ms N] [--read URI] [--subscribe URI]... [--] COMMAND [ARGS...]\n");
  process.exit(2);
}

// parseArgs stops at the first word that is not one of our flags: the rest
// is the server's command line, flags included.
function parseArgs(argv) {
  const opts = { timeoutMs: 10000, read: "", subscribe: [], command: [] };
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") { i++; break; }
    if (a === "--timeout-ms") opts.timeoutMs = Number(argv[++i]);
    else if (a === "--read") opts.read = argv[++i] ?? "";
    else if (a === "--subscribe") opts.subscribe.push(argv[++i] ?? "");
    else if (a.startsWith("--")) usage(`unknown flag ${a}`);
    else break;
  }
  opts.command = argv.slice(i);
  if (opts.command.length === 0) usage("no server command");
  if (!(opts.timeoutMs > 0)) usage("--timeout-ms must be a positive number");
  return opts;
}

// walk pages through a list until a page has no nextCursor. Cursors are
// opaque, so a cursor seen before is the one sign of a loop a client can
// rely on; a server that makes up new cursors forever runs into maxPages.
async function walk(list, key, maxPages = 1000) {
  const items = [];
  const seen = new Map(); // cursor -> page it came with
  let cursor;
  for (let page = 1; ; page++) {
    if (page > maxPages) throw new Error(`more than ${maxPages} pages`);
    const res = await list(cursor === undefined ? {} : { cursor });
    items.push(...res[key]);
    const next = res.nextCursor;
    if (next === undefined || next === "") return { items, pages: page };
    if (seen.has(next)) {
      throw new CursorLoopError(`cursor loop: page ${page} returned a cursor already returned with page ${seen.get(next)}`);
    }
    seen.set(next, page);
    cursor = next;
  }
}

// decodeBlob decodes standard padded base64 and refuses anything else:
// Buffer.from(s, "base64") alone would skip line breaks, accept the URL-safe
// alphabet and missing padding, and silently drop invalid characters.
function decodeBlob(s) {
  if (typeof s !== "string" || s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) {
    throw new Error("blob is not standard padded base64");
  }
  const data = Buffer.from(s, "base64");
  if (data.toString("base64") !== s) throw new Error("blob is not canonical base64");
  return data;
}

function describe(err) {
  if (err instanceof McpError) return { code: err.code, message: err.message, data: err.data };
  return { message: String(err?.message ?? err) };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const summary = {
    server: null, resources: [], resourcePages: 0, templates: [], templatePages: 0,
    reads: [], updated: [], listChanged: 0, sdkErrors: [],
  };
  const requestOptions = { timeout: opts.timeoutMs };

  const client = new Client({ name: "mcpconform-tsclient", version: "0.1.0" });
  // The SDK rejects the requests in flight when the server exits, but not a
  // write that waits for the pipe to drain: connect() waits forever if the
  // server exits before notifications/initialized is written (seen with
  // --fault exit-after-initialize; Node then exits with status 13, unsettled
  // top-level await). So every step races against the close of the
  // connection.
  let onClosed;
  const closed = new Promise((_, reject) => { onClosed = reject; });
  closed.catch(() => {});
  client.onclose = () => onClosed(new McpError(ErrorCode.ConnectionClosed, "Connection closed"));
  const guard = (p) => Promise.race([p, closed]);
  // What the SDK drops (a line that is not JSON, a message that fails its
  // schema, a line over its 10 MiB buffer) it reports here, and nowhere else.
  client.onerror = (err) => {
    if (summary.sdkErrors.length < 10) summary.sdkErrors.push(String(err?.message ?? err).slice(0, 200));
  };
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { summary.updated.push(n.params.uri); });
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => { summary.listChanged++; });
  // stderr "inherit": the server's diagnostics land on ours.
  const transport = new StdioClientTransport({ command: opts.command[0], args: opts.command.slice(1), stderr: "inherit" });

  let failed = false;
  try {
    await guard(client.connect(transport, requestOptions));
    const info = client.getServerVersion();
    summary.server = info ? `${info.name} ${info.version}` : null;

    for (const uri of opts.subscribe) await guard(client.subscribeResource({ uri }, requestOptions));

    const uris = opts.read ? [opts.read] : [];
    if (!opts.read) {
      const { items, pages } = await walk((p) => guard(client.listResources(p, requestOptions)), "resources");
      summary.resources = items.map((r) => r.uri);
      summary.resourcePages = pages;
      uris.push(...summary.resources);
    }
    for (const uri of uris) {
      const read = { uri, contents: [] };
      summary.reads.push(read);
      try {
        const res = await guard(client.readResource({ uri }, requestOptions));
        for (const c of res.contents) {
          if (typeof c.blob === "string") {
            const data = decodeBlob(c.blob);
            read.contents.push({ kind: "blob", mimeType: c.mimeType, bytes: data.length, head: data.subarray(0, 8).toString("hex") });
          } else {
            read.contents.push({ kind: "text", mimeType: c.mimeType, bytes: Buffer.byteLength(c.text ?? "") });
          }
        }
      } catch (err) {
        read.error = describe(err);
        failed = true;
        // An error answer, a result that fails the SDK's schema or a bad
        // blob concerns one resource; a closed connection or a timeout ends
        // the session.
        if (err instanceof McpError && (err.code === ErrorCode.ConnectionClosed || err.code === ErrorCode.RequestTimeout)) throw err;
      }
    }
    // The templates are listed after the reads because the answer doubles
    // as a barrier: the SDK handles messages in the order they arrive, so
    // the notifications the server wrote before it have been handled.
    if (!opts.read) {
      const { items, pages } = await walk((p) => guard(client.listResourceTemplates(p, requestOptions)), "resourceTemplates");
      summary.templates = items.map((t) => t.uriTemplate);
      summary.templatePages = pages;
    }
  } catch (err) {
    summary.error = describe(err);
    if (err instanceof CursorLoopError) summary.error.cursorLoop = true;
    failed = true;
  } finally {
    await client.close().catch(() => {});
  }
  // Exit explicitly: a child the server left behind may still hold the
  // server's stdout, and an open pipe keeps Node running (--fault leave-child).
  process.stdout.write(JSON.stringify(summary, null, 2) + "\n", () => process.exit(failed ? 1 : 0));
}

await main();
