/**
 * The resources of several roots as one provider: each root's files keep
 * their own `file://` URIs (absolute, so they never clash), their names
 * start with the root's name (`NAME/path`), and each root has its own URI
 * template. With one root, use {@linkcode WorkspaceResources} itself.
 *
 * @module
 */

import type { Completion, CompletionContext } from "../mcp/completion.ts";
import { invalidCursor } from "../mcp/pagination.ts";
import {
  type ResourceChanges,
  type ResourceContents,
  resourceNotFound,
  type ResourcePage,
  type ResourceTemplate,
  type ResourceWatch,
} from "../mcp/resource.ts";
import type { Roots } from "../workspace/roots.ts";
import {
  type PathResources,
  WorkspaceResources,
  type WorkspaceResourcesOptions,
} from "./provider.ts";

/** One root's provider and its name. */
interface Part {
  readonly name: string;
  readonly provider: WorkspaceResources;
}

/**
 * The files of every root of a {@linkcode Roots}, as resources. The
 * `maxResources` cap is shared: each root lists at most its share.
 */
export class RootsResources implements PathResources {
  readonly #parts: readonly Part[];
  // Deepest root first, so a URI goes to the innermost root holding it.
  readonly #byDepth: readonly Part[];
  /** Present only when made with `watch: true`. */
  readonly watch?: (
    listener: (changes: ResourceChanges) => void,
  ) => ResourceWatch;

  /** Serve the files of every root of `roots`. */
  constructor(roots: Roots, options: WorkspaceResourcesOptions) {
    const count = roots.roots.length;
    const share = Math.floor(options.maxResources / count);
    const extra = options.maxResources % count;
    this.#parts = roots.roots.map((root, i) => ({
      name: root.name,
      provider: new WorkspaceResources(root.workspace, {
        ...options,
        maxResources: Math.max(1, share + (i < extra ? 1 : 0)),
      }),
    }));
    this.#byDepth = this.#parts.toSorted((a, b) =>
      b.provider.uris.prefix.length - a.provider.uris.prefix.length
    );
    if (options.watch) {
      this.watch = (listener) => {
        const watches = this.#parts.map((part) =>
          (part.provider.watch as NonNullable<WorkspaceResources["watch"]>)(
            listener,
          )
        );
        return { close: () => watches.forEach((watch) => watch.close()) };
      };
    }
  }

  /**
   * See {@linkcode ResourceProvider.list}: the roots one after another, in
   * the order given. A key is `INDEX:KEY`, the root's index and its own
   * key (empty to start that root).
   */
  async list(
    after: string | undefined,
    limit: number,
    signal: AbortSignal,
  ): Promise<ResourcePage> {
    let index = 0;
    let inner: string | undefined;
    if (after !== undefined) {
      const match = /^(\d+):(.*)$/s.exec(after);
      if (match === null || Number(match[1]) >= this.#parts.length) {
        throw invalidCursor();
      }
      index = Number(match[1]);
      inner = match[2] === "" ? undefined : match[2];
    }
    const resources = [];
    for (; index < this.#parts.length; index++, inner = undefined) {
      const part = this.#parts[index];
      const page = await part.provider.list(
        inner,
        limit - resources.length,
        signal,
      );
      for (const resource of page.resources) {
        resources.push({ ...resource, name: `${part.name}/${resource.name}` });
      }
      if (page.nextKey !== undefined) {
        return { resources, nextKey: `${index}:${page.nextKey}` };
      }
      if (resources.length === limit) {
        return index + 1 < this.#parts.length
          ? { resources, nextKey: `${index + 1}:` }
          : { resources };
      }
    }
    return { resources };
  }

  /** See {@linkcode ResourceProvider.templates}: one per root. */
  templates(): readonly ResourceTemplate[] {
    return this.#parts.flatMap((part) =>
      part.provider.templates().map((template) => ({
        ...template,
        name: `${template.name}-${part.name}`,
        title: `${template.title ?? template.name} in ${part.name}`,
        description:
          `In the root "${part.name}" (${part.provider.workspace.root}): ${
            template.description ?? ""
          }`,
      }))
    );
  }

  /**
   * See {@linkcode ResourceProvider.complete}: each root's template
   * completes paths inside that root (relative to it, as its template
   * reads them), with that root's `.gitignore` and bounds.
   */
  async complete(
    uriTemplate: string,
    variable: string,
    value: string,
    context: CompletionContext,
  ): Promise<Completion | undefined> {
    for (const part of this.#parts) {
      const completion = await part.provider.complete(
        uriTemplate,
        variable,
        value,
        context,
      );
      if (completion !== undefined) return completion;
    }
    return undefined;
  }

  /**
   * See {@linkcode PathResources.uriOfPath}: `path` is `NAME/…`, as the
   * roots' view names it; the top ("") has no URI.
   */
  uriOfPath(path: string): string | undefined {
    const slash = path.indexOf("/");
    const name = slash < 0 ? path : path.slice(0, slash);
    const part = this.#parts.find((part) => part.name === name);
    return part?.provider.uriOfPath(slash < 0 ? "" : path.slice(slash + 1));
  }

  #partOf(uri: string): Part | undefined {
    return this.#byDepth.find((part) =>
      part.provider.normalizeUri(uri) !== undefined
    );
  }

  /** See {@linkcode ResourceProvider.normalizeUri}. */
  normalizeUri(uri: string): string | undefined {
    return this.#partOf(uri)?.provider.normalizeUri(uri);
  }

  /** See {@linkcode ResourceProvider.canonicalUri}. */
  canonicalUri(uri: string): Promise<string> {
    const part = this.#partOf(uri);
    if (part === undefined) return Promise.reject(resourceNotFound(uri));
    return part.provider.canonicalUri(uri);
  }

  /** See {@linkcode ResourceProvider.read}. */
  read(uri: string, signal: AbortSignal): Promise<ResourceContents[]> {
    const part = this.#partOf(uri);
    if (part === undefined) return Promise.reject(resourceNotFound(uri));
    return part.provider.read(uri, signal);
  }
}
