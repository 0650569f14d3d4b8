/**
 * Copilot CLI in the model-eye matrix: offline mode (`COPILOT_OFFLINE`:
 * no GitHub sign-in, telemetry or update) with a custom OpenAI-compatible
 * provider (`COPILOT_PROVIDER_*`, Chat Completions wire) pointed at the
 * stand-in, the server in `~/.copilot/mcp-config.json` (`local` for stdio,
 * `http` for HTTP), one `copilot -p … --allow-all-tools`.
 *
 * @module
 */

import { join } from "node:path";
import type { Agent, ServerConfig } from "./agents.ts";
import { binPath, cacheDir, installPackage } from "./install.ts";
import { CHAT_MODEL, chatSession } from "./openai_chat.ts";

const PACKAGE = "@github/copilot";
const VERSION = "1.0.102";

/** The server's entry in Copilot CLI's `mcpServers`. */
function serverEntry(server: ServerConfig): Record<string, unknown> {
  return server.wire === "stdio"
    ? {
      type: "local",
      command: server.command,
      args: server.args,
      tools: ["*"],
    }
    : { type: "http", url: server.url, tools: ["*"] };
}

/** Copilot CLI, `@github/copilot`. */
export const copilotCli: Agent = {
  name: "Copilot CLI",
  package: PACKAGE,
  version: VERSION,
  wires: ["stdio", "http"],
  async session(options) {
    const dir = await installPackage(PACKAGE, VERSION);
    const configDir = join(options.home, ".copilot");
    await Deno.mkdir(configDir, { recursive: true });
    await Deno.writeTextFile(
      join(configDir, "mcp-config.json"),
      JSON.stringify(
        { mcpServers: { shipcode: serverEntry(options.server) } },
        null,
        2,
      ),
    );
    const cwd = join(options.home, "project");
    await Deno.mkdir(cwd, { recursive: true });
    // Large tool results are saved under TMPDIR: keep them in the run's.
    const tmp = join(options.home, "tmp");
    await Deno.mkdir(tmp, { recursive: true });
    return chatSession(options, (baseUrl) => ({
      command: binPath(dir, "copilot"),
      args: [
        "-p",
        "Make the tool calls you are asked for.",
        "--allow-all-tools",
        "--no-ask-user",
        "--no-auto-update",
        "--disable-builtin-mcps",
        "--no-color",
      ],
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: options.home,
        TMPDIR: tmp,
        // The binary unpacks its runtime (~200 MB) into the cache on
        // first run: keep it with the installed CLIs, not in each HOME.
        XDG_CACHE_HOME: join(cacheDir(), "copilot-cache"),
        COPILOT_OFFLINE: "true",
        COPILOT_AUTO_UPDATE: "false",
        COPILOT_PROVIDER_TYPE: "openai",
        COPILOT_PROVIDER_BASE_URL: baseUrl,
        COPILOT_PROVIDER_API_KEY: "stand-in-key",
        COPILOT_PROVIDER_WIRE_API: "completions",
        COPILOT_MODEL: CHAT_MODEL,
        NO_COLOR: "1",
        NO_PROXY: "127.0.0.1,localhost",
      },
      cwd,
    }));
  },
};
