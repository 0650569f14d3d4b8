import { strict as assert } from "node:assert";
import { Buffer } from "node:buffer";
import { RpcError } from "../mcp/jsonrpc.ts";
import type { Resource, ResourceContents } from "../mcp/resource.ts";
import { keyPosition, listFiles, rankedFiles } from "./listing.ts";
import { WorkspaceResources } from "./provider.ts";
import { Workspace } from "../workspace/workspace.ts";

const NEVER = new AbortController().signal;

/** A temp dir holding `files` (path -> content); returns its real path. */
async function tree(
  files: Record<string, string | Uint8Array>,
): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "res_" }));
  for (const [path, content] of Object.entries(files)) {
    const full = `${dir}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(full, content);
    else await Deno.writeFile(full, content);
  }
  return dir;
}

async function provider(
  root: string,
  maxReadBytes = 1024,
): Promise<WorkspaceResources> {
  return new WorkspaceResources(await Workspace.open(root), {
    maxReadBytes,
    maxResources: 1000,
  });
}

async function allPages(
  p: WorkspaceResources,
  size: number,
): Promise<Resource[]> {
  const all: Resource[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await p.list(after, size, NEVER);
    assert.ok(page.resources.length <= size);
    all.push(...page.resources);
    if (page.nextKey === undefined) return all;
    assert.equal(page.resources.length, size, "only the last page is short");
    after = page.nextKey;
  }
  throw new Error("too many pages");
}

async function rejectsWith(
  promise: Promise<unknown>,
  code: number,
  data?: unknown,
): Promise<RpcError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RpcError, String(error));
    assert.equal(error.code, code, error.message);
    if (data !== undefined) assert.deepEqual(error.data, data);
    return error;
  }
  throw new Error("expected a rejection");
}

const TREE = {
  ".gitignore": "*.log\nbuild/\n",
  "LICENSE": "l",
  "README.md": "# r",
  "package.json": "{}",
  "a/b.txt": "b",
  "a/z/deep.txt": "deep",
  "a-c.txt": "a-c",
  "a.txt": "a",
  "build/out.js": "ignored",
  "debug.log": "ignored",
  "empty/.keep": "",
  "x y/é.md": "# é",
  "zz.bin": new Uint8Array([0, 1, 2, 255]),
};
// Listing order: the root's README, manifests and key documents, its other
// files, then level by level in path order.
const ORDER = [
  "README.md",
  "package.json",
  "LICENSE",
  ".gitignore",
  "a-c.txt",
  "a.txt",
  "zz.bin",
  "a/b.txt",
  "empty/.keep",
  "x y/é.md",
  "a/z/deep.txt",
];

Deno.test("list: every non-ignored file, most useful first, with URI, MIME type and size", async () => {
  const root = await tree(TREE);
  try {
    const p = await provider(root);
    const page = await p.list(undefined, 100, NEVER);
    assert.equal(page.nextKey, undefined);
    assert.deepEqual(page.resources.map((r) => r.name), ORDER);
    const md = page.resources.find((r) => r.name === "x y/é.md")!;
    assert.deepEqual(md, {
      uri: `${p.uris.prefix}x%20y/%C3%A9.md`,
      name: "x y/é.md",
      mimeType: "text/markdown",
      size: 4,
    });
    assert.deepEqual(Object.keys(md), ["uri", "name", "mimeType", "size"]);
    // No MIME type from the name: none is claimed.
    assert.equal(
      page.resources.find((r) => r.name === "empty/.keep")!.mimeType,
      undefined,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("list: pages of every size concatenate to the full list", async () => {
  const root = await tree(TREE);
  try {
    const p = await provider(root);
    for (const size of [1, 2, 3, 7, 8, 10, 11, 12]) {
      assert.deepEqual(
        (await allPages(p, size)).map((r) => r.name),
        ORDER,
        `size ${size}`,
      );
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("list: a cursor resumes after its file even when that file is gone", async () => {
  const root = await tree(TREE);
  try {
    const p = await provider(root);
    const first = await p.list(undefined, 8, NEVER);
    assert.deepEqual(keyPosition(first.nextKey!), {
      after: "a/b.txt",
      served: 8,
    });
    await Deno.remove(`${root}/a`, { recursive: true });
    const next = await p.list(first.nextKey, 100, NEVER);
    assert.deepEqual(next.resources.map((r) => r.name), [
      "empty/.keep",
      "x y/é.md",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("list: keys that are not workspace paths are -32602", async () => {
  const root = await tree(TREE);
  try {
    const p = await provider(root);
    for (
      const key of [
        "",
        "a.txt",
        "0:",
        "x:a.txt",
        "-1:a.txt",
        "01:a.txt",
        "0:/etc/passwd",
        "0:../x",
        "0:a//b",
        "0:a/./b",
        "0:a\0b",
      ]
    ) {
      await rejectsWith(p.list(key, 2, NEVER), -32602);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("list: at most maxResources files over all pages, the first ones of the ranked order", async () => {
  const files: Record<string, string> = { "README.md": "r" };
  for (let d = 0; d < 20; d++) {
    for (let f = 0; f < 100; f++) {
      files[
        `d${String(d).padStart(2, "0")}/f${String(f).padStart(3, "0")}.txt`
      ] = "";
    }
  }
  files["d00/e/deeper.txt"] = "";
  const root = await tree(files);
  try {
    const ws = await Workspace.open(root);
    const ranked: string[] = [];
    for await (const e of rankedFiles(ws)) ranked.push(e.relative);
    assert.equal(ranked.length, 2002);
    assert.equal(ranked[0], "README.md");
    assert.equal(ranked.at(-1), "d00/e/deeper.txt");
    for (const [cap, size] of [[150, 1000], [150, 40], [3000, 700]]) {
      const p = new WorkspaceResources(ws, {
        maxReadBytes: 1,
        maxResources: cap,
      });
      const names = (await allPages(p, size)).map((r) => r.name);
      assert.deepEqual(names, ranked.slice(0, cap), `cap ${cap}, ${size}`);
    }
    // A page costs what it holds: resuming near the end checks only the
    // files after the resume point, not the 2,000 before it.
    let checked = 0;
    const page = await listFiles(ws, {
      from: { after: "d19/f097.txt", served: 1999 },
      limit: 10,
      cap: 5000,
      accept: () => (checked++, true),
    });
    assert.deepEqual(page.files.map((f) => f.relative), [
      "d19/f098.txt",
      "d19/f099.txt",
      "d00/e/deeper.txt",
    ]);
    assert.equal(page.next, undefined);
    assert.equal(checked, 3);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("list: files are reached through real directories only: no loop, fan-out or repeat through links", async () => {
  const root = await tree({ "d/x.txt": "x", "f.txt": "f" });
  try {
    await Deno.symlink(`${root}/d`, `${root}/alias`);
    await Deno.symlink("..", `${root}/d/up`);
    await Deno.symlink("f.txt", `${root}/link.txt`);
    // Links that fan out: each level links to the next twice.
    for (let i = 0; i < 20; i++) {
      await Deno.mkdir(`${root}/fan/l${i}`, { recursive: true });
      if (i > 0) {
        await Deno.symlink(`../l${i}`, `${root}/fan/l${i - 1}/a`);
        await Deno.symlink(`../l${i}`, `${root}/fan/l${i - 1}/b`);
      }
    }
    await Deno.writeTextFile(`${root}/fan/l19/end.txt`, "end");
    const ws = await Workspace.open(root);
    const names: string[] = [];
    for await (const e of rankedFiles(ws)) names.push(e.relative);
    // A link to a file is a file of its own; links to directories are not
    // followed, their files are listed where they really are.
    assert.deepEqual(names, [
      "f.txt",
      "link.txt",
      "d/x.txt",
      "fan/l19/end.txt",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("read: text as text, binary as base64, with the MIME type", async () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const utf16 = new Uint8Array([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]);
  const root = await tree({
    "main.ts": "export const x = 1;\n",
    "notes": "plain words",
    "pic.png": png,
    "ascii.png": "PNG?", // Valid UTF-8, but an image type: still a blob.
    "wide.txt": utf16,
    "data.bin": new Uint8Array([1, 0, 2]),
    "icon.svg": "<svg/>",
  });
  try {
    const p = await provider(root);
    const read = (name: string): Promise<ResourceContents[]> =>
      p.read(p.uris.uriOf(name), NEVER);
    assert.deepEqual(await read("main.ts"), [{
      uri: p.uris.uriOf("main.ts"),
      mimeType: "text/x-typescript",
      text: "export const x = 1;\n",
    }]);
    assert.deepEqual(await read("notes"), [{
      uri: p.uris.uriOf("notes"),
      mimeType: "text/plain",
      text: "plain words",
    }]);
    assert.deepEqual(await read("pic.png"), [{
      uri: p.uris.uriOf("pic.png"),
      mimeType: "image/png",
      blob: Buffer.from(png).toString("base64"),
    }]);
    assert.equal((await read("ascii.png"))[0].mimeType, "image/png");
    assert.ok("blob" in (await read("ascii.png"))[0]);
    assert.deepEqual(await read("wide.txt"), [{
      uri: p.uris.uriOf("wide.txt"),
      mimeType: "text/plain",
      text: "hi",
    }]);
    assert.deepEqual(await read("data.bin"), [{
      uri: p.uris.uriOf("data.bin"),
      mimeType: "application/octet-stream",
      blob: "AQAC",
    }]);
    assert.deepEqual(await read("icon.svg"), [{
      uri: p.uris.uriOf("icon.svg"),
      mimeType: "image/svg+xml",
      text: "<svg/>",
    }]);
    // Another spelling of the URI reads the same file under its one identity.
    const [content] = await p.read(`${p.uris.prefix}./x/../not%65s`, NEVER);
    assert.equal(content.uri, p.uris.uriOf("notes"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("read: binary files up to the 1 MiB default cap come back as exact base64", async () => {
  // Every byte value, every padding length (size mod 3), and the cap itself.
  const big = new Uint8Array(1024 * 1024);
  for (let i = 0; i < big.length; i += 65536) {
    crypto.getRandomValues(big.subarray(i, i + 65536));
  }
  const files: Record<string, Uint8Array> = { "big.bin": big };
  for (let size = 0; size < 6; size++) {
    files[`small${size}.bin`] = big.slice(0, size).map((_, i) => 0xff - i);
  }
  files["all.bin"] = Uint8Array.from({ length: 256 }, (_, i) => i);
  const root = await tree(files);
  try {
    const p = await provider(root, big.length);
    for (const [name, bytes] of Object.entries(files)) {
      const [content] = await p.read(p.uris.uriOf(name), NEVER);
      assert.ok("blob" in content, name);
      assert.equal(content.blob, Buffer.from(bytes).toString("base64"), name);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("read: over the size cap is -32602 with uri, size and limit", async () => {
  const root = await tree({
    "big.txt": "x".repeat(2000),
    "ok.txt": "x".repeat(1024),
  });
  try {
    const p = await provider(root, 1024);
    const uri = p.uris.uriOf("big.txt");
    const error = await rejectsWith(p.read(uri, NEVER), -32602, {
      uri,
      size: 2000,
      limit: 1024,
    });
    assert.match(error.message, /--max-read-bytes/);
    assert.equal((await p.read(p.uris.uriOf("ok.txt"), NEVER)).length, 1);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("read: missing, ignored, .git, directories and outside paths are all -32002 {uri}", async () => {
  const outside = await tree({ "secret.txt": "secret" });
  const root = await tree({ ...TREE, ".git/config": "[core]" });
  await Deno.symlink(`${outside}/secret.txt`, `${root}/link-out.txt`);
  await Deno.symlink(`${root}/a.txt`, `${root}/link-in.txt`);
  try {
    const p = await provider(root);
    const uris = [
      p.uris.uriOf("missing.txt"),
      p.uris.uriOf("debug.log"),
      p.uris.uriOf("build/out.js"),
      p.uris.uriOf(".git/config"),
      p.uris.uriOf("a"),
      p.uris.uriOf("link-out.txt"),
      `${p.uris.prefix}%2e%2e/${outside.split("/").pop()}/secret.txt`,
      `file://${outside}/secret.txt`,
      `file://${outside}/nothing.txt`,
      `${p.uris.prefix}a%2fb.txt`,
      `${p.uris.prefix}a.txt%00`,
      "https://example.com/a.txt",
    ];
    for (const uri of uris) {
      await rejectsWith(p.read(uri, NEVER), -32002, { uri });
      await rejectsWith(p.canonicalUri(uri), -32002, { uri });
    }
    // A link inside the root is a file of its own name.
    const [linked] = await p.read(p.uris.uriOf("link-in.txt"), NEVER);
    assert.deepEqual(linked, {
      uri: p.uris.uriOf("link-in.txt"),
      mimeType: "text/plain",
      text: "a",
    });
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("templates: one RFC 6570 template under the root, no fixed mimeType", async () => {
  const root = await tree({ "a.txt": "a" });
  try {
    const p = await provider(root);
    const [template, ...rest] = p.templates();
    assert.equal(rest.length, 0);
    assert.equal(template.uriTemplate, `${p.uris.prefix}{+path}`);
    assert.equal(template.mimeType, undefined);
    assert.deepEqual(Object.keys(template), [
      "uriTemplate",
      "name",
      "title",
      "description",
    ]);
    // Expanding it with a path gives the path's URI.
    assert.equal(
      template.uriTemplate.replace("{+path}", "a.txt"),
      p.uris.uriOf("a.txt"),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
