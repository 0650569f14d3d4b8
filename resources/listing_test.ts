import { strict as assert } from "node:assert";
import { Workspace } from "../workspace/workspace.ts";
import { type ListingState, ListingStates, rankedFiles } from "./listing.ts";
import { WorkspaceResources } from "./provider.ts";

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

Deno.test("WorkspaceResources.list: paging through a deep tree reads each directory once, whatever the page", async () => {
  const root = await Deno.makeTempDir({ prefix: "shipcode-listing-" });
  try {
    // Five levels of three directories each, four files in each one.
    let dirs = 0;
    const make = async (dir: string, depth: number): Promise<void> => {
      for (let f = 0; f < 4; f++) await Deno.writeTextFile(`${dir}/f${f}`, "");
      if (depth === 5) return;
      for (let d = 0; d < 3; d++) {
        await Deno.mkdir(`${dir}/d${d}`);
        dirs++;
        await make(`${dir}/d${d}`, depth + 1);
      }
    };
    await make(root, 0);
    const { workspace, reads } = await countingWorkspace(root);
    const resources = new WorkspaceResources(workspace, {
      maxReadBytes: 1 << 20,
      maxResources: 1_000_000,
    });
    const expected: string[] = [];
    for await (const entry of rankedFiles(workspace)) {
      expected.push(entry.relative);
    }
    const pageSize = 20;
    const signal = new AbortController().signal;
    const listed: string[] = [];
    const perPage: number[] = [];
    let after: string | undefined;
    const before = reads();
    do {
      const start = reads();
      const page = await resources.list(after, pageSize, signal);
      perPage.push(reads() - start);
      listed.push(...page.resources.map((resource) => resource.name));
      after = page.nextKey;
    } while (after !== undefined);
    assert.deepEqual(listed, expected, "page by page equals all at once");
    // One pass reads the root and each directory once; a page may read the
    // directory it ended in once more, from where it ended. Re-reading the
    // levels above for each page (a walk from the root per page) makes
    // the pages of the deepest level read over 40 directories each, and
    // over 2,000 in all.
    const total = reads() - before;
    assert.ok(
      total <= dirs + 1 + perPage.length,
      `${total} directory reads for ${
        dirs + 1
      } directories in ${perPage.length} pages: ${perPage}`,
    );
    // Page k's work does not grow with k: no page reads more than the
    // directories its files come from, plus the one it resumes in.
    const most = Math.max(...perPage);
    assert.ok(
      most <= Math.ceil(pageSize / 4) + 2,
      `a page read ${most} directories: ${perPage}`,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("ListingStates: keeps the newest few, each taken once", () => {
  const states = new ListingStates(2);
  const state = (): ListingState => ({
    depth: 1,
    pending: [],
    held: 0,
    frontier: [],
    index: 0,
    earlier: [],
    next: [],
    met: new Map(),
  });
  const [a, b, c] = [state(), state(), state()];
  states.put("a", a);
  states.put("b", b);
  states.put("c", c);
  assert.equal(states.size, 2);
  assert.equal(states.take("a"), undefined, "the oldest is dropped");
  assert.equal(states.take("b"), b);
  assert.equal(states.take("b"), undefined, "a state is taken once");
  assert.equal(states.take("c"), c);
});
