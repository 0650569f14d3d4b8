/**
 * Qwen Code in the model-eye matrix: its OpenAI-compatible auth pointed at
 * the Chat Completions stand-in, the server in `~/.qwen/settings.json`'s
 * `mcpServers` (trusted, so no confirmation is asked), one headless run of
 * `qwen -p … --yolo`.
 *
 * @module
 */

import { join } from "node:path";
import type { Agent, ServerConfig } from "./agents.ts";
import { binPath, installPackage } from "./install.ts";
import { CHAT_MODEL, chatSession } from "./openai_chat.ts";

const PACKAGE = "@qwen-code/qwen-code";
const VERSION = "0.24.4";

/** The server's entry in Qwen Code's `mcpServers`. */
function serverEntry(server: ServerConfig): Record<string, unknown> {
  return server.wire === "stdio"
    ? {
      command: server.command,
      args: server.args,
      trust: true,
      alwaysLoadTools: true,
    }
    : { httpUrl: server.url, trust: true, alwaysLoadTools: true };
}

/** Qwen Code, `@qwen-code/qwen-code`. */
export const qwenCode: Agent = {
  name: "Qwen Code",
  package: PACKAGE,
  version: VERSION,
  wires: ["stdio", "http"],
  async session(options) {
    const dir = await installPackage(PACKAGE, VERSION);
    const settingsDir = join(options.home, ".qwen");
    await Deno.mkdir(settingsDir, { recursive: true });
    await Deno.writeTextFile(
      join(settingsDir, "settings.json"),
      JSON.stringify(
        {
          security: { auth: { selectedType: "openai" } },
          model: { name: CHAT_MODEL },
          mcpServers: { shipcode: serverEntry(options.server) },
          telemetry: { enabled: false },
          privacy: { usageStatisticsEnabled: false },
          general: { disableAutoUpdate: true, disableUpdateNag: true },
        },
        null,
        2,
      ),
    );
    return chatSession(options, (baseUrl) => ({
      command: binPath(dir, "qwen"),
      args: [
        "--yolo",
        "--auth-type",
        "openai",
        "--model",
        CHAT_MODEL,
        "-p",
        "Make the tool calls you are asked for.",
      ],
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: options.home,
        OPENAI_BASE_URL: baseUrl,
        OPENAI_API_KEY: "stand-in-key",
        OPENAI_MODEL: CHAT_MODEL,
        NO_COLOR: "1",
        NO_PROXY: "127.0.0.1,localhost",
        CI: "1",
      },
      cwd: options.home,
    }));
  },
};
