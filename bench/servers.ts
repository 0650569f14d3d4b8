/**
 * The servers the bench compares. Each entry knows how to start its server,
 * or says why it cannot run on this machine (it is then left out, visibly).
 *
 * @module
 */

import { PERMISSION_FLAGS } from "../cli/run_command.ts";
import { PROJECT_ROOT, serverCommand } from "../tests/server_command.ts";
import type { CommandSpec } from "./process.ts";

/** One server under measurement. */
export interface Server {
  /** Short name used in tables, targets and `--servers`. */
  name: string;
  /** What it is, for the table's legend. */
  description: string;
  /** The command that starts it, or the reason it cannot run here. */
  prepare(): Promise<CommandSpec | string>;
  /** The only workloads it runs (by key); default: all. */
  workloads?: readonly string[];
}

/**
 * The npm package's launcher (`deno task pack` builds it in
 * `dist/npm/package/`), on the very Deno the other rows run on, which must
 * then be the `deno` npm package: it is linked in as the package's
 * dependency. Start-up only: past it, the launcher is out of the way.
 */
async function npmLauncher(): Promise<CommandSpec | string> {
  const pkg = `${PROJECT_ROOT}dist/npm/package/`;
  const launcher = `${pkg}bin/shipcode-mcp.cjs`;
  if (!await exists(launcher)) {
    return "dist/npm/package not built (deno task pack)";
  }
  const deno = (await Deno.realPath(Deno.execPath())).replace(/\/[^/]+$/, "");
  try {
    const json = JSON.parse(await Deno.readTextFile(`${deno}/package.json`));
    if (json.name !== "deno") throw new Error("not the deno package");
  } catch {
    return `this Deno (${deno}) is not the deno npm package the launcher runs`;
  }
  await Deno.mkdir(`${pkg}node_modules`, { recursive: true });
  await Deno.remove(`${pkg}node_modules/deno`).catch(() => {});
  await Deno.symlink(deno, `${pkg}node_modules/deno`);
  return { command: "node", args: [launcher], cwd: PROJECT_ROOT };
}

/** The SDK version compared against (the one the project depends on). */
export const SDK_VERSION = "1.32.2";

/** Where the Node copy of the SDK is installed (git-ignored, kept between runs). */
export const SDK_NODE_DIR = `${PROJECT_ROOT}.bench/sdk-node`;

/** The SDK server script (stdio, or Streamable HTTP with `--http PORT`). */
export const SDK_SERVER = `${PROJECT_ROOT}bench/sdk_server.mjs`;

/**
 * The import map Deno runs the SDK server with: the SDK and the zod it
 * resolves to in deno.lock. Given with `--no-config`, so that the run
 * neither reads nor writes the project's deno.json and deno.lock (zod is
 * not one of the project's own imports).
 */
export const SDK_DENO_IMPORTS = `${PROJECT_ROOT}bench/sdk_deno_imports.json`;

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

async function nodeVersion(): Promise<string | undefined> {
  try {
    const out = await new Deno.Command("node", {
      args: ["--version"],
      stdout: "piped",
      stderr: "null",
    }).output();
    return out.success
      ? new TextDecoder().decode(out.stdout).trim()
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Install the SDK for Node into {@linkcode SDK_NODE_DIR} unless the right
 * version is there already, and put the SDK server script beside it so that
 * Node resolves the package from that `node_modules`.
 */
export async function prepareSdkForNode(): Promise<string | undefined> {
  const manifest =
    `${SDK_NODE_DIR}/node_modules/@modelcontextprotocol/sdk/package.json`;
  let installed: string | undefined;
  try {
    installed = JSON.parse(await Deno.readTextFile(manifest)).version;
  } catch {
    installed = undefined;
  }
  if (installed !== SDK_VERSION) {
    console.error(
      `bench: installing @modelcontextprotocol/sdk@${SDK_VERSION} for Node into ${SDK_NODE_DIR}`,
    );
    await Deno.mkdir(SDK_NODE_DIR, { recursive: true });
    let out;
    try {
      out = await new Deno.Command("npm", {
        args: [
          "install",
          "--no-save",
          "--no-audit",
          "--no-fund",
          "--prefix",
          SDK_NODE_DIR,
          `@modelcontextprotocol/sdk@${SDK_VERSION}`,
        ],
        stdout: "null",
        stderr: "piped",
      }).output();
    } catch (error) {
      return `npm is not available (${(error as Error).message})`;
    }
    if (!out.success) {
      return `npm install failed: ${new TextDecoder().decode(out.stderr)}`;
    }
  }
  await Deno.copyFile(SDK_SERVER, `${SDK_NODE_DIR}/sdk_server.mjs`);
  await Deno.copyFile(
    `${PROJECT_ROOT}bench/one_drain_listener.mjs`,
    `${SDK_NODE_DIR}/one_drain_listener.mjs`,
  );
  return undefined;
}

/**
 * The SDK's server (`sdk_server.mjs`) on Node with `args`, or why it
 * cannot run here (no Node, or its packages could not be installed).
 */
export async function sdkOnNode(args: string[]): Promise<CommandSpec | string> {
  if (await nodeVersion() === undefined) return "node is not on PATH";
  const problem = await prepareSdkForNode();
  if (problem !== undefined) return problem;
  return {
    command: "node",
    args: [`${SDK_NODE_DIR}/sdk_server.mjs`, ...args],
    cwd: PROJECT_ROOT,
  };
}

/**
 * The SDK's server on Deno with `args`, reading files and its environment,
 * plus `permissions` (say `--allow-net=127.0.0.1`).
 */
export function sdkOnDeno(
  args: string[],
  permissions: string[] = [],
): CommandSpec {
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--no-config",
      "--import-map",
      SDK_DENO_IMPORTS,
      "--allow-read",
      "--allow-env",
      ...permissions,
      "--no-prompt",
      SDK_SERVER,
      ...args,
    ],
    cwd: PROJECT_ROOT,
  };
}

/** Every server the bench knows, in table order. */
export const SERVERS: readonly Server[] = [
  {
    name: "ours",
    description: "shipcode-mcp: deno run <DENO_RUN_FLAGS> main.ts",
    prepare: () =>
      Promise.resolve({ ...serverCommand([], "source"), cwd: PROJECT_ROOT }),
  },
  {
    name: "bundle",
    description:
      "shipcode-mcp bundle: deno run <DENO_RUN_FLAGS> dist/shipcode-mcp.js",
    prepare: async () =>
      await exists(`${PROJECT_ROOT}dist/shipcode-mcp.js`)
        ? { ...serverCommand([], "bundle"), cwd: PROJECT_ROOT }
        : "dist/shipcode-mcp.js not built (deno task bundle)",
  },
  {
    name: "npm",
    description:
      "npm package: node bin/shipcode-mcp.cjs (dist/npm/package), the bundle on the same deno",
    prepare: npmLauncher,
    workloads: ["startup"],
  },
  {
    name: "floor",
    description: "bench/floor.ts: minimal Deno read-parse-answer loop",
    prepare: () =>
      Promise.resolve({
        command: Deno.execPath(),
        args: [
          "run",
          // The server's own permissions, so the floor starts alike.
          ...PERMISSION_FLAGS,
          `${PROJECT_ROOT}bench/floor.ts`,
        ],
        cwd: PROJECT_ROOT,
      }),
  },
  {
    name: "sdk-node",
    description:
      `official SDK ${SDK_VERSION} (McpServer + StdioServerTransport) on Node`,
    prepare: () => sdkOnNode([]),
  },
  {
    name: "sdk-deno",
    description:
      `official SDK ${SDK_VERSION} (McpServer + StdioServerTransport) on Deno`,
    prepare: () => Promise.resolve(sdkOnDeno([])),
  },
];
