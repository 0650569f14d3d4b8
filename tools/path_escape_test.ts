/**
 * Hostile paths: every one is refused with `isError: true` by every
 * path-taking tool, and no byte of the secret outside the root ever
 * appears in any response.
 */

import assert from "node:assert/strict";
import { makeTempWorkspace, SECRET } from "../tests/tools_fixture.ts";
import { callRaw, toolServer } from "../tests/tools_harness.ts";
import { stopRegexWorker } from "./regex_worker.ts";

function hostilePaths(base: string, root: string): string[] {
  return [
    "..",
    "../",
    "../secret.txt",
    "../../etc/passwd",
    "./../secret.txt",
    "src/../../secret.txt",
    "src/lib/../../../secret.txt",
    "src/..",
    `${base}/secret.txt`,
    `${root}/../secret.txt`,
    `${root}/src/../../secret.txt`,
    "/etc/passwd",
    "/",
    `${root}x/secret.txt`,
    "link_out",
    "link_out_abs",
    "link_dir_out",
    "link_dir_out/inner.txt",
    "link_parent",
    "link_parent/secret.txt",
    "link_sneaky",
    "link_out_missing",
    "link_self/../secret.txt",
    "docs/link_src/../../secret.txt",
    "secret.txt\0.md",
    "README.md\0",
    "..\\secret.txt",
    "src\\..\\..\\secret.txt",
    "C:\\Windows\\win.ini",
    "C:/Windows/win.ini",
    "c:secret.txt",
    "\\\\server\\share\\secret.txt",
    "//server/share/secret.txt",
    "README.md::$DATA",
    "README.md:secret",
    "file:///etc/passwd",
    "%2e%2e/secret.txt",
    ".git/config",
    ".git",
    "secret.env",
    "link_to_ignored",
    "build/out.js",
  ];
}

Deno.test("path escape: every hostile path is refused by every tool, the secret never leaks", async () => {
  await using tmp = await makeTempWorkspace();
  await Deno.mkdir(`${tmp.root}/.git`);
  await Deno.writeTextFile(`${tmp.root}/.git/config`, `${SECRET}\n`);
  await Deno.writeTextFile(`${tmp.root}/secret.env`, `${SECRET}\n`);
  const { server, session } = await toolServer(tmp.root);
  const paths = hostilePaths(tmp.base, tmp.root);
  assert.ok(paths.length >= 30, `only ${paths.length} hostile paths`);
  const calls: [string, (p: string) => Record<string, unknown>][] = [
    ["read_file", (path) => ({ path })],
    ["file_info", (path) => ({ path })],
    ["list_directory", (path) => ({ path })],
    ["find_files", (path) => ({ pattern: "*", path })],
    ["search_text", (path) => ({ query: "SECRET", path })],
    ["search_text", (path) => ({ query: "S.CRET", regex: true, path })],
  ];
  try {
    for (const path of paths) {
      for (const [tool, args] of calls) {
        const response = await callRaw(server, session, tool, args(path));
        const text = JSON.stringify(response);
        const where = `${tool} ${JSON.stringify(path)}: ${text.slice(0, 300)}`;
        assert.equal(response.error, undefined, where);
        const result = response.result as { isError?: boolean };
        // "%2e%2e" is a literal directory name here: simply missing.
        assert.equal(result.isError, true, where);
        assert.ok(!text.includes(SECRET), `secret leaked: ${where}`);
        assert.ok(!text.includes("SECRET-OUTSIDE"), `secret leaked: ${where}`);
      }
    }
    // Walking tools over the whole root never descend into links out.
    for (const [tool, args] of calls) {
      const response = await callRaw(server, session, tool, args(""));
      const text = JSON.stringify(response);
      assert.ok(!text.includes(SECRET), `secret leaked: ${tool} over root`);
      assert.ok(!text.includes("inner.txt"), `${tool} listed outside_dir`);
    }
  } finally {
    stopRegexWorker();
  }
});

Deno.test("path escape: a missing file outside looks exactly like an existing one", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root);
  const existing = await callRaw(server, session, "file_info", {
    path: "../secret.txt",
  });
  const missing = await callRaw(server, session, "file_info", {
    path: "../no-such-file.txt",
  });
  const textOf = (r: Record<string, unknown>) =>
    JSON.stringify(r.result).replace(/secret\.txt|no-such-file\.txt/g, "X");
  assert.equal(textOf(existing), textOf(missing));
  const linkExisting = await callRaw(server, session, "read_file", {
    path: "link_out",
  });
  const linkMissing = await callRaw(server, session, "read_file", {
    path: "link_out_missing",
  });
  assert.equal(
    JSON.stringify(linkExisting.result).replace("link_out", "L"),
    JSON.stringify(linkMissing.result).replace("link_out_missing", "L"),
  );
});
