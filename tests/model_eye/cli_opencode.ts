/**
 * opencode in the model-eye matrix.
 *
 * @module
 */

import type { Agent } from "./agents.ts";

/** opencode, `opencode-ai`. */
export const opencode: Agent = {
  name: "opencode",
  package: "opencode-ai",
  version: "1.18.33",
  wires: ["stdio"],
  unavailable: "not wired into the matrix yet",
  session: () => Promise.reject(new Error("not wired yet")),
};
