import { strict as assert } from "node:assert";
import { FLAGS, VERSION } from "./flags.ts";
import { defaultText, helpText, readmeFlagRows, terminalNote } from "./help.ts";

Deno.test("helpText: one line per flag of the table, with its default", () => {
  const lines = helpText().split("\n");
  for (const flag of Object.values(FLAGS)) {
    const line = lines.find((l) => l.includes(`--${flag.name}`));
    assert.ok(line !== undefined, `--help does not list --${flag.name}`);
    assert.ok(line.includes(flag.help.replaceAll("`", "")), line);
    const fallback = defaultText(flag, false);
    if (fallback !== undefined) {
      assert.ok(line.endsWith(`(default: ${fallback})`), line);
    }
  }
  assert.ok(lines[0].startsWith(`shipcode-mcp ${VERSION} `));
});

Deno.test("defaultText: switches are off, byte counts also in MiB", () => {
  assert.equal(defaultText(FLAGS.watch, true), "off");
  assert.equal(defaultText(FLAGS.maxDepth, true), "`8`");
  assert.equal(defaultText(FLAGS.maxReadBytes, true), "`1048576` (1 MiB)");
  assert.equal(defaultText(FLAGS.maxReadBytes, false), "1048576, 1 MiB");
  assert.equal(
    defaultText(FLAGS.root, false),
    "the client's roots, else the current directory",
  );
  assert.equal(defaultText(FLAGS.help, false), undefined);
});

Deno.test("terminalNote: names the version and the root", () => {
  assert.match(
    terminalNote("/srv/x"),
    new RegExp(`^shipcode-mcp ${VERSION} serves /srv/x `),
  );
});

/** The rows of the first Markdown table after `heading`, cells trimmed. */
function markdownTable(text: string, heading: string): string[][] {
  const lines = text.slice(text.indexOf(`\n${heading}\n`) + 1).split("\n");
  const start = lines.findIndex((line) => line.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(start)) {
    if (!line.startsWith("|")) break;
    rows.push(line.slice(1, -1).split(" | ").map((cell) => cell.trim()));
  }
  return rows.slice(2); // Without the header and the --- row.
}

Deno.test("docs/flags.md: its flag table is the flag table", async () => {
  const flags = await Deno.readTextFile(
    new URL("../docs/flags.md", import.meta.url),
  );
  const rows = markdownTable(flags, "## Flags");
  assert.deepEqual(rows, readmeFlagRows());
});

Deno.test("README: each row of its common flags is a row of the flag table", async () => {
  const readme = await Deno.readTextFile(
    new URL("../README.md", import.meta.url),
  );
  const rows = markdownTable(readme, "## Common flags");
  assert.ok(rows.length >= 3, `only ${rows.length} common flags`);
  const all = readmeFlagRows().map((row) => JSON.stringify(row));
  for (const row of rows) {
    assert.ok(all.includes(JSON.stringify(row)), JSON.stringify(row));
  }
});
