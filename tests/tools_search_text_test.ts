import assert from "node:assert/strict";
import { makeTempWorkspace } from "./tools_fixture.ts";
import { call, textOf, toolServer } from "./tools_harness.ts";
import {
  matchLines,
  RegexTimeoutError,
  stopRegexWorker,
} from "../tools/regex_worker.ts";

Deno.test("search_text: literal, path:line:text, ignored and binary files skipped", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root);
  const result = await call(server, session, "search_text", {
    query: "needle",
  });
  const paths = (result.structuredContent!.matches as { path: string }[]).map((
    m,
  ) => m.path);
  assert.deepEqual(paths, [
    "docs/héllo wörld.md",
    "docs/utf16.txt",
    "src/lib/deep/deeper/leaf.txt",
    "src/lib/util.ts",
  ]);
  assert.match(
    textOf(result),
    /^src\/lib\/util\.ts:5:export const TODO = "needle in util";$/m,
  );
  // Ignored (app.log, build/, secret.env, src/generated.ts) and binary files never match.
  assert.ok(!textOf(result).includes("ignored"));
  assert.ok(!textOf(result).includes("blob.bin"));
  const insensitive = await call(server, session, "search_text", {
    query: "NEEDLE AT",
    caseSensitive: false,
    path: "src",
  });
  assert.deepEqual(insensitive.structuredContent!.matches, [
    { path: "src/lib/deep/deeper/leaf.txt", line: 2, text: "needle at depth" },
  ]);
  const all = await toolServer(tmp.root, { includeIgnored: true });
  const withIgnored = await call(all.server, all.session, "search_text", {
    query: "needle",
    glob: "*.log",
  });
  assert.equal(textOf(withIgnored), "app.log:1:needle in an ignored log");
});

Deno.test("search_text: regex, glob, limit cap", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root, {
    caps: { maxMatches: 2 },
  });
  try {
    const regex = await call(server, session, "search_text", {
      query: "^export (function|const) \\w+",
      regex: true,
      glob: "src/**/*.ts",
    });
    assert.deepEqual(
      (regex.structuredContent!.matches as { path: string; line: number }[])
        .map((m) => `${m.path}:${m.line}`),
      ["src/lib/util.ts:1", "src/lib/util.ts:5"],
    );
    assert.equal(regex.structuredContent!.truncated, true);
    assert.match(
      regex.structuredContent!.note as string,
      /Stopped at 2 matches/,
    );
    const bad = await call(server, session, "search_text", {
      query: "([",
      regex: true,
    });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /not a valid regular expression/);
  } finally {
    stopRegexWorker();
  }
});

Deno.test("search_text: a catastrophic regex is stopped and the server keeps serving", async () => {
  await using tmp = await makeTempWorkspace();
  await Deno.writeTextFile(`${tmp.root}/evil.txt`, "a".repeat(40) + "!\n");
  const { server, session } = await toolServer(tmp.root);
  try {
    const started = performance.now();
    const slow = await call(server, session, "search_text", {
      query: "^(a+)+$",
      regex: true,
      path: "evil.txt",
    });
    const took = performance.now() - started;
    assert.equal(slow.isError, true);
    assert.match(textOf(slow), /took too long/);
    assert.ok(took < 10_000, `took ${took} ms`);
    // The next regex search works on a fresh worker.
    const ok = await call(server, session, "search_text", {
      query: "a+!",
      regex: true,
      path: "evil.txt",
    });
    assert.equal((ok.structuredContent!.matches as unknown[]).length, 1);
  } finally {
    stopRegexWorker();
  }
});

Deno.test("matchLines: a call over its budget fails alone; the calls queued behind it still finish", async () => {
  try {
    const now = performance.now();
    const evil = matchLines(
      "^(a+)+$",
      "",
      ["a".repeat(40) + "!"],
      10,
      now + 200,
      200,
    );
    const fine = matchLines("b", "", ["a\nb\nab"], 10, now + 5_000, 5_000);
    await assert.rejects(evil, RegexTimeoutError);
    assert.deepEqual(await fine, [0, 2, 0, 3]);
  } finally {
    stopRegexWorker();
  }
});
