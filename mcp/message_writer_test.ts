import { strict as assert } from "node:assert";
import { idKey } from "./jsonrpc.ts";
import { MessageWriter } from "./message_writer.ts";
import { OutputBudget } from "./output_budget.ts";

const decoder = new TextDecoder();

/** An output that takes one chunk per write call, gated by `open()`. */
function gatedOutput() {
  const writes: string[] = [];
  let gate = Promise.withResolvers<void>();
  return {
    writes,
    open() {
      gate.resolve();
    },
    close() {
      gate = Promise.withResolvers<void>();
    },
    async write(bytes: Uint8Array) {
      await gate.promise;
      writes.push(decoder.decode(bytes));
      return bytes.length;
    },
  };
}

Deno.test("MessageWriter: lines queued together leave in one write", async () => {
  const output = gatedOutput();
  output.open();
  const writer = new MessageWriter(output);
  writer.write("a");
  writer.write("b");
  await writer.idle();
  assert.deepEqual(output.writes, ["a\nb\n"]);
});

Deno.test("MessageWriter: an unwritten answer can be taken back; the budget follows", async () => {
  const output = gatedOutput();
  const budget = new OutputBudget(1000);
  const writer = new MessageWriter(output, budget);
  writer.write("first", "k1");
  await Promise.resolve();
  await Promise.resolve();
  // "first" is being written (the output is blocked); these wait.
  writer.write("second", "k2");
  writer.write("third", "k3");
  assert.equal(budget.used, "firstsecondthird".length);
  assert.equal(writer.drop(idKey("k1")), false, "already being written");
  assert.equal(writer.drop(idKey("k2")), true);
  assert.equal(writer.drop(idKey("k2")), false);
  assert.equal(budget.used, "firstthird".length);
  output.open();
  await writer.idle();
  assert.deepEqual(output.writes, ["first\n", "third\n"]);
  assert.equal(budget.used, 0);
  assert.equal(writer.progress, 2);
});

Deno.test("MessageWriter: a long message is not glued to small ones", async () => {
  const output = gatedOutput();
  output.open();
  const writer = new MessageWriter(output);
  const long = "x".repeat(100_000);
  writer.write("a");
  writer.write(long);
  writer.write("b");
  await writer.idle();
  assert.deepEqual(output.writes, ["a\n", long + "\n", "b\n"]);
});

Deno.test("MessageWriter: a broken output stops writing and reports once", async () => {
  let broken = 0;
  const budget = new OutputBudget(1000);
  const writer = new MessageWriter({
    write: () => Promise.reject(new Error("EPIPE")),
  }, budget);
  writer.onBroken = () => broken++;
  writer.write("a");
  await writer.idle();
  writer.write("b");
  await writer.idle();
  assert.equal(writer.broken, true);
  assert.equal(broken, 1);
  assert.equal(budget.used, 0);
});
