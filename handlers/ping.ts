/**
 * `ping`: answers `{}` at any time, before or after initialize.
 *
 * @module
 */

import type { Handler } from "../mcp/server.ts";

const EMPTY = Object.freeze({});

/** Handle `ping`. */
export const ping: Handler = () => EMPTY;
