import { strict as assert } from "node:assert";
import type { ResourceChanges, ResourceProvider } from "../mcp/resource.ts";
import { McpServer } from "../mcp/server.ts";
import { Session } from "../mcp/session.ts";
import { watchResources } from "../mcp/watch.ts";
import { handlers } from "../handlers/mod.ts";
import { classify, Debouncer, watchWorkspace } from "../resources/watch.ts";
import { RootUri } from "../resources/uri.ts";
import { Workspace } from "../workspace/workspace.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("Debouncer: one flush per burst, after the quiet period", async () => {
  let flushes = 0;
  const d = new Debouncer(40, 1000, () => flushes++);
  for (let i = 0; i < 5; i++) {
    d.poke();
    await sleep(10);
  }
  assert.equal(flushes, 0, "no flush while events keep coming");
  await sleep(80);
  assert.equal(flushes, 1);
  d.poke();
  await sleep(80);
  assert.equal(flushes, 2, "a later burst flushes again");
  d.close();
});

Deno.test("Debouncer: a never-ending burst still flushes by maxDelayMs", async () => {
  let flushes = 0;
  const d = new Debouncer(40, 60, () => flushes++);
  const start = performance.now();
  // Long enough for two flushes even when a loaded machine runs timers late.
  while (performance.now() - start < 800) {
    d.poke();
    await sleep(10);
  }
  d.close();
  assert.ok(flushes >= 2, `flushes: ${flushes}`);
});

Deno.test("Debouncer: close drops the pending flush", async () => {
  let flushes = 0;
  const d = new Debouncer(20, 100, () => flushes++);
  d.poke();
  d.close();
  await sleep(50);
  assert.equal(flushes, 0);
});

Deno.test("classify: what each before/now pair reports", () => {
  const cases: [Parameters<typeof classify>, ReturnType<typeof classify>][] = [
    [["present", "file", "modify"], { updated: true, listChanged: false }],
    [["absent", "file", "create"], { updated: true, listChanged: true }],
    [["present", "absent", "remove"], { updated: true, listChanged: true }],
    [["absent", "absent", "create"], { updated: false, listChanged: false }],
    [["unknown", "file", "rename"], { updated: true, listChanged: true }],
    [["unknown", "absent", "rename"], { updated: true, listChanged: true }],
    [["absent", "directory", "create"], { updated: false, listChanged: true }],
    [["present", "directory", "modify"], {
      updated: false,
      listChanged: false,
    }],
  ];
  for (const [args, expected] of cases) {
    assert.deepEqual(classify(...args), expected, args.join(" "));
  }
});

async function withRoot(
  fn: (
    root: string,
    reports: ResourceChanges[],
    uris: RootUri,
  ) => Promise<void>,
  quietMs = 150,
): Promise<void> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "watch_" }),
  );
  await Deno.writeTextFile(`${root}/.gitignore`, "*.log\n");
  await Deno.writeTextFile(`${root}/a.txt`, "a");
  await Deno.mkdir(`${root}/.git`);
  const workspace = await Workspace.open(root);
  const uris = new RootUri(root);
  const reports: ResourceChanges[] = [];
  const watch = watchWorkspace(workspace, uris, (c) => reports.push(c), {
    // Generous: under a loaded CI machine two writes a test makes back to
    // back can be further apart than a short quiet period.
    quietMs,
  });
  try {
    // Wait until the watcher sees events: on a loaded machine it can miss
    // the first ones for a while, and a file's first event decides how its
    // change is classified.
    const ready = Date.now() + 10_000;
    while (reports.length === 0 && Date.now() < ready) {
      await Deno.writeTextFile(`${root}/ready.txt`, String(Date.now()));
      await sleep(300);
    }
    await Deno.remove(`${root}/ready.txt`);
    while (
      !reports.some((r) =>
        r.updated.some((u) => u.endsWith("/ready.txt")) &&
        r.listChanged
      ) && Date.now() < ready + 10_000
    ) await sleep(50);
    await sleep(quietMs * 2);
    reports.length = 0;
    await fn(root, reports, uris);
  } finally {
    watch.close();
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("watchWorkspace: a burst of writes to one file is one update", async () => {
  await withRoot(async (root, reports, uris) => {
    for (let i = 0; i < 5; i++) {
      await Deno.writeTextFile(`${root}/a.txt`, `version ${i}`);
      await sleep(5);
    }
    await sleep(600);
    assert.deepEqual(reports, [{
      updated: [uris.uriOf("a.txt")],
      listChanged: false,
    }]);
  });
});

Deno.test("watchWorkspace: files appearing and vanishing change the list", async () => {
  await withRoot(async (root, reports, uris) => {
    await Deno.writeTextFile(`${root}/new.txt`, "new");
    await sleep(600);
    assert.deepEqual(reports, [{
      updated: [uris.uriOf("new.txt")],
      listChanged: true,
    }]);
    await Deno.remove(`${root}/new.txt`);
    await sleep(600);
    assert.equal(reports.length, 2);
    assert.equal(reports[1].listChanged, true);
  });
});

Deno.test("watchWorkspace: ignored files and .git/ report nothing", async () => {
  await withRoot(async (root, reports) => {
    await Deno.writeTextFile(`${root}/debug.log`, "ignored");
    await Deno.writeTextFile(`${root}/.git/HEAD`, "ref");
    await sleep(1500);
    assert.deepEqual(reports, []);
  }, 600);
});

Deno.test("watchWorkspace: a temporary file created and deleted at once reports nothing, or at most its own change", async () => {
  await withRoot(async (root, reports, uris) => {
    await Deno.writeTextFile(`${root}/.a.txt.swp`, "tmp");
    await Deno.remove(`${root}/.a.txt.swp`);
    await sleep(1500);
    // On an idle machine the watcher sees create ... remove: nothing to
    // report. On a loaded one Deno's watcher can deliver every event of
    // the burst as "remove", which reads as a file that existed and went:
    // then the report is conservative (the file and the list changed),
    // and never names anything else.
    for (const report of reports) {
      assert.deepEqual(report, {
        updated: [uris.uriOf(".a.txt.swp")],
        listChanged: true,
      });
    }
    assert.ok(reports.length <= 1);
  }, 600);
});

/** A provider whose changes the test emits by hand. */
function fakeProvider(): ResourceProvider & {
  emit(c: ResourceChanges): void;
  closed: boolean;
} {
  let listener: ((c: ResourceChanges) => void) | undefined;
  const provider = {
    closed: false,
    list: () => Promise.resolve({ resources: [] }),
    templates: () => [],
    read: () => Promise.resolve([]),
    canonicalUri: (uri: string) => Promise.resolve(uri),
    normalizeUri: (uri: string) => uri,
    watch(l: (c: ResourceChanges) => void) {
      listener = l;
      return { close: () => provider.closed = true };
    },
    emit: (c: ResourceChanges) => listener?.(c),
  };
  return provider;
}

Deno.test("watchResources: nothing before initialized, then subscribed updates and list_changed", async () => {
  const provider = fakeProvider();
  const server = new McpServer({
    info: { name: "shipcode-mcp", version: "1.0.0" },
    handlers,
    capabilities: {
      tools: {},
      resources: { subscribe: true, listChanged: true },
    },
    resources: provider,
  });
  const sent: string[] = [];
  const session = new Session((line) => sent.push(line));
  const watch = watchResources(server, session)!;
  try {
    session.state = "initializing";
    session.subscriptions.add("file:///r/a.txt");
    provider.emit({
      updated: ["file:///r/a.txt", "file:///r/b.txt"],
      listChanged: false,
    });
    provider.emit({ updated: [], listChanged: true });
    await sleep(60);
    assert.deepEqual(sent, [], "held until the client is ready");
    session.state = "ready";
    await sleep(60);
    assert.deepEqual(sent, [
      '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///r/a.txt"}}',
      '{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}',
    ]);
    sent.length = 0;
    provider.emit({ updated: [], listChanged: false, all: true });
    assert.deepEqual(sent, [
      '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///r/a.txt"}}',
    ]);
  } finally {
    watch.close();
  }
  assert.equal(provider.closed, true);
});

Deno.test("watchResources: no watch without the subscribe capability", () => {
  const server = new McpServer({
    handlers,
    info: { name: "shipcode-mcp", version: "1.0.0" },
    resources: fakeProvider(),
  });
  assert.equal(watchResources(server, new Session(() => {})), undefined);
});

Deno.test("subscribe handlers: -32601 without --watch; idempotent with it", async () => {
  const plain = new McpServer({
    handlers,
    info: { name: "shipcode-mcp", version: "1.0.0" },
    resources: fakeProvider(),
  });
  const session = new Session(() => {});
  const call = async (server: McpServer, method: string, params: unknown) =>
    await server.handle({ jsonrpc: "2.0", id: 1, method, params }, session);
  assert.deepEqual(
    ((await call(plain, "resources/subscribe", { uri: "file:///r/a.txt" }))!
      .error as { code: number }).code,
    -32601,
  );
  const watching = new McpServer({
    info: { name: "shipcode-mcp", version: "1.0.0" },
    handlers,
    capabilities: { resources: { subscribe: true } },
    resources: fakeProvider(),
  });
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(
      (await call(watching, "resources/subscribe", { uri: "file:///r/a.txt" }))!
        .result,
      {},
    );
  }
  assert.deepEqual([...session.subscriptions], ["file:///r/a.txt"]);
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(
      (await call(watching, "resources/unsubscribe", {
        uri: "file:///r/a.txt",
      }))!.result,
      {},
    );
  }
  assert.equal(session.subscriptions.size, 0);
  for (const params of [{}, { uri: 7 }, { uri: "no scheme" }]) {
    const error = (await call(watching, "resources/subscribe", params))!
      .error as { code: number };
    assert.equal(error.code, -32602, JSON.stringify(params));
  }
});

Deno.test("watchWorkspace: an edited .gitignore is read again and changes the list", async () => {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "watch_" }),
  );
  await Deno.writeTextFile(`${root}/.gitignore`, "*.log\n");
  await Deno.writeTextFile(`${root}/app.log`, "log");
  const workspace = await Workspace.open(root);
  const reports: ResourceChanges[] = [];
  const watch = watchWorkspace(
    workspace,
    new RootUri(root),
    (c) => reports.push(c),
    { quietMs: 150 },
  );
  try {
    assert.equal(await workspace.isIgnored("app.log", false), true);
    await sleep(100); // Let the watcher start.
    await Deno.writeTextFile(`${root}/.gitignore`, "*.tmp\n");
    await sleep(600);
    assert.equal(reports.length, 1);
    assert.equal(reports[0].listChanged, true);
    assert.equal(await workspace.isIgnored("app.log", false), false);
    assert.equal(await workspace.isIgnored("x.tmp", false), true);
  } finally {
    watch.close();
    await Deno.remove(root, { recursive: true });
  }
});

/**
 * How many inotify watches this process holds (Linux), from /proc. Read by
 * a subprocess: Deno grants /proc/self only with every permission.
 */
async function inotifyWatches(): Promise<number> {
  const { stdout } = await new Deno.Command("sh", {
    args: ["-c", `cat /proc/${Deno.pid}/fdinfo/* 2>/dev/null; true`],
  }).output();
  return new TextDecoder().decode(stdout).split("\n")
    .filter((line) => line.startsWith("inotify wd:")).length;
}

Deno.test({
  name:
    "watchWorkspace: a link to a directory outside the root adds no watch there and reports nothing from it",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const base = await Deno.realPath(
      await Deno.makeTempDir({ prefix: "watch_out_" }),
    );
    const root = `${base}/root`;
    const outside = `${base}/outside`;
    await Deno.mkdir(`${root}/src/deep`, { recursive: true });
    for (let i = 0; i < 60; i++) {
      await Deno.mkdir(`${outside}/d${i}`, { recursive: true });
    }
    await Deno.symlink(outside, `${root}/out`);
    await Deno.symlink("/", `${root}/slash`);
    const before = await inotifyWatches();
    const reports: ResourceChanges[] = [];
    const watch = watchWorkspace(
      await Workspace.open(root),
      new RootUri(root),
      (c) => reports.push(c),
      { quietMs: 100 },
    );
    try {
      await sleep(300); // Let the watcher start.
      const added = await inotifyWatches() - before;
      // root, src and src/deep: nothing behind the links.
      assert.ok(added <= 3, `watches added: ${added}`);
      await Deno.writeTextFile(`${outside}/d1/secret.txt`, "outside");
      await sleep(500);
      assert.deepEqual(reports, []);
      // The watch still works inside, in a directory made after it began.
      await Deno.mkdir(`${root}/src/new`);
      await sleep(400);
      await Deno.writeTextFile(`${root}/src/new/b.txt`, "b");
      await sleep(500);
      const uris = (reports as ResourceChanges[]).flatMap((r) => r.updated);
      assert.ok(
        uris.some((u) => u.endsWith("/src/new/b.txt")),
        JSON.stringify(reports),
      );
    } finally {
      watch.close();
      await Deno.remove(base, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "watchWorkspace: an unreadable directory does not stop the watch (run as a non-root user it would throw)",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const root = await Deno.realPath(
      await Deno.makeTempDir({ prefix: "watch_" }),
    );
    await Deno.mkdir(`${root}/locked`);
    await Deno.writeTextFile(`${root}/a.txt`, "a");
    // A name that is not valid UTF-8 cannot be watched by its decoded name.
    const bad = new Uint8Array([
      ...new TextEncoder().encode(`${root}/b`),
      0xff,
    ]);
    await Deno.mkdir(new TextDecoder().decode(bad)).catch(() => {});
    await Deno.chmod(`${root}/locked`, 0o000);
    const reports: ResourceChanges[] = [];
    const watch = watchWorkspace(
      await Workspace.open(root),
      new RootUri(root),
      (c) => reports.push(c),
      { quietMs: 100 },
    );
    try {
      await sleep(300);
      await Deno.writeTextFile(`${root}/a.txt`, "changed");
      await sleep(500);
      assert.equal(reports.length, 1, JSON.stringify(reports));
    } finally {
      watch.close();
      await Deno.chmod(`${root}/locked`, 0o755);
      await Deno.remove(root, { recursive: true });
    }
  },
});
