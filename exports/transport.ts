/**
 * A transport of your own: implement {@linkcode Transport} (lines in,
 * lines out) and run a server over it with {@linkcode serve}, which keeps
 * the connection's rules (request cap, batches, held responses, draining
 * at end of input). The byte-level parts the stdio transport is built
 * from are here too: line framing ({@linkcode LineDecoder},
 * {@linkcode LineSplitter}), full writes ({@linkcode writeAll}) and the
 * shared budget of bytes waiting to be written ({@linkcode OutputBudget}).
 *
 * @module
 */

export { BUSY_CODE, type ConnectionOptions, serve } from "../mcp/connection.ts";
export type { InputEnd, Receiver, Transport } from "../mcp/transport.ts";
export {
  type Line,
  LineDecoder,
  type LineDecoderOptions,
  type LineOptions,
  type LineSink,
  LineSplitter,
  OversizedLine,
  startsWithBom,
} from "../mcp/line_stream.ts";
export { OutputBudget } from "../mcp/output_budget.ts";
export { writeAll, writeAllSync } from "../mcp/write_all.ts";
