/**
 * The tools against the real server process: hostile globs are answered
 * at once, catastrophic regexes leave no thread spinning, and a read
 * costs about what the file does on the wire.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { PERMISSION_FLAGS } from "../cli/run_command.ts";
import { cpuOver, LiveServer } from "./live_server.ts";
import { PROJECT_ROOT } from "./server_command.ts";

async function tempRoot(
  files: Record<string, string | Uint8Array>,
): Promise<{ root: string } & AsyncDisposable> {
  const root = await Deno.makeTempDir({ prefix: "shipcode-live-" });
  for (const [name, content] of Object.entries(files)) {
    await Deno.mkdir(`${root}/${name}`.replace(/\/[^/]*$/, ""), {
      recursive: true,
    });
    if (typeof content === "string") {
      await Deno.writeTextFile(`${root}/${name}`, content);
    } else await Deno.writeFile(`${root}/${name}`, content);
  }
  return {
    root,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

type CallResult = {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

function resultOf(message: { result?: unknown; error?: unknown }): CallResult {
  assert.equal(message.error, undefined, JSON.stringify(message.error));
  return message.result as CallResult;
}

const HOSTILE_GLOB = "+(+(+(+([a-z_.]))))!";

Deno.test("a nested extglob as find_files pattern or search_text glob is refused at once; the server keeps serving", async () => {
  await using ws = await tempRoot({
    "src/line_stream_test.ts": "const x = 1;\n",
    "src/a.ts": "const y = 2;\n",
  });
  await using server = await LiveServer.start(["--root", ws.root]);
  for (
    const [tool, args] of [
      ["find_files", { pattern: HOSTILE_GLOB }],
      ["search_text", { query: "const", glob: HOSTILE_GLOB }],
    ] as const
  ) {
    const started = performance.now();
    const answer = await server.response(server.callTool(tool, args), 10_000);
    const took = answer.at - started;
    const result = resultOf(answer.message);
    assert.equal(result.isError, true, `${tool}: ${answer.line}`);
    assert.match(
      result.content[0].text as string,
      /extended globs such as \+\(…\) are not supported/,
    );
    assert.ok(took < 5_000, `${tool} answered after ${took} ms`);
    assert.ok(await server.ping(5_000) < 5_000);
  }
  // Ordinary globs still work.
  const found = resultOf(
    (await server.response(
      server.callTool("find_files", { pattern: "src/*_test.{ts,js}" }),
      10_000,
    )).message,
  );
  assert.equal(found.content[0].text, "src/line_stream_test.ts");
});

Deno.test("five catastrophic regex searches are answered and leave no thread spinning", async () => {
  const evil = `${"a".repeat(40)}b\n`.repeat(50);
  await using ws = await tempRoot({ "evil.txt": evil });
  await using server = await LiveServer.start(["--root", ws.root]);
  const ids = [];
  for (let i = 0; i < 5; i++) {
    ids.push(server.callTool("search_text", {
      query: i % 2 === 0 ? "(a+)+$" : "^(a|a)*$",
      regex: true,
      caseSensitive: i < 3,
    }));
  }
  for (const id of ids) {
    const result = resultOf((await server.response(id, 30_000)).message);
    assert.equal(result.isError, undefined, result.content[0].text);
    assert.match(result.content[0].text as string, /^\[No matches in /);
  }
  assert.ok(await server.ping(5_000) < 5_000);
  // Let any terminated worker wind down, then measure: an idle server.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const cpu = await cpuOver(server, 1_500);
  assert.ok(cpu < 300, `${cpu} ms of CPU in 1.5 s after the answers`);
});

Deno.test("run without the V8 regex flags, a regex that could backtrack badly is refused, others work", async () => {
  await using ws = await tempRoot({ "evil.txt": `${"a".repeat(40)}b\n` });
  await using server = await LiveServer.start([], {
    command: Deno.execPath(),
    args: [
      "run",
      ...PERMISSION_FLAGS,
      `${PROJECT_ROOT}main.ts`,
      "--root",
      ws.root,
    ],
  });
  const refused = resultOf(
    (await server.response(
      server.callTool("search_text", { query: "(a+)+$", regex: true }),
      30_000,
    )).message,
  );
  assert.equal(refused.isError, true);
  assert.match(refused.content[0].text as string, /exponential time/);
  const fine = resultOf(
    (await server.response(
      server.callTool("search_text", { query: "a+b$", regex: true }),
      30_000,
    )).message,
  );
  assert.equal(fine.content[0].text, `evil.txt:1:${"a".repeat(40)}b`);
});

Deno.test("read_file of an ASCII source file costs at most 1.3 bytes on the wire per byte read", async () => {
  // The file's first 300 lines: one page of read_file.
  const source = (await Deno.readTextFile(`${PROJECT_ROOT}mcp/jsonrpc.ts`))
    .split("\n").slice(0, 300).join("\n") + "\n";
  assert.ok(
    [...source].every((c) => c.charCodeAt(0) < 128),
    "the sample is not ASCII",
  );
  await using ws = await tempRoot({ "jsonrpc.ts": source });
  await using server = await LiveServer.start(["--root", ws.root]);
  const answer = await server.response(
    server.callTool("read_file", { path: "jsonrpc.ts" }),
    10_000,
  );
  const result = resultOf(answer.message);
  // The whole file in one answer: no note of more to follow.
  assert.ok(!(result.content[0].text as string).includes("\n[Lines "));
  const fileBytes = new TextEncoder().encode(source).length;
  const wireBytes = new TextEncoder().encode(answer.line).length + 1;
  const ratio = wireBytes / fileBytes;
  assert.ok(ratio <= 1.3, `${wireBytes} bytes for ${fileBytes}: ${ratio}`);
  // The text is the file's text, numbered.
  const text = result.content[0].text as string;
  assert.equal(
    text.split("\n").map((l) => l.replace(/^ *\d+\t/, "")).join("\n"),
    source.replace(/\n$/, ""),
  );
});
