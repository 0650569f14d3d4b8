/**
 * The workspace as MCP resources: every non-ignored file under the root is
 * a `file://` resource, listed in walk order and read as text or base64.
 *
 * @module
 */

import { ErrorCode, RpcError } from "../mcp/jsonrpc.ts";
import { invalidCursor } from "../mcp/pagination.ts";
import {
  type Resource,
  type ResourceChanges,
  type ResourceContents,
  resourceNotFound,
  type ResourcePage,
  type ResourceProvider,
  type ResourceTemplate,
  type ResourceWatch,
  shortUri,
} from "../mcp/resource.ts";
import type { Completion, CompletionContext } from "../mcp/completion.ts";
import { completePath } from "../workspace/complete_path.ts";
import { textOf } from "../workspace/content.ts";
import {
  type Workspace,
  WorkspaceError,
  type WorkspaceHandle,
} from "../workspace/workspace.ts";
import {
  BadResumeKey,
  keyPosition,
  listFiles,
  ListingStates,
  positionKey,
} from "./listing.ts";
import { RootUri } from "./uri.ts";
import { mimeLookup, mimeTypeOf } from "../workspace/mime_lazy.ts";
import { type WatchOptions, watchWorkspace } from "./watch.ts";

/** Options of {@linkcode WorkspaceResources}. */
export interface WorkspaceResourcesOptions {
  /** Largest file `read` returns, in bytes. */
  maxReadBytes: number;
  /**
   * Most files `list` shows over all pages, the most useful first (see
   * `listing.ts`); the template reaches the rest.
   */
  maxResources: number;
  /** Report changes (`watch` is then available). Default false. */
  watch?: boolean;
  /** Timing of change notifications. */
  watchOptions?: WatchOptions;
}

/**
 * Resources whose files are named by the paths of the view the tools
 * read through (a workspace's relative paths, or `NAME/…` across several
 * roots): what code that starts from such a path, a prompt say, needs to
 * embed the file.
 */
export interface PathResources extends ResourceProvider {
  /**
   * The resource URI of the file or directory at `path`, a path of the
   * view as it resolved (a directory's may end with `/`); undefined when
   * no URI names it (the top of several roots).
   */
  uriOfPath(path: string): string | undefined;
}

// Media types whose content is binary even when its bytes happen to decode
// as UTF-8 (a tiny PNG, say); "+xml" types such as SVG are text.
function binaryByType(mimeType: string | undefined): boolean {
  if (mimeType === undefined || mimeType.endsWith("+xml")) return false;
  return mimeType === "application/octet-stream" ||
    /^(image|audio|video|font)\//.test(mimeType);
}

/** The resources of one workspace. */
export class WorkspaceResources implements PathResources {
  /** The workspace served. */
  readonly workspace: Workspace;
  /** URI mapping of the workspace root. */
  readonly uris: RootUri;
  /** Largest file read, in bytes. */
  readonly maxReadBytes: number;
  /** Most files listed. */
  readonly maxResources: number;
  /** Present only when the provider was made with `watch: true`. */
  readonly watch?: (
    listener: (changes: ResourceChanges) => void,
  ) => ResourceWatch;
  // Where recent pages of `list` ended: the next page goes on from there.
  readonly #listingStates = new ListingStates();

  /** Serve `workspace`'s files as resources. */
  constructor(workspace: Workspace, options: WorkspaceResourcesOptions) {
    this.workspace = workspace;
    this.uris = new RootUri(workspace.root);
    this.maxReadBytes = options.maxReadBytes;
    this.maxResources = options.maxResources;
    if (options.watch) {
      this.watch = (listener) =>
        watchWorkspace(
          this.workspace,
          this.uris,
          listener,
          options.watchOptions,
        );
    }
  }

  /**
   * See {@linkcode ResourceProvider.list}. Lists only what can be read
   * back exactly as listed: a file whose URI would not lead back to it, or
   * that the workspace would refuse to read, is left out.
   */
  async list(
    after: string | undefined,
    limit: number,
    signal: AbortSignal,
  ): Promise<ResourcePage> {
    const sizes = new Map<string, number>();
    let page;
    try {
      page = await listFiles(this.workspace, {
        from: after === undefined ? undefined : keyPosition(after),
        limit,
        cap: this.maxResources,
        signal,
        states: this.#listingStates,
        accept: async (entry) => {
          if (!this.uris.roundTrips(entry.relative)) return false;
          // A plain file met by the walk has passed every rule a read
          // applies (ignores, links, identity); its size came with it.
          // A file over the read cap is left out: resources/read would
          // refuse it (read_file reads it by line range).
          if (entry.isFile && entry.size !== undefined) {
            sizes.set(entry.relative, entry.size);
            return entry.size <= this.maxReadBytes;
          }
          try {
            const resolved = await this.workspace.resolve(entry.relative);
            if (!resolved.info.isFile) return false;
            sizes.set(entry.relative, resolved.info.size);
            return resolved.info.size <= this.maxReadBytes;
          } catch (error) {
            if (error instanceof WorkspaceError) return false;
            throw error;
          }
        },
      });
    } catch (error) {
      if (error instanceof BadResumeKey) throw invalidCursor();
      throw error;
    }
    const typeOf = await mimeLookup();
    const resources = page.files.map((entry) => {
      const resource: Resource = {
        uri: this.uris.uriOf(entry.relative),
        name: entry.relative,
      };
      const mimeType = typeOf(entry.relative);
      if (mimeType !== undefined) resource.mimeType = mimeType;
      const size = sizes.get(entry.relative);
      if (size !== undefined) resource.size = size;
      return resource;
    });
    return page.next === undefined
      ? { resources }
      : { resources, nextKey: positionKey(page.next) };
  }

  /** See {@linkcode ResourceProvider.templates}. */
  templates(): readonly ResourceTemplate[] {
    return [{
      uriTemplate: `${this.uris.prefix}{+path}`,
      name: "workspace-file",
      title: "Workspace file",
      description:
        `Any file under the workspace root by its path relative to the root, for example {+path} = src/main.ts. resources/list shows at most ${this.maxResources} files, the most useful first (README, manifests, then level by level); this template reads every other one. No mimeType here because it varies by file: resources/read reports each file's type, and text comes back as "text", anything else as base64 "blob".`,
    }];
  }

  /**
   * See {@linkcode ResourceProvider.complete}: the template's `path`
   * completes to the files and directories under the root that begin with
   * what was typed, one level at a time (`src/` lists `src`), as the
   * workspace serves them (`.gitignore` and the root's bounds hold).
   */
  async complete(
    uriTemplate: string,
    variable: string,
    value: string,
    context: CompletionContext,
  ): Promise<Completion | undefined> {
    if (uriTemplate !== this.templates()[0].uriTemplate) return undefined;
    if (variable !== "path") return undefined;
    return await completePath(this.workspace, value, {
      signal: context.signal,
    });
  }

  /**
   * See {@linkcode PathResources.uriOfPath}: `path` is relative to the
   * root.
   */
  uriOfPath(path: string): string {
    return this.uris.uriOf(path);
  }

  /** See {@linkcode ResourceProvider.normalizeUri}. */
  normalizeUri(uri: string): string | undefined {
    return this.uris.normalize(uri);
  }

  /** See {@linkcode ResourceProvider.canonicalUri}. */
  async canonicalUri(uri: string): Promise<string> {
    using file = await this.#openFile(uri);
    return this.uris.uriOf(file.relative);
  }

  /** See {@linkcode ResourceProvider.read}. */
  async read(uri: string, signal: AbortSignal): Promise<ResourceContents[]> {
    using file = await this.#openFile(uri);
    const relative = file.relative;
    const size = file.info.size;
    const canonical = this.uris.uriOf(relative);
    if (size > this.maxReadBytes) throw this.#tooLarge(uri, size);
    let bytes: Uint8Array;
    try {
      const read = await file.read({ maxBytes: this.maxReadBytes, signal });
      // It may have grown since the stat; the cap holds for what was read.
      if (read.truncated) {
        throw this.#tooLarge(
          uri,
          Math.max(size, read.bytes.length + 1),
        );
      }
      bytes = read.bytes;
    } catch (error) {
      if (signal.aborted || error instanceof RpcError) throw error;
      throw resourceNotFound(uri); // Vanished or changed since resolved.
    }
    const mimeType = await mimeTypeOf(relative);
    const text = binaryByType(mimeType) ? undefined : textOf(bytes);
    if (text !== undefined) {
      return [{ uri: canonical, mimeType: mimeType ?? "text/plain", text }];
    }
    return [{
      uri: canonical,
      mimeType: mimeType ?? "application/octet-stream",
      // Native base64 (no node:buffer, which would start Deno's Node layer).
      blob: bytes.toBase64(),
    }];
  }

  /**
   * The regular file `uri` names, opened, or -32002: one message for
   * whatever keeps a path from being read (outside, ignored, missing), so
   * nothing outside leaks; one that says what it is for a directory or a
   * special file inside the workspace.
   */
  async #openFile(uri: string): Promise<WorkspaceHandle> {
    const relative = this.uris.relativeOf(uri);
    if (relative === undefined) throw resourceNotFound(uri);
    let file: WorkspaceHandle;
    try {
      file = await this.workspace.open(relative);
    } catch (error) {
      // Outside, ignored, missing: one answer, so nothing outside leaks.
      if (error instanceof WorkspaceError) throw resourceNotFound(uri);
      throw error;
    }
    if (!file.info.isFile) {
      const what = file.info.isDirectory
        ? "a directory; its files are resources of their own (resources/list, or the workspace-file template with a path below it)"
        : "not a regular file (a pipe, socket or device), so it has no contents to read; file_info describes it";
      file.close();
      throw new RpcError(
        ErrorCode.ResourceNotFound,
        `Resource not readable: ${shortUri(uri)} is ${what}.`,
        { uri },
      );
    }
    return file;
  }

  #tooLarge(uri: string, size: number): RpcError {
    return new RpcError(
      ErrorCode.InvalidParams,
      `Resource too large: it is ${size} bytes and this server reads at most ${this.maxReadBytes} bytes (--max-read-bytes)`,
      { uri, size, limit: this.maxReadBytes },
    );
  }
}
