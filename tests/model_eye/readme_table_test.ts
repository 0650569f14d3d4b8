/**
 * The README's client table names every client of the model-eye matrix,
 * at the version the matrix pins, and nothing the matrix does not run.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { join } from "node:path";
import { AGENTS } from "./matrix.ts";
import { LIBRARIES } from "./libraries.ts";
import { PROJECT_ROOT } from "../server_command.ts";

Deno.test("README: the client table is the model-eye matrix's", async () => {
  const readme = await Deno.readTextFile(join(PROJECT_ROOT, "README.md"));
  const section = readme.slice(readme.indexOf("## Clients"));
  const rows = section.split("\n").filter((line) => /^\| [^-]/.test(line))
    .slice(1) // the header
    .map((line) => line.split("|").map((cell) => cell.trim()));
  const tabled = rows.map(([, name, version]) => `${name} ${version}`);
  const matrix = [
    ...AGENTS.map((agent) => `${agent.name} ${agent.version}`),
    ...LIBRARIES.map((library) => `\`${library.package}\` ${library.version}`),
  ];
  assert.deepEqual(tabled, matrix);
  for (const agent of AGENTS) {
    assert.equal(agent.unavailable, undefined, `${agent.name} is skipped`);
  }
});
