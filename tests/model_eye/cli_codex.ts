/**
 * Codex CLI in the model-eye matrix.
 *
 * @module
 */

import type { Agent } from "./agents.ts";

/** Codex CLI, `@openai/codex`. */
export const codex: Agent = {
  name: "Codex CLI",
  package: "@openai/codex",
  version: "0.171.0",
  wires: ["stdio"],
  unavailable: "not wired into the matrix yet",
  session: () => Promise.reject(new Error("not wired yet")),
};
