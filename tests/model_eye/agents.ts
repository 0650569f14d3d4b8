/**
 * What an agent CLI in the model-eye matrix provides: how to install it,
 * point it at a stand-in model API and at the server, and run one
 * non-interactive session in which the stand-in makes its calls.
 *
 * @module
 */

import type { Reading, Script } from "./script.ts";

/** How the CLI reaches the server. */
export type Wire = "stdio" | "http";

/** The server as a CLI is told of it. */
export type ServerConfig =
  | { wire: "stdio"; command: string; args: string[] }
  | { wire: "http"; url: string };

/** One session's inputs. */
export interface SessionOptions {
  /** The server, over stdio (the CLI spawns it) or HTTP (already running). */
  server: ServerConfig;
  /** The model's side: the calls to make, and where readings go. */
  script: Script;
  /** A fresh directory the run may use as HOME, config dir and cwd. */
  home: string;
  /** Stop the session after this long (ms). */
  timeoutMs: number;
}

/** What a session left. */
export interface SessionOutcome {
  /** What the model read, call by call. */
  readings: Reading[];
  /** The CLI's exit code. */
  code: number;
  /** Its output (stdout then stderr, cut), for diagnosis. */
  output: string;
}

/** An agent CLI. */
export interface Agent {
  /** Name in tables and test names. */
  name: string;
  /** npm package. */
  package: string;
  /** Pinned version. */
  version: string;
  /** The wires it is run over. */
  wires: readonly Wire[];
  /**
   * Why it cannot run here, when it cannot (the matrix lists it, skipped,
   * with this reason); undefined when it runs.
   */
  unavailable?: string;
  /** Install it (from the npm registry, cached) and run one session. */
  session(options: SessionOptions): Promise<SessionOutcome>;
}
