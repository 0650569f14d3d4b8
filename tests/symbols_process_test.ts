/**
 * The symbol tools parse off the thread that answers requests, against
 * the real server process: pings sent while `find_symbol` parses hostile
 * files (each holding a parser for its whole time budget) are answered
 * at once, not after the parses.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { LiveServer } from "./live_server.ts";

/**
 * Source whose definitions take the parse's whole time budget: each of
 * thousands of nested functions asks tree-sitter for its parent.
 */
const NESTED = "function value(){".repeat(20_000) + "}".repeat(20_000);

Deno.test("find_symbol: pings sent while hostile files are parsed are answered at once", async () => {
  const root = await Deno.makeTempDir({ prefix: "shipcode-symbols-" });
  try {
    await Deno.writeTextFile(`${root}/small.ts`, "function value() {}\n");
    for (let i = 0; i < 6; i++) {
      await Deno.writeTextFile(`${root}/nested${i}.ts`, NESTED);
    }
    await using server = await LiveServer.start(["--root", root]);
    // Warm: the tools, the workers, the runtime and the grammar load.
    await server.response(
      server.callTool("find_symbol", { name: "value", path: "small.ts" }),
      60_000,
    );
    const call = server.callTool("find_symbol", { name: "value" });
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (server.find(call) !== undefined) break;
      waits.push(await server.ping());
    }
    const answer = await server.response(call, 60_000);
    assert.match(
      JSON.stringify(answer.message),
      /could not be read or parsed in time: nested0\.ts/,
    );
    assert.ok(waits.length >= 4, `the call ended after ${waits.length} pings`);
    // A ping waits at most 200 ms behind the call (the order of answers),
    // then goes out; parsing on the thread that answers would hold each
    // until the file's parse ended, up to a second.
    waits.sort((a, b) => a - b);
    const median = waits[Math.floor(waits.length / 2)];
    assert.ok(
      median < 450,
      `ping waits ${waits.map((w) => w.toFixed(0)).join(", ")} ms`,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
