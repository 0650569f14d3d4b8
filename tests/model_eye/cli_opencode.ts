/**
 * opencode in the model-eye matrix: a custom provider (`@ai-sdk/openai-
 * compatible`, bundled in opencode's binary) pointed at the Chat Completions
 * stand-in, the server in `opencode.json`'s `mcp` (`local` for stdio,
 * `remote` for HTTP), one `opencode run` with every permission allowed.
 *
 * @module
 */

import { join } from "node:path";
import type { Agent, ServerConfig } from "./agents.ts";
import { binPath, installPackage } from "./install.ts";
import { CHAT_MODEL, chatSession } from "./openai_chat.ts";

const PACKAGE = "opencode-ai";
const VERSION = "1.18.33";

/** The server's entry in opencode's `mcp`. */
function serverEntry(server: ServerConfig): Record<string, unknown> {
  return server.wire === "stdio"
    ? {
      type: "local",
      command: [server.command, ...server.args],
      enabled: true,
    }
    : { type: "remote", url: server.url, enabled: true };
}

/** opencode, `opencode-ai`. */
export const opencode: Agent = {
  name: "opencode",
  package: PACKAGE,
  version: VERSION,
  wires: ["stdio", "http"],
  async session(options) {
    const dir = await installPackage(PACKAGE, VERSION);
    const configFile = join(
      options.home,
      ".config",
      "opencode",
      "opencode.json",
    );
    await Deno.mkdir(join(options.home, ".config", "opencode"), {
      recursive: true,
    });
    // Not HOME itself: opencode's file picker refuses to index a home.
    const cwd = join(options.home, "project");
    await Deno.mkdir(cwd, { recursive: true });
    return chatSession(options, async (baseUrl) => {
      await Deno.writeTextFile(
        configFile,
        JSON.stringify(
          {
            $schema: "https://opencode.ai/config.json",
            provider: {
              standin: {
                npm: "@ai-sdk/openai-compatible",
                name: "Stand-in",
                options: { baseURL: baseUrl, apiKey: "stand-in-key" },
                models: {
                  [CHAT_MODEL]: { name: "Stand-in model", tool_call: true },
                },
              },
            },
            model: `standin/${CHAT_MODEL}`,
            small_model: `standin/${CHAT_MODEL}`,
            mcp: { shipcode: serverEntry(options.server) },
            permission: { "*": "allow" },
            autoupdate: false,
            share: "disabled",
          },
          null,
          2,
        ),
      );
      return {
        command: binPath(dir, "opencode"),
        args: [
          "run",
          "--model",
          `standin/${CHAT_MODEL}`,
          "--print-logs",
          "Make the tool calls you are asked for.",
        ],
        env: {
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          HOME: options.home,
          XDG_CONFIG_HOME: join(options.home, ".config"),
          XDG_DATA_HOME: join(options.home, ".local", "share"),
          XDG_CACHE_HOME: join(options.home, ".cache"),
          XDG_STATE_HOME: join(options.home, ".local", "state"),
          OPENCODE_DISABLE_AUTOUPDATE: "1",
          OPENCODE_DISABLE_MODELS_FETCH: "1",
          OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
          NO_COLOR: "1",
          NO_PROXY: "127.0.0.1,localhost",
        },
        cwd,
      };
    });
  },
};
