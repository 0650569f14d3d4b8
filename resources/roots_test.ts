/**
 * The resources of several roots: names carry the root's name, URIs stay
 * each root's own, pages run across roots, one template per root, and the
 * cap is shared.
 */

import { strict as assert } from "node:assert";
import { RpcError } from "../mcp/jsonrpc.ts";
import type { Resource } from "../mcp/resource.ts";
import { Roots } from "../workspace/roots.ts";
import { RootsResources } from "./roots.ts";

const NEVER = new AbortController().signal;

async function twoRoots(): Promise<{ base: string; roots: Roots }> {
  const base = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "res_roots_" }),
  );
  for (
    const [path, content] of Object.entries({
      "app/README.md": "# app\n",
      "app/src/main.ts": "main\n",
      "lib/README.md": "# lib\n",
      "lib/x.txt": "x\n",
      "lib/y.txt": "y\n",
    })
  ) {
    const full = `${base}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, content);
  }
  return { base, roots: await Roots.open([`${base}/app`, `${base}/lib`]) };
}

async function allPages(p: RootsResources, size: number): Promise<Resource[]> {
  const all: Resource[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await p.list(after, size, NEVER);
    assert.ok(page.resources.length <= size);
    all.push(...page.resources);
    if (page.nextKey === undefined) return all;
    after = page.nextKey;
  }
  throw new Error("too many pages");
}

Deno.test("RootsResources: every root's files, named by root, on any page size", async () => {
  const { base, roots } = await twoRoots();
  try {
    const provider = new RootsResources(roots, {
      maxReadBytes: 1000,
      maxResources: 100,
    });
    const whole = await allPages(provider, 100);
    assert.deepEqual(whole.map((r) => r.name), [
      "app/README.md",
      "app/src/main.ts",
      "lib/README.md",
      "lib/x.txt",
      "lib/y.txt",
    ]);
    assert.equal(whole[3].uri, `file://${base}/lib/x.txt`);
    for (const size of [1, 2, 3]) {
      assert.deepEqual(await allPages(provider, size), whole, `size ${size}`);
    }
    const [contents] = await provider.read(`file://${base}/lib/y.txt`, NEVER);
    assert.equal((contents as { text: string }).text, "y\n");
    assert.equal(
      await provider.canonicalUri(`file://${base}/app/src/%6Dain.ts`),
      `file://${base}/app/src/main.ts`,
    );
    await assert.rejects(
      provider.read(`file://${base}/elsewhere.txt`, NEVER),
      (error: unknown) => error instanceof RpcError && error.code === -32002,
    );
    await assert.rejects(
      provider.list("9:", 10, NEVER),
      (error: unknown) => error instanceof RpcError && error.code === -32602,
    );
    await assert.rejects(
      provider.list("nonsense", 10, NEVER),
      (error: unknown) => error instanceof RpcError && error.code === -32602,
    );
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("RootsResources: one template per root, and a shared cap", async () => {
  const { base, roots } = await twoRoots();
  try {
    const provider = new RootsResources(roots, {
      maxReadBytes: 1000,
      maxResources: 3,
    });
    const templates = provider.templates();
    assert.deepEqual(templates.map((t) => [t.name, t.uriTemplate]), [
      ["workspace-file-app", `file://${base}/app/{+path}`],
      ["workspace-file-lib", `file://${base}/lib/{+path}`],
    ]);
    // 3 shared by two roots: 2 for the first, 1 for the second.
    assert.deepEqual((await allPages(provider, 10)).map((r) => r.name), [
      "app/README.md",
      "app/src/main.ts",
      "lib/README.md",
    ]);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("RootsResources: each root's template completes paths inside that root", async () => {
  const { base, roots } = await twoRoots();
  await Deno.writeTextFile(`${base}/lib/.gitignore`, "y.txt\n");
  try {
    const provider = new RootsResources(roots, {
      maxReadBytes: 1000,
      maxResources: 100,
    });
    const [app, lib] = provider.templates().map((t) => t.uriTemplate);
    const context = { arguments: {}, signal: NEVER };
    const values = async (template: string, value: string) =>
      (await provider.complete(template, "path", value, context))?.values;
    assert.deepEqual(await values(app, ""), ["README.md", "src/"]);
    assert.deepEqual(await values(app, "src/"), ["src/main.ts"]);
    // lib's .gitignore hides y.txt; "lib/" is not a path inside lib.
    assert.deepEqual(await values(lib, ""), [
      "README.md",
      "x.txt",
      ".gitignore",
    ]);
    assert.deepEqual(await values(lib, "lib/"), []);
    assert.deepEqual(await values(lib, "../app/"), []);
    // Another template, or another variable, is not the provider's.
    assert.equal(
      await provider.complete(`file://${base}/{+path}`, "path", "", context),
      undefined,
    );
    assert.equal(await provider.complete(app, "other", "", context), undefined);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("RootsResources: uriOfPath takes a NAME/… path to its root's URI", async () => {
  const { base, roots } = await twoRoots();
  try {
    const provider = new RootsResources(roots, {
      maxReadBytes: 1000,
      maxResources: 100,
    });
    assert.equal(
      provider.uriOfPath("lib/x.txt"),
      new URL(`file://${base}/lib/x.txt`).href,
    );
    assert.equal(
      provider.uriOfPath("app/src/main.ts"),
      new URL(`file://${base}/app/src/main.ts`).href,
    );
    assert.equal(
      provider.uriOfPath("app/"),
      new URL(`file://${base}/app/`).href,
    );
    assert.equal(
      provider.uriOfPath("app"),
      new URL(`file://${base}/app/`).href,
    );
    assert.equal(provider.uriOfPath(""), undefined);
    assert.equal(provider.uriOfPath("nope/x.txt"), undefined);
    const [contents] = await provider.read(
      provider.uriOfPath("lib/x.txt")!,
      NEVER,
    );
    assert.equal((contents as { text: string }).text, "x\n");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
