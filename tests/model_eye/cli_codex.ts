/**
 * Codex CLI in the model-eye matrix: `codex exec`, configured in a
 * `CODEX_HOME` of its own (a `config.toml` naming a model provider that
 * speaks the Responses API to the stand-in, {@linkcode responsesHandler},
 * and the server under `[mcp_servers.shipcode]`), run once under a cleared
 * environment.
 *
 * The model is one Codex does not know ("stand-in"), so it runs on its
 * fallback model metadata: the server's tools are offered directly, as
 * the function tools of a namespace `mcp__shipcode`. (For the models in
 * its catalog, 0.171.0 hides MCP tools behind `tool_search`, or, for the
 * newest, offers them only to JavaScript run by its code-mode `exec`
 * tool.) The tool-output budget is set to the catalog models' own.
 *
 * With `SHIPCODE_MODEL_EYE_DUMP` set to a directory, every request body the
 * stand-in sees is written there in full (`codex-WIRE/NNN_path.json`), to
 * check what the CLI hands its model.
 *
 * @module
 */

import { join } from "node:path";
import type {
  Agent,
  ServerConfig,
  SessionOptions,
  SessionOutcome,
} from "./agents.ts";
import { binPath, installPackage } from "./install.ts";
import { responsesHandler } from "./openai_responses.ts";
import { cliOutcome, serveStandIn } from "./stand_in.ts";

/** The server's name in Codex's configuration. */
const SERVER_NAME = "shipcode";

/** The environment variable the provider's (dummy) API key is read from. */
const KEY_ENV = "SHIPCODE_STAND_IN_KEY";

/** The prompt; the stand-in plays its script whatever it says. */
const PROMPT = "Make the calls.";

/** A TOML basic string (JSON's escapes are TOML's). */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

/**
 * `$CODEX_HOME/config.toml` for a session whose model API is at
 * `baseUrl` (e.g. `http://127.0.0.1:PORT/v1`) and whose server is
 * `server`: stdio as `command`/`args`, HTTP as a streamable-HTTP `url`.
 * Approvals are never asked for (the server's tools are read-only, which
 * Codex runs without asking in any case) and shell commands stay in the
 * read-only sandbox.
 */
export function codexConfig(baseUrl: string, server: ServerConfig): string {
  const mcp = server.wire === "stdio"
    ? [
      `command = ${tomlString(server.command)}`,
      `args = [${server.args.map(tomlString).join(", ")}]`,
    ]
    : [`url = ${tomlString(server.url)}`];
  return [
    `model = "stand-in"`,
    `model_provider = "stand_in"`,
    `approval_policy = "never"`,
    `sandbox_mode = "read-only"`,
    // The tool-output budget of the models in Codex's catalog
    // (`truncation_policy` 10000 tokens); an unknown model's fallback
    // metadata would cut a result to its first and last ~6000 characters.
    `tool_output_token_limit = 10000`,
    ``,
    `[model_providers.stand_in]`,
    `name = "stand-in"`,
    `base_url = ${tomlString(baseUrl)}`,
    `wire_api = "responses"`,
    `env_key = ${tomlString(KEY_ENV)}`,
    ``,
    // No plugin sync (git and HTTP to GitHub, chatgpt.com), no ChatGPT
    // apps, no analytics: the session reaches loopback alone.
    `[features]`,
    `plugins = false`,
    `apps = false`,
    ``,
    `[analytics]`,
    `enabled = false`,
    ``,
    `[mcp_servers.${SERVER_NAME}]`,
    ...mcp,
    ``,
  ].join("\n");
}

/** The stand-in's handler, keeping every body under `dump` when set. */
function dumping(
  handle: (request: Request, body: string) => Response,
  dump: string | undefined,
): (request: Request, body: string) => Promise<Response> {
  let seen = 0;
  return async (request, body) => {
    if (dump !== undefined) {
      const name = new URL(request.url).pathname.replaceAll(/\W+/g, "_");
      await Deno.mkdir(dump, { recursive: true });
      await Deno.writeTextFile(
        join(dump, `${String(++seen).padStart(3, "0")}${name}.json`),
        body,
      );
    }
    return handle(request, body);
  };
}

async function session(options: SessionOptions): Promise<SessionOutcome> {
  const dir = await installPackage(codex.package, codex.version);
  const codexHome = join(options.home, ".codex");
  await Deno.mkdir(codexHome, { recursive: true });
  const dump = Deno.env.get("SHIPCODE_MODEL_EYE_DUMP");
  const standIn = serveStandIn(
    dumping(
      responsesHandler(options.script),
      dump ? join(dump, `codex-${options.server.wire}`) : undefined,
    ),
  );
  try {
    await Deno.writeTextFile(
      join(codexHome, "config.toml"),
      codexConfig(`${standIn.url}/v1`, options.server),
    );
    const child = new Deno.Command(binPath(dir, "codex"), {
      args: ["exec", "--skip-git-repo-check", "--color", "never", PROMPT],
      cwd: options.home,
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: options.home,
        CODEX_HOME: codexHome,
        [KEY_ENV]: "stand-in-key",
        // Its warnings, less the one repeated per request about the
        // model's unknown metadata.
        RUST_LOG: "warn,codex_models_manager=error",
        NO_COLOR: "1",
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    return await cliOutcome(
      child,
      standIn,
      options.script.readings,
      options.timeoutMs,
    );
  } finally {
    await standIn.close();
  }
}

/** Codex CLI, `@openai/codex` (its native binary an optional dependency). */
export const codex: Agent = {
  name: "Codex CLI",
  package: "@openai/codex",
  version: "0.171.0",
  wires: ["stdio", "http"],
  session,
};
