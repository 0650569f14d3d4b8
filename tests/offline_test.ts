/**
 * Nothing is fetched at run time: the server a user runs carries its npm
 * modules (mime, Ajv and theirs), so it answers everything with an empty
 * Deno cache and no network, in the reduced environment agent CLIs start
 * servers with. Each run here gets an empty `DENO_DIR` and an empty `HOME`,
 * `HTTP_PROXY`, `HTTPS_PROXY` and `NPM_CONFIG_REGISTRY` at a local port
 * nobody listens on, and nothing else but `PATH`; the official SDK client
 * then calls every tool (including a regex search, an outline, which
 * loads tree-sitter's WebAssembly, and a call whose arguments fail their
 * schema, which loads Ajv), every resource method (a
 * text and a binary read), and, with `--features all`, the prompts and
 * completion (and, with `--watch`, a subscription), which load their
 * modules on first use.
 *
 * Runs:
 * - the bundle (`dist/shipcode-mcp.js`), from outside the repository, as a
 *   client starts it (the npm package and an installed command run it);
 * - the bundle from inside the repository, where Deno finds `deno.json`
 *   and `deno.lock` (which list npm packages);
 * - the server command of `deno task start`, from its `deno run` on, as
 *   `config` prints it from the repository: the task builds the bundle and
 *   runs it, since `deno run main.ts` loads its npm modules from Deno's
 *   cache on first use.
 *
 * Afterwards the cache directory must hold no npm package and no remote
 * module, and stderr no download.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client, StdioClientTransport } from "./sdk.ts";
import { DENO_RUN_FLAGS } from "../cli/run_command.ts";
import { PROJECT_ROOT, targetStatus } from "./server_command.ts";
import { within } from "./within.ts";

const ROOT = Deno.realPathSync(`${PROJECT_ROOT}tests/fixtures/ws`);
const BUNDLE = `${PROJECT_ROOT}dist/shipcode-mcp.js`;

/** A local port nobody listens on: bound once, then closed. */
function deadPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * The `deno run` arguments the `start` task ends with (its server
 * command): its words, unquoted, `$ROOT` being the repository.
 */
export async function startTaskRun(): Promise<string[]> {
  const tasks = JSON.parse(
    await Deno.readTextFile(join(PROJECT_ROOT, "deno.json")),
  ).tasks as Record<string, string>;
  const start = tasks.start;
  const at = start.lastIndexOf("deno run ");
  assert.ok(at >= 0, `the start task runs no deno run: ${start}`);
  const words = start.slice(at + "deno ".length).match(
    /'[^']*'|"[^"]*"|[^\s'"]+/g,
  ) ?? [];
  return words.map((word) =>
    word.startsWith("'")
      ? word.slice(1, -1)
      : word.replace(/^"(.*)"$/, "$1").replaceAll("$ROOT/", PROJECT_ROOT)
  );
}

/** Every file below `dir` (none when it does not exist). */
function filesBelow(dir: string): string[] {
  const found: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return found;
    throw error;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) found.push(...filesBelow(path));
    else found.push(path);
  }
  return found;
}

interface Run {
  /** `deno` arguments from `run` on, without the server's own. */
  denoArgs: string[];
  /** The working directory. */
  cwd: string;
}

/**
 * Connect the SDK client to `run` with `serverArgs`, in an environment of
 * exactly `PATH`, an empty `DENO_DIR` and `HOME`, and dead proxies (the
 * SDK would add HOME, USER, SHELL… of its own: `env -i` clears them).
 */
async function connectOffline(
  run: Run,
  serverArgs: string[],
  dirs: { denoDir: string; home: string },
): Promise<{ client: Client; stderr: () => string }> {
  const dead = `http://127.0.0.1:${deadPort()}`;
  const environment = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    DENO_DIR: dirs.denoDir,
    HOME: dirs.home,
    HTTP_PROXY: dead,
    HTTPS_PROXY: dead,
    NPM_CONFIG_REGISTRY: `${dead}/`,
  };
  const transport = new StdioClientTransport({
    command: "env",
    args: [
      "-i",
      ...Object.entries(environment).map(([k, v]) => `${k}=${v}`),
      Deno.execPath(),
      ...run.denoArgs,
      ...serverArgs,
    ],
    cwd: run.cwd,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array | string) => {
    stderr += typeof chunk === "string"
      ? chunk
      : new TextDecoder().decode(chunk);
  });
  const client = new Client({ name: "offline-test", version: "1" });
  await within(client.connect(transport), 60_000, "connect");
  return { client, stderr: () => stderr };
}

type ToolResult = {
  content: { type: string; text?: string }[];
  isError?: boolean;
};

function textOf(result: ToolResult): string {
  return result.content.map((c) => c.text ?? "").join("\n");
}

/** Every tool and resource method, as a client uses them. */
async function toolsAndResources(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t: { name: string }) => t.name).sort(), [
    "file_info",
    "find_files",
    "find_symbol",
    "list_directory",
    "outline",
    "read_file",
    "read_symbol",
    "search_text",
  ]);
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args }) as
      & ToolResult
      & { structuredContent?: unknown };
    return {
      result,
      text: textOf(result) +
        (result.structuredContent === undefined
          ? ""
          : JSON.stringify(result.structuredContent)),
    };
  };
  const checks: [string, Record<string, unknown>, RegExp][] = [
    ["read_file", { path: "src/main.ts" }, /export function main/],
    ["search_text", { query: "needle" }, /src\/lib\/util\.ts/],
    [
      "search_text",
      { query: "nee+dle", regex: true, glob: "**/*.ts" },
      /src\/lib\/util\.ts/,
    ],
    ["find_files", { pattern: "**/*.ts" }, /src\/main\.ts/],
    ["list_directory", { path: "." }, /README\.md/],
    ["file_info", { path: "README.md" }, /README\.md/],
    // The symbol tools load the tree-sitter runtime and a grammar, which
    // ship beside the bundle.
    ["outline", { path: "src/main.ts" }, /function main 3-5/],
  ];
  for (const [name, args, expected] of checks) {
    const { result, text } = await call(name, args);
    assert.notEqual(result.isError, true, `${name}: ${text}`);
    assert.match(text, expected, `${name} ${JSON.stringify(args)}`);
  }
  // Arguments that fail the tool's schema: Ajv is loaded to say why.
  await assert.rejects(
    client.callTool({ name: "read_file", arguments: { path: 5 } }),
    /arguments\/path: must be string/,
  );

  const { resources } = await client.listResources();
  const uris = resources.map((r: { uri: string }) => r.uri);
  const readme = pathToFileURL(`${ROOT}/README.md`).href;
  const pixel = pathToFileURL(`${ROOT}/images/pixel.png`).href;
  assert.ok(uris.includes(readme), uris.join("\n"));
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.ok(resourceTemplates.length > 0);
  const text = await client.readResource({ uri: readme });
  assert.equal(
    (text.contents[0] as { text?: string }).text,
    await Deno.readTextFile(`${ROOT}/README.md`),
  );
  const binary = await client.readResource({ uri: pixel });
  const png = binary.contents[0] as { blob?: string; mimeType?: string };
  assert.equal(png.mimeType, "image/png");
  assert.ok((png.blob ?? "").length > 0, JSON.stringify(png));
}

/** What `--features all` adds and loads on first use. */
async function promptsAndCompletion(client: Client): Promise<void> {
  const { prompts } = await client.listPrompts();
  assert.deepEqual(prompts.map((p: { name: string }) => p.name), [
    "explain_search",
    "review_file",
    "summarize_directory",
  ]);
  const review = await client.getPrompt({
    name: "review_file",
    arguments: { path: "images/pixel.png" },
  });
  assert.equal(
    (review.messages[1] as { content: { type: string } }).content.type,
    "image",
  );
  const search = await client.getPrompt({
    name: "explain_search",
    arguments: { query: "needle" },
  });
  assert.ok(search.messages.length > 1);
  await client.getPrompt({ name: "summarize_directory" });
  const { resourceTemplates } = await client.listResourceTemplates();
  const path = await client.complete({
    ref: { type: "ref/resource", uri: resourceTemplates[0].uriTemplate },
    argument: { name: "path", value: "src/m" },
  });
  assert.deepEqual(path.completion.values, ["src/main.ts"]);
  const focus = await client.complete({
    ref: { type: "ref/prompt", name: "review_file" },
    argument: { name: "focus", value: "" },
    context: { arguments: { path: "src/main.ts" } },
  });
  assert.ok(focus.completion.values.length > 0);
  await client.setLoggingLevel("debug");
  await client.subscribeResource({
    uri: pathToFileURL(`${ROOT}/README.md`).href,
  });
}

const bundle = targetStatus("bundle");
const outside = Deno.makeTempDirSync({ prefix: "shipcode-offline-cwd-" });
const runs: { name: string; run: () => Promise<Run> }[] = [
  {
    name: "the bundle, started from outside the repository",
    run: () =>
      Promise.resolve({
        denoArgs: ["run", ...DENO_RUN_FLAGS, BUNDLE],
        cwd: outside,
      }),
  },
  {
    name: "the bundle, started inside the repository (deno.json, deno.lock)",
    run: () =>
      Promise.resolve({
        denoArgs: ["run", ...DENO_RUN_FLAGS, BUNDLE],
        cwd: PROJECT_ROOT,
      }),
  },
  {
    name: "deno task start's server command, as config prints it",
    run: async () => ({ denoArgs: await startTaskRun(), cwd: outside }),
  },
];

for (const { name, run } of runs) {
  Deno.test({
    name:
      `offline: ${name}: every tool, resource, prompt and completion with an empty DENO_DIR, no network and PATH only`,
    ignore: Deno.build.os === "windows" || !bundle.available,
    async fn() {
      const denoDir = await Deno.makeTempDir({ prefix: "shipcode-deno-dir-" });
      const home = await Deno.makeTempDir({ prefix: "shipcode-home-" });
      try {
        const how = await run();
        for (
          const features of [[], ["--features", "all", "--watch"]] as const
        ) {
          const { client, stderr } = await connectOffline(
            how,
            ["--root", ROOT, ...features],
            { denoDir, home },
          );
          try {
            await within(
              (async () => {
                await toolsAndResources(client);
                if (features.length > 0) await promptsAndCompletion(client);
              })(),
              60_000,
              `${how.denoArgs.at(-1)} ${features.join(" ")}`,
            ).catch((error) => {
              throw new Error(`${error}\n--- server stderr:\n${stderr()}`);
            });
          } finally {
            await client.close();
          }
          assert.doesNotMatch(stderr(), /Download|npm package/i, stderr());
        }
        const fetched = [
          ...filesBelow(join(denoDir, "npm")),
          ...filesBelow(join(denoDir, "remote")),
        ];
        assert.deepEqual(fetched, [], "the server fetched modules");
      } finally {
        await Deno.remove(denoDir, { recursive: true });
        await Deno.remove(home, { recursive: true });
      }
    },
  });
}

// Said once, visibly, when the runs above cannot run here.
if (Deno.build.os === "windows" || !bundle.available) {
  Deno.test({
    name: `offline runs skipped: ${
      Deno.build.os === "windows"
        ? "they start the server through env -i (POSIX)"
        : bundle.reason
    }`,
    ignore: true,
    fn() {},
  });
}

globalThis.addEventListener("unload", () => {
  Deno.removeSync(outside, { recursive: true });
});
