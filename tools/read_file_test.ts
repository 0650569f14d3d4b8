import { strict as assert } from "node:assert";
import { LARGE_FILE_BYTES, makeTempWorkspace } from "../tests/tools_fixture.ts";
import { READ_PAGE_BYTES } from "./read_file.ts";
import { call, textOf, toolServer } from "../tests/tools_harness.ts";
import type { JsonObject } from "../mcp/jsonrpc.ts";

/** The numbered lines of a read_file answer's text, without its notes. */
function linesOf(
  result: { content: JsonObject[] },
): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  for (const row of textOf(result).split("\n")) {
    const m = /^ *(\d+)\t(.*)$/s.exec(row);
    if (m !== null) out.push({ line: Number(m[1]), text: m[2] });
  }
  return out;
}

Deno.test("read_file: line range with numbers, as plain text alone", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root);
  const all = await call(server, session, "read_file", { path: "src/main.ts" });
  // No structured content: clients that prefer it would hand their model
  // that alone, without the text.
  assert.equal(all.structuredContent, undefined);
  assert.deepEqual(linesOf(all).map((l) => l.line), [1, 2, 3, 4, 5]);
  // The text is the file, numbered, and nothing else.
  const file = await Deno.readTextFile(`${tmp.root}/src/main.ts`);
  assert.equal(
    textOf(all),
    file.replace(/\n$/, "").split("\n").map((l, i) => `${i + 1}\t${l}`)
      .join("\n"),
  );
  const part = await call(server, session, "read_file", {
    path: "src/main.ts",
    offset: 3,
    limit: 2,
  });
  assert.deepEqual(linesOf(part), [
    { line: 3, text: "export function main(): void {" },
    { line: 4, text: '  greet("world");' },
  ]);
  const last = textOf(part).split("\n").at(-1) as string;
  assert.match(last, /^\[Lines 3-4 shown; .*offset 5\.\]$/);
  const past = await call(server, session, "read_file", {
    path: "src/main.ts",
    offset: 9,
  });
  assert.equal(past.isError, true);
  assert.match(textOf(past), /has 5 lines/);
});

Deno.test("read_file: UTF-16, unicode names, empty file", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root);
  const utf16 = await call(server, session, "read_file", {
    path: "docs/utf16.txt",
  });
  assert.deepEqual(linesOf(utf16), [{
    line: 1,
    text: "UTF-16 text, needle sixteen",
  }]);
  const jp = await call(server, session, "read_file", {
    path: "docs/日本語.txt",
  });
  assert.equal(linesOf(jp)[0].text, "日本語のテキスト");
  const empty = await call(server, session, "read_file", { path: "empty.txt" });
  assert.deepEqual(linesOf(empty), []);
  assert.equal(textOf(empty), "[The file is empty.]");
});

Deno.test("read_file: image as image content, binary described, directory refused", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root);
  const png = await call(server, session, "read_file", {
    path: "images/pixel.png",
  });
  const image = png.content[0];
  assert.equal(image.type, "image");
  assert.equal(image.mimeType, "image/png");
  const bytes = Uint8Array.from(
    atob(image.data as string),
    (c) => c.charCodeAt(0),
  );
  assert.deepEqual(bytes, await Deno.readFile(`${tmp.root}/images/pixel.png`));
  const bin = await call(server, session, "read_file", {
    path: "data/blob.bin",
  });
  assert.equal(
    textOf(bin),
    "[data/blob.bin is a binary file (20 bytes, application/octet-stream); its bytes are not shown. Use file_info for details.]",
  );
  assert.ok(!textOf(bin).includes("needle"), "binary bytes were dumped");
  const dir = await call(server, session, "read_file", { path: "src" });
  assert.equal(dir.isError, true);
  assert.match(textOf(dir), /list_directory/);
});

Deno.test("read_file: the byte cap cuts a large file and says how to go on", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root, {
    caps: { maxReadBytes: 4096 },
  });
  const big = await call(server, session, "read_file", { path: "large.txt" });
  assert.ok(
    (await Deno.stat(`${tmp.root}/large.txt`)).size >= LARGE_FILE_BYTES,
  );
  const lines = linesOf(big);
  const returned = lines.reduce((n, l) => n + l.text.length + 1, 0);
  assert.ok(returned <= 4096, `returned ${returned} bytes`);
  assert.match(
    textOf(big).split("\n").at(-1) as string,
    new RegExp(`4096-byte limit per call .*offset ${lines.length + 1} `),
  );
  // A range deep in the file is still readable under the cap.
  const deep = await call(server, session, "read_file", {
    path: "large.txt",
    offset: 30000,
    limit: 2,
  });
  assert.deepEqual(linesOf(deep).map((l) => l.line), [30000, 30001]);
  // An image over the cap is refused with a clear message.
  const small = await toolServer(tmp.root, { caps: { maxReadBytes: 10 } });
  const png = await call(small.server, small.session, "read_file", {
    path: "images/pixel.png",
  });
  assert.equal(png.isError, true);
  assert.match(textOf(png), /max-read-bytes/);
});

Deno.test("read_file: one call returns at most a page, under what agent CLIs hand their model whole", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root, {
    caps: { maxReadBytes: 1 << 20 },
  });
  // 1,500 lines of 60 bytes: 90,000 bytes, under the line limit.
  const line = "x".repeat(59);
  await Deno.writeTextFile(
    `${tmp.root}/wide.txt`,
    `${line}\n`.repeat(1500),
  );
  const first = await call(server, session, "read_file", { path: "wide.txt" });
  const text = textOf(first);
  assert.ok(text.length <= READ_PAGE_BYTES + 200, `${text.length} characters`);
  const shown = linesOf(first);
  assert.ok(shown.length > 100 && shown.length < 1500, `${shown.length}`);
  assert.match(
    text.split("\n").at(-1)!,
    new RegExp(
      `^\\[Lines 1-${shown.length} shown: the ${READ_PAGE_BYTES}-byte limit per call was reached; call again with offset ${
        shown.length + 1
      } for the rest\\.\\]$`,
    ),
  );
  const next = await call(server, session, "read_file", {
    path: "wide.txt",
    offset: shown.length + 1,
  });
  assert.equal(linesOf(next)[0].line, shown.length + 1);
});
