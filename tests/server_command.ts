/**
 * How tests start the server process. `SHIPCODE_TARGET` picks what runs:
 * `source` (default: `deno run main.ts`), `bundle` (`dist/shipcode-mcp.js`)
 * or `binary` (`dist/shipcode-mcp`), so one suite covers all three.
 *
 * @module
 */

import { fromFileUrl } from "node:url";

/** The project's root directory. */
export const PROJECT_ROOT: string = fromFileUrl(
  new URL("../", import.meta.url),
);

/** Which build of the server the tests run against. */
export type Target = "source" | "bundle" | "binary";

/** The target named by `SHIPCODE_TARGET`, default `source`. */
export function target(): Target {
  const value = Deno.env.get("SHIPCODE_TARGET") ?? "source";
  if (value !== "source" && value !== "bundle" && value !== "binary") {
    throw new Error(
      `SHIPCODE_TARGET must be source, bundle or binary, not "${value}"`,
    );
  }
  return value;
}

/** The command (program and arguments) that starts the server with `args`. */
export function serverCommand(args: string[] = [], which: Target = target()): {
  command: string;
  args: string[];
} {
  switch (which) {
    case "source":
      return {
        command: Deno.execPath(),
        args: [
          "run",
          "--allow-read",
          "--no-prompt",
          `${PROJECT_ROOT}main.ts`,
          ...args,
        ],
      };
    case "bundle":
      return {
        command: Deno.execPath(),
        args: [
          "run",
          "--allow-read",
          "--no-prompt",
          `${PROJECT_ROOT}dist/shipcode-mcp.js`,
          ...args,
        ],
      };
    case "binary":
      return { command: `${PROJECT_ROOT}dist/shipcode-mcp`, args };
  }
}
