/**
 * The real server process while a file keeps turning into a FIFO and back:
 * every read_file is answered (the file's text, or a refusal), pings are
 * answered meanwhile, and end of input still ends the process.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { canMakeFifo, NO_FIFO, programRuns } from "./have_program.ts";
import { spawnServer } from "./process.ts";

const hasMkfifo = await canMakeFifo();

Deno.test({
  name: hasMkfifo
    ? "a FIFO swapped in never blocks the server"
    : `a FIFO swapped in never blocks the server (${NO_FIFO})`,
  ignore: !hasMkfifo,
}, async () => {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "shipcode-fifo-" }),
  );
  if (!await programRuns("mkfifo", [`${root}/f.fifo`])) {
    await Deno.remove(root, { recursive: true });
    throw new Error(`mkfifo could not make ${root}/f.fifo`);
  }
  await Deno.writeTextFile(`${root}/f.txt`, "plain text\n");
  const swapper = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `
      const [root] = Deno.args;
      const end = Date.now() + 3000;
      const pause = new Int32Array(new SharedArrayBuffer(4)); let turns = 0;
      while (Date.now() < end) {
        try {
          Deno.renameSync(root + "/f.txt", root + "/f.tmp");
          Deno.renameSync(root + "/f.fifo", root + "/f.txt");
          Deno.renameSync(root + "/f.tmp", root + "/f.fifo");
        } catch {}
        if (++turns % 5 === 0) Atomics.wait(pause, 0, 0, 1); // Leave the other core some time.
      }
      `,
      root,
    ],
  }).spawn();
  const server = spawnServer(["--root", root], "source");
  // A server stuck in open() would stall this test too: end it by force.
  let stuck = false;
  const watchdog = setTimeout(() => {
    stuck = true;
    try {
      server.kill("SIGKILL");
    } catch {
      // Already exited.
    }
  }, 40_000);
  const writer = server.stdin.getWriter();
  const encoder = new TextEncoder();
  const send = (message: unknown) =>
    writer.write(encoder.encode(JSON.stringify(message) + "\n"));
  const answered = new Map<number, number>();
  const sent = new Map<number, number>();
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of server.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        const message = JSON.parse(line);
        answered.set(message.id, performance.now());
      }
    }
  })();
  try {
    await send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "fifo-test", version: "1" },
      },
    });
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    let id = 1;
    const end = Date.now() + 3000;
    while (Date.now() < end) {
      for (const path of ["f.txt", "f.fifo"]) {
        sent.set(id, performance.now());
        await send({
          jsonrpc: "2.0",
          id: id++,
          method: "tools/call",
          params: { name: "read_file", arguments: { path } },
        });
      }
      sent.set(id, performance.now());
      await send({ jsonrpc: "2.0", id: id++, method: "ping" });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // Everything sent is answered soon, then end of input ends the server.
    const deadline = Date.now() + 20_000;
    while (answered.size < sent.size + 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(answered.size, sent.size + 1, "some requests got no answer");
    for (const [request, at] of sent) {
      const latency = (answered.get(request) as number) - at;
      assert.ok(latency < 10_000, `request ${request} took ${latency} ms`);
    }
    await writer.close();
    const status = await Promise.race([
      server.status,
      new Promise<undefined>((resolve) =>
        setTimeout(() => resolve(undefined), 10_000)
      ),
    ]);
    assert.ok(status !== undefined, "end of input did not end the server");
    assert.equal(status.code, 0);
    assert.ok(!stuck, "the server stopped answering and was killed");
  } finally {
    clearTimeout(watchdog);
    try {
      server.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await reading.catch(() => {});
    await server.status;
    await server.stderr.cancel();
    await swapper.status;
    await Deno.remove(root, { recursive: true });
  }
});
