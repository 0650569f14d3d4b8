/**
 * The agent CLIs of the model-eye matrix, in the order of the README's
 * client table.
 *
 * @module
 */

import type { Agent } from "./agents.ts";
import { claudeCode } from "./cli_claude.ts";
import { codex } from "./cli_codex.ts";
import { geminiCli } from "./cli_gemini.ts";
import { copilotCli } from "./cli_copilot.ts";
import { qwenCode } from "./cli_qwen.ts";
import { opencode } from "./cli_opencode.ts";

/** Every agent CLI the matrix runs. */
export const AGENTS: readonly Agent[] = [
  claudeCode,
  codex,
  geminiCli,
  copilotCli,
  qwenCode,
  opencode,
];
