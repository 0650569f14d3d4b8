/**
 * Resources: what one is on the wire, and the provider interface a server
 * lists, reads and watches them through. The core knows nothing about
 * where resources come from; `resources/` implements a provider for a
 * workspace directory.
 *
 * @module
 */

import {
  describeError,
  ErrorCode,
  type JsonObject,
  RpcError,
} from "./jsonrpc.ts";
import type { Icon } from "./icon.ts";
import type { Completion, CompletionContext } from "./completion.ts";

/** Hints about a resource, as the MCP specification defines them. */
export interface ResourceAnnotations {
  /** Who it is meant for. */
  audience?: ("user" | "assistant")[];
  /** Importance, from 0 (least) to 1 (most). */
  priority?: number;
  /** When it last changed, ISO 8601. */
  lastModified?: string;
}

/** One entry of `resources/list`; keys in wire order. */
export interface Resource {
  /** The resource's identity. */
  uri: string;
  /** Programmatic name (for files: the path relative to the root). */
  name: string;
  /** Human-readable name. */
  title?: string;
  /** What it is. */
  description?: string;
  /** MIME type, when known. */
  mimeType?: string;
  /** Hints. */
  annotations?: ResourceAnnotations;
  /** Size in bytes of the raw content, when known. */
  size?: number;
  /** Icons for clients to show it with (2025-11-25). */
  icons?: Icon[];
}

/** One entry of `resources/templates/list`; keys in wire order. */
export interface ResourceTemplate {
  /** An RFC 6570 URI template. */
  uriTemplate: string;
  /** Programmatic name. */
  name: string;
  /** Human-readable name. */
  title?: string;
  /** What it addresses. */
  description?: string;
  /** MIME type, only when every match has the same one. */
  mimeType?: string;
  /** Hints. */
  annotations?: ResourceAnnotations;
  /** Icons for clients to show it with (2025-11-25). */
  icons?: Icon[];
}

/** Text content of a resource. */
export interface TextResourceContents {
  /** The resource's URI. */
  uri: string;
  /** MIME type, when known. */
  mimeType?: string;
  /** The content as text. */
  text: string;
}

/** Binary content of a resource, base64-encoded. */
export interface BlobResourceContents {
  /** The resource's URI. */
  uri: string;
  /** MIME type, when known. */
  mimeType?: string;
  /** The content, base64-encoded. */
  blob: string;
}

/** One item of a `resources/read` result. */
export type ResourceContents = TextResourceContents | BlobResourceContents;

/** One page of resources; `nextKey` resumes after the page when more remain. */
export interface ResourcePage {
  /** The resources of this page. */
  resources: Resource[];
  /** The key to resume after; absent on the last page. */
  nextKey?: string;
}

/** What changed during one burst of activity. */
export interface ResourceChanges {
  /** URIs (canonical) of resources whose content changed or that vanished. */
  updated: readonly string[];
  /** Whether resources appeared or vanished (the list changed). */
  listChanged: boolean;
  /** Too much changed to name: every resource may have changed. */
  all?: boolean;
}

/** A running watch; `close` stops it and frees what it holds. */
export interface ResourceWatch {
  /** Stop watching. */
  close(): void;
}

/** Where a server's resources come from. */
export interface ResourceProvider {
  /**
   * Up to `limit` resources in the provider's fixed order, starting after
   * the one whose key is `after` (from an earlier page's `nextKey`). Throws
   * -32602 for a key it cannot have handed out.
   */
  list(
    after: string | undefined,
    limit: number,
    signal: AbortSignal,
  ): Promise<ResourcePage>;
  /** The URI templates that address this provider's resources. */
  templates(): readonly ResourceTemplate[];
  /**
   * The contents of the resource `uri`. Throws -32002 (see
   * {@linkcode resourceNotFound}) when there is no such resource.
   */
  read(uri: string, signal: AbortSignal): Promise<ResourceContents[]>;
  /**
   * The canonical URI of the existing resource `uri` names (so that
   * differently spelled URIs of one resource compare equal). Throws -32002
   * when there is none.
   */
  canonicalUri(uri: string): Promise<string>;
  /**
   * The canonical spelling of `uri` without checking that the resource
   * exists, or undefined when it cannot name one of this provider's.
   */
  normalizeUri(uri: string): string | undefined;
  /**
   * Present when what the provider serves may still be on its way (a
   * client's roots being listed): resolves once it is, so that the sync
   * methods (`templates`, `normalizeUri`) answer for it.
   */
  settled?(): Promise<void>;
  /**
   * Present when the provider can report changes: calls `listener` once
   * per burst of changes until the watch is closed.
   */
  watch?(listener: (changes: ResourceChanges) => void): ResourceWatch;
  /**
   * Present when the provider completes template variables: suggestions
   * for `variable` of the template `uriTemplate` (one of
   * {@linkcode ResourceProvider.templates}), given what was typed so far.
   * Returns undefined when the template is not one of its own.
   */
  complete?(
    uriTemplate: string,
    variable: string,
    value: string,
    context: CompletionContext,
  ): Promise<Completion | undefined>;
}

/** The -32002 error for a URI that names no (readable) resource. */
export function resourceNotFound(uri: string): RpcError {
  return new RpcError(
    ErrorCode.ResourceNotFound,
    `Resource not found: ${
      shortUri(uri)
    } names no resource this server can read; use a URI from resources/list or resources/templates/list.`,
    { uri },
  );
}

/** `uri` as messages show it: cut at 200 characters. */
export function shortUri(uri: string): string {
  return uri.length > 200 ? uri.slice(0, 200) + "…" : uri;
}

/**
 * The `uri` param of a resources request: a string that parses as an
 * absolute URI. Anything else is -32602.
 */
export function uriParam(params: JsonObject): string {
  const uri = params.uri;
  if (uri === undefined) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      describeError(
        ErrorCode.InvalidParams,
        'missing "uri"; pass the URI of a resource from resources/list, for example {"uri":"file:///path/to/file"}.',
      ),
    );
  }
  if (typeof uri !== "string") {
    throw new RpcError(
      ErrorCode.InvalidParams,
      describeError(
        ErrorCode.InvalidParams,
        '"uri" must be a string, the URI of a resource from resources/list.',
      ),
    );
  }
  if (!URL.canParse(uri)) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      describeError(
        ErrorCode.InvalidParams,
        `"uri" is not an absolute URI (RFC 3986): ${
          JSON.stringify(uri.slice(0, 200))
        }; use one from resources/list.`,
      ),
    );
  }
  return uri;
}
