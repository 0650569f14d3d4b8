/**
 * `ping`: answers `{}` at any time, before or after initialize.
 *
 * @module
 */

import { EMPTY_RESULT } from "../mcp/jsonrpc.ts";
import type { Handler } from "../mcp/server.ts";

/** Handle `ping`. */
export const ping: Handler = () => EMPTY_RESULT;
