/**
 * Cancellation stops the work, against the real server process: after
 * `notifications/cancelled`, a long `search_text` or `find_files` sends
 * nothing for its id, the next request is answered, and the process goes
 * idle.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { cpuOver, LiveServer } from "./live_server.ts";

/**
 * A temporary root holding `files` names for one file of `bytes` bytes,
 * `perDirectory` to a directory: hard links, which are quick to make.
 */
async function tree(
  files: number,
  perDirectory: number,
  bytes: number,
): Promise<{ root: string } & AsyncDisposable> {
  const root = await Deno.makeTempDir({ prefix: "shipcode-cancel-" });
  const line = "export const value = 1;\n";
  const body = line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
  const source = `${root}/source.ts`;
  await Deno.writeTextFile(source, body);
  for (let i = 0; i < files; i++) {
    const dir = `${root}/d${Math.floor(i / perDirectory)}`;
    if (i % perDirectory === 0) await Deno.mkdir(dir);
    await Deno.link(source, `${dir}/f${i}.ts`);
  }
  return {
    root,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

/**
 * Call `name` to the end twice: the first warms every cache (so later
 * calls meet no file-system wait that would read input by chance), the
 * second measures how long a call takes. Then call it a third time and
 * cancel it early on: after a quarter of that time, but at most 10 ms, so
 * that a call that runs faster the third time (a machine whose load just
 * dropped) is still under way. When this side wakes for the cancel past
 * half a call, the call runs out and the third is tried again (at most 5
 * times): a client late by that much cannot tell a call still running.
 */
async function callAndCancel(
  server: LiveServer,
  name: string,
  args: unknown,
): Promise<void> {
  await server.response(server.callTool(name, args), 120_000);
  const second = server.callTool(name, args);
  const sentSecond = performance.now();
  const answer = await server.response(second, 120_000);
  const took = answer.at - sentSecond;
  assert.ok(took > 30, `the uncancelled call took only ${took} ms`);
  let started: number;
  let id: number;
  let cancelAfter: number;
  for (let attempt = 1;; attempt++) {
    started = performance.now();
    id = server.callTool(name, args);
    // Let the call get going, then cancel it.
    await new Promise((resolve) => setTimeout(resolve, Math.min(took / 4, 10)));
    cancelAfter = performance.now() - started;
    // This side's timer woke past half a call (a loaded machine): whether
    // the call still runs cannot be told, so it runs out and is tried again.
    if (cancelAfter <= took / 2 || attempt === 5) break;
    await server.response(id, 120_000);
  }
  assert.equal(server.find(id), undefined, "finished before the cancel");
  await server.notify("notifications/cancelled", {
    requestId: id,
    reason: "test",
  });
  const cancelledAt = performance.now();
  // Answers leave in request order, so this ping is answered only once the
  // cancelled call has stopped.
  await server.ping(20_000);
  const stoppedAfter = performance.now() - cancelledAt;
  // Idle: the cancelled work is not running on in the background.
  const cpu = await cpuOver(server, 1_000);
  // Nothing for the cancelled id, even later.
  assert.equal(
    server.find(id),
    undefined,
    `a response to the cancelled call was sent ${
      Math.round((server.find(id)?.at ?? 0) - started)
    } ms after the request, the cancel ${
      Math.round(cancelAfter)
    } ms after it (a whole call takes ${Math.round(took)} ms)`,
  );
  assert.ok(cpu < 300, `${cpu} ms of CPU in the second after the cancel`);
  assert.ok(stoppedAfter < 5_000, `stopped ${stoppedAfter} ms after cancel`);
}

Deno.test("search_text: a repeated, cancelled search stops, sends nothing, and the server goes idle", async () => {
  // 3,000 files of 200 KB (small enough to be read in one go) that do not
  // contain the query: seconds of reading and scanning.
  await using ws = await tree(3_000, 300, 200_000);
  await using server = await LiveServer.start(["--root", ws.root]);
  await callAndCancel(server, "search_text", {
    query: "not in any file",
  });
});

Deno.test("find_files: a repeated, cancelled find stops, sends nothing, and the server goes idle", async () => {
  await using ws = await tree(24_000, 200, 10);
  await using server = await LiveServer.start(["--root", ws.root]);
  await callAndCancel(server, "find_files", { pattern: "*.md" });
});

Deno.test("find_symbol: a repeated, cancelled find stops, sends nothing, and the server goes idle", async () => {
  // 300 files of 20 KB, each holding the name: every one is parsed, on
  // the workers, for seconds in all.
  await using ws = await tree(300, 100, 20_000);
  await using server = await LiveServer.start(["--root", ws.root]);
  await callAndCancel(server, "find_symbol", { name: "value" });
});
