/**
 * The scan worker's entry: runs {@linkcode scanUnit} for the jobs it is
 * sent, one at a time, with synchronous file operations (they block this
 * worker alone), and posts each unit's chunks back as they come.
 *
 * @module
 */

import { Workspace } from "../workspace/workspace.ts";
import type { ScanJob, ScanReply } from "./scan_pool.ts";
import { scanScratchBytes, scanUnit, UnitStopped } from "./scan_unit.ts";

interface Scope {
  onmessage: ((event: MessageEvent<ScanJob>) => void) | null;
  postMessage(message: ScanReply): void;
}

const scope = globalThis as unknown as Scope;

// One workspace per root and options, opened on the first job for it.
const workspaces = new Map<string, Promise<Workspace>>();

function workspaceFor(job: ScanJob): Promise<Workspace> {
  const { root, includeIgnored, descriptorPaths } = job.config;
  const key = `${includeIgnored ? 1 : 0}${descriptorPaths ? 1 : 0}${root}`;
  let ws = workspaces.get(key);
  if (ws === undefined) {
    ws = Workspace.open(root, { includeIgnored, descriptorPaths });
    workspaces.set(key, ws);
  }
  return ws;
}

let queue = Promise.resolve();

// Jobs run one at a time, so one read buffer serves them all (a search
// makes hundreds of units; a fresh megabyte each was garbage).
let scratch: Uint8Array | undefined;

function scratchFor(job: ScanJob): Uint8Array {
  const wanted = scanScratchBytes(job.query);
  if (scratch?.length !== wanted) scratch = new Uint8Array(wanted);
  return scratch;
}

async function run(job: ScanJob): Promise<void> {
  const stop = job.stop;
  try {
    const ws = await workspaceFor(job);
    await scanUnit(
      ws,
      job.unit,
      job.query,
      () => Atomics.load(stop, 0) !== 0,
      (chunk) => scope.postMessage({ id: job.id, chunk }),
      undefined,
      job.matching,
      scratchFor(job),
    );
  } catch (error) {
    if (error instanceof UnitStopped) {
      scope.postMessage({ id: job.id, stopped: true });
    } else {
      scope.postMessage({
        id: job.id,
        error: String(error instanceof Error ? error.message : error),
      });
    }
  }
}

scope.onmessage = (event) => {
  const job = event.data;
  queue = queue.then(() => run(job));
};

scope.postMessage({ id: -1, ready: true });
