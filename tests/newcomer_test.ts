/**
 * A newcomer's path, end to end with the real `deno task start`:
 * - run from a subdirectory, it serves that directory, and `--root` is
 *   taken from there;
 * - with a cold Deno cache, `deno task start config <client>` sets up
 *   everything: the command it prints then serves every tool and resource
 *   in the environment MCP clients give a server (HOME, PATH, SHELL, TERM,
 *   USER only) with the network unreachable;
 * - `deno task start --http` (reading only) says to use `deno task serve`,
 *   which serves over HTTP with the network at that one address.
 */

import { strict as assert } from "node:assert";
import { join } from "node:path";
import { PROJECT_ROOT } from "./server_command.ts";

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Requests that touch every lazily loaded part of the server. */
function requests(root: string): string[] {
  const messages: Record<string, unknown>[] = [
    {
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "newcomer", version: "1" },
      },
    },
    { method: "resources/list" },
    { method: "resources/read", params: { uri: `file://${root}/README.md` } },
    { method: "resources/read", params: { uri: `file://${root}/pixel.png` } },
    { method: "tools/list" },
    ...[
      ["list_directory", { path: "." }],
      ["find_files", { pattern: "**/*.md" }],
      ["read_file", { path: "README.md" }],
      ["search_text", { query: "e" }],
      ["search_text", { query: "e+", regex: true, glob: "*.md" }],
      ["file_info", { path: "notes.txt" }],
    ].map(([name, args]) => ({
      method: "tools/call",
      params: { name, arguments: args },
    })),
  ];
  return messages.map((m, id) => JSON.stringify({ jsonrpc: "2.0", id, ...m }));
}

/** Run a command with `input` on stdin; stdout lines parsed as JSON. */
async function exchange(
  command: string,
  args: string[],
  input: string[],
  options: { cwd?: string; env?: Record<string, string>; clearEnv?: boolean },
): Promise<{ responses: Record<string, unknown>[]; stderr: string }> {
  const child = new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    clearEnv: options.clearEnv,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(encoder.encode(input.join("\n") + "\n"));
  await writer.close();
  const out = await child.output();
  const stderr = decoder.decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const responses = decoder.decode(out.stdout).split("\n").filter((l) => l)
    .map((l) => JSON.parse(l));
  return { responses, stderr };
}

function assertAllAnswered(
  responses: Record<string, unknown>[],
  count: number,
  stderr: string,
): void {
  assert.equal(responses.length, count, stderr);
  for (const response of responses) {
    assert.equal(
      response.error,
      undefined,
      `${JSON.stringify(response)}\n${stderr}`,
    );
    const result = response.result as { isError?: boolean };
    assert.notEqual(result.isError, true, JSON.stringify(response));
  }
}

Deno.test("deno task start in a subdirectory serves it, and --root is taken from there", async () => {
  const fixtures = join(PROJECT_ROOT, "tests", "fixtures");
  const here = join(fixtures, "resources");
  const input = [
    requests(here)[0],
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "resources/list" }),
  ];
  for (
    const [args, served] of [
      [[], here],
      [["--root", "../ws"], join(fixtures, "ws")],
    ] as const
  ) {
    // As from a shell: deno task sets INIT_CWD only when it is not set
    // already (as it is when this test itself runs under deno task).
    const env = Deno.env.toObject();
    delete env.INIT_CWD;
    const { responses, stderr } = await exchange(
      Deno.execPath(),
      ["task", "start", ...args],
      input,
      { cwd: here, env: { ...env, NO_COLOR: "1" }, clearEnv: true },
    );
    const list = responses[1].result as { resources: { uri: string }[] };
    assert.ok(list.resources.length > 0, stderr);
    for (const { uri } of list.resources) {
      assert.ok(uri.startsWith(`file://${served}/`), `${uri} (${args})`);
    }
  }
});

Deno.test({
  name:
    "cold cache: after deno task start config, the printed command serves everything offline with a client's minimal environment",
  // Needs the npm registry once, to fill the fresh cache.
  sanitizeResources: false,
  async fn() {
    const home = await Deno.makeTempDir({ prefix: "shipcode-home-" });
    try {
      const root = join(PROJECT_ROOT, "tests", "fixtures", "resources");
      // Set-up, in the user's own environment but with nothing cached.
      const env = Deno.env.toObject();
      delete env.DENO_DIR;
      delete env.XDG_CACHE_HOME;
      const config = await new Deno.Command(Deno.execPath(), {
        args: ["task", "start", "config", "claude-desktop", "--root", root],
        cwd: PROJECT_ROOT,
        env: { ...env, HOME: home, NO_COLOR: "1" },
        clearEnv: true,
      }).output();
      assert.equal(config.code, 0, decoder.decode(config.stderr));
      const { command, args } =
        JSON.parse(decoder.decode(config.stdout)).mcpServers.shipcode;
      // What a client gives the server: these five variables, and here a
      // proxy nobody listens on, so any download would fail.
      const dead = "http://127.0.0.1:9";
      // A command run through npx (`npx --prefer-offline -y deno@…`, as
      // printed when Deno itself came from npx) starts from npm's cache:
      // a client would give it the user's own, which holds this Deno; the
      // fresh HOME's is empty and the proxy dead.
      const npmCache = npxCacheOf(Deno.execPath());
      const minimal = {
        HOME: home,
        PATH: command.startsWith("/")
          ? [join(command, ".."), "/usr/bin", "/bin"].join(":")
          : Deno.env.get("PATH") ?? "/usr/bin:/bin",
        SHELL: "/bin/sh",
        TERM: "dumb",
        USER: Deno.env.get("USER") ?? "user",
        HTTP_PROXY: dead,
        HTTPS_PROXY: dead,
        npm_config_proxy: dead,
        npm_config_https_proxy: dead,
        ...(command === "npx" && npmCache !== undefined
          ? { npm_config_cache: npmCache, npm_config_update_notifier: "false" }
          : {}),
      };
      const input = requests(root);
      const { responses, stderr } = await exchange(command, args, input, {
        cwd: "/",
        env: minimal,
        clearEnv: true,
      });
      assertAllAnswered(responses, input.length, stderr);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});

/**
 * The npm cache directory holding `execPath` when Deno runs from npx's
 * cache (`<cache>/_npx/<hash>/node_modules/deno/…`), else undefined.
 */
function npxCacheOf(execPath: string): string | undefined {
  const parts = execPath.split("/");
  const at = parts.lastIndexOf("_npx");
  return at > 0 ? parts.slice(0, at).join("/") : undefined;
}

/** `deno task <args>` from the repository, as from a shell. */
function task(args: string[]): Deno.ChildProcess {
  const env = Deno.env.toObject();
  delete env.INIT_CWD;
  return new Deno.Command(Deno.execPath(), {
    args: ["task", ...args],
    cwd: PROJECT_ROOT,
    env: { ...env, NO_COLOR: "1" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

Deno.test("deno task start --http, which grants reading only, names the task that serves over HTTP", async () => {
  const out = await task(["start", "--http", "127.0.0.1:0"]).output();
  const stderr = decoder.decode(out.stderr);
  assert.equal(out.code, 1, stderr);
  assert.match(
    stderr,
    /shipcode-mcp: cannot listen on 127\.0\.0\.1:0: run deno with --allow-net=127\.0\.0\.1:0 \(from the repository: deno task serve --http 127\.0\.0\.1:0\)\.\n/,
  );
});

Deno.test("deno task serve --http 127.0.0.1:0: says its URL, answers initialize over HTTP, and stops on SIGTERM", async () => {
  const root = join(PROJECT_ROOT, "tests", "fixtures", "ws");
  const child = task(["serve", "--http", "127.0.0.1:0", "--root", root]);
  const stderr = child.stderr.pipeThrough(new TextDecoderStream())
    .getReader();
  let text = "";
  let url: string | undefined;
  while (url === undefined) {
    const { value, done } = await stderr.read();
    if (done) throw new Error(`the task ended first; stderr: ${text}`);
    text += value;
    url = /shipcode-mcp: serving MCP at (http:\/\/127\.0\.0\.1:[0-9]+\/mcp)\n/
      .exec(text)?.[1];
  }
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "newcomer", version: "1" },
      },
    }),
  });
  assert.equal(response.status, 200);
  const answer = await response.json();
  assert.equal(answer.id, 0);
  assert.equal(answer.result.serverInfo.name, "shipcode-mcp");
  child.kill("SIGTERM");
  await child.status;
  await stderr.cancel();
  await child.stdout.cancel();
});
