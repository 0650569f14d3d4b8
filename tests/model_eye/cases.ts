/**
 * The model-eye cases: a small workspace, the calls the stand-in model
 * makes in it, and what the model must read back for each.
 *
 * @module
 */

import { join } from "node:path";
import type { Call, Reading } from "./script.ts";
import { PROJECT_ROOT } from "../server_command.ts";

/** The fixture's first file, 34 bytes, two lines. */
export const ALPHA = "alpha line one\nBETA_MARK line two\n";

/** Fill `dir` with the workspace the calls run in. */
export async function makeWorkspace(dir: string): Promise<void> {
  await Deno.mkdir(join(dir, "src"), { recursive: true });
  await Deno.writeTextFile(join(dir, "alpha.txt"), ALPHA);
  await Deno.writeTextFile(
    join(dir, "src", "main.ts"),
    'export const x = 1;\n\n/** Says hello. */\nexport function greet(name: string): string {\n  return "hi " + name;\n}\n',
  );
  await Deno.copyFile(join(PROJECT_ROOT, "README.md"), join(dir, "README.md"));
}

/** One case: the call and what its reading must show. */
export interface Case {
  /** A short name for messages. */
  name: string;
  /** The call. */
  call: Call;
  /**
   * What must hold of the reading; returns the problems (empty: it holds).
   * `readme` is the repository README's bytes, for the size check.
   */
  check(reading: Reading, readme: Uint8Array): string[];
}

/** Most model-visible characters per file byte for `read_file`. */
export const MAX_CHARS_PER_BYTE = 1.3;

function contains(reading: Reading, ...parts: string[]): string[] {
  return parts.filter((part) => !reading.text.includes(part)).map((part) =>
    `the model did not read ${JSON.stringify(part)}`
  );
}

function notError(reading: Reading): string[] {
  return reading.isError === true ? ["marked as an error"] : [];
}

/** Model-visible characters per byte of `readme` in a reading of it. */
export function charsPerByte(reading: Reading, readme: Uint8Array): number {
  return reading.text.length / readme.length;
}

/** The cases, in the order the stand-in model makes the calls. */
export const CASES: readonly Case[] = [
  {
    name: "read_file",
    call: { tool: "read_file", args: { path: "alpha.txt" } },
    check: (r) => [
      ...notError(r),
      ...contains(r, "alpha line one", "BETA_MARK line two"),
    ],
  },
  {
    name: "search_text",
    call: { tool: "search_text", args: { query: "BETA_MARK" } },
    check: (r) => [...notError(r), ...contains(r, "alpha.txt:2:BETA_MARK")],
  },
  {
    name: "find_files",
    call: { tool: "find_files", args: { pattern: "*.ts" } },
    check: (r) => [...notError(r), ...contains(r, "src/main.ts")],
  },
  {
    name: "list_directory",
    call: { tool: "list_directory", args: { path: "" } },
    check: (r) => [...notError(r), ...contains(r, "alpha.txt", "src/")],
  },
  {
    name: "file_info",
    call: { tool: "file_info", args: { path: "alpha.txt" } },
    check: (r) => {
      const problems = [...notError(r), ...contains(r, "alpha.txt", "34")];
      if (!/lines\\?"?\s*:\s*2\b/.test(r.text)) {
        problems.push("the model did not read the line count (2)");
      }
      return problems;
    },
  },
  {
    name: "outline",
    call: { tool: "outline", args: { path: "src/main.ts" } },
    check: (r) => [...notError(r), ...contains(r, "variable x 1")],
  },
  {
    name: "find_symbol",
    call: { tool: "find_symbol", args: { name: "greet" } },
    check: (
      r,
    ) => [...notError(r), ...contains(r, "src/main.ts:4 function greet")],
  },
  {
    name: "read_symbol",
    call: { tool: "read_symbol", args: { path: "src/main.ts", name: "greet" } },
    check: (r) => [
      ...notError(r),
      // The definition's lines with their numbers (quotes may come
      // escaped inside JSON).
      ...contains(
        r,
        "src/main.ts:4-6 function greet",
        "return ",
        "+ name;",
      ),
    ],
  },
  {
    name: "error",
    call: { tool: "read_file", args: { path: "missing.txt" } },
    check: (r) => {
      // Some CLIs hand the message inside JSON, its quotes escaped.
      const problems = contains(
        r,
        "missing.txt",
        "does not exist in the workspace",
      );
      // A client that drops the flag leaves the text to say it.
      if (r.isError !== true && !/\berror\b/i.test(r.text)) {
        problems.push("not marked as an error, by flag or in words");
      }
      return problems;
    },
  },
  {
    name: "read_file README.md",
    call: { tool: "read_file", args: { path: "README.md" } },
    check: (r, readme) => {
      const problems = notError(r);
      // The whole file in one reading: its first and last lines (a CLI
      // that cuts a large result to a preview loses the last).
      const lines = new TextDecoder().decode(readme).trimEnd().split("\n");
      problems.push(...contains(r, lines[0], lines.at(-1)!));
      const ratio = charsPerByte(r, readme);
      if (ratio > MAX_CHARS_PER_BYTE) {
        problems.push(
          `${
            ratio.toFixed(2)
          } model-visible characters per file byte (at most ${MAX_CHARS_PER_BYTE})`,
        );
      }
      return problems;
    },
  },
];
