/**
 * Real clients page through `resources/list` only so far: the official
 * client 2.x and the Inspector stop after 64 pages, LangChain's adapter
 * reads the first page alone. On a 20,000-file tree, the default listing
 * must fit all of them: one page, at most `--max-resources` files, the most
 * useful first, and every other file still readable through the template.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { Client, StdioClientTransport, UriTemplate } from "./sdk.ts";
import { serverCommand } from "./server_command.ts";
import { DEFAULTS } from "../cli/flags.ts";

const DIRS = 100;
const PER_DIR = 200;

Deno.test("paging: a 20,000-file tree lists in one page of the most useful files; the template reads the rest", async () => {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "paging-" }),
  );
  try {
    await Deno.writeTextFile(`${root}/README.md`, "# big\n");
    await Deno.writeTextFile(`${root}/package.json`, "{}\n");
    await Deno.writeTextFile(`${root}/main.ts`, "export {};\n");
    for (let d = 0; d < DIRS; d++) {
      const dir = `${root}/src/d${String(d).padStart(3, "0")}`;
      Deno.mkdirSync(dir, { recursive: true });
      // Hard links to one file: creating 20,000 files costs seconds of
      // system time on some disks, linking a fraction of one.
      for (let f = 0; f < PER_DIR; f++) {
        Deno.linkSync(`${root}/main.ts`, `${dir}/f${f}.ts`);
      }
    }
    const unlisted = "src/d099/f199.ts";
    await Deno.remove(`${root}/${unlisted}`);
    await Deno.writeTextFile(`${root}/${unlisted}`, "// the last one\n");
    const { command, args } = serverCommand(["--root", root]);
    const client = new Client({ name: "paging", version: "1" });
    const started = performance.now();
    await client.connect(
      new StdioClientTransport({ command, args, stderr: "pipe" }),
    );
    try {
      // As the official client 2.x and the Inspector do: follow cursors,
      // giving up after 64 pages.
      const listed: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await client.listResources(cursor ? { cursor } : {});
        pages++;
        listed.push(...page.resources.map((r: { name: string }) => r.name));
        cursor = page.nextCursor;
      } while (cursor && pages < 64);
      assert.equal(cursor, undefined, "the listing outlasted 64 pages");
      // Generous for a loaded machine; it takes about 0.1 s alone.
      assert.ok(performance.now() - started < 15_000);
      // LangChain reads the first page only: it is the whole listing.
      assert.equal(pages, 1);
      assert.equal(listed.length, DEFAULTS.maxResources);
      assert.equal(new Set(listed).size, listed.length);
      assert.deepEqual(listed.slice(0, 3), [
        "README.md",
        "package.json",
        "main.ts",
      ]);
      // Shallow before deep: whole directories, in path order.
      assert.equal(listed[3], "src/d000/f0.ts");

      const { resourceTemplates } = await client.listResourceTemplates();
      const template = resourceTemplates[0];
      assert.match(
        template.description ?? "",
        new RegExp(`at most ${DEFAULTS.maxResources} files`),
      );
      assert.ok(!listed.includes(unlisted));
      const { contents } = await client.readResource({
        uri: new UriTemplate(template.uriTemplate).expand({ path: unlisted }),
      });
      assert.equal(
        (contents[0] as { text?: string }).text,
        "// the last one\n",
      );
    } finally {
      await client.close();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
