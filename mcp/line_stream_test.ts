import { strict as assert } from "node:assert";
import { ErrorCode } from "./jsonrpc.ts";
import {
  DEFAULT_MAX_LINE_BYTES,
  type Line,
  LineDecoder,
  LineSplitter,
  OversizedLine,
  startsWithBom,
} from "./line_stream.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A line as text, or `<oversized N>` for a skipped one. */
function show(line: Line): string {
  return line instanceof OversizedLine
    ? `<oversized ${line.bytes}>`
    : decoder.decode(line);
}

/** Split `chunks` with a fresh splitter, then end it. */
function split(chunks: Uint8Array[], maxLineBytes?: number): string[] {
  const splitter = new LineSplitter({ maxLineBytes });
  const lines: string[] = [];
  for (const chunk of chunks) splitter.push(chunk, (l) => lines.push(show(l)));
  splitter.end((l) => lines.push(show(l)));
  return lines;
}

function splitText(text: string, maxLineBytes?: number): string[] {
  return split([encoder.encode(text)], maxLineBytes);
}

/** Every way of cutting `bytes` in two and in three pieces. */
function* cuts(bytes: Uint8Array): Generator<Uint8Array[]> {
  for (let i = 0; i <= bytes.length; i++) {
    yield [bytes.subarray(0, i), bytes.subarray(i)];
    for (let j = i; j <= bytes.length; j += 3) {
      yield [bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)];
    }
  }
}

Deno.test("LineSplitter: \\n and \\r\\n end lines; \\r alone does not", () => {
  assert.deepEqual(splitText("a\nb\r\nc\rd\n"), ["a", "b", "c\rd"]);
});

Deno.test("LineSplitter: a final line without a newline is flushed by end()", () => {
  assert.deepEqual(splitText("a\nlast"), ["a", "last"]);
  assert.deepEqual(splitText("a\nlast\r"), ["a", "last"]);
  // Nothing after a final newline: no extra empty line.
  assert.deepEqual(splitText("a\n"), ["a"]);
  assert.deepEqual(splitText(""), []);
});

Deno.test("LineSplitter: empty lines come out empty (the transport skips them)", () => {
  assert.deepEqual(splitText("\n\r\n\nx\n\n"), ["", "", "", "x", ""]);
});

Deno.test("LineSplitter: chunk boundaries anywhere give the same lines", () => {
  const text = 'é😀\r\n{"a":"\u00e9"}\n\r\n\rz\r\nlast✓';
  const bytes = encoder.encode(text);
  const expected = ["é😀", '{"a":"é"}', "", "\rz", "last✓"];
  assert.deepEqual(split([bytes]), expected);
  let count = 0;
  for (const chunks of cuts(bytes)) {
    assert.deepEqual(
      split(chunks),
      expected,
      `cut at ${chunks.map((c) => c.length)}`,
    );
    count++;
  }
  assert.ok(count > 100);
});

Deno.test("LineSplitter: one byte at a time", () => {
  const bytes = encoder.encode("ab\r\n\r\ncd\ne😀");
  const chunks = [...bytes].map((b) => Uint8Array.of(b));
  assert.deepEqual(split(chunks), ["ab", "", "cd", "e😀"]);
});

Deno.test("LineSplitter: lines keep their bytes even when the reader reuses its buffer", () => {
  const splitter = new LineSplitter();
  const buffer = encoder.encode("abc");
  const lines: string[] = [];
  splitter.push(buffer, (l) => lines.push(show(l)));
  buffer.set(encoder.encode("xyz"));
  splitter.push(encoder.encode("\n"), (l) => lines.push(show(l)));
  assert.deepEqual(lines, ["abc"]);
});

Deno.test("LineSplitter: the cap, exactly at it and one past it", () => {
  const at = "x".repeat(8);
  const over = "y".repeat(9);
  assert.deepEqual(
    splitText(`${at}\n${over}\nok\n${at}\r\n${over}\r\nok2\n${over}`, 8),
    [
      at,
      "<oversized 9>",
      "ok",
      at,
      "<oversized 9>",
      "ok2",
      "<oversized 9>",
    ],
  );
});

Deno.test("LineSplitter: the cap holds whatever the chunking", () => {
  const at = "x".repeat(8);
  const over = "y".repeat(9);
  const far = "z".repeat(30);
  const bytes = encoder.encode(
    `${at}\r\n${over}\r\n${far}\r\n${far}\nok\n${over}\r`,
  );
  const expected = [
    at,
    "<oversized 9>",
    "<oversized 30>",
    "<oversized 30>",
    "ok",
    "<oversized 9>",
  ];
  for (const chunks of cuts(bytes)) {
    assert.deepEqual(
      split(chunks, 8),
      expected,
      `cut at ${chunks.map((c) => c.length)}`,
    );
  }
});

Deno.test("LineSplitter: a cap of 1 byte and the default cap", () => {
  assert.deepEqual(splitText("a\nbb\n\nc", 1), ["a", "<oversized 2>", "", "c"]);
  assert.equal(DEFAULT_MAX_LINE_BYTES, 8 * 1024 * 1024);
});

Deno.test("LineSplitter: an oversized line is counted, not buffered", () => {
  // 100 MiB without a newline, in 64 KiB chunks, against a 1 KiB cap. If
  // the splitter kept what it skips, memory would grow by 100 MiB. The
  // isolate's own heap and external (ArrayBuffer) memory are measured, not
  // the process RSS, which tests running in parallel share.
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  const splitter = new LineSplitter({ maxLineBytes: 1024 });
  const lines: Line[] = [];
  const emit = (line: Line) => lines.push(line);
  const used = () => {
    const { heapUsed, external } = Deno.memoryUsage();
    return heapUsed + external;
  };
  const before = used();
  let peak = before;
  for (let i = 0; i < 1600; i++) {
    splitter.push(chunk, emit);
    if (i % 100 === 0) peak = Math.max(peak, used());
  }
  splitter.push(encoder.encode("\r\nafter\n"), emit);
  peak = Math.max(peak, used());
  assert.deepEqual(lines.map(show), [
    `<oversized ${1600 * 64 * 1024}>`,
    "after",
  ]);
  assert.ok(
    peak - before < 32 * 1024 * 1024,
    `memory grew by ${(peak - before) >> 20} MiB`,
  );
});

Deno.test("startsWithBom", () => {
  assert.equal(startsWithBom(Uint8Array.of(0xef, 0xbb, 0xbf)), true);
  assert.equal(startsWithBom(encoder.encode("\ufeff{}")), true);
  assert.equal(startsWithBom(Uint8Array.of(0xef, 0xbb)), false);
  assert.equal(startsWithBom(encoder.encode("{}\ufeff")), false);
  assert.equal(startsWithBom(new Uint8Array(0)), false);
});

// LineSplitter's block path (`push` with `emitBlock`), which the stdio
// transport uses to decode many lines at once, must frame exactly the lines
// the per-line path frames, whatever the chunking, and fall back to it when
// the block is refused.

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

Deno.test("LineSplitter: the block path frames the same lines as the per-line path", () => {
  for (const max of [16, 32, 1024]) {
    for (const sizes of [[1], [3, 7], [16], [25, 1, 40], [INPUT.length]]) {
      const chunks = chunked(INPUT, sizes);
      const expected = split(chunks, max);
      assert.deepEqual(withBlocks(chunks, max, true).lines, expected);
      assert.deepEqual(withBlocks(chunks, max, false).lines, expected);
    }
  }
});

Deno.test("LineSplitter: a chunk of many lines is offered as one block", () => {
  const { blocks, lines } = withBlocks([INPUT], 1024, true);
  assert.equal(blocks, 1);
  assert.equal(lines.at(-1), "last without newline");
});

Deno.test("LineSplitter: a block that could hold an oversized line is not offered", () => {
  // With a cap of 16 bytes the 40-byte line must come out as oversized, so
  // no block spanning it may be offered.
  const { lines } = withBlocks([INPUT], 16, true);
  assert.ok(lines.includes("<oversized 40>"));
  assert.ok(lines.includes("<oversized 17>"));
});

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
