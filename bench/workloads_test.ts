import { strict as assert } from "node:assert";
import {
  isNumberedText,
  numberedBytes,
  pickAsciiSource,
  returnsFile,
  WIRE_FILE_MAX_BYTES,
} from "./workloads.ts";
import { call, toolServer } from "../tests/tools_harness.ts";

const FILE = 'const a = "x";\n\nexport { a };\n';

Deno.test("isNumberedText accepts the file with each line numbered", () => {
  assert.ok(isNumberedText('1: const a = "x";\n2: \n3: export { a };\n', FILE));
  assert.ok(
    isNumberedText(
      '     1\tconst a = "x";\n     2\t\n     3\texport { a };',
      FILE,
    ),
  );
  assert.ok(isNumberedText('1→const a = "x";\n2→\n3→export { a };\n', FILE));
});

Deno.test("isNumberedText refuses wrong numbers or other text", () => {
  assert.ok(
    !isNumberedText('1: const a = "x";\n3: \n4: export { a };\n', FILE),
  );
  assert.ok(
    !isNumberedText('1: const a = "y";\n2: \n3: export { a };\n', FILE),
  );
  assert.ok(!isNumberedText('1: const a = "x";\n2: \n', FILE));
  assert.ok(!isNumberedText(FILE, FILE));
});

Deno.test("returnsFile finds the file as text, numbered text or structured lines", () => {
  assert.ok(returnsFile({ content: [{ type: "text", text: FILE }] }, FILE));
  assert.ok(
    returnsFile({
      content: [{ type: "text", text: "{}" }],
      structuredContent: {
        lines: FILE.split("\n").slice(0, -1).map((text, i) => ({
          line: i + 1,
          text,
        })),
      },
    }, FILE),
  );
  assert.ok(
    !returnsFile(
      { content: [{ type: "text", text: FILE }], isError: true },
      FILE,
    ),
  );
  assert.ok(
    !returnsFile({ content: [{ type: "text", text: FILE + "x" }] }, FILE),
  );
});

Deno.test("pickAsciiSource takes the largest ASCII .ts file within the bound", () => {
  const encoder = new TextEncoder();
  const file = (relative: string, text: string) => ({
    relative,
    bytes: encoder.encode(text),
  });
  const files = [
    file("a.ts", "x".repeat(100)),
    file("b.ts", "y".repeat(300)),
    file("c.ts", "é".repeat(200)),
    file("d.md", "z".repeat(400)),
    file("e.ts", "w".repeat(2000)),
    file("f.ts", "v".repeat(300)),
  ];
  assert.equal(pickAsciiSource(files, 1000)?.relative, "b.ts");
  assert.equal(pickAsciiSource(files, 50), undefined);
});

Deno.test("the wire workload's largest file is one read_file answers whole", async () => {
  const root = await Deno.makeTempDir({ prefix: "shipcode-wire-" });
  try {
    // Lines of 60 characters up to the bound, then the same and one more.
    const line = "x".repeat(59) + "\n";
    let text = "";
    while (
      numberedBytes(new TextEncoder().encode(text + line)) <=
        WIRE_FILE_MAX_BYTES
    ) {
      text += line;
    }
    const fits = text + "y".repeat(
      WIRE_FILE_MAX_BYTES - numberedBytes(new TextEncoder().encode(text)),
    );
    assert.equal(
      numberedBytes(new TextEncoder().encode(fits)),
      WIRE_FILE_MAX_BYTES,
    );
    await Deno.writeTextFile(`${root}/fits.ts`, fits);
    // Twice the bound is paged: the check can fail.
    await Deno.writeTextFile(`${root}/over.ts`, fits + fits);
    const { server, session } = await toolServer(root);
    const read = (path: string) => call(server, session, "read_file", { path });
    assert.ok(returnsFile(await read("fits.ts"), fits));
    assert.ok(!returnsFile(await read("over.ts"), fits + fits));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
