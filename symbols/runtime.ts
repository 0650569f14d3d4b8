/**
 * The tree-sitter runtime and its grammars, loaded on first use (a server
 * that never reads a symbol pays nothing for them). Nothing is fetched:
 * the WebAssembly files ship with the server. The bundle finds them in
 * `tree-sitter/` beside itself (`deno task bundle` copies them there, as
 * it writes `symbol_worker.js`, which loads them, beside the bundle); run
 * from source, they are
 * read from the npm packages `web-tree-sitter` (the runtime's
 * `tree-sitter.wasm`) and `@vscode/tree-sitter-wasm` (the grammars), in
 * Deno's npm cache. Bytes are read with `Deno.readFile` and handed to the
 * runtime, which therefore never reads or fetches a file itself.
 *
 * @module
 */

import type { Language, Parser, Query } from "web-tree-sitter";
// Brings the grammars' package into the module graph, so deno.lock pins it
// and Deno's cache holds it (only its WebAssembly files are read).
import type {} from "@vscode/tree-sitter-wasm";
import { LANGUAGES, type SymbolLanguage } from "./languages.ts";

/** The runtime's own WebAssembly file. */
export const RUNTIME_WASM = "tree-sitter.wasm";

/** The folder beside the bundle that holds the WebAssembly files. */
export const BESIDE_BUNDLE = "tree-sitter/";

/** A grammar, loaded: its language, a parser set to it, its query. */
export interface LoadedLanguage {
  /** The language it parses. */
  readonly language: SymbolLanguage;
  /** A parser for it (one per language; parsing is synchronous). */
  readonly parser: Parser;
  /** Its definitions query. */
  readonly query: Query;
}

type Module = typeof import("web-tree-sitter");

/**
 * Where `file` (the runtime's or a grammar's file name) is in its npm
 * package, in Deno's cache, or undefined where the package does not
 * resolve (a bundle run outside the repository). The bare names resolve
 * through deno.json's imports.
 */
export function packageWasmUrl(file: string): URL | undefined {
  const pkg = file === RUNTIME_WASM
    ? "web-tree-sitter"
    : "@vscode/tree-sitter-wasm";
  try {
    const main = import.meta.resolve(pkg);
    return main.startsWith("file:") ? new URL(file, main) : undefined;
  } catch {
    return undefined;
  }
}

/** The WebAssembly files the symbol tools load: runtime and grammars. */
export function wasmFiles(): string[] {
  const grammars = new Set(Object.values(LANGUAGES).map((l) => l.grammar));
  return [RUNTIME_WASM, ...grammars];
}

/**
 * The bytes of `file`: beside the bundle, else (run from source) in its
 * npm package. The package is only looked up when the copy beside the
 * bundle is missing, so a bundle never resolves an npm name.
 */
async function wasmBytes(file: string): Promise<Uint8Array> {
  const beside = new URL(BESIDE_BUNDLE + file, import.meta.url);
  try {
    return await Deno.readFile(beside);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const packaged = packageWasmUrl(file);
  if (packaged !== undefined) {
    try {
      return await Deno.readFile(packaged);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  throw new Error(
    `the symbol tools' ${file} is missing (not in ${beside.pathname}${
      packaged === undefined ? "" : ` nor ${packaged.pathname}`
    }); reinstall the server, or run deno task bundle.`,
  );
}

let runtime: Promise<Module> | undefined;
const loaded = new Map<string, Promise<LoadedLanguage>>();

/** The runtime, initialised once. */
function loadRuntime(): Promise<Module> {
  return runtime ??= (async () => {
    const module = await import("web-tree-sitter");
    await module.Parser.init({ wasmBinary: await wasmBytes(RUNTIME_WASM) });
    return module;
  })().catch((error) => {
    runtime = undefined;
    throw error;
  });
}

/** `language`'s grammar and query, loaded once. */
export function loadLanguage(
  language: SymbolLanguage,
): Promise<LoadedLanguage> {
  let entry = loaded.get(language.name);
  if (entry === undefined) {
    entry = (async () => {
      const module = await loadRuntime();
      const grammar: Language = await module.Language.load(
        await wasmBytes(language.grammar),
      );
      const parser = new module.Parser();
      parser.setLanguage(grammar);
      const query = new module.Query(grammar, language.query);
      return { language, parser, query };
    })();
    loaded.set(language.name, entry);
    entry.catch(() => loaded.delete(language.name));
  }
  return entry;
}
