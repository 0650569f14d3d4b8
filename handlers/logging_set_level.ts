/**
 * `logging/setLevel`: the client chooses the lowest level of log records
 * (`notifications/message`) it wants from this session. Until it does, it
 * gets none.
 *
 * @module
 */

import {
  describeError,
  EMPTY_RESULT,
  ErrorCode,
  RpcError,
} from "../mcp/jsonrpc.ts";
import { isLoggingLevel, LOGGING_LEVELS } from "../mcp/logging.ts";
import type { Handler } from "../mcp/server.ts";

/**
 * Handle `logging/setLevel`: records at `level` or above go to this
 * session from now on, the server's diagnostics about this session
 * included (those about other sessions never reach it). A missing or
 * unknown level is -32602 naming the valid ones.
 */
export const loggingSetLevel: Handler = (params, { session }) => {
  const level = params.level;
  if (!isLoggingLevel(level)) {
    const valid = LOGGING_LEVELS.join(", ");
    throw new RpcError(
      ErrorCode.InvalidParams,
      describeError(
        ErrorCode.InvalidParams,
        level === undefined
          ? `logging/setLevel needs "level", one of ${valid}.`
          : `unknown log level ${
            JSON.stringify(level)?.slice(0, 100)
          }; use one of ${valid}.`,
      ),
      { validLevels: LOGGING_LEVELS },
    );
  }
  session.logLevel = level;
  return EMPTY_RESULT;
};
