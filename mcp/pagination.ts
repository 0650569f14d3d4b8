/**
 * Cursor pagination for list methods, as the MCP specification describes
 * it: an opaque `cursor` in, a `nextCursor` out while more remain.
 *
 * A cursor carries the key of the last item served (keyset pagination), so
 * a page is found without counting what came before it, and items added or
 * removed between pages neither repeat nor vanish.
 *
 * @module
 */

import {
  describeError,
  ErrorCode,
  type JsonObject,
  RpcError,
} from "./jsonrpc.ts";

const PREFIX = "sc1:";

/** Make an opaque cursor that resumes after `key`. */
export function encodeCursor(key: string): string {
  const bytes = new TextEncoder().encode(PREFIX + key);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(
    /=+$/,
    "",
  );
}

/** The -32602 error for a cursor this server did not hand out. */
export function invalidCursor(): RpcError {
  return new RpcError(
    ErrorCode.InvalidParams,
    describeError(
      ErrorCode.InvalidParams,
      'invalid "cursor"; pass back a nextCursor from this server unchanged, or omit it for the first page.',
    ),
  );
}

/**
 * The key a cursor resumes after, or undefined when `cursor` is absent.
 * Throws -32602 for anything this server did not hand out.
 */
export function decodeCursor(cursor: unknown): string | undefined {
  if (cursor === undefined) return undefined;
  if (typeof cursor !== "string" || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw invalidCursor();
  }
  let text: string;
  try {
    const binary = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalidCursor();
  }
  if (!text.startsWith(PREFIX)) throw invalidCursor();
  return text.slice(PREFIX.length);
}

/** One page of a list, and the key the next one resumes after. */
export interface Page<T> {
  /** The items of this page. */
  items: T[];
  /** The key of the page's last item; absent on the last page. */
  nextKey?: string;
}

/**
 * Page through `items`, which must be sorted by `keyOf` (unique keys,
 * ascending by `<`), resuming after the cursor's key.
 */
export function paginate<T>(
  items: readonly T[],
  cursor: unknown,
  pageSize: number,
  keyOf: (item: T) => string,
): Page<T> {
  const after = decodeCursor(cursor);
  let start = 0;
  if (after !== undefined) {
    // Binary search: the first item whose key sorts after the cursor's.
    let low = 0;
    let high = items.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (keyOf(items[mid]) <= after) low = mid + 1;
      else high = mid;
    }
    start = low;
  }
  const page = items.slice(start, start + pageSize);
  return start + pageSize < items.length
    ? { items: page, nextKey: keyOf(page[page.length - 1]) }
    : { items: page };
}

/**
 * The result of a list method: `items` under `name`, then a `nextCursor`
 * that resumes after `nextKey` when more remain. Every list handler builds
 * its result here, so `nextCursor` is written one way.
 *
 * @example
 * ```ts
 * import { pageResult } from "./pagination.ts";
 * const result = pageResult("tools", [{ name: "a" }], "a");
 * console.log(Object.keys(result)); // ["tools", "nextCursor"]
 * ```
 */
export function pageResult(
  name: string,
  items: readonly unknown[],
  nextKey: string | undefined,
): JsonObject {
  return nextKey === undefined
    ? { [name]: items }
    : { [name]: items, nextCursor: encodeCursor(nextKey) };
}
