/**
 * Copilot CLI in the model-eye matrix.
 *
 * @module
 */

import type { Agent } from "./agents.ts";

/** Copilot CLI, `@github/copilot`. */
export const copilotCli: Agent = {
  name: "Copilot CLI",
  package: "@github/copilot",
  version: "1.0.102",
  wires: ["stdio"],
  unavailable: "not wired into the matrix yet",
  session: () => Promise.reject(new Error("not wired yet")),
};
