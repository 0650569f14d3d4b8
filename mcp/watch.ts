/**
 * Delivering resource changes to one session: `notifications/resources/updated`
 * for the URIs it subscribed to and `notifications/resources/list_changed`,
 * never before the client's `notifications/initialized` (changes seen
 * earlier wait for it).
 *
 * @module
 */

import type { ResourceChanges, ResourceWatch } from "./resource.ts";
import type { McpServer } from "./server.ts";
import type { Session } from "./session.ts";

// How often a session that is not ready yet is checked again. The session
// has no event for becoming ready, and the wait is one round trip long.
const READY_POLL_MS = 20;

// URIs remembered while waiting for the session to become ready.
const MAX_QUEUED_URIS = 10_000;

/**
 * Whether `server` offers `resources/subscribe`: its capabilities say so
 * and its resource provider can watch.
 */
export function canSubscribe(server: McpServer): boolean {
  const resources = server.capabilities.resources;
  return typeof resources === "object" && resources !== null &&
    (resources as Record<string, unknown>).subscribe === true &&
    server.resources?.watch !== undefined;
}

/** Told of a batch of resource changes. */
export type ChangeListener = (changes: ResourceChanges) => void;

/** Something that can be watched: a resource provider with `watch`. */
export type Watchable = { watch?(listener: ChangeListener): ResourceWatch };

/**
 * One watch per resource provider, shared by every session watching it (a
 * server with many sessions watches its root once): the provider's watch
 * starts with the first listener and stops when the last one closes.
 */
export class SharedWatches {
  readonly #shared = new Map<
    Watchable,
    { watch: ResourceWatch; listeners: Set<ChangeListener> }
  >();

  /** How many providers are watched now. */
  get size(): number {
    return this.#shared.size;
  }

  /** Send `provider`'s changes to `listener` until the result is closed. */
  watch(provider: Watchable, listener: ChangeListener): ResourceWatch {
    let entry = this.#shared.get(provider);
    if (entry === undefined) {
      const listeners = new Set<ChangeListener>();
      const watch = provider.watch!((changes) => {
        for (const each of [...listeners]) each(changes);
      });
      entry = { watch, listeners };
      this.#shared.set(provider, entry);
    }
    const own = entry;
    // Each call's listener is its own, even for the same function.
    const mine: ChangeListener = (changes) => listener(changes);
    own.listeners.add(mine);
    return {
      close: () => {
        if (!own.listeners.delete(mine) || own.listeners.size > 0) return;
        if (this.#shared.get(provider) === own) this.#shared.delete(provider);
        own.watch.close();
      },
    };
  }
}

/**
 * Start sending `session` the changes reported by the resource provider it
 * is served (its own, else the server's: see `McpServer.resourcesFor`),
 * for as long as that provider is the one it is served. Returns undefined
 * when the server does not watch (no `subscribe` capability); otherwise
 * close the result when the session ends, so the watcher stops and the
 * process can exit. With `shared`, sessions served the same provider
 * share one watch of it.
 */
export function watchResources(
  server: McpServer,
  session: Session,
  shared?: SharedWatches,
): ResourceWatch | undefined {
  const provider = server.resourcesFor(session);
  if (!canSubscribe(server) || provider?.watch === undefined) return undefined;
  const listChangedCapability =
    (server.capabilities.resources as Record<string, unknown>).listChanged ===
      true;

  let uris = new Set<string>();
  let all = false;
  let listChanged = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const deliver = (): void => {
    if (session.state === "closed") return;
    if (session.state !== "ready") {
      timer ??= setTimeout(() => {
        timer = undefined;
        deliver();
      }, READY_POLL_MS);
      return;
    }
    const targets = all ? [...session.subscriptions] : uris;
    for (const uri of targets) {
      if (session.subscriptions.has(uri)) {
        session.notify("notifications/resources/updated", { uri });
      }
    }
    if (listChanged && listChangedCapability) {
      session.notify("notifications/resources/list_changed");
    }
    uris = new Set();
    all = false;
    listChanged = false;
  };

  const onChanges = (changes: ResourceChanges): void => {
    // The session was given other resources since: not its news.
    if (server.resourcesFor(session) !== provider) return;
    if (changes.all) all = true;
    else if (!all) {
      for (const uri of changes.updated) uris.add(uri);
      if (uris.size > MAX_QUEUED_URIS) {
        all = true;
        uris = new Set();
      }
    }
    if (changes.listChanged) listChanged = true;
    deliver();
  };

  const watch = shared === undefined
    ? provider.watch(onChanges)
    : shared.watch(provider, onChanges);
  return {
    close() {
      watch.close();
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
