/**
 * The official TypeScript SDK's server, as most MCP servers are built:
 * `McpServer` + `StdioServerTransport` from `@modelcontextprotocol/sdk`,
 * tools and resources registered with the SDK's own API. The same file runs
 * under Node (the bench copies it next to an npm install of the SDK) and
 * under Deno (bench/sdk_deno_imports.json resolves the SDK and zod from npm).
 *
 * It serves `--root DIR` (default: the current directory) the way
 * shipcode-mcp does, so the bench can compare like with like:
 *
 * - tool `read_file` {path}: the file's text;
 * - tool `search_text` {query}: `path:line:text` for every line containing
 *   `query` (literal, case-sensitive), at most 200 matches. It walks the
 *   directory in name order, skips `.git` and `node_modules`, binary files
 *   (a NUL in the first 8 KiB) and files over 1 MiB. Unlike shipcode-mcp it
 *   does not honour `.gitignore` files;
 * - resources: every file under the root as `file://` URIs through one
 *   `ResourceTemplate` (`file:///ROOT/{+path}`) whose `list` callback walks
 *   the tree. The SDK's `resources/list` takes no cursor (the callback gets
 *   no page to fill), so the whole listing comes back in one response.
 *
 * The transport writes to stdout through `OneDrainListener`
 * (one_drain_listener.mjs): the same backpressure, without the SDK's
 * quadratic pile of `drain` listeners when the client reads slowly.
 *
 * With `--http PORT` it serves Streamable HTTP at `http://127.0.0.1:PORT/mcp`
 * instead (port 0: a free one; the URL is printed to stderr), the way the
 * SDK's documentation builds a stateful server: `node:http`, one
 * `StreamableHTTPServerTransport` and one `McpServer` per session, the
 * session found by its `Mcp-Session-Id`, the transport's defaults (answers
 * as SSE streams).
 *
 * @module
 */

import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { extname, isAbsolute, join, relative, sep } from "node:path";
import { Buffer } from "node:buffer";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { OneDrainListener } from "./one_drain_listener.mjs";
import {
  McpServer,
  ResourceTemplate,
} from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

// zod is the SDK's own dependency (its tool schemas): Node finds it in the
// SDK's install, Deno through bench/sdk_deno_imports.json. Imported
// dynamically because `deno task check` reads this file with the project's
// import map, which has no zod (the project does not use it).
const { z } = await import("zod");

const MAX_MATCHES = 200;
const MAX_FILE_BYTES = 1024 * 1024;
const SKIPPED_DIRS = new Set([".git", "node_modules"]);

// A small table stands in for a MIME library: enough for the bench's files.
const MIME_TYPES = {
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".json": "application/json",
};

function rootArgument(argv) {
  const at = argv.indexOf("--root");
  return at >= 0 && argv[at + 1] !== undefined ? argv[at + 1] : process.cwd();
}

const root = await realpath(rootArgument(process.argv.slice(2)));

/** Root-relative POSIX paths of the files under `dir`, in name order. */
async function* walk(dir) {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const absolute = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* walk(absolute);
    } else if (entry.isFile()) {
      yield relative(root, absolute).split(sep).join("/");
    }
  }
}

/** The absolute path of `path` (relative to the root) if it stays inside. */
function inside(path) {
  const absolute = join(root, path);
  const rel = relative(root, absolute);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) {
    throw new Error(`${path} is outside the served directory`);
  }
  return absolute;
}

/** A server with the bench's tools and resources registered. */
function makeServer() {
  const server = new McpServer({ name: "sdk-bench", version: "1.0.0" });

  server.registerTool(
    "read_file",
    {
      title: "Read file",
      description: "Read a text file by its path relative to the root.",
      inputSchema: { path: z.string().min(1) },
      annotations: { readOnlyHint: true },
    },
    async ({ path }) => {
      try {
        const text = await readFile(inside(path), "utf8");
        return { content: [{ type: "text", text }] };
      } catch (error) {
        return {
          content: [{ type: "text", text: `Cannot read ${path}: ${error}` }],
          isError: true,
        };
      }
    },
  );

  server.registerTool(
    "search_text",
    {
      title: "Search text",
      description:
        "Lines of the root's text files that contain query, as path:line:text.",
      inputSchema: { query: z.string().min(1) },
      annotations: { readOnlyHint: true },
    },
    async ({ query }) => {
      const matches = [];
      search: for await (const path of walk(root)) {
        const absolute = join(root, path);
        if ((await stat(absolute)).size > MAX_FILE_BYTES) continue;
        const bytes = await readFile(absolute);
        if (bytes.subarray(0, 8192).includes(0)) continue;
        const lines = bytes.toString("utf8").split("\n");
        for (let i = 0; i < lines.length; i++) {
          if (!lines[i].includes(query)) continue;
          matches.push(`${path}:${i + 1}:${lines[i].replace(/\r$/, "")}`);
          if (matches.length === MAX_MATCHES) break search;
        }
      }
      return {
        content: [{
          type: "text",
          text: matches.length > 0 ? matches.join("\n") : "No matches.",
        }],
      };
    },
  );

  server.registerResource(
    "workspace-file",
    new ResourceTemplate(`${pathToFileURL(root).href}/{+path}`, {
      list: async () => {
        const resources = [];
        for await (const path of walk(root)) {
          const resource = {
            uri: pathToFileURL(join(root, path)).href,
            name: path,
          };
          const mimeType = MIME_TYPES[extname(path)];
          if (mimeType !== undefined) resource.mimeType = mimeType;
          resource.size = (await stat(join(root, path))).size;
          resources.push(resource);
        }
        return { resources };
      },
    }),
    { title: "Workspace file", description: "Any file under the root." },
    async (uri) => {
      const absolute = inside(relative(root, fileURLToPath(uri)));
      return {
        contents: [{
          uri: uri.href,
          mimeType: MIME_TYPES[extname(absolute)] ?? "text/plain",
          text: await readFile(absolute, "utf8"),
        }],
      };
    },
  );

  return server;
}

/** The port `--http PORT` names, or undefined. */
function httpPort(argv) {
  const at = argv.indexOf("--http");
  return at >= 0 ? Number(argv[at + 1] ?? "0") : undefined;
}

/** Serve Streamable HTTP on 127.0.0.1:`port`, one server per session. */
async function serveHttp(port) {
  const { createServer } = await import("node:http");
  const { randomUUID } = await import("node:crypto");
  const { StreamableHTTPServerTransport } = await import(
    "@modelcontextprotocol/sdk/server/streamableHttp.js"
  );
  const { isInitializeRequest } = await import(
    "@modelcontextprotocol/sdk/types.js"
  );
  const transports = new Map();
  const http = createServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const text = Buffer.concat(chunks).toString("utf8");
      const body = text === "" ? undefined : JSON.parse(text);
      const id = req.headers["mcp-session-id"];
      let transport = typeof id === "string" ? transports.get(id) : undefined;
      if (transport === undefined) {
        if (req.method !== "POST" || !isInitializeRequest(body)) {
          res.writeHead(id === undefined ? 400 : 404).end();
          return;
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => {
            transports.set(sessionId, transport);
          },
        });
        transport.onclose = () => transports.delete(transport.sessionId);
        await makeServer().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    }
  });
  http.keepAliveTimeout = 60_000;
  await new Promise((resolve) => http.listen(port, "127.0.0.1", resolve));
  process.stderr.write(`http://127.0.0.1:${http.address().port}/mcp\n`);
  const stop = () => http.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

const port = httpPort(process.argv.slice(2));
if (port === undefined) {
  await makeServer().connect(
    new StdioServerTransport(
      process.stdin,
      new OneDrainListener(process.stdout),
    ),
  );
} else {
  await serveHttp(port);
}
