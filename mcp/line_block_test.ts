/**
 * LineSplitter's block path (`push` with `emitBlock`), which the stdio
 * transport uses to decode many lines at once, must frame exactly the lines
 * the per-line path frames, whatever the chunking, and fall back to it when
 * the block is refused.
 *
 * @module
 */

import assert from "node:assert/strict";
import { type Line, LineSplitter, OversizedLine } from "./line_stream.ts";

const decoder = new TextDecoder();

function show(line: Line): string {
  return line instanceof OversizedLine
    ? `<oversized ${line.bytes}>`
    : decoder.decode(line);
}

/** Lines framed per line, the reference. */
function perLine(chunks: Uint8Array[], maxLineBytes: number): string[] {
  const out: string[] = [];
  const splitter = new LineSplitter({ maxLineBytes });
  for (const chunk of chunks) {
    splitter.push(chunk, (line) => out.push(show(line)));
  }
  splitter.end((line) => out.push(show(line)));
  return out;
}

/** Lines framed with blocks taken (split as the transport does) or refused. */
function withBlocks(
  chunks: Uint8Array[],
  maxLineBytes: number,
  take: boolean,
): { lines: string[]; blocks: number } {
  const out: string[] = [];
  let blocks = 0;
  const splitter = new LineSplitter({ maxLineBytes });
  const emit = (line: Line) => out.push(show(line));
  const onBlock = (block: Uint8Array): boolean => {
    assert.equal(block[block.length - 1], 10, "a block ends with \\n");
    blocks++;
    if (!take) return false;
    for (const line of decoder.decode(block).split("\n").slice(0, -1)) {
      out.push(line.endsWith("\r") ? line.slice(0, -1) : line);
    }
    return true;
  };
  for (const chunk of chunks) splitter.push(chunk, emit, onBlock);
  splitter.end(emit);
  return { lines: out, blocks };
}

function chunked(bytes: Uint8Array, sizes: number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length];
    chunks.push(bytes.slice(at, at + size));
    at += size;
  }
  return chunks;
}

const INPUT = new TextEncoder().encode(
  [
    '{"id":1}',
    "",
    "short\r",
    "x".repeat(40),
    "é\u4e2d",
    "\r",
    "y".repeat(17),
    '{"id":2}\r',
    "last without newline",
  ].join("\n"),
);

Deno.test("block path frames the same lines as the per-line path", () => {
  for (const max of [16, 32, 1024]) {
    for (const sizes of [[1], [3, 7], [16], [25, 1, 40], [INPUT.length]]) {
      const chunks = chunked(INPUT, sizes);
      const expected = perLine(chunks, max);
      assert.deepEqual(withBlocks(chunks, max, true).lines, expected);
      assert.deepEqual(withBlocks(chunks, max, false).lines, expected);
    }
  }
});

Deno.test("a chunk of many lines is offered as one block", () => {
  const { blocks, lines } = withBlocks([INPUT], 1024, true);
  assert.equal(blocks, 1);
  assert.equal(lines.at(-1), "last without newline");
});

Deno.test("a block that could hold an oversized line is not offered", () => {
  // With a cap of 16 bytes the 40-byte line must come out as oversized, so
  // no block spanning it may be offered.
  const { lines } = withBlocks([INPUT], 16, true);
  assert.ok(lines.includes("<oversized 40>"));
  assert.ok(lines.includes("<oversized 17>"));
});
