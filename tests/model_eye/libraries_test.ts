/**
 * The model-eye matrix's library half: each MCP client library an agent
 * framework is built on starts the server (the bundle) over stdio, makes
 * every case's call the way its users do, and turns the result into what
 * its framework hands the model. Every case must hold for every library,
 * but for the problems a library is known to cause itself (its `known`),
 * which must still be seen.
 *
 * @module
 */

import { fail } from "node:assert/strict";
import { join } from "node:path";
import { LIBRARIES, type LibrarySession } from "./libraries.ts";
import { CASES, charsPerByte, makeWorkspace } from "./cases.ts";
import type { Reading } from "./script.ts";
import {
  PROJECT_ROOT,
  serverCommand,
  targetStatus,
} from "../server_command.ts";

const bundle = targetStatus("bundle");
const readme = await Deno.readFile(join(PROJECT_ROOT, "README.md"));

for (const library of LIBRARIES) {
  Deno.test({
    name: `model eye: ${library.name} (${library.package}@${library.version})`,
    ignore: !bundle.available,
    // The libraries keep timers and child-process handles of their own.
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const workspace = await Deno.makeTempDir({ prefix: "model_eye_lib_" });
      let session: LibrarySession | undefined;
      try {
        await makeWorkspace(workspace);
        session = await library.open(
          serverCommand(["--root", workspace], "bundle"),
        );
        const problems: string[] = [];
        const readings: Reading[] = [];
        for (const c of CASES) {
          let reading: Reading;
          try {
            reading = await session.call(c.call);
          } catch (error) {
            problems.push(`${c.name}: the call failed: ${error}`);
            continue;
          }
          readings.push(reading);
          for (const problem of c.check(reading, readme)) {
            problems.push(`${c.name}: ${problem}`);
          }
          if (c.call.args.path === "README.md") {
            console.log(
              `${library.name}: read_file README.md: ${
                charsPerByte(reading, readme).toFixed(3)
              } model-visible characters per file byte`,
            );
          }
        }
        const known = library.known ?? {};
        const unexpected = problems.filter((p) => !(p in known));
        const gone = Object.keys(known).filter((p) => !problems.includes(p));
        if (unexpected.length > 0 || gone.length > 0) {
          fail(
            `${library.name} ${library.version}:\n  ${
              [
                ...unexpected,
                ...gone.map((p) => `no longer seen (drop it from known): ${p}`),
              ].join("\n  ")
            }\nreadings: ${JSON.stringify(readings, null, 1).slice(0, 4000)}`,
          );
        }
      } finally {
        await session?.close();
        await Deno.remove(workspace, { recursive: true }).catch(() => {});
      }
    },
  });
}
