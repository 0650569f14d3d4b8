import { strict as assert } from "node:assert";
import { type IndexData, scanTree } from "./index_data.ts";
import {
  BATCH_BYTES,
  BATCHES,
  PipedTexts,
  type PipeMessage,
  type PipeReply,
  type Port,
} from "./postings_pipe.ts";
import { Workspace } from "./workspace.ts";

const WORKER = new URL("./index_worker.ts", import.meta.url);
const MAX_READ = 3 * BATCH_BYTES;

// A tree with every kind of text the index meets, and enough bytes to
// fill several batches and a text larger than one.
async function tree(): Promise<string> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "postings_pipe_" }),
  );
  await Deno.mkdir(`${root}/d`);
  await Deno.writeTextFile(`${root}/ascii.c`, "int Needle(void);\n");
  await Deno.writeTextFile(`${root}/utf8.txt`, "grüße 𝔘𝔫𝔦 needle\n");
  await Deno.writeFile(
    `${root}/latin1.txt`,
    new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6e, 0xe9, 0x0a]),
  );
  await Deno.writeTextFile(`${root}/bom.txt`, "\uFEFFwith a mark\n");
  await Deno.writeFile(`${root}/binary`, new Uint8Array([1, 0, 2, 0, 3]));
  await Deno.writeTextFile(`${root}/empty`, "");
  await Deno.writeTextFile(`${root}/ab`, "ab");
  const line = "the quick brown fox jumps over the lazy dog 0123456789\n";
  for (let i = 0; i < 5; i++) {
    // Three of these fill more than a batch: records cross batches.
    await Deno.writeTextFile(
      `${root}/d/big${i}.txt`,
      `${i}: ${line.repeat(Math.ceil(0.4 * BATCH_BYTES / line.length))}`,
    );
  }
  await Deno.writeTextFile(
    `${root}/d/huge.txt`,
    `ü ${line.repeat(Math.ceil(1.2 * BATCH_BYTES / line.length))}`,
  );
  await Deno.writeTextFile(
    `${root}/d/over.txt`,
    line.repeat(Math.ceil((MAX_READ + 1) / line.length)),
  );
  for (let i = 0; i < 300; i++) {
    await Deno.writeTextFile(`${root}/d/small${i}.txt`, `file ${i} ±\n`);
  }
  return root;
}

function same(a: IndexData, b: IndexData): void {
  assert.deepEqual([...a.order], [...b.order]);
  assert.deepEqual(a.relative, b.relative);
  assert.deepEqual(a.kinds, b.kinds);
  assert.deepEqual(a.lengths, b.lengths);
  assert.deepEqual(a.skipEvents, b.skipEvents);
  const pa = a.postings.parts();
  const pb = b.postings.parts();
  assert.equal(pa.nextId, pb.nextId);
  assert.equal(pa.postings, pb.postings);
  assert.equal(pa.used, pb.used);
  assert.deepEqual(pa.head, pb.head);
  assert.deepEqual(pa.state, pb.state);
  assert.equal(pa.pages.length, pb.pages.length);
  for (let i = 0; i < pa.pages.length; i++) {
    assert.deepEqual(new Uint8Array(pa.pages[i]), new Uint8Array(pb.pages[i]));
  }
}

Deno.test("postings pipe: a build piped to a worker is the build made here", async () => {
  const root = await tree();
  try {
    const ws = await Workspace.open(root);
    const here = await scanTree(ws, undefined, { maxReadBytes: MAX_READ });
    const worker = new Worker(WORKER, { type: "module" });
    try {
      const channel = new MessageChannel();
      worker.postMessage({ postings: true, port: channel.port2 }, [
        channel.port2,
      ]);
      const piped = await scanTree(ws, undefined, {
        maxReadBytes: MAX_READ,
        texts: async () => {
          const texts = new PipedTexts(channel.port1);
          await texts.serving();
          return texts;
        },
      });
      channel.port1.close();
      assert.ok(here !== undefined && piped !== undefined);
      same(here, piped);
      // The lengths the worker corrected (decoded, not bytes) came back.
      const at = (path: string) => here.lengths[here.relative.indexOf(path)];
      assert.equal(at("utf8.txt"), "grüße 𝔘𝔫𝔦 needle\n".length);
      assert.ok(at("d/huge.txt") > BATCH_BYTES);
      assert.equal(at("d/over.txt"), 0);
    } finally {
      worker.terminate();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

// A worker stand-in: keeps what it is sent; `reply` answers as the worker.
class FakePort implements Port {
  onmessage: ((event: MessageEvent) => void) | null = null;
  readonly sent: PipeMessage[] = [];
  postMessage(message: unknown): void {
    this.sent.push(message as PipeMessage);
  }
  reply(message: PipeReply): void {
    this.onmessage?.(new MessageEvent("message", { data: message }));
  }
}

Deno.test("postings pipe: a reader ahead of the worker waits for a buffer", async () => {
  const port = new FakePort();
  const texts = new PipedTexts(port);
  const text = new Uint8Array(BATCH_BYTES - 4);
  // One batch each: the first BATCHES fill every buffer there is.
  for (let i = 0; i < BATCHES; i++) await texts.addText(text);
  let added = false;
  const next = texts.addText(text).then(() => added = true);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(added, false, "no buffer is free: the reader waits");
  assert.equal(port.sent.length, BATCHES);
  port.reply({ free: new ArrayBuffer(BATCH_BYTES) });
  await next;
  assert.equal(added, true);
});

Deno.test("postings pipe: a failed worker fails the reader and the finish", async () => {
  const port = new FakePort();
  const texts = new PipedTexts(port);
  await texts.addText(new TextEncoder().encode("some text"));
  port.reply({ error: "out of memory" });
  await assert.rejects(
    Promise.resolve(texts.addText(new Uint8Array(BATCH_BYTES))),
    /the postings worker failed: out of memory/,
  );
  await assert.rejects(texts.finish(), /out of memory/);
  await assert.rejects(texts.serving(), /out of memory/);
  // Failing while the finish waits rejects it too.
  const otherPort = new FakePort();
  const other = new PipedTexts(otherPort);
  const finish = other.finish();
  otherPort.reply({ error: "the worker exited" });
  await assert.rejects(finish, /the worker exited/);
});
