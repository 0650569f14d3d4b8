/**
 * How tests start the server process: from source (`deno run main.ts`), as
 * the bundle (`dist/shipcode-mcp.js`) or as the compiled binary
 * (`dist/shipcode-mcp`), so one suite covers all three. Source and bundle
 * run with `cli/run_command.ts`'s `DENO_RUN_FLAGS`, as users run them.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { DENO_RUN_FLAGS } from "../cli/run_command.ts";

/** The project's root directory. */
export const PROJECT_ROOT: string = fileURLToPath(
  new URL("../", import.meta.url),
);

/** Which build of the server the tests run against. */
export type Target = "source" | "bundle" | "binary";

/** The command (program and arguments) that starts the server with `args`. */
export function serverCommand(
  args: string[] = [],
  which: Target = "source",
): {
  command: string;
  args: string[];
} {
  switch (which) {
    case "source":
      return {
        command: Deno.execPath(),
        args: ["run", ...DENO_RUN_FLAGS, `${PROJECT_ROOT}main.ts`, ...args],
      };
    case "bundle":
      return {
        command: Deno.execPath(),
        args: [
          "run",
          ...DENO_RUN_FLAGS,
          `${PROJECT_ROOT}dist/shipcode-mcp.js`,
          ...args,
        ],
      };
    case "binary":
      return { command: binaryPath(), args };
  }
}

/** Every build target, in the order tests run them. */
export const TARGETS: readonly Target[] = ["source", "bundle", "binary"];

function binaryPath(): string {
  const exe = Deno.build.os === "windows" ? ".exe" : "";
  return `${PROJECT_ROOT}dist/shipcode-mcp${exe}`;
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/**
 * Whether `t` can run here: the source always can; the bundle and the
 * binary only once built (`deno task bundle`, `deno task compile`).
 */
export function targetStatus(
  t: Target,
): { available: boolean; reason?: string } {
  switch (t) {
    case "source":
      return { available: true };
    case "bundle": {
      const path = `${PROJECT_ROOT}dist/shipcode-mcp.js`;
      return isFile(path) ? { available: true } : {
        available: false,
        reason: `${path} not built (run deno task bundle)`,
      };
    }
    case "binary": {
      const path = binaryPath();
      if (isFile(path)) return { available: true };
      // scripts/compile.ts --try (run by `deno task test`) leaves the reason
      // a build failed here, e.g. no network to fetch the runtime base.
      let why: string;
      try {
        why = Deno.readTextFileSync(
          `${PROJECT_ROOT}dist/shipcode-mcp.unavailable`,
        ).trim();
      } catch {
        why = "not built (run deno task compile)";
      }
      return { available: false, reason: `${path}: ${why}` };
    }
  }
}
