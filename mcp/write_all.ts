/**
 * Writing a whole buffer to a writer that may take only part of it per
 * call, as `Deno.stdout` and `Deno.stderr` do.
 *
 * @module
 */

/**
 * Write all of `bytes` to `writer`, calling `write` until every byte is
 * taken.
 *
 * @example
 * ```ts
 * import { writeAll } from "./write_all.ts";
 * await writeAll(Deno.stdout, new TextEncoder().encode("hello\n"));
 * ```
 */
export async function writeAll(
  writer: { write(p: Uint8Array): Promise<number> },
  bytes: Uint8Array,
): Promise<void> {
  while (bytes.length > 0) bytes = bytes.subarray(await writer.write(bytes));
}

/**
 * Write all of `bytes` to `writer` synchronously.
 *
 * @example
 * ```ts
 * import { writeAllSync } from "./write_all.ts";
 * writeAllSync(Deno.stderr, new TextEncoder().encode("hello\n"));
 * ```
 */
export function writeAllSync(
  writer: { writeSync(p: Uint8Array): number },
  bytes: Uint8Array,
): void {
  while (bytes.length > 0) bytes = bytes.subarray(writer.writeSync(bytes));
}
