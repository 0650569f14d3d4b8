/**
 * Qwen Code in the model-eye matrix.
 *
 * @module
 */

import type { Agent } from "./agents.ts";

/** Qwen Code, `@qwen-code/qwen-code`. */
export const qwenCode: Agent = {
  name: "Qwen Code",
  package: "@qwen-code/qwen-code",
  version: "0.24.4",
  wires: ["stdio"],
  unavailable: "not wired into the matrix yet",
  session: () => Promise.reject(new Error("not wired yet")),
};
