/**
 * What `shipcode-mcp config <client>` prints, taken back apart into the
 * command the client would spawn, and that command run the way a client
 * runs it: from another directory, with the official SDK client
 * (initialize, then tools/list). For the tests of each way to install the
 * server (`tests/install_test.ts`, `tests/npm_package_test.ts`).
 *
 * @module
 */

import { type Client as ClientName, CLIENTS } from "../cli/config.ts";
import { Client, StdioClientTransport } from "./sdk.ts";

/** A program and its arguments, as a client spawns them. */
export interface SnippetCommand {
  /** The program. */
  command: string;
  /** Its arguments. */
  args: string[];
}

/** Split a POSIX shell line written by `shellQuote` into its words. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (char === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (char === '"') {
      const end = line.indexOf('"', i + 1);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? "") + char;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The stdio command in `client`'s configuration text `text`. */
export function snippetCommand(
  client: ClientName,
  text: string,
): SnippetCommand {
  if (client === "claude-code") {
    const words = shellWords(text.trim());
    const at = words.indexOf("--");
    return { command: words[at + 1], args: words.slice(at + 2) };
  }
  const parsed = JSON.parse(text);
  const entry = client === "vscode"
    ? parsed.servers.shipcode
    : parsed.mcpServers.shipcode;
  return { command: entry.command, args: entry.args };
}

/**
 * For every client `config` knows: run `config` with `configCommand` and
 * the client's name (and `--root root`), take the command out of what it
 * prints, run that from `elsewhere` with `env`, and return the tools it
 * lists (or throw, saying which client's snippet failed).
 */
export async function checkEverySnippet(
  configCommand: SnippetCommand & { cwd?: string },
  root: string,
  elsewhere: string,
  env: Record<string, string>,
): Promise<Map<ClientName, { command: SnippetCommand; tools: string[] }>> {
  const results = new Map<
    ClientName,
    { command: SnippetCommand; tools: string[] }
  >();
  for (const client of CLIENTS) {
    const out = await new Deno.Command(configCommand.command, {
      args: [...configCommand.args, "config", client, "--root", root],
      cwd: configCommand.cwd,
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    if (!out.success) {
      throw new Error(
        `config ${client} failed: ${new TextDecoder().decode(out.stderr)}`,
      );
    }
    const command = snippetCommand(client, text);
    const sdk = new Client({ name: "snippet-check", version: "1.0.0" });
    const transport = new StdioClientTransport({
      command: command.command,
      args: command.args,
      cwd: elsewhere,
      env,
      stderr: "pipe",
    });
    try {
      await sdk.connect(transport);
      const { tools } = await sdk.listTools();
      results.set(client, {
        command,
        tools: tools.map((tool: { name: string }) => tool.name),
      });
    } catch (error) {
      throw new Error(
        `${client}'s snippet (${command.command} ${
          command.args.join(" ")
        }) did not serve from ${elsewhere}: ${(error as Error).message}`,
      );
    } finally {
      await sdk.close();
    }
  }
  return results;
}
