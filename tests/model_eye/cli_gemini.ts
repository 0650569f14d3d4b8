/**
 * Gemini CLI in the model-eye matrix.
 *
 * @module
 */

import type { Agent } from "./agents.ts";

/** Gemini CLI, `@google/gemini-cli`. */
export const geminiCli: Agent = {
  name: "Gemini CLI",
  package: "@google/gemini-cli",
  version: "0.61.0",
  wires: ["stdio"],
  unavailable: "not wired into the matrix yet",
  session: () => Promise.reject(new Error("not wired yet")),
};
