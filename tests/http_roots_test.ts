/**
 * Client roots over HTTP are confined (issue 26, finding 4), on the
 * stateless path of MCP 2026-07-28: a `tools/call` whose client declares
 * `roots` is answered with an input_required round for `roots/list`, and
 * the retry carries the roots. Over HTTP those roots are served only
 * inside `--allow-roots` directories (real paths, compared by segment);
 * with none, every client root is refused, and the tool call says which,
 * why and what flag to use. Served in-process by `createServer` and
 * `serveHttp`; the session path, with the official SDK client, is in
 * `sdk_roots_test.ts`.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { pathToFileURL } from "node:url";
import { type Config, DEFAULTS } from "../cli/flags.ts";
import { createServer } from "../main.ts";
import { serveHttp } from "../mcp/transports/http.ts";

const V = "2026-07-28";

interface Fixture {
  dir: string;
  /** The directory allowed for client roots. */
  allowed: string;
  /** A project inside it. */
  project: string;
  /** A sibling whose name starts with the allowed one's. */
  evil: string;
  /** A link inside the allowed directory to a directory outside it. */
  link: string;
}

async function fixture(): Promise<Fixture> {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "http_roots_" }),
  );
  const f: Fixture = {
    dir,
    allowed: `${dir}/allowed`,
    project: `${dir}/allowed/project`,
    evil: `${dir}/allowed-evil`,
    link: `${dir}/allowed/link-out`,
  };
  for (const d of [f.allowed, f.project, f.evil, `${dir}/outside`]) {
    await Deno.mkdir(d, { recursive: true });
  }
  await Deno.writeTextFile(`${f.project}/passwd`, "project file\n");
  await Deno.writeTextFile(`${f.evil}/passwd`, "secret of allowed-evil\n");
  await Deno.writeTextFile(`${dir}/outside/passwd`, "secret outside\n");
  await Deno.symlink(`${dir}/outside`, f.link);
  return f;
}

/** Parse a POST's answer, JSON or the last event of an SSE stream. */
async function answerOf(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  assert.equal(response.status, 200, text);
  if ((response.headers.get("content-type") ?? "").includes("event-stream")) {
    const data = text.split("\n").filter((line) => line.startsWith("data:"))
      .at(-1);
    assert.ok(data !== undefined, text);
    return JSON.parse(data.slice(5));
  }
  return JSON.parse(text);
}

/**
 * Serve `config` over HTTP in-process and call `read_file passwd` as a
 * 2026-07-28 client whose roots are `roots`: the first leg asks for them,
 * the retry gives them. Returns the retry's result. The server's own
 * root, where refused roots leave it, is this process's working directory
 * (the repository, which holds no passwd); the test does not chdir, since
 * other test modules start processes meanwhile, which would inherit it.
 */
async function readPasswd(
  config: Partial<Config>,
  roots: string[],
): Promise<{ isError?: boolean; text: string }> {
  const server = createServer({
    ...DEFAULTS,
    root: [],
    logLevel: "silent",
    protocolVersions: [V, "2025-06-18"],
    ...config,
  });
  const http = serveHttp(server, { port: 0 });
  try {
    const call = async (params: Record<string, unknown>) =>
      await answerOf(
        await fetch(http.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": V,
            "mcp-method": "tools/call",
            "mcp-name": "read_file",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: {
              name: "read_file",
              arguments: { path: "passwd" },
              ...params,
              _meta: {
                "io.modelcontextprotocol/protocolVersion": V,
                "io.modelcontextprotocol/clientCapabilities": { roots: {} },
              },
            },
          }),
        }),
      );
    const first = (await call({})).result as Record<string, unknown>;
    assert.equal(first?.resultType, "input_required", JSON.stringify(first));
    const [key] = Object.keys(first.inputRequests as object);
    const answer = await call({
      requestState: first.requestState,
      inputResponses: {
        [key]: { roots: roots.map((uri) => ({ uri })) },
      },
    });
    const result = answer.result as {
      isError?: boolean;
      content: { text: string }[];
    };
    assert.ok(result !== undefined, JSON.stringify(answer));
    return {
      isError: result.isError,
      text: result.content.map((block) => block.text).join("\n"),
    };
  } finally {
    await http.shutdown();
  }
}

const HTTP: Partial<Config> = { http: "127.0.0.1:0" };

Deno.test("http roots 2026: without --allow-roots, the client's root file:///etc is refused, and the client is told why", async () => {
  const f = await fixture();
  try {
    const answer = await readPasswd(HTTP, ["file:///etc"]);
    assert.equal(answer.isError, true, answer.text);
    assert.doesNotMatch(answer.text, /root:/);
    assert.match(answer.text, /file:\/\/\/etc/);
    assert.match(answer.text, /not inside a directory allowed/);
    assert.match(answer.text, /--allow-roots DIR/);
  } finally {
    await Deno.remove(f.dir, { recursive: true });
  }
});

Deno.test("http roots 2026: a root inside --allow-roots is served; a prefix sibling and a link out are refused", async () => {
  const f = await fixture();
  const allow = { ...HTTP, allowRoots: [f.allowed] };
  const url = (path: string) => pathToFileURL(path).href;
  try {
    const served = await readPasswd(allow, [url(f.project)]);
    assert.equal(served.isError, undefined, served.text);
    assert.match(served.text, /project file/);
    // The allowed directory itself is allowed.
    const itself = await readPasswd(allow, [url(f.allowed)]);
    assert.match(itself.text, /does not exist/);

    const evil = await readPasswd(allow, [url(f.evil)]);
    assert.equal(evil.isError, true, evil.text);
    assert.doesNotMatch(evil.text, /secret/);
    assert.match(evil.text, /allowed-evil/);

    const link = await readPasswd(allow, [url(f.link)]);
    assert.equal(link.isError, true, link.text);
    assert.doesNotMatch(link.text, /secret/);
    // The message names the root as given and its real path.
    assert.match(link.text, /link-out/);
    assert.match(link.text, new RegExp(`${f.dir}/outside`));

    // With an allowed root among them, the refused ones are left out.
    const mixed = await readPasswd(allow, [url(f.evil), url(f.project)]);
    assert.match(mixed.text, /project file/);
  } finally {
    await Deno.remove(f.dir, { recursive: true });
  }
});

Deno.test("http roots 2026: a server not serving HTTP (stdio's configuration) still serves any client root", async () => {
  const f = await fixture();
  try {
    const answer = await readPasswd(
      {},
      [pathToFileURL(`${f.dir}/outside`).href],
    );
    assert.equal(answer.isError, undefined, answer.text);
    assert.match(answer.text, /secret outside/);
  } finally {
    await Deno.remove(f.dir, { recursive: true });
  }
});
