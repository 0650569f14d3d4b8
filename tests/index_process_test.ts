/**
 * `--index` in the real server process (from source, the bundle and the
 * compiled binary when built): the index reports itself ready on stderr
 * at level info, and then `search_text` and `find_files` answer exactly as
 * a server without `--index` does.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { readUntil, runServer, spawnServer } from "./process.ts";
import { TARGETS, targetStatus } from "./server_command.ts";

const INIT =
  `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`;

const CALLS = [
  { name: "search_text", arguments: { query: "needle" } },
  { name: "search_text", arguments: { query: "NEEDLE", caseSensitive: false } },
  {
    name: "search_text",
    arguments: { query: String.raw`need\w+ \d`, regex: true },
  },
  { name: "search_text", arguments: { query: "needle", limit: 2 } },
  { name: "find_files", arguments: { pattern: "**/*.c" } },
  { name: "find_files", arguments: { pattern: "*", limit: 3 } },
].map((params, i) =>
  JSON.stringify({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params })
);

async function tree(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "index_process_" });
  await Deno.mkdir(`${root}/src/deep`, { recursive: true });
  await Deno.writeTextFile(`${root}/.gitignore`, "*.log\n");
  await Deno.writeTextFile(`${root}/a.log`, "needle 1 ignored\n");
  await Deno.writeTextFile(`${root}/src/a.c`, "int needle 1;\nNeedle 2\n");
  await Deno.writeTextFile(`${root}/src/deep/b.c`, "needle 3\nneedles 4\n");
  await Deno.writeFile(`${root}/bin.dat`, new Uint8Array([110, 0, 1, 2]));
  await Deno.writeTextFile(`${root}/README.md`, "no match here\n");
  return root;
}

for (const target of TARGETS) {
  const status = targetStatus(target);
  Deno.test({
    name:
      `--index (${target}): ready on stderr, then the same answers as a scan`,
    ignore: !status.available,
    async fn() {
      const root = await tree();
      try {
        const expected = await runServer(
          new TextEncoder().encode(`${INIT}${CALLS.join("\n")}\n`),
          ["--root", root],
          target,
        );
        assert.equal(expected.code, 0);
        const child = spawnServer(
          ["--root", root, "--index", "--log-level", "info"],
          target,
        );
        const writer = child.stdin.getWriter();
        await writer.write(new TextEncoder().encode(INIT));
        const stderr = child.stderr.getReader();
        const log = await readUntil(stderr, (t) => t.includes("index ready:"));
        assert.match(log, /index ready: 5 files \(4 text\)/);
        await writer.write(new TextEncoder().encode(`${CALLS.join("\n")}\n`));
        await writer.close();
        stderr.releaseLock();
        const [output] = await Promise.all([
          child.output(),
        ]);
        assert.equal(output.code, 0);
        // The same answers; concurrent requests may be answered in either
        // order (a scan and the index take different times).
        const answers = (bytes: Uint8Array) =>
          new TextDecoder().decode(bytes).split("\n").sort();
        assert.deepEqual(answers(output.stdout), answers(expected.stdout));
      } finally {
        await Deno.remove(root, { recursive: true });
      }
    },
  });
}
