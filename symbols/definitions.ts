/**
 * A file's definitions, from its syntax tree: each one's kind, name, line
 * range and nesting. Parsing is bounded in time (a file that takes longer
 * is given up on, with a reason), and nothing here recurses over the tree,
 * so deep nesting costs no stack.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import type { LoadedLanguage } from "./runtime.ts";

/** One definition in a file. */
export interface Definition {
  /** What it is: "function", "class", "method", "interface"… */
  kind: string;
  /** Its name (a selector or section title, for CSS and INI). */
  name: string;
  /** First line, 1-based (decorators included). */
  start: number;
  /** The line its name is on, 1-based. */
  line: number;
  /** Last line, 1-based. */
  end: number;
  /** How many definitions enclose it (0 at the top). */
  depth: number;
  /** The name of the definition that encloses it, if one does. */
  parent?: string;
}

/** What {@linkcode definitionsOf} found, or why it found nothing. */
export type DefinitionsResult =
  | { ok: true; definitions: Definition[]; syntaxErrors: boolean }
  | { ok: false; reason: string };

/**
 * Longest a file's parse and query may take before it is given up on
 * (ms). The symbol tools parse on a worker thread (`tools/symbol_parser.ts`),
 * so this bounds how long a hostile file holds that worker, not the
 * thread that answers requests.
 */
export const PARSE_TIMEOUT_MS = 1000;

/** Options of {@linkcode definitionsOf}. */
export interface DefinitionsOptions {
  /** Longest the parse and query may take (ms). */
  timeoutMs?: number;
  /**
   * A flag another thread may set (non-zero) to stop the work early: it
   * is read while parsing and between definitions.
   */
  stop?: Int32Array;
}

// Between two looks at the clock and the stop flag, in definitions.
const CHECK_EVERY = 64;

/** Longest a name is shown, in characters. */
const MAX_NAME = 100;

/** Kinds whose functions are methods. */
const TYPE_KINDS = new Set(["class", "struct", "impl", "trait", "interface"]);
/** Kinds whose variables are locals (left out). */
const CODE_KINDS = new Set(["function", "method"]);

/**
 * The node that names a definition, past a mended qualified name: the C++
 * grammar reads C's `int __init probe(void)` (an attribute macro between
 * type and name) as `int __init::probe(void)` with the `::` missing, and
 * the name is then its last part, `probe`.
 */
function mendedName(node: Node): Node {
  let name = node;
  while (
    name.type === "qualified_identifier" &&
    name.children.some((child) => child?.isMissing === true)
  ) {
    const last = name.childForFieldName("name");
    if (last === null) break;
    name = last;
  }
  return name;
}

function nameOf(node: Node | undefined, def: Node): string {
  let text = node?.text ?? def.text;
  const newline = text.indexOf("\n");
  if (newline >= 0) text = text.slice(0, newline);
  if (node === undefined) text = text.replace(/\s*\{\s*$/, "");
  text = text.trim();
  return text.length > MAX_NAME ? `${text.slice(0, MAX_NAME)}…` : text;
}

interface Found {
  node: Node;
  outer: Node;
  kind: string;
  name: string;
  nameRow: number;
  pattern: number;
}

/**
 * The definitions of `text` in `loaded`'s language, outermost first and
 * in the order of the file; `options.timeoutMs` bounds the parse and the
 * query, and `options.stop` ends them early.
 */
export function definitionsOf(
  loaded: LoadedLanguage,
  text: string,
  options: DefinitionsOptions = {},
): DefinitionsResult {
  const { parser, query } = loaded;
  const { timeoutMs = PARSE_TIMEOUT_MS, stop } = options;
  const deadline = performance.now() + timeoutMs;
  const overdue = () =>
    performance.now() > deadline ||
    (stop !== undefined && Atomics.load(stop, 0) !== 0);
  const gaveUp = (): DefinitionsResult => ({
    ok: false,
    reason: stop !== undefined && Atomics.load(stop, 0) !== 0
      ? "parsing was stopped"
      : `parsing took longer than ${timeoutMs} ms and was stopped`,
  });
  const tree = parser.parse(loaded.language.prepare?.(text) ?? text, null, {
    progressCallback: overdue,
  });
  if (tree === null) {
    parser.reset();
    return gaveUp();
  }
  try {
    const byNode = new Map<string, Found>();
    const remaining = Math.max(1, deadline - performance.now());
    let looked = 0;
    for (
      const match of query.matches(tree.rootNode, {
        timeoutMicros: Math.ceil(remaining * 1000),
      })
    ) {
      // Asking a node for its parent walks down from the root, so deep
      // nesting makes this loop quadratic: it keeps to the deadline too.
      if (++looked % CHECK_EVERY === 0 && overdue()) return gaveUp();
      let def: Node | undefined;
      let name: Node | undefined;
      let kind = "";
      for (const capture of match.captures) {
        if (capture.name === "name") name = mendedName(capture.node);
        else {
          def = capture.node;
          kind = capture.name;
        }
      }
      if (def === undefined) continue;
      const shown = nameOf(name, def);
      const key = `${def.startIndex}:${def.endIndex}:${def.typeId}:${shown}`;
      const seen = byNode.get(key);
      if (seen !== undefined && seen.pattern <= match.patternIndex) continue;
      // Decorators (Python) wrap what they decorate: the range takes them.
      const parent = def.parent;
      const outer = parent !== null && parent.type === "decorated_definition"
        ? parent
        : def;
      byNode.set(key, {
        node: def,
        outer,
        kind,
        name: shown,
        nameRow: (name ?? def).startPosition.row,
        pattern: match.patternIndex,
      });
    }
    const found = [...byNode.values()].sort((a, b) =>
      a.outer.startIndex - b.outer.startIndex ||
      b.outer.endIndex - a.outer.endIndex || a.pattern - b.pattern
    );
    const definitions: Definition[] = [];
    const open: { end: number; def: Definition }[] = [];
    for (const f of found) {
      while (
        open.length > 0 && open[open.length - 1].end <= f.outer.startIndex
      ) {
        open.pop();
      }
      const enclosing = open.at(-1)?.def;
      let kind = f.kind;
      if (enclosing !== undefined) {
        if (kind === "variable" && CODE_KINDS.has(enclosing.kind)) continue;
        if (kind === "function" && TYPE_KINDS.has(enclosing.kind)) {
          kind = "method";
        }
      }
      const def: Definition = {
        kind,
        name: f.name,
        start: f.outer.startPosition.row + 1,
        line: f.nameRow + 1,
        end: f.outer.endPosition.row + 1,
        depth: open.length,
      };
      if (enclosing !== undefined) def.parent = enclosing.name;
      definitions.push(def);
      open.push({ end: f.outer.endIndex, def });
    }
    return {
      ok: true,
      definitions,
      syntaxErrors: tree.rootNode.hasError,
    };
  } finally {
    tree.delete();
  }
}
