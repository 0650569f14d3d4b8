import { strict as assert } from "node:assert";
import { makeTempWorkspace } from "../tests/tools_fixture.ts";
import { call, textOf, toolServer } from "../tests/tools_harness.ts";
import { stopRegexWorker } from "./regex_worker.ts";
import { linearEngineAvailable } from "./regex.ts";
import type { JsonObject } from "../mcp/jsonrpc.ts";
import {
  canDropPrivileges,
  lockedTree,
  runUnprivileged,
  UNPRIVILEGED_HOW,
} from "../tests/unprivileged.ts";

/** The path:line:text lines of a search_text answer, without its notes. */
function hitsOf(result: { content: JsonObject[] }): string[] {
  return textOf(result).split("\n").filter((l) => !l.startsWith("["));
}

Deno.test("search_text: literal, path:line:text, ignored and binary files skipped", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root);
  const result = await call(server, session, "search_text", {
    query: "needle",
  });
  const paths = hitsOf(result).map((m) => m.slice(0, m.indexOf(":")));
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
  assert.deepEqual(hitsOf(insensitive), [
    "src/lib/deep/deeper/leaf.txt:2:needle at depth",
  ]);
  const insensitiveRegex = await call(server, session, "search_text", {
    query: "NEEDLE A[S-U]",
    regex: true,
    caseSensitive: false,
    path: "src",
  });
  assert.deepEqual(hitsOf(insensitiveRegex), hitsOf(insensitive));
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
      hitsOf(regex).map((m) => m.split(":").slice(0, 2).join(":")),
      ["src/lib/util.ts:1", "src/lib/util.ts:5"],
    );
    assert.match(textOf(regex), /\n\[Stopped at 2 matches, .*\]$/);
    const bad = await call(server, session, "search_text", {
      query: "([",
      regex: true,
    });
    assert.equal(bad.isError, true);
    assert.match(
      textOf(bad),
      /^Error: The regular expression "\(\[" is not valid/,
    );
  } finally {
    stopRegexWorker();
  }
});

Deno.test("search_text: a catastrophic regex answers fast (linear fallback) or is refused; the server keeps serving", async () => {
  await using tmp = await makeTempWorkspace();
  await Deno.writeTextFile(`${tmp.root}/evil.txt`, "a".repeat(40) + "!\n");
  const { server, session } = await toolServer(tmp.root);
  try {
    const started = performance.now();
    const slow = await call(server, session, "search_text", {
      query: "^(a+)+$",
      regex: true,
      caseSensitive: false,
      path: "evil.txt",
    });
    const took = performance.now() - started;
    if (linearEngineAvailable()) {
      assert.equal(slow.isError, undefined, textOf(slow));
      assert.match(textOf(slow), /^\[No matches in 1 file\.\]$/);
    } else {
      assert.equal(slow.isError, true);
      assert.match(textOf(slow), /could take exponential time/);
    }
    // A bound that tells a hang only: a regex that ran into the 3 s budget
    // would be answered with an error, caught above; starting the regex
    // worker on a loaded machine can take a second or more.
    assert.ok(took < 10_000, `took ${took} ms`);
    const ok = await call(server, session, "search_text", {
      query: "a+!",
      regex: true,
      path: "evil.txt",
    });
    assert.deepEqual(hitsOf(ok), [`evil.txt:1:${"a".repeat(40)}!`]);
    const refused = await call(server, session, "search_text", {
      query: "(a)\\1",
      regex: true,
    });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /backreference/);
  } finally {
    stopRegexWorker();
  }
});

Deno.test("search_text: an invalid giant regex fails its own call; a regex queued beside it succeeds", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root);
  try {
    const [bad, good] = await Promise.all([
      call(server, session, "search_text", {
        query: "(".repeat(4_000_000),
        regex: true,
      }),
      call(server, session, "search_text", {
        query: "need+le in util",
        regex: true,
      }),
    ]);
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /over the limit of 4096/);
    assert.equal(good.isError, undefined, textOf(good));
    // docs/link_src links to src/: searched once, under its real path.
    assert.deepEqual(hitsOf(good).map((h) => h.split(":")[0]), [
      "src/lib/util.ts",
    ]);
  } finally {
    stopRegexWorker();
  }
});

Deno.test("search_text: a regex search whose matches come first stops early", async () => {
  const root = await Deno.makeTempDir({ prefix: "search_early_" });
  try {
    const body = "filler line without the word\n".repeat(40);
    for (let i = 0; i < 1000; i++) {
      const name = `f${String(i).padStart(4, "0")}.txt`;
      await Deno.writeTextFile(
        `${root}/${name}`,
        i === 0 ? `wanted here\n${body}` : body,
      );
    }
    const { server, session } = await toolServer(root);
    const result = await call(server, session, "search_text", {
      query: "want(ed)?",
      regex: true,
      limit: 1,
    });
    assert.deepEqual(hitsOf(result), ["f0000.txt:1:wanted here"]);
    const searched = Number(
      /in the first (\d+) files? searched/.exec(textOf(result))?.[1],
    );
    // About 1 MB of files would be read before the first match was seen.
    assert.ok(searched < 100, `files searched: ${searched}`);
  } finally {
    stopRegexWorker();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test({
  name:
    `search_text: unreadable files are skipped and counted (${UNPRIVILEGED_HOW})`,
  ignore: !canDropPrivileges,
  async fn() {
    const base = await lockedTree("shipcode-search-");
    try {
      const result = await runUnprivileged(
        `
        const { Workspace } = await import(Deno.args[0]);
        const { searchTextTool } = await import(Deno.args[1]);
        const ws = await Workspace.open(Deno.args[2]);
        const tool = searchTextTool(ws, { maxMatches: 100, maxReadBytes: 1 << 20 });
        const search = await tool.run({ query: "text" }, { signal: new AbortController().signal, reportProgress() {} });
        console.log(JSON.stringify({ uid: Deno.uid(), search: search.content[0].text }));
      `,
        [
          new URL("../workspace/workspace.ts", import.meta.url).href,
          new URL("./search_text.ts", import.meta.url).href,
          base,
        ],
      ) as { search: string };
      const lines = result.search.split("\n");
      assert.equal(lines.filter((l) => !l.startsWith("[")).length, 2);
      assert.match(lines.at(-1)!, /1 file was skipped/);
    } finally {
      await Deno.chmod(`${base}/locked_dir`, 0o755).catch(() => {});
      await Deno.remove(base, { recursive: true });
    }
  },
});
