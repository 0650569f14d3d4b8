/**
 * The model-eye matrix: each agent CLI, installed from the npm registry at
 * its pinned version, runs one non-interactive session against a local
 * stand-in for its model's API; the stand-in asks for each workspace tool
 * in turn and records the tool result the CLI hands back, which is exactly
 * what a model would read. Every case must hold for every CLI, over each
 * wire it is run on.
 *
 * @module
 */

import { fail } from "node:assert/strict";
import { join } from "node:path";
import { AGENTS } from "./matrix.ts";
import { CASES, charsPerByte, makeWorkspace } from "./cases.ts";
import { Script } from "./script.ts";
import type { ServerConfig } from "./agents.ts";
import { DENO_RUN_FLAGS } from "../../cli/run_command.ts";
import {
  PROJECT_ROOT,
  serverCommand,
  targetStatus,
} from "../server_command.ts";
import { type ListeningProcess, startListening } from "../process.ts";

const bundle = targetStatus("bundle");
const readme = await Deno.readFile(join(PROJECT_ROOT, "README.md"));

for (const agent of AGENTS) {
  for (const wire of agent.wires) {
    Deno.test({
      name: `model eye: ${agent.name} ${agent.version} over ${wire}`,
      ignore: agent.unavailable !== undefined || !bundle.available,
      sanitizeOps: false,
      sanitizeResources: false,
      async fn() {
        const base = await Deno.makeTempDir({ prefix: "model_eye_" });
        const workspace = join(base, "workspace");
        const home = join(base, "home");
        await makeWorkspace(workspace);
        await Deno.mkdir(home);
        let listening: ListeningProcess | undefined;
        try {
          let server: ServerConfig;
          if (wire === "stdio") {
            // The bundle, as the npm package runs it: it fetches nothing,
            // whatever environment the CLI gives its servers.
            server = {
              wire,
              command: Deno.execPath(),
              args: [
                "run",
                ...DENO_RUN_FLAGS,
                join(PROJECT_ROOT, "dist", "shipcode-mcp.js"),
                "--root",
                workspace,
              ],
            };
          } else {
            // Deno's flags for the bundle, with the network at loopback.
            const { command, args } = serverCommand(
              ["--http", "127.0.0.1:0", "--root", workspace],
              "bundle",
            );
            listening = await startListening({
              command,
              args: ["run", "--allow-net=127.0.0.1", ...args.slice(1)],
            });
            server = { wire, url: listening.url };
          }
          const script = new Script(CASES.map((c) => c.call));
          const outcome = await agent.session({
            server,
            script,
            home,
            timeoutMs: 120_000,
          });
          const problems: string[] = [];
          CASES.forEach((c, i) => {
            const reading = outcome.readings.find((r) => r.call === c.call);
            if (reading === undefined) {
              problems.push(`${c.name}: no tool result reached the model`);
              return;
            }
            for (const problem of c.check(reading, readme)) {
              problems.push(`${c.name}: ${problem}`);
            }
            if (i === CASES.length - 1) {
              console.log(
                `${agent.name} over ${wire}: read_file README.md: ${
                  charsPerByte(reading, readme).toFixed(3)
                } model-visible characters per file byte`,
              );
            }
          });
          if (problems.length > 0) {
            fail(
              `${agent.name} over ${wire}:\n  ${problems.join("\n  ")}\n` +
                `exit code ${outcome.code}; stand-in: ${
                  script.log.join(", ")
                }\nreadings: ${
                  JSON.stringify(script.readings, null, 1).slice(0, 4000)
                }\noutput:\n${outcome.output.slice(-4000)}`,
            );
          }
        } finally {
          await listening?.stop();
          await Deno.remove(base, { recursive: true }).catch(() => {});
        }
      },
    });
  }
}
