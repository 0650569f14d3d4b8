/**
 * What is listed can be read back, exactly as given, with awkward names:
 * the official SDK client lists every resource of a workspace full of them
 * (served from a root whose own path holds a backslash), then reads each
 * listed URI, and each URI that the published template gives for the
 * listed name, expanded by the SDK's `UriTemplate` and by RFC 6570 reserved
 * expansion as the RFC spells it.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { Client, StdioClientTransport, UriTemplate } from "./sdk.ts";
import { serverCommand } from "./server_command.ts";
import { Workspace } from "../workspace/workspace.ts";

/** Names that any POSIX file system takes; each holds its own content. */
const NAMES = [
  "README.md",
  "a#b.txt",
  "q?x.txt",
  "a?b#c.txt",
  "notes:v2.md",
  "back\\slash.txt",
  "C:\\temp.txt",
  "with space.txt",
  "100%.txt",
  "%zz.txt",
  "ünï©ødé ✓.txt",
  "[x]{y}|^`.txt",
  "semi;colon=eq&amp+plus,comma$@!'()*~.txt",
  "dir #1/sub?dir/leaf.txt",
];

/** Names every listing must hold, whatever the workspace layer accepts. */
const MUST_LIST = NAMES.filter((name) => !/[:\\]/.test(name));

/** RFC 6570 reserved expansion (`{+var}`), section 3.2.3. */
function reservedExpand(value: string): string {
  const allowed = /[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]/;
  let out = "";
  const bytes = new TextEncoder().encode(value);
  for (let i = 0; i < bytes.length; i++) {
    const char = String.fromCharCode(bytes[i]);
    const triplet = new TextDecoder().decode(bytes.subarray(i, i + 3));
    if (bytes[i] < 0x80 && allowed.test(char)) out += char;
    else if (/^%[0-9A-Fa-f]{2}$/.test(triplet)) {
      out += triplet; // pct-encoded triplets pass through
      i += 2;
    } else {
      out += "%" + bytes[i].toString(16).toUpperCase().padStart(2, "0");
    }
  }
  return out;
}

Deno.test("reservedExpand: as RFC 6570's examples spell it", () => {
  // RFC 6570 §3.2.3: {+path} with "/foo/bar", {+hello} with "Hello World!"
  assert.equal(reservedExpand("/foo/bar"), "/foo/bar");
  assert.equal(reservedExpand("Hello World!"), "Hello%20World!");
  assert.equal(reservedExpand("a#b?c%41é"), "a#b?c%41%C3%A9");
});

Deno.test({
  name:
    "awkward names: every listed URI, and the template's expansions of every listed name, read back the file",
  ignore: Deno.build.os === "windows",
  async fn() {
    const base = await Deno.realPath(
      await Deno.makeTempDir({ prefix: "names-" }),
    );
    const root = `${base}/root\\with\\backslash`;
    try {
      for (const name of NAMES) {
        const path = `${root}/${name}`;
        await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), {
          recursive: true,
        });
        await Deno.writeTextFile(path, `content of ${name}\n`);
      }
      // A name that is not UTF-8 cannot be listed under a name that reads
      // back; it must not break the listing either.
      await new Deno.Command("sh", {
        args: ["-c", `touch "$(printf 'bad\\377.txt')"`],
        cwd: root,
      }).output();
      const workspace = await Workspace.open(root);
      const readable = async (name: string) =>
        await workspace.resolve(name).then(() => true, () => false);

      const { command, args } = serverCommand(["--root", root]);
      const client = new Client({ name: "names", version: "1" });
      await client.connect(
        new StdioClientTransport({ command, args, stderr: "pipe" }),
      );
      try {
        const listed: { uri: string; name: string }[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listResources(cursor ? { cursor } : {});
          listed.push(...page.resources);
          cursor = page.nextCursor;
        } while (cursor);
        const names = listed.map((r) => r.name);
        for (const name of MUST_LIST) {
          assert.ok(names.includes(name), `${name} is not listed`);
        }
        for (const name of NAMES) {
          // The workspace decides which names it serves; what it serves
          // is listed, and what is listed is served.
          assert.equal(names.includes(name), await readable(name), name);
        }
        const { resourceTemplates } = await client.listResourceTemplates();
        assert.equal(resourceTemplates.length, 1);
        const template = resourceTemplates[0].uriTemplate;
        const sdk = new UriTemplate(template);
        for (const { uri, name } of listed) {
          assert.ok(!name.includes("\uFFFD"), `listed a lossy name: ${name}`);
          const expected = `content of ${name}\n`;
          const uris = [
            uri,
            sdk.expand({ path: name }),
            template.replace("{+path}", reservedExpand(name)),
          ];
          for (const u of uris) {
            const { contents } = await client.readResource({ uri: u });
            assert.equal(
              (contents[0] as { text?: string }).text,
              expected,
              `${name} via ${u}`,
            );
            assert.equal(contents[0].uri, uri, "answered with the listed URI");
          }
        }
      } finally {
        await client.close();
      }
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  },
});
