/**
 * Progress and cancellation with the official SDK client, against every
 * build target over a large generated tree: `onprogress` sees increasing
 * values from a long `search_text` (and `find_files`, deep
 * `list_directory`), and a call the client aborts gets no response while
 * the server goes on serving.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { type Connection, sdkTest } from "./sdk_connect.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let tree: Promise<string> | undefined;

/** 6,000 text files of 19 KB in 120 directories, made once. */
function bigTree(): Promise<string> {
  return tree ??= (async () => {
    const root = await Deno.makeTempDir({ prefix: "sdk_progress_" });
    const text = "alpha beta gamma delta epsilon zeta eta theta iota kappa\n"
      .repeat(330);
    for (let d = 0; d < 120; d++) {
      await Deno.mkdir(`${root}/d${d}`);
      await Promise.all(
        Array.from(
          { length: 50 },
          (_, f) => Deno.writeTextFile(`${root}/d${d}/f${f}.txt`, text),
        ),
      );
    }
    return root;
  })();
}

interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** Every message the server sends from now on, as the transport sees it. */
function watchMessages(
  transport: Connection["transport"],
): { id?: unknown; method?: string }[] {
  const seen: { id?: unknown; method?: string }[] = [];
  const deliver = transport.onmessage! as (m: unknown, e: unknown) => void;
  transport.onmessage = (message: unknown, extra: unknown) => {
    seen.push(message as { id?: unknown; method?: string });
    deliver(message, extra);
  };
  return seen;
}

function assertIncreasing(values: Progress[]): void {
  for (let i = 1; i < values.length; i++) {
    assert.ok(
      values[i].progress > values[i - 1].progress,
      `progress went from ${values[i - 1].progress} to ${values[i].progress}`,
    );
  }
}

sdkTest(
  "sdk progress [launch]: onprogress sees increasing values from long calls, none after the result",
  async () => ["--root", await bigTree(), "--max-entries", "100000"],
  async ({ client, transport }) => {
    const seen = watchMessages(transport);
    // Load the tools first, so the first call's loading is not timed.
    await client.callTool({ name: "file_info", arguments: { path: "d0" } });
    for (
      const [name, args] of [
        ["search_text", { query: "no such text" }],
        ["find_files", { pattern: "*.none" }],
        ["list_directory", { depth: 2 }],
      ] as const
    ) {
      const values: Progress[] = [];
      const result = await client.callTool(
        { name, arguments: args },
        undefined,
        { onprogress: (p: Progress) => values.push(p) },
      );
      assert.ok(!result.isError, name);
      if (name === "search_text") {
        assert.ok(values.length >= 2, `${name}: ${values.length} updates`);
        assert.match(values[0].message ?? "", /^\d+ files? examined$/);
      }
      assertIncreasing(values);
      // Nothing about this call after its answer.
      const answerAt = seen.findLastIndex((m) => m.id !== undefined);
      assert.ok(
        !seen.slice(answerAt + 1).some((m) =>
          m.method === "notifications/progress"
        ),
      );
    }
    // Without onprogress, no token, no progress.
    const before = seen.length;
    await client.callTool({
      name: "search_text",
      arguments: { query: "no such text" },
    });
    assert.ok(
      !seen.slice(before).some((m) => m.method === "notifications/progress"),
    );
  },
);

sdkTest(
  "sdk progress [launch]: an aborted call gets no response; the server stays healthy",
  async () => ["--root", await bigTree()],
  async ({ client, transport }) => {
    const seen = watchMessages(transport);
    await client.callTool({ name: "file_info", arguments: { path: "d0" } });
    const controller = new AbortController();
    const started = Promise.withResolvers<void>();
    const call = client.callTool(
      { name: "search_text", arguments: { query: "no such text" } },
      undefined,
      {
        signal: controller.signal,
        onprogress: () => started.resolve(),
      },
    );
    call.catch(() => {});
    await started.promise;
    const abortedAt = seen.length;
    controller.abort("changed my mind");
    await assert.rejects(call);
    // The search would have taken this long; no answer to it arrives.
    await sleep(1500);
    await client.ping();
    const after = seen.slice(abortedAt);
    assert.deepEqual(
      after.filter((m) => m.method === undefined).length,
      1,
      `only the ping is answered: ${JSON.stringify(after)}`,
    );
    const found = await client.callTool({
      name: "search_text",
      arguments: { query: "kappa", path: "d3/f7.txt", limit: 1 },
    });
    assert.match(
      (found.content as { text: string }[])[0].text,
      /^d3\/f7\.txt:1:alpha/,
    );
  },
);

Deno.test({
  name: "sdk progress: remove the generated tree",
  sanitizeResources: false,
  async fn() {
    if (tree) await Deno.remove(await tree, { recursive: true });
  },
});
