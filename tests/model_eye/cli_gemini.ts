/**
 * Gemini CLI in the model-eye matrix: `gemini -p` in a fresh HOME whose
 * `~/.gemini/settings.json` picks API-key auth, names the server (stdio or
 * HTTP, trusted so its tools run without confirmation) and turns off
 * telemetry and update checks; the workspace folder is trusted in
 * `~/.gemini/trustedFolders.json`. `GOOGLE_GEMINI_BASE_URL` points the
 * CLI at the Gemini API stand-in in `gemini.ts`.
 *
 * @module
 */

import { join } from "node:path";
import type { Agent, ServerConfig, SessionOutcome } from "./agents.ts";
import { binPath, installPackage } from "./install.ts";
import { geminiHandler } from "./gemini.ts";
import { serveStandIn } from "./stand_in.ts";

/** The name the server is configured under (tools show as `mcp_shipcode_*`). */
const SERVER_NAME = "shipcode";

/** The most of each of stdout and stderr kept in an outcome. */
const OUTPUT_LIMIT = 16_384;

/** The `mcpServers` entry for `server`. */
function serverEntry(server: ServerConfig): Record<string, unknown> {
  const where = server.wire === "stdio"
    ? { command: server.command, args: server.args }
    : { httpUrl: server.url };
  return { ...where, trust: true, timeout: 60_000 };
}

/** The user settings of a session with `server`. */
export function geminiSettings(server: ServerConfig): Record<string, unknown> {
  return {
    general: {
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
    },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    security: {
      auth: { selectedType: "gemini-api-key" },
      folderTrust: { enabled: true },
    },
    mcpServers: { [SERVER_NAME]: serverEntry(server) },
  };
}

function cut(text: string): string {
  return text.length > OUTPUT_LIMIT ? `…${text.slice(-OUTPUT_LIMIT)}` : text;
}

/** Gemini CLI, `@google/gemini-cli`. */
export const geminiCli: Agent = {
  name: "Gemini CLI",
  package: "@google/gemini-cli",
  version: "0.61.0",
  wires: ["stdio", "http"],
  async session(options): Promise<SessionOutcome> {
    const { script, home } = options;
    const dir = await installPackage(this.package, this.version);
    const project = join(home, "project");
    const config = join(home, ".gemini");
    await Deno.mkdir(project, { recursive: true });
    await Deno.mkdir(config, { recursive: true });
    await Deno.writeTextFile(
      join(config, "settings.json"),
      JSON.stringify(geminiSettings(options.server), null, 2),
    );
    await Deno.writeTextFile(
      join(config, "trustedFolders.json"),
      JSON.stringify({ [project]: "TRUST_FOLDER" }, null, 2),
    );
    const standIn = serveStandIn(geminiHandler(script));
    try {
      // setsid: the CLI (which relaunches itself) and the stdio server it
      // spawns share one process group, killed together on a timeout.
      const child = new Deno.Command("setsid", {
        args: [
          binPath(dir, "gemini"),
          "-p",
          "Make the calls you were asked to make.",
        ],
        cwd: project,
        clearEnv: true,
        env: {
          HOME: home,
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          TMPDIR: Deno.env.get("TMPDIR") ?? "/tmp",
          XDG_CONFIG_HOME: join(home, ".config"),
          XDG_CACHE_HOME: join(home, ".cache"),
          GEMINI_API_KEY: "stand-in-key",
          GOOGLE_GEMINI_BASE_URL: standIn.url,
          // The stdio server is Deno, run by the CLI in this fresh HOME:
          // without this it would look up dl.deno.land for a new version.
          DENO_NO_UPDATE_CHECK: "1",
          NO_COLOR: "1",
          TERM: "dumb",
        },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          Deno.kill(-child.pid, "SIGKILL");
        } catch { /* already gone */ }
      }, options.timeoutMs);
      const [status, stdout, stderr] = await Promise.all([
        child.status,
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
      ]).finally(() => clearTimeout(timer));
      const note = timedOut ? `\n[killed after ${options.timeoutMs} ms]` : "";
      return {
        readings: script.readings,
        code: status.code,
        output: `${cut(stdout)}\n--- stderr\n${cut(stderr)}${note}\n--- ` +
          `requests\n${
            standIn.requests.map((r) => r.slice(0, 300)).join("\n")
          }`,
      };
    } finally {
      await standIn.close();
    }
  },
};
