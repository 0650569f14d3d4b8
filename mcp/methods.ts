/**
 * What a row of a method registry says about its method besides the
 * handler: when it is answered, the capability it implies, and how the
 * stateless revision (2026-07-28) treats it. A server's method map (see
 * `MethodSpec` in `server.ts`; the default one is `handlers/mod.ts`) holds
 * one row per method, and everything below is read from those rows: the
 * initialize capabilities, the methods a revision lacks, caching hints,
 * which requests may ask the client for input, and the `Mcp-Name` field.
 *
 * @module
 */

import type { JsonObject } from "./jsonrpc.ts";

/**
 * The capabilities a method's presence may declare in `initialize`, in the
 * order the capabilities object lists them.
 */
export const CAPABILITIES: readonly string[] = [
  "tools",
  "resources",
  "prompts",
  "logging",
  "completions",
];

/** Everything a registry row says about its method, beside its handler. */
export interface MethodFacts {
  /**
   * Answered at once: the request neither waits for the server's setup nor
   * counts against a connection's cap on requests running at once (nor
   * queues behind them). For handlers that need nothing setup provides and
   * never wait long, such as `ping`, `initialize` and
   * `notifications/cancelled`. Default false, whatever the handler
   * returns: a handler that returns a promise is not told apart from one
   * that does not.
   */
  readonly atOnce?: boolean;
  /**
   * The `initialize` capability this method's presence declares (a list
   * method: `tools/list` declares `tools`).
   */
  readonly capability?:
    | "tools"
    | "resources"
    | "prompts"
    | "logging"
    | "completions";
  /**
   * The caching hint of its results (2026-07-28): how many milliseconds
   * the client may consider one fresh, and whether it is the same for
   * every caller (`public`) or for this caller only (`private`).
   */
  readonly cacheHint?: {
    readonly ttlMs: number;
    readonly cacheScope: "public" | "private";
  };
  /**
   * It may ask the client for input (sampling, elicitation, roots): in
   * 2026-07-28 it may answer `input_required` (see `mrtr.ts`).
   */
  readonly asksInput?: boolean;
  /**
   * The params field that the `Mcp-Name` header mirrors over Streamable
   * HTTP (2026-07-28): a name, URI or task id.
   */
  readonly nameKey?: string;
  /**
   * Its answer can be large (a whole file): it runs only with a place in
   * the server's gate, a few at a time across all sessions, sessions
   * taking turns (see `fair_gate.ts`), so that a flood of such requests
   * holds a few answers in memory, not hundreds, and never stalls the
   * event loop for other clients.
   */
  readonly largeAnswer?: boolean;
  /** The first protocol version that has it; default: the oldest. */
  readonly since?: string;
  /** The last protocol version that has it; default: the newest. */
  readonly until?: string;
  /**
   * What a client should do instead in versions without it (a clause that
   * completes a -32601 message), for methods with `since` or `until`.
   */
  readonly instead?: string;
}

/** Whether a method with `facts` exists in protocol `version`. */
export function existsIn(facts: MethodFacts, version: string): boolean {
  // Versions are dates: they compare as strings.
  return (facts.since === undefined || version >= facts.since) &&
    (facts.until === undefined || version <= facts.until);
}

/**
 * Whether a method with `facts` exists in any of `versions`: a server
 * offering none of them leaves it out of its map.
 */
export function existsInAny(
  facts: MethodFacts,
  versions: readonly string[],
): boolean {
  return versions.some((version) => existsIn(facts, version));
}

/** A caching hint (see {@linkcode MethodFacts.cacheHint}). */
export type CacheHint = NonNullable<MethodFacts["cacheHint"]>;

/** Options of {@linkcode capabilitiesOf}. */
export interface CapabilityOptions {
  /**
   * Declare `listChanged: true` for tools, resources and prompts: the
   * server then announces changes of those lists (see
   * `McpServer.listChanged`). Default false.
   */
  listChanged?: boolean;
}

// The capabilities whose list can change.
const LISTS: ReadonlySet<string> = new Set(["tools", "resources", "prompts"]);

/**
 * The initialize `capabilities` a method map (`HandlerMap`) implies: an
 * object for each capability a row of it declares, in the order tools,
 * resources, prompts, logging, completions; empty unless `options` ask for
 * more. A bare handler declares nothing.
 *
 * @example
 * ```ts
 * import { capabilitiesOf } from "./methods.ts";
 * const caps = capabilitiesOf({
 *   "tools/list": { handler: () => ({ tools: [] }), capability: "tools" },
 * });
 * console.log(JSON.stringify(caps)); // {"tools":{}}
 * ```
 */
export function capabilitiesOf(
  methods: Readonly<
    Record<
      string,
      { readonly capability?: string } | ((...args: never[]) => unknown)
    >
  >,
  options: CapabilityOptions = {},
): JsonObject {
  const declared = new Set<string>();
  for (const entry of Object.values(methods)) {
    if (typeof entry !== "function" && entry.capability !== undefined) {
      declared.add(entry.capability);
    }
  }
  const capabilities: JsonObject = {};
  for (const capability of CAPABILITIES) {
    if (!declared.has(capability)) continue;
    capabilities[capability] = options.listChanged && LISTS.has(capability)
      ? { listChanged: true }
      : {};
  }
  return capabilities;
}
