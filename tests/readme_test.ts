/**
 * The README is for users and short: at most 300 lines and 18,000 bytes, so
 * that a model reading it through `read_file` (20,000 characters a page,
 * line numbers included) gets it whole in one call. The rest lives in
 * `docs/` and `CONTRIBUTING.md`, and every relative link among them points
 * to a file that exists.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { fileURLToPath } from "node:url";
import { dirname, join, normalize } from "node:path";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Most lines the README may have. */
const MAX_LINES = 300;
/** Most bytes the README may have. */
const MAX_BYTES = 18_000;

/** README.md, CONTRIBUTING.md and docs/*.md, relative to the root. */
async function documents(): Promise<string[]> {
  const paths = ["README.md", "CONTRIBUTING.md"];
  for await (const entry of Deno.readDir(join(ROOT, "docs"))) {
    if (entry.isFile && entry.name.endsWith(".md")) {
      paths.push(`docs/${entry.name}`);
    }
  }
  return paths.sort();
}

/**
 * The targets of the Markdown links in `text` (`[text](target)`), outside
 * code blocks and code spans.
 */
export function linkTargets(text: string): string[] {
  const prose = text
    .replace(/^```[^\n]*\n[\s\S]*?^```$/gm, "")
    .replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
}

Deno.test("README: at most 300 lines and 18,000 bytes", async () => {
  const bytes = await Deno.readFile(join(ROOT, "README.md"));
  const text = new TextDecoder().decode(bytes);
  const lines = text.endsWith("\n")
    ? text.split("\n").length - 1
    : text.split("\n").length;
  assert.ok(lines <= MAX_LINES, `README.md has ${lines} lines`);
  assert.ok(bytes.length <= MAX_BYTES, `README.md has ${bytes.length} bytes`);
});

Deno.test("README, CONTRIBUTING.md, docs/: every relative link points to an existing file", async () => {
  const broken: string[] = [];
  let count = 0;
  for (const path of await documents()) {
    const text = await Deno.readTextFile(join(ROOT, path));
    for (const target of linkTargets(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) {
        continue; // A URL, or a heading of the same page.
      }
      count++;
      const file = decodeURIComponent(target.replace(/#.*$/, ""));
      const resolved = normalize(join(dirname(join(ROOT, path)), file));
      if (!resolved.startsWith(ROOT)) {
        broken.push(`${path}: ${target} leaves the repository`);
        continue;
      }
      try {
        await Deno.stat(resolved);
      } catch {
        broken.push(`${path}: ${target}`);
      }
    }
  }
  assert.ok(count > 10, `only ${count} relative links found`);
  assert.deepEqual(broken, []);
});

Deno.test("linkTargets: links in prose, not in code", () => {
  assert.deepEqual(
    linkTargets(
      "[a](docs/a.md) `[b](b.md)`\n```md\n[c](c.md)\n```\n[d](../d.md#x)",
    ),
    ["docs/a.md", "../d.md#x"],
  );
});

Deno.test("README: the LICENSE it names is MIT", async () => {
  const license = await Deno.readTextFile(join(ROOT, "LICENSE"));
  assert.match(license, /^MIT License\n/);
  assert.match(license, /Copyright \(c\) \d{4} shipcode-mcp contributors/);
});
