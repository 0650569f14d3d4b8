/**
 * Claude Code in the model-eye matrix.
 *
 * @module
 */

import type { Agent } from "./agents.ts";

/** Claude Code, `@anthropic-ai/claude-code`. */
export const claudeCode: Agent = {
  name: "Claude Code",
  package: "@anthropic-ai/claude-code",
  version: "2.1.328",
  wires: ["stdio"],
  unavailable: "not wired into the matrix yet",
  session: () => Promise.reject(new Error("not wired yet")),
};
