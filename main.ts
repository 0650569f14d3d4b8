/**
 * `shipcode-mcp`: an MCP server for a read-only code workspace, on stdio.
 *
 * @module
 */

import { parseFlags, UsageError } from "./cli/flags.ts";
import { helpText, VERSION } from "./cli/help.ts";
import { createShipcodeServer } from "./app.ts";
import { serveStdio } from "./mcp/transports/stdio.ts";

async function main(args: string[]): Promise<number> {
  let command;
  try {
    command = parseFlags(args, Deno.cwd());
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`shipcode-mcp: ${error.message}`);
    return 2;
  }
  switch (command.kind) {
    case "help":
      await Deno.stdout.write(new TextEncoder().encode(helpText()));
      return 0;
    case "version":
      await Deno.stdout.write(
        new TextEncoder().encode(`shipcode-mcp ${VERSION}\n`),
      );
      return 0;
    case "config":
      console.error("shipcode-mcp: the config command is not built yet.");
      return 2;
    case "serve": {
      const server = createShipcodeServer(command.config);
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      for (const signal of ["SIGINT", "SIGTERM"] as const) {
        try {
          Deno.addSignalListener(signal, onSignal);
        } catch {
          // Not every platform has every signal (Windows lacks SIGTERM).
        }
      }
      await serveStdio(server, {
        maxLineBytes: command.config.maxLineBytes,
        signal: stop.signal,
      });
      return 0;
    }
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
