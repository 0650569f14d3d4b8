/**
 * What the user runs to start the server, so that `--help`, flag errors
 * and `config` name a command that works for them: the npm package's
 * launcher (`shipcode-mcp`, or `npx shipcode-mcp`), the command `deno task
 * install` puts on the PATH, or `deno task start` in the clone.
 *
 * Each of those passes a hint as the server's first argument,
 * `--invocation=NAME` or `--invocation=JSON` (an {@linkcode Invocation}),
 * which {@linkcode takeInvocation} takes off before the flags are parsed.
 * An argument rather than an environment variable: the server may read no
 * variable it was not granted, and `deno install` bakes arguments, not
 * variables, into the command it writes.
 *
 * @module
 */

import { parseFlags, UsageError } from "./flags.ts";
import { permissionFlags, V8_FLAGS_ARG } from "./run_command.ts";

/** The hint's flag: `--invocation=NAME` or `--invocation=JSON`. */
export const INVOCATION_FLAG = "--invocation";

/** The program's own name, used when no hint says otherwise. */
export const PROGRAM_NAME = "shipcode-mcp";

/** How the user started the server. */
export interface Invocation {
  /** What `--help` and errors call the program: `npx shipcode-mcp`. */
  name: string;
  /**
   * A command line (an absolute program, or `npx`, and its first
   * arguments) that starts this server from any directory; the server's
   * own flags follow it. Left out: `config` prints `deno run` of the
   * entry script.
   */
  command?: string[];
  /**
   * Whether {@linkcode command} runs with the stdio permissions only (a
   * `deno install`ed command): `config` then uses it only for servers that
   * need no more. Else it derives them from the flags (the npm launcher).
   */
  fixedPermissions?: boolean;
}

/** The invocation when no hint is given. */
export const DEFAULT_INVOCATION: Invocation = { name: PROGRAM_NAME };

/** The hint argument that says `invocation`. */
export function invocationArg(invocation: Invocation): string {
  return invocation.command === undefined &&
      invocation.fixedPermissions === undefined
    ? `${INVOCATION_FLAG}=${invocation.name}`
    : `${INVOCATION_FLAG}=${JSON.stringify(invocation)}`;
}

function parseHint(value: string): Invocation {
  if (!value.startsWith("{")) {
    return value.trim() === "" ? DEFAULT_INVOCATION : { name: value };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return DEFAULT_INVOCATION;
  }
  if (typeof parsed !== "object" || parsed === null) return DEFAULT_INVOCATION;
  const { name, command, fixedPermissions } = parsed as Record<
    string,
    unknown
  >;
  const invocation: Invocation = {
    name: typeof name === "string" && name.trim() !== "" ? name : PROGRAM_NAME,
  };
  if (
    Array.isArray(command) && command.length > 0 &&
    command.every((word) => typeof word === "string" && word !== "")
  ) invocation.command = command;
  if (typeof fixedPermissions === "boolean") {
    invocation.fixedPermissions = fixedPermissions;
  }
  return invocation;
}

/**
 * The invocation hint at the start of `args`, if any, and the arguments
 * that follow it (the user's). Only a first argument is a hint: one the
 * user writes among their flags stays a flag (and is refused as unknown).
 */
export function takeInvocation(
  args: readonly string[],
): { invocation: Invocation; args: string[] } {
  const first = args[0];
  if (first === undefined || !first.startsWith(`${INVOCATION_FLAG}=`)) {
    return { invocation: DEFAULT_INVOCATION, args: [...args] };
  }
  return {
    invocation: parseHint(first.slice(INVOCATION_FLAG.length + 1)),
    args: args.slice(1),
  };
}

/**
 * `text` (help, an error, a hint), written with the program's own name, as
 * the user runs it: `shipcode-mcp` followed by `--…`, `config` or
 * `[flags]` is a command to type and becomes `name`; the name in `shipcode-mcp:
 * …` or `shipcode-mcp 1.0.0` stays. Where the command starts a column of
 * the help's usage lines, the padding after it shrinks to keep the column.
 */
export function renameCommand(text: string, name: string): string {
  if (name === PROGRAM_NAME) return text;
  const grow = name.length - PROGRAM_NAME.length;
  return text.split("\n").map((line) => {
    const match = /^( +)shipcode-mcp( \S.*?)( {2,})(\S.*)$/.exec(line);
    if (match !== null && grow > 0 && match[3].length > grow + 1) {
      return `${match[1]}${name}${match[2]}${
        " ".repeat(match[3].length - grow)
      }${match[4]}`;
    }
    return line.replace(
      /shipcode-mcp(?= (?:--|config\b|\[flags\]))/g,
      name,
    );
  }).join("\n");
}

/**
 * The flags of `deno run` that serve `args` (the user's arguments): the
 * permissions those flags need ({@linkcode permissionFlags}: the network
 * with `--http`, the token's and the key's variables) and the V8 flags,
 * exactly as `config` and `deno task serve` give them. Arguments that do
 * not parse, and commands other than serving, get stdio's permissions; the
 * server then says what is wrong. The npm launcher runs this (bundled).
 */
export function serveFlags(args: readonly string[], cwd: string): string[] {
  let needs = { http: "", authTokenEnv: "", stateKeyEnv: "" };
  try {
    const command = parseFlags([...args], cwd);
    if (command.kind === "serve") needs = command.config;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
  }
  return [...permissionFlags(needs), V8_FLAGS_ARG];
}
