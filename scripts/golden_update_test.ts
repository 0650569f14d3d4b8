import { strict as assert } from "node:assert";
import { pathToFileURL } from "node:url";
import { GOLDEN } from "../tests/golden.ts";
import { updateGolden } from "./golden_update.ts";

const CASES = ["ping_string_id", "resources_read_text"];

Deno.test("golden:update rewrites a stale .out as the server answers, placeholders kept", async () => {
  const dir = await Deno.makeTempDir({ prefix: "golden-" });
  try {
    const url = pathToFileURL(`${dir}/`);
    for (const name of CASES) {
      for (const ext of [".in", ".out", ".args"]) {
        try {
          await Deno.copyFile(
            new URL(name + ext, GOLDEN),
            new URL(name + ext, url),
          );
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
        }
      }
    }
    const original = await Deno.readTextFile(
      new URL("resources_read_text.out", url),
    );
    assert.ok(original.includes("{{PROJECT_URI}}"));
    await Deno.writeTextFile(
      new URL("resources_read_text.out", url),
      "stale\n",
    );

    assert.deepEqual(await updateGolden([], url), ["resources_read_text"]);
    assert.equal(
      await Deno.readTextFile(new URL("resources_read_text.out", url)),
      original,
    );
    assert.deepEqual(await updateGolden([], url), []);
    await assert.rejects(updateGolden(["no_such_case"], url), /no_such_case/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
