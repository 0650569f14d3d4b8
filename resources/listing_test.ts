import { strict as assert } from "node:assert";
import { Workspace } from "../workspace/workspace.ts";
import { rankedFiles } from "./listing.ts";

/** A workspace whose directory reads are counted. */
async function countingWorkspace(
  root: string,
): Promise<{ workspace: Workspace; reads: () => number }> {
  const workspace = await Workspace.open(root);
  let reads = 0;
  const walk = workspace.walk.bind(workspace);
  workspace.walk = (options) => {
    reads++;
    return walk(options);
  };
  return { workspace, reads: () => reads };
}

Deno.test("rankedFiles: a page resumed on a wide level reads a few directories, not the whole level", async () => {
  const root = await Deno.makeTempDir({ prefix: "shipcode-listing-" });
  try {
    const dirs = 40;
    const files = 25;
    for (let d = 0; d < dirs; d++) {
      const dir = `${root}/d${String(d).padStart(2, "0")}`;
      await Deno.mkdir(dir);
      for (let f = 0; f < files; f++) {
        await Deno.writeTextFile(`${dir}/f${String(f).padStart(2, "0")}`, "");
      }
    }
    const { workspace, reads } = await countingWorkspace(root);
    const pageSize = 30;
    const listed: string[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const page: string[] = [];
      for await (const entry of rankedFiles(workspace, after)) {
        page.push(entry.relative);
        if (page.length === pageSize) break;
      }
      listed.push(...page);
      pages++;
      if (page.length < pageSize) break;
      after = page[page.length - 1];
    }
    assert.equal(listed.length, dirs * files);
    assert.equal(new Set(listed).size, listed.length, "each file once");
    // A page reads the root and the two or three directories its files
    // come from, and the listing reads the level once more at its end (for
    // the next level's directories): about 150 here. Reading the whole
    // level for each page would be over 700.
    assert.ok(
      reads() <= pages * 4 + dirs + 1,
      `${reads()} directory reads for ${pages} pages`,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
