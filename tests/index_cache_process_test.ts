/**
 * `--index-cache DIR` in the real server process (from source and the
 * bundle when built), started with the permissions its arguments get from
 * `serveFlags` (what the npm launcher, `config` and `deno task serve`
 * give): the first run saves the index, a restart loads it, a tree
 * changed while the server was down is caught up before it answers, a
 * corrupt cache is rebuilt; every answer is the scan's. And the process
 * may write in DIR and nowhere else.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { serveFlags } from "../cli/invocation.ts";
import { DENO_RUN_FLAGS } from "../cli/run_command.ts";
import { readUntil, runServer } from "./process.ts";
import { PROJECT_ROOT, type Target, targetStatus } from "./server_command.ts";

const INIT =
  `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`;

const CALLS = [
  { name: "search_text", arguments: { query: "needle" } },
  { name: "search_text", arguments: { query: "NEEDLE", caseSensitive: false } },
  {
    name: "search_text",
    arguments: { query: String.raw`need\w+ \d`, regex: true },
  },
  { name: "find_files", arguments: { pattern: "**/*.c" } },
].map((params, i) =>
  JSON.stringify({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params })
);

async function tree(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "index_cache_process_" });
  await Deno.mkdir(`${root}/src/deep`, { recursive: true });
  await Deno.writeTextFile(`${root}/.gitignore`, "*.log\n");
  await Deno.writeTextFile(`${root}/a.log`, "needle 1 ignored\n");
  await Deno.writeTextFile(`${root}/src/a.c`, "int needle 1;\nNeedle 2\n");
  await Deno.writeTextFile(`${root}/src/deep/b.c`, "needle 3\nneedles 4\n");
  await Deno.writeTextFile(`${root}/README.md`, "no match here\n");
  return root;
}

function script(target: Target): string {
  return target === "source"
    ? `${PROJECT_ROOT}main.ts`
    : `${PROJECT_ROOT}dist/shipcode-mcp.js`;
}

/** Serve `args` as a launcher would: with the permissions they need. */
function spawn(args: string[], target: Target): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...serveFlags(args, Deno.cwd()), script(target), ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
}

/** Run the calls once the index is ready; its log line and the answers. */
async function indexed(
  root: string,
  cache: string,
  target: Target,
): Promise<{ log: string; stdout: string }> {
  const child = spawn(
    ["--root", root, "--index-cache", cache, "--log-level", "info"],
    target,
  );
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(INIT));
  const stderr = child.stderr.getReader();
  const log = await readUntil(stderr, (t) => t.includes("index ready:"));
  await writer.write(new TextEncoder().encode(`${CALLS.join("\n")}\n`));
  await writer.close();
  stderr.releaseLock();
  const output = await child.output();
  assert.equal(output.code, 0);
  return { log, stdout: byId(new TextDecoder().decode(output.stdout)) };
}

/** Answers in id order (a slow one may come after a later fast one). */
function byId(stdout: string): string {
  const id = (line: string) => JSON.parse(line).id as number;
  return stdout.split("\n").filter((line) => line !== "")
    .sort((a, b) => id(a) - id(b)).join("\n");
}

async function scanned(root: string, target: Target): Promise<string> {
  const expected = await runServer(
    new TextEncoder().encode(`${INIT}${CALLS.join("\n")}\n`),
    ["--root", root],
    target,
  );
  assert.equal(expected.code, 0);
  return byId(new TextDecoder().decode(expected.stdout));
}

for (const target of ["source", "bundle"] as const) {
  Deno.test({
    name:
      `--index-cache (${target}): saved, loaded, caught up, rebuilt; the scan's answers`,
    ignore: !targetStatus(target).available,
    async fn() {
      const root = await tree();
      const cache = await Deno.makeTempDir({ prefix: "index_cache_dir_" });
      try {
        const first = await indexed(root, `${cache}/idx`, target);
        assert.match(first.log, /index ready: 4 files .*cache: none, saved/);
        assert.equal(first.stdout, await scanned(root, target));

        const again = await indexed(root, `${cache}/idx`, target);
        assert.match(again.log, /cache: loaded/);
        assert.equal(again.stdout, first.stdout);

        // Changed while no server ran.
        await Deno.writeTextFile(`${root}/src/a.c`, "int needle 7;\n");
        await Deno.writeTextFile(`${root}/src/c.c`, "needle 8\n");
        await Deno.remove(`${root}/src/deep/b.c`);
        const changed = await indexed(root, `${cache}/idx`, target);
        assert.match(changed.log, /cache: loaded, saved/);
        assert.equal(changed.stdout, await scanned(root, target));
        assert.match(changed.stdout, /needle 8/);

        // Corrupt: rebuilt, the same answers.
        for await (const entry of Deno.readDir(`${cache}/idx`)) {
          const path = `${cache}/idx/${entry.name}`;
          const bytes = await Deno.readFile(path);
          bytes[bytes.length >> 1] ^= 0xff;
          await Deno.writeFile(path, bytes);
        }
        const rebuilt = await indexed(root, `${cache}/idx`, target);
        assert.match(rebuilt.log, /cache: not used: [^,]*, saved/);
        assert.equal(rebuilt.stdout, changed.stdout);
        // Only the cache file is in the directory (no temporary left).
        const names = [];
        for await (const entry of Deno.readDir(`${cache}/idx`)) {
          names.push(entry.name);
        }
        assert.equal(names.length, 1);
        assert.match(names[0], /^index-v\d+-[0-9a-f]{16}\.bin$/);
      } finally {
        await Deno.remove(root, { recursive: true });
        await Deno.remove(cache, { recursive: true });
      }
    },
  });
}

Deno.test("--index-cache: the server may write in DIR and nowhere else", async () => {
  const root = await tree();
  const cache = await Deno.makeTempDir({ prefix: "index_cache_dir_" });
  const probe = `${cache}/../index_cache_probe_${crypto.randomUUID()}.ts`;
  try {
    const flags = serveFlags(["--root", root, "--index-cache", cache], "/");
    assert.deepEqual(
      flags.filter((f) => f.startsWith("--allow-write")),
      [`--allow-write=${cache}`],
    );
    // What a process run with exactly those flags may write.
    await Deno.writeTextFile(
      probe,
      `const out = [];
for (const path of Deno.args) {
  try {
    Deno.writeTextFileSync(path, "x");
    out.push("written");
  } catch (error) {
    out.push(error.name);
  }
}
console.log(out.join(" "));`,
    );
    const targets = [
      `${cache}/inside.bin`,
      `${root}/src/evil.c`,
      `${cache}/../outside.bin`,
      `${cache}2/sibling.bin`,
    ];
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...flags, probe, ...targets],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(
      new TextDecoder().decode(run.stdout).trim(),
      "written NotCapable NotCapable NotCapable",
      new TextDecoder().decode(run.stderr),
    );
    // And without the flag the server has no write permission at all; its
    // index then says the cache was not saved, and still answers.
    assert.ok(!DENO_RUN_FLAGS.some((f) => f.startsWith("--allow-write")));
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...DENO_RUN_FLAGS,
        script("source"),
        "--root",
        root,
        "--index-cache",
        `${cache}/denied`,
        "--log-level",
        "info",
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(INIT));
    const stderr = child.stderr.getReader();
    const log = await readUntil(stderr, (t) => t.includes("index ready:"));
    assert.match(log, /cache: none, not saved: /);
    await writer.close();
    stderr.releaseLock();
    assert.equal((await child.output()).code, 0);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(cache, { recursive: true });
    await Deno.remove(probe).catch(() => {});
  }
});
