import { strict as assert } from "node:assert";
import { makeTempWorkspace } from "../tests/tools_fixture.ts";
import { call, callRaw, textOf, toolServer } from "../tests/tools_harness.ts";

Deno.test("tools/call: protocol errors and version-dependent invalid arguments", async () => {
  await using tmp = await makeTempWorkspace();
  const old = await toolServer(tmp.root, { version: "2025-06-18" });
  const unknown = await callRaw(old.server, old.session, "nope", {});
  assert.deepEqual(unknown.error, {
    code: -32602,
    message:
      `Unknown tool: "nope"; call tools/list for the names of this server's tools.`,
    data: { tool: "nope" },
  });
  const invalid = await callRaw(old.server, old.session, "read_file", {
    path: 3,
  });
  const error = invalid.error as {
    code: number;
    message: string;
    data: { errors: { path: string }[] };
  };
  assert.equal(error.code, -32602);
  // The message alone tells a client's user what to fix.
  assert.match(
    error.message,
    /^Invalid arguments for tool read_file: arguments\/path: must be string\./,
  );
  assert.deepEqual(error.data.errors.map((e) => e.path), ["/path"]);
  const notObject = await callRaw(
    old.server,
    old.session,
    "read_file",
    "src/main.ts",
  );
  assert.equal((notObject.error as { code: number }).code, -32602);
  const fresh = await toolServer(tmp.root, { version: "2025-11-25" });
  const soft = await call(fresh.server, fresh.session, "read_file", {
    path: 3,
  });
  assert.equal(soft.isError, true);
  assert.match(textOf(soft), /arguments\/path: must be string/);
});
