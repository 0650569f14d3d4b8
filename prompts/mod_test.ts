import { strict as assert } from "node:assert";
import type { Prompt, PromptResult } from "../mcp/prompt.ts";
import { Session } from "../mcp/session.ts";
import type { ToolContext } from "../mcp/tool.ts";
import { openServed, type ServeOptions } from "../app/roots.ts";
import type { RootsSource, Served } from "../tools/served.ts";
import { servedPrompts, sessionPrompts, workspacePrompts } from "./mod.ts";

const OPTIONS: ServeOptions = {
  workspace: {},
  resources: { maxReadBytes: 1000, maxResources: 100 },
  caps: { maxEntries: 100, maxMatches: 10, maxReadBytes: 1000, maxDepth: 4 },
};

async function dirs(): Promise<Record<"base" | "a" | "b", string>> {
  const base = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "prompts_mod_" }),
  );
  const paths = { base, a: `${base}/a`, b: `${base}/b` };
  for (const name of ["a", "b"] as const) {
    await Deno.mkdir(paths[name]);
    await Deno.writeTextFile(`${paths[name]}/${name}.txt`, `in ${name}\n`);
  }
  await Deno.writeTextFile(`${paths.b}/.gitignore`, "hidden.txt\n");
  await Deno.writeTextFile(`${paths.b}/hidden.txt`, "ignored\n");
  return paths;
}

function ctxOf(session: Session): ToolContext {
  return {
    session,
    signal: new AbortController().signal,
    meta: undefined,
    notify: () => {},
    request: () => Promise.reject(new Error("no client")),
    reportProgress: () => {},
    log: () => {},
    sample: () => Promise.reject(new Error("no client")),
    elicit: () => Promise.reject(new Error("no client")),
    listRoots: () => Promise.reject(new Error("no client")),
  };
}

function named(prompts: Prompt[], name: string): Prompt {
  const prompt = prompts.find((p) => p.name === name);
  assert.ok(prompt !== undefined, `no prompt ${name}`);
  return prompt;
}

async function completePath(
  prompt: Prompt,
  value: string,
  session: Session,
): Promise<string[]> {
  const complete = prompt.arguments?.find((a) => a.name === "path")?.complete;
  assert.ok(complete !== undefined);
  const got = await complete(value, {
    arguments: {},
    signal: new AbortController().signal,
    session,
  });
  return Array.isArray(got) ? got : got.values;
}

/** The URI of the resource embedded in `result`'s second message. */
function embeddedUri(result: PromptResult): string | undefined {
  const content = result.messages[1].content as {
    type: string;
    resource?: { uri: string };
  };
  return content.resource?.uri;
}

const url = (path: string) => new URL(`file://${path}`).href;

Deno.test("servedPrompts: one root is served as workspacePrompts serves it", async () => {
  const d = await dirs();
  try {
    const one = await openServed([d.a], OPTIONS);
    const served = servedPrompts(one, OPTIONS.caps);
    const plain = workspacePrompts({
      workspace: one.view,
      resources: one.resources,
      caps: OPTIONS.caps,
    });
    assert.deepEqual(
      served.map((p) => [p.name, p.description]),
      plain.map((p) => [p.name, p.description]),
    );
    const session = new Session(() => {});
    const review = await named(served, "review_file").get(
      { path: "a.txt" },
      ctxOf(session),
    );
    assert.equal(embeddedUri(review), url(`${d.a}/a.txt`));
  } finally {
    await Deno.remove(d.base, { recursive: true });
  }
});

Deno.test("servedPrompts: over several roots, paths start with a root's name", async () => {
  const d = await dirs();
  try {
    const two = await openServed([d.a, d.b], OPTIONS);
    const prompts = servedPrompts(two, OPTIONS.caps);
    for (const prompt of prompts) {
      assert.match(prompt.description ?? "", /Several roots are served/);
    }
    const session = new Session(() => {});
    const ctx = ctxOf(session);
    const review = named(prompts, "review_file");
    assert.equal(
      embeddedUri(await review.get({ path: "b/b.txt" }, ctx)),
      url(`${d.b}/b.txt`),
    );
    await assert.rejects(
      Promise.resolve(review.get({ path: "a/../b/b.txt" }, ctx)),
      /outside the root "a"/,
    );
    await assert.rejects(
      Promise.resolve(review.get({ path: "b/hidden.txt" }, ctx)),
      /excluded/,
    );
    assert.deepEqual(await completePath(review, "", session), ["a/", "b/"]);
    assert.deepEqual(await completePath(review, "b/", session), [
      "b/b.txt",
      "b/.gitignore",
    ]);
    assert.deepEqual(await completePath(review, "a/../", session), []);
    const summary = named(prompts, "summarize_directory");
    // The top has no URI: its listing (the roots) comes as text.
    const top = await summary.get({}, ctx);
    assert.deepEqual(top.messages[1].content, {
      type: "text",
      text:
        "a/\na/a.txt (5 bytes)\nb/\nb/.gitignore (11 bytes)\nb/b.txt (5 bytes)",
    });
    const inB = await summary.get({ path: "b" }, ctx);
    assert.equal(embeddedUri(inB), url(`${d.b}/`));
  } finally {
    await Deno.remove(d.base, { recursive: true });
  }
});

Deno.test("sessionPrompts: each session's get and completion run over its own roots", async () => {
  const d = await dirs();
  try {
    const fallback = await openServed([d.a], OPTIONS);
    const two = await openServed([d.a, d.b], OPTIONS);
    const mine = new Session(() => {});
    const other = new Session(() => {});
    const source: RootsSource = {
      servedFor: (session: Session): Promise<Served> =>
        Promise.resolve(session === mine ? two : fallback),
    };
    const prompts = sessionPrompts(source, fallback, OPTIONS.caps);
    // Listed as the fallback's.
    assert.deepEqual(
      prompts.map((p) => [p.name, p.description]),
      servedPrompts(fallback, OPTIONS.caps).map((p) => [
        p.name,
        p.description,
      ]),
    );
    const review = named(prompts, "review_file");
    assert.equal(
      embeddedUri(await review.get({ path: "b/b.txt" }, ctxOf(mine))),
      url(`${d.b}/b.txt`),
    );
    assert.equal(
      embeddedUri(await review.get({ path: "a.txt" }, ctxOf(other))),
      url(`${d.a}/a.txt`),
    );
    await assert.rejects(
      Promise.resolve(review.get({ path: "a.txt" }, ctxOf(mine))),
      /in no root/,
    );
    assert.deepEqual(await completePath(review, "", mine), ["a/", "b/"]);
    assert.deepEqual(await completePath(review, "", other), ["a.txt"]);
    const summary = named(prompts, "summarize_directory");
    assert.deepEqual(await completePath(summary, "", mine), ["a/", "b/"]);
    assert.deepEqual(await completePath(summary, "", other), []);
  } finally {
    await Deno.remove(d.base, { recursive: true });
  }
});
