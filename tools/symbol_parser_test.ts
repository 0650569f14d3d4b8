import { strict as assert } from "node:assert";
import { loadLanguage } from "../symbols/runtime.ts";
import { definitionsOf } from "../symbols/definitions.ts";
import { languageOf } from "../symbols/languages.ts";
import {
  parseDefinitions,
  setSymbolWorkerUrl,
  stopSymbolWorkers,
  symbolWorkersRunning,
  WATCHDOG_SLACK_MS,
} from "./symbol_parser.ts";

const TS = languageOf("x.ts")!;

const SOURCE = [
  "export class Box {",
  "  open(): void {}",
  "}",
  "export function makeBox(): Box {",
  "  return new Box();",
  "}",
].join("\n");

/**
 * A text whose definitions take the parse's whole time budget: each of
 * thousands of nested functions asks for its parent, which tree-sitter
 * finds by walking down from the root.
 */
const NESTED = "function value(){".repeat(20_000) + "}".repeat(20_000);

/** The longest the event loop went without running a 5 ms timer. */
function watchGaps(): { stop(): number } {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(worst, performance.now() - last);
    },
  };
}

Deno.test("symbol parser: a worker answers as parsing here does", async () => {
  try {
    const here = definitionsOf(await loadLanguage(TS), SOURCE);
    assert.deepEqual(await parseDefinitions(TS, SOURCE), here);
    assert.ok(symbolWorkersRunning() >= 1);
  } finally {
    stopSymbolWorkers();
  }
});

Deno.test("symbol parser: the event loop runs while a long parse does", async () => {
  try {
    // Warm: the worker loads the runtime and the grammar first.
    await parseDefinitions(TS, SOURCE);
    const gaps = watchGaps();
    const started = performance.now();
    const result = await parseDefinitions(TS, NESTED, undefined, 600);
    const took = performance.now() - started;
    const worst = gaps.stop();
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.reason : "", /took longer than 600 ms/);
    assert.ok(took >= 500, `the parse took only ${took.toFixed(0)} ms`);
    // On this thread, the loop would have stopped for the whole parse.
    assert.ok(worst < 200, `the event loop stalled ${worst.toFixed(0)} ms`);
  } finally {
    stopSymbolWorkers();
  }
});

Deno.test("symbol parser: a cancel settles at once and stops the worker's parse", async () => {
  try {
    await parseDefinitions(TS, SOURCE);
    const controller = new AbortController();
    const parse = parseDefinitions(TS, NESTED, controller.signal);
    // Queued behind it: dropped on cancel without being parsed.
    const queued = [1, 2, 3].map(() =>
      parseDefinitions(TS, NESTED, controller.signal)
    );
    await new Promise((resolve) => setTimeout(resolve, 150));
    const cancelled = performance.now();
    controller.abort(new Error("cancelled"));
    await assert.rejects(parse, /cancelled/);
    for (const job of queued) await assert.rejects(job, /cancelled/);
    const settled = performance.now() - cancelled;
    assert.ok(settled < 50, `settled ${settled.toFixed(0)} ms after cancel`);
    // The stopped parse frees its worker well before its time budget.
    const next = performance.now();
    assert.deepEqual(
      await parseDefinitions(TS, SOURCE),
      definitionsOf(await loadLanguage(TS), SOURCE),
    );
    const waited = performance.now() - next;
    assert.ok(waited < 500, `the next parse waited ${waited.toFixed(0)} ms`);
    // Aborted before it starts: refused at once.
    await assert.rejects(
      parseDefinitions(TS, SOURCE, AbortSignal.abort(new Error("late"))),
      /late/,
    );
  } finally {
    stopSymbolWorkers();
  }
});

/** A worker module made of `code`. */
function module(code: string): URL {
  return new URL(`data:application/javascript,${encodeURIComponent(code)}`);
}

Deno.test("symbol parser: a worker that cannot start leaves parsing to this thread, with the same result", async () => {
  setSymbolWorkerUrl(module("throw new Error('cannot load');"));
  try {
    assert.deepEqual(
      await parseDefinitions(TS, SOURCE),
      definitionsOf(await loadLanguage(TS), SOURCE),
    );
    assert.equal(symbolWorkersRunning(), 0);
  } finally {
    setSymbolWorkerUrl(undefined);
  }
});

Deno.test("symbol parser: a worker silent past the parse's budget is stopped, and the parse fails with a reason", async () => {
  // Ready after the warm-up, then silent.
  setSymbolWorkerUrl(module(
    "self.onmessage = (e) => { if (e.data.warm) self.postMessage({ id: -1, ready: true }); };",
  ));
  try {
    const started = performance.now();
    const result = await parseDefinitions(TS, SOURCE, undefined, 10);
    const took = performance.now() - started;
    assert.deepEqual(result, {
      ok: false,
      reason: "parsing took longer than 10 ms and was stopped",
    });
    assert.ok(took >= WATCHDOG_SLACK_MS, `gave up after ${took} ms`);
    assert.equal(symbolWorkersRunning(), 0);
  } finally {
    setSymbolWorkerUrl(undefined);
  }
  // A fresh worker takes the next parse.
  try {
    assert.ok((await parseDefinitions(TS, SOURCE)).ok);
  } finally {
    stopSymbolWorkers();
  }
});

Deno.test("symbol parser: a worker that never gets ready leaves parsing to this thread", async () => {
  setSymbolWorkerUrl(module("self.onmessage = () => {};"));
  try {
    const started = performance.now();
    assert.deepEqual(
      await parseDefinitions(TS, SOURCE),
      definitionsOf(await loadLanguage(TS), SOURCE),
    );
    const took = performance.now() - started;
    assert.ok(took >= WATCHDOG_SLACK_MS, `gave up after ${took} ms`);
    assert.equal(symbolWorkersRunning(), 0);
  } finally {
    setSymbolWorkerUrl(undefined);
  }
});
