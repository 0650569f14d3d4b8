import { strict as assert } from "node:assert";
import { ErrorCode } from "../jsonrpc.ts";
import { LineDecoder } from "./line_decoder.ts";

const encoder = new TextEncoder();

/** Decode `chunks`, recording texts and rejections in arrival order. */
function decodeAll(
  chunks: Uint8Array[],
  maxLineBytes?: number,
): { out: string[]; oversized: number[] } {
  const out: string[] = [];
  const oversized: number[] = [];
  const decoder = new LineDecoder({
    receive: (text) => out.push(text),
    reject: (code) => out.push(`<${code}>`),
  }, { maxLineBytes, onOversized: (bytes) => oversized.push(bytes) });
  for (const chunk of chunks) decoder.push(chunk);
  decoder.end();
  return { out, oversized };
}

function bytes(...parts: (string | number[])[]): Uint8Array {
  const pieces = parts.map((p) =>
    typeof p === "string" ? encoder.encode(p) : Uint8Array.from(p)
  );
  const all = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    all.set(p, at);
    at += p.length;
  }
  return all;
}

/** Every split of `input` into two chunks. */
function everySplit(input: Uint8Array): Uint8Array[][] {
  const splits: Uint8Array[][] = [[input]];
  for (let i = 1; i < input.length; i++) {
    splits.push([input.slice(0, i), input.slice(i)]);
  }
  return splits;
}

Deno.test("LineDecoder: lines in a block and alone give the same texts; empty lines and \\r\\n vanish", () => {
  const input = bytes('{"a":1}\r\n\n{"b":2}\n{"c":"é中"}\nlast');
  for (const chunks of everySplit(input)) {
    assert.deepEqual(decodeAll(chunks).out, [
      '{"a":1}',
      '{"b":2}',
      '{"c":"é中"}',
      "last",
    ]);
  }
});

Deno.test("LineDecoder: a byte order mark is dropped before the first line only", () => {
  const input = bytes([0xef, 0xbb, 0xbf], "one\n", [0xef, 0xbb, 0xbf], "two\n");
  for (const chunks of everySplit(input)) {
    assert.deepEqual(decodeAll(chunks).out, ["one", "\ufefftwo"]);
  }
});

Deno.test("LineDecoder: invalid UTF-8 fails that line alone with -32700", () => {
  const input = bytes("one\n", [0x7b, 0xff, 0x7d], "\ntwo\n\uFFFD\n");
  for (const chunks of everySplit(input)) {
    assert.deepEqual(decodeAll(chunks).out, [
      "one",
      `<${ErrorCode.ParseError}>`,
      "two",
      "\uFFFD",
    ]);
  }
});

Deno.test("LineDecoder: a line over the cap is -32600 in its place, and reported", () => {
  const input = bytes("ok\n", "x".repeat(11), "\r\nfine\n");
  for (const chunks of everySplit(input)) {
    const { out, oversized } = decodeAll(chunks, 10);
    assert.deepEqual(out, ["ok", `<${ErrorCode.InvalidRequest}>`, "fine"]);
    assert.deepEqual(oversized, [11]);
  }
});

Deno.test("LineDecoder: the first line over the cap counts as the first line (no BOM check after it)", () => {
  const input = bytes("x".repeat(20), "\n", [0xef, 0xbb, 0xbf], "a\n");
  assert.deepEqual(decodeAll([input], 10).out, [
    `<${ErrorCode.InvalidRequest}>`,
    "\ufeffa",
  ]);
});
