import { strict as assert } from "node:assert";
import { writeAll, writeAllSync } from "./write_all.ts";

/** A writer that takes at most `most` bytes per call. */
function trickle(most: number) {
  const taken: number[] = [];
  return {
    taken,
    writeSync(bytes: Uint8Array): number {
      const n = Math.min(most, bytes.length);
      taken.push(...bytes.subarray(0, n));
      return n;
    },
    write(bytes: Uint8Array): Promise<number> {
      return Promise.resolve(this.writeSync(bytes));
    },
  };
}

Deno.test("writeAll: keeps writing until every byte is taken", async () => {
  const bytes = Uint8Array.from({ length: 10 }, (_, i) => i);
  const writer = trickle(3);
  await writeAll(writer, bytes);
  assert.deepEqual(writer.taken, [...bytes]);
});

Deno.test("writeAllSync: keeps writing until every byte is taken", () => {
  const bytes = Uint8Array.from({ length: 7 }, (_, i) => i * 2);
  const writer = trickle(2);
  writeAllSync(writer, bytes);
  assert.deepEqual(writer.taken, [...bytes]);
});

Deno.test("writeAll: a failing write rejects", async () => {
  await assert.rejects(
    writeAll(
      { write: () => Promise.reject(new Error("closed")) },
      new Uint8Array(1),
    ),
    /closed/,
  );
});
