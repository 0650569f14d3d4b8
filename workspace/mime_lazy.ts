/**
 * MIME types by name, loading `workspace/mime.ts` (and the mime-db data it
 * parses) on first use, so a server that never needs a MIME type does not
 * pay for it. Shared by the tools and the resources.
 *
 * @module
 */

type Lookup = (path: string) => string | undefined;

let loading: Promise<Lookup> | undefined;

/** The MIME type of `path` by its extension, or undefined when unknown. */
export async function mimeTypeOf(path: string): Promise<string | undefined> {
  return (await mimeLookup())(path);
}

/**
 * The synchronous lookup behind {@linkcode mimeTypeOf}, loaded once: for
 * callers that type many paths at a time.
 */
export function mimeLookup(): Promise<(path: string) => string | undefined> {
  return loading ??= import("./mime.ts").then((module) => module.mimeTypeOf);
}
