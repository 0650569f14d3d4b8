import { strict as assert } from "node:assert";
import { ErrorCode, RpcError } from "./jsonrpc.ts";
import {
  DIRECTORY_MIME_TYPE,
  type SkillDefinition,
  skillMarkdown,
  SkillSet,
  withSkills,
} from "./ext_skills.ts";
import type { Resource, ResourceProvider } from "./resource.ts";

const REVIEW: SkillDefinition = {
  path: "code-review",
  frontmatter: { name: "code-review", description: "Review a change." },
  body: "# Review\n",
  files: [
    { path: "references/checklist.md", content: "- tests?\n" },
    { path: "references/deep/more.md", content: "more\n" },
    { path: "logo.bin", content: new Uint8Array([0, 255, 1]) },
  ],
};

async function sha256(text: string | Uint8Array): Promise<string> {
  const bytes = typeof text === "string"
    ? new TextEncoder().encode(text)
    : text;
  const hash = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  return "sha256:" +
    Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("ext_skills: SKILL.md is the frontmatter as YAML, then the body; odd strings are quoted", () => {
  assert.equal(
    skillMarkdown({ name: "a", description: "Does things." }, "Body\n"),
    "---\nname: a\ndescription: Does things.\n---\n\nBody\n",
  );
  const text = skillMarkdown({
    name: "yes",
    description: "a: b # c",
    version: 2,
    metadata: { k: "v" },
  }, "");
  assert.match(text, /^name: "yes"$/m);
  assert.match(text, /^description: "a: b # c"$/m);
  assert.match(text, /^version: 2$/m);
  assert.match(text, /^metadata: \{"k":"v"\}$/m);
});

Deno.test("ext_skills: an entry lists every file once, SKILL.md first, with its digest and size", async () => {
  const set = new SkillSet([REVIEW]);
  const [entry] = await set.entries();
  assert.equal(entry.uri, "skill://code-review/SKILL.md");
  assert.deepEqual(entry.frontmatter, REVIEW.frontmatter);
  const manifest = skillMarkdown(REVIEW.frontmatter, REVIEW.body);
  assert.deepEqual(entry.resources, [
    {
      uri: "skill://code-review/SKILL.md",
      digest: await sha256(manifest),
      size: new TextEncoder().encode(manifest).length,
    },
    {
      uri: "skill://code-review/references/checklist.md",
      digest: await sha256("- tests?\n"),
      size: 9,
    },
    {
      uri: "skill://code-review/references/deep/more.md",
      digest: await sha256("more\n"),
      size: 5,
    },
    {
      uri: "skill://code-review/logo.bin",
      digest: await sha256(new Uint8Array([0, 255, 1])),
      size: 3,
    },
  ]);
  assert.equal(await set.entry("skill://code-review"), undefined);
  assert.equal(
    (await set.entry("skill://code-review/SKILL.md"))?.uri,
    entry.uri,
  );
});

Deno.test("ext_skills: files read back as text, or base64 when binary; SKILL.md is text/markdown", () => {
  const set = new SkillSet([REVIEW]);
  const [manifest] = set.read("skill://code-review/SKILL.md")!;
  assert.equal(manifest.mimeType, "text/markdown");
  assert.equal(
    "text" in manifest && manifest.text,
    skillMarkdown(REVIEW.frontmatter, REVIEW.body),
  );
  assert.deepEqual(set.read("skill://code-review/logo.bin"), [{
    uri: "skill://code-review/logo.bin",
    mimeType: "application/octet-stream",
    blob: "AP8B",
  }]);
  assert.equal(set.read("skill://code-review/nope.md"), undefined);
  const listed = set.resources()[0];
  assert.equal(listed.name, "code-review");
  assert.equal(listed.description, "Review a change.");
});

Deno.test("ext_skills: a directory lists its direct children, subdirectories as inode/directory; files are no directories", () => {
  const set = new SkillSet([REVIEW]);
  const root = set.directory("skill://code-review")!;
  assert.deepEqual(root.map((r) => [r.uri, r.mimeType]), [
    ["skill://code-review/SKILL.md", "text/markdown"],
    ["skill://code-review/references", DIRECTORY_MIME_TYPE],
    ["skill://code-review/logo.bin", "application/octet-stream"],
  ]);
  assert.deepEqual(
    set.directory("skill://code-review/references")!.map((r) => r.uri),
    [
      "skill://code-review/references/checklist.md",
      "skill://code-review/references/deep",
    ],
  );
  assert.equal(set.directory("skill://code-review/SKILL.md"), undefined);
  assert.equal(set.directory("skill://other"), undefined);
});

Deno.test("ext_skills: definitions that break the naming rules or the limits are refused", () => {
  const base = REVIEW;
  const bad: SkillDefinition[] = [
    {
      ...base,
      path: "Code-Review",
      frontmatter: { ...base.frontmatter, name: "Code-Review" },
    },
    {
      ...base,
      path: "code--review",
      frontmatter: { ...base.frontmatter, name: "code--review" },
    },
    { ...base, frontmatter: { ...base.frontmatter, name: "other" } },
    { ...base, frontmatter: { name: "code-review", description: "" } },
    { ...base, files: [{ path: "../escape.md", content: "x" }] },
    { ...base, files: [{ path: "SKILL.md", content: "x" }] },
    {
      ...base,
      files: Array.from({ length: 512 }, (_, i) => ({
        path: `f${i}.md`,
        content: "x",
      })),
    },
    {
      ...base,
      files: [{ path: "big.bin", content: new Uint8Array(16 * 1024 * 1024) }],
    },
  ];
  for (const definition of bad) {
    assert.throws(() => new SkillSet([definition]), TypeError);
  }
  assert.throws(() => new SkillSet([base, base]), TypeError);
  assert.doesNotThrow(() =>
    new SkillSet([{
      ...base,
      path: "acme/code-review",
    }])
  );
});

function innerOf(uris: string[]): ResourceProvider {
  const all: Resource[] = uris.map((uri) => ({ uri, name: uri }));
  return {
    list(after, limit) {
      const start = after === undefined ? 0 : Number(after) + 1;
      const resources = all.slice(start, start + limit);
      return Promise.resolve(
        start + limit < all.length
          ? { resources, nextKey: String(start + limit - 1) }
          : { resources },
      );
    },
    templates: () => [],
    read: (uri) => Promise.resolve([{ uri, text: "inner" }]),
    canonicalUri: (uri) => Promise.resolve(uri),
    normalizeUri: (uri) => uri,
  };
}

Deno.test("ext_skills: withSkills pages through the skills' files, then the other resources, each once", async () => {
  const set = new SkillSet([REVIEW]);
  const provider = withSkills(
    set,
    innerOf(["test://a", "test://b", "test://c"]),
  );
  const signal = new AbortController().signal;
  for (const limit of [1, 2, 3, 4, 5, 100]) {
    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await provider.list(after, limit, signal);
      assert.ok(page.resources.length <= limit);
      seen.push(...page.resources.map((r) => r.uri));
      after = page.nextKey;
      if (after === undefined) break;
    }
    assert.deepEqual(seen, [
      "skill://code-review/SKILL.md",
      "skill://code-review/references/checklist.md",
      "skill://code-review/references/deep/more.md",
      "skill://code-review/logo.bin",
      "test://a",
      "test://b",
      "test://c",
    ], `limit ${limit}`);
  }
  await assert.rejects(
    provider.list("s:99", 2, signal),
    (error) =>
      error instanceof RpcError && error.code === ErrorCode.InvalidParams,
  );
  assert.deepEqual(await provider.read("test://a", signal), [
    { uri: "test://a", text: "inner" },
  ]);
  assert.equal(
    (await provider.read("skill://code-review/references/checklist.md", signal))
      .length,
    1,
  );
});
