/**
 * Claude Code in the model-eye matrix: the npm package's native binary,
 * pointed at a stand-in for the Anthropic Messages API by
 * `ANTHROPIC_BASE_URL`, told of the server by `claude mcp add` (user
 * scope, in a HOME of its own), and run once with `claude -p`, the
 * server's tools allowed by `--allowedTools mcp__shipcode`.
 *
 * With `SHIPCODE_MODEL_EYE_DUMP` set to a directory, every request body the
 * stand-in sees is written there in full (`claude-WIRE/NNN_path.json`), to
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
import { anthropicHandler } from "./anthropic.ts";
import { binPath, installPackage } from "./install.ts";
import { serveStandIn } from "./stand_in.ts";

/** The name the server is added under (tools show as `mcp__shipcode__…`). */
export const SERVER_NAME = "shipcode";

/** The prompt of the session; the stand-in model does not read it. */
const PROMPT = "Use the shipcode tools on this workspace.";

/** How much of the CLI's output a session keeps. */
const OUTPUT_LIMIT = 16_000;

/**
 * The environment Claude Code runs in: only these variables, so nothing of
 * the caller's (a real key, a proxy, a config dir) leaks in.
 */
export function claudeEnv(
  home: string,
  apiUrl: string,
): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: home,
    USER: Deno.env.get("USER") ?? "model-eye",
    TMPDIR: join(home, "tmp"),
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    TERM: "dumb",
    NO_COLOR: "1",
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: "sk-ant-model-eye-stand-in",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_BUG_COMMAND: "1",
    DISABLE_NON_ESSENTIAL_MODEL_CALLS: "1",
    CLAUDE_CODE_DISABLE_TERMINAL_TITLE: "1",
    // MCP tools up front: deferred behind ToolSearch, the stand-in model
    // would have to load them first.
    ENABLE_TOOL_SEARCH: "false",
    MCP_TIMEOUT: "60000",
  };
}

/** The `claude mcp add` arguments that tell Claude Code of `server`. */
export function mcpAddArgs(server: ServerConfig): string[] {
  const head = ["mcp", "add", "--scope", "user"];
  return server.wire === "stdio"
    ? [...head, SERVER_NAME, "--", server.command, ...server.args]
    : [...head, "--transport", "http", SERVER_NAME, server.url];
}

const decoder = new TextDecoder();

async function run(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number; output: string }> {
  const child = new Deno.Command(command, {
    args,
    env,
    clearEnv: true,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }, timeoutMs);
  try {
    const { code, stdout, stderr } = await child.output();
    const output = `${decoder.decode(stdout)}${decoder.decode(stderr)}${
      timedOut ? `\n[killed after ${timeoutMs} ms]` : ""
    }`;
    return { code, output };
  } finally {
    clearTimeout(timer);
  }
}

async function session(options: SessionOptions): Promise<SessionOutcome> {
  const dir = await installPackage(claudeCode.package, claudeCode.version);
  const claude = binPath(dir, "claude");
  const handle = anthropicHandler(options.script);
  const dump = Deno.env.get("SHIPCODE_MODEL_EYE_DUMP");
  let seen = 0;
  const standIn = serveStandIn(async (request, body) => {
    if (dump) {
      const name = new URL(request.url).pathname.replaceAll(/\W+/g, "_");
      const into = join(dump, `claude-${options.server.wire}`);
      await Deno.mkdir(into, { recursive: true });
      await Deno.writeTextFile(
        join(into, `${String(++seen).padStart(3, "0")}${name}.json`),
        body,
      );
    }
    return handle(request, body);
  });
  try {
    const env = claudeEnv(options.home, standIn.url);
    await Deno.mkdir(env.TMPDIR, { recursive: true });
    const deadline = Date.now() + options.timeoutMs;
    const added = await run(
      claude,
      mcpAddArgs(options.server),
      env,
      options.home,
      options.timeoutMs,
    );
    if (added.code !== 0) {
      return {
        readings: options.script.readings,
        code: added.code,
        output: `claude mcp add failed:\n${added.output}`.slice(
          0,
          OUTPUT_LIMIT,
        ),
      };
    }
    const { code, output } = await run(
      claude,
      [
        "-p",
        PROMPT,
        "--allowedTools",
        `mcp__${SERVER_NAME}`,
        "--output-format",
        "text",
      ],
      env,
      options.home,
      Math.max(deadline - Date.now(), 1),
    );
    return {
      readings: options.script.readings,
      code,
      output: output.slice(-OUTPUT_LIMIT),
    };
  } finally {
    await standIn.close();
  }
}

/** Claude Code, `@anthropic-ai/claude-code`. */
export const claudeCode: Agent = {
  name: "Claude Code",
  package: "@anthropic-ai/claude-code",
  version: "2.1.328",
  wires: ["stdio", "http"],
  session,
};
