import { strict as assert } from "node:assert";
import { handlers } from "../handlers/mod.ts";
import type { Logger } from "../mcp/log.ts";
import { McpServer } from "../mcp/server.ts";
import { Session } from "../mcp/session.ts";
import type { ToolContext, ToolResult } from "../mcp/tool.ts";
import { Workspace } from "../workspace/workspace.ts";
import { workspaceTools } from "../tools/mod.ts";
import { fixedRoots } from "../tools/served.ts";
import {
  ClientRoots,
  isWithin,
  openServed,
  rootDirectory,
  type ServeOptions,
} from "./roots.ts";

const OPTIONS: ServeOptions = {
  workspace: {},
  resources: { maxReadBytes: 1000, maxResources: 100 },
  caps: { maxEntries: 100, maxMatches: 10, maxReadBytes: 1000, maxDepth: 4 },
};

async function dirs(): Promise<Record<"base" | "a" | "b" | "cwd", string>> {
  const base = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "app_roots_" }),
  );
  const paths = { base, a: `${base}/a`, b: `${base}/b`, cwd: `${base}/cwd` };
  for (const name of ["a", "b", "cwd"] as const) {
    await Deno.mkdir(paths[name]);
    await Deno.writeTextFile(`${paths[name]}/${name}.txt`, name);
  }
  await Deno.writeTextFile(`${base}/file.txt`, "not a directory");
  return paths;
}

function recorder(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    level: "debug",
    lines,
    log(level, message, detail) {
      lines.push(
        `${level}: ${message}${detail === undefined ? "" : ` ${detail}`}`,
      );
    },
  };
}

function text(result: ToolResult): string {
  return result.content.map((block) => block.text).join("\n");
}

function ctxOf(session: Session): ToolContext {
  return {
    session,
    signal: new AbortController().signal,
    meta: undefined,
    notify: () => {},
    request: () => Promise.reject(new Error("no client")),
    reportProgress: () => {},
    log: () => {},
    sample: () => Promise.reject(new Error("no client")),
    elicit: () => Promise.reject(new Error("no client")),
    listRoots: () => Promise.reject(new Error("no client")),
  };
}

const url = (path: string) => `file://${path}`;

Deno.test("openServed: one directory is served as --root serves it; several get named roots", async () => {
  const d = await dirs();
  try {
    const one = await openServed([d.a], OPTIONS);
    assert.ok(one.view instanceof Workspace);
    const plain = workspaceTools(await Workspace.open(d.a), OPTIONS.caps);
    assert.deepEqual(
      one.tools.map((t) => t.description),
      plain.map((t) => t.description),
    );
    const two = await openServed([d.a, d.b], OPTIONS);
    assert.deepEqual(two.paths, [d.a, d.b]);
    for (const tool of two.tools) {
      assert.match(tool.description, /Several roots are served.*"a" \(/);
    }
    const list = two.tools.find((t) => t.name === "list_directory")!;
    assert.equal(
      text(await list.run({}, ctxOf(new Session(() => {})))),
      "a/\nb/",
    );
  } finally {
    await Deno.remove(d.base, { recursive: true });
  }
});

Deno.test("rootDirectory: file:// directories only", async () => {
  const d = await dirs();
  try {
    assert.deepEqual(await rootDirectory(url(d.a)), { path: d.a });
    assert.deepEqual(
      await rootDirectory(`file://localhost${d.a}/`),
      { path: d.a },
    );
    for (
      const [uri, why] of [
        ["https://example.com/", /only file:/],
        ["not a uri", /not a URI/],
        [url(`${d.base}/missing`), /does not exist/],
        [url(`${d.base}/file.txt`), /not a directory/],
        ["file://server/share", /another host/],
        ["file:///%ff", /does not exist|percent/],
      ] as const
    ) {
      const found = await rootDirectory(uri);
      assert.ok("problem" in found, uri);
      assert.match(found.problem, why, uri);
    }
  } finally {
    await Deno.remove(d.base, { recursive: true });
  }
});

Deno.test("ClientRoots: each session is served its client's roots; others the fallback", async () => {
  const d = await dirs();
  try {
    const fallback = await openServed([d.cwd], OPTIONS);
    const logger = recorder();
    const given = new Map<Session, { uri: string }[]>();
    const roots = new ClientRoots({
      ...OPTIONS,
      fallback,
      logger,
      server: new McpServer({
        handlers,
        info: { name: "t", version: "1" },
        capabilities: { tools: {}, resources: { listChanged: true } },
      }),
      list: ({ session }) => Promise.resolve(given.get(session) ?? []),
    });
    const sent: string[] = [];
    const mine = new Session((line) => sent.push(line));
    mine.state = "ready";
    const other = new Session(() => {});
    given.set(mine, [
      { uri: url(d.a) },
      { uri: url(d.b) },
      { uri: "https://example.com/" },
      { uri: url(`${d.base}/file.txt`) },
      { uri: url(d.a) }, // Twice: served once.
    ]);
    roots.refresh({ session: mine });
    const [list] = roots.tools().filter((t) => t.name === "list_directory");
    assert.equal(text(await list.run({}, ctxOf(mine))), "a/\nb/");
    assert.equal(text(await list.run({}, ctxOf(other))), "cwd.txt (3 bytes)");
    assert.equal(
      logger.lines.filter((l) => l.startsWith("warn: skipping")).length,
      2,
      logger.lines.join("\n"),
    );
    // Its resources: its own; the server's for the other.
    assert.ok(mine.resources !== undefined);
    assert.equal(other.resources, undefined);
    const page = await mine.resources!.list(
      undefined,
      10,
      new AbortController().signal,
    );
    assert.deepEqual(page.resources.map((r) => r.name), ["a/a.txt", "b/b.txt"]);
    assert.deepEqual(sent, [
      '{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}',
    ]);
    // A change to one root: served as it is, paths relative to it.
    given.set(mine, [{ uri: url(d.b) }]);
    roots.refresh({ session: mine });
    assert.equal(text(await list.run({}, ctxOf(mine))), "b.txt (1 bytes)");
    assert.equal(sent.length, 2);
    // None usable: the fallback, with a warning.
    given.set(mine, [{ uri: url(`${d.base}/missing`) }]);
    roots.refresh({ session: mine });
    assert.equal(text(await list.run({}, ctxOf(mine))), "cwd.txt (3 bytes)");
    assert.ok(
      logger.lines.some((l) => l.includes("no root that can be served")),
    );
    // The session ends: it is forgotten (served the fallback again).
    given.set(mine, [{ uri: url(d.a) }]);
    roots.refresh({ session: mine });
    assert.equal(text(await list.run({}, ctxOf(mine))), "a.txt (1 bytes)");
    mine.close();
    assert.equal(roots.lastServed(mine), fallback);
  } finally {
    await Deno.remove(d.base, { recursive: true });
  }
});

Deno.test("ClientRoots: records about a session's roots go to that session alone, at its level, capped", async () => {
  const d = await dirs();
  try {
    const fallback = await openServed([d.cwd], OPTIONS);
    const logger = recorder();
    const given = new Map<Session, { uri: string }[]>();
    const roots = new ClientRoots({
      ...OPTIONS,
      fallback,
      logger,
      server: new McpServer({ handlers, info: { name: "t", version: "1" } }),
      list: ({ session }) => Promise.resolve(given.get(session) ?? []),
    });
    // A session that set level info, and the records it is sent.
    const logging = () => {
      const out: { level: string; logger: string; data: string }[] = [];
      const session = new Session((line) => {
        const message = JSON.parse(line);
        if (message.method === "notifications/message") {
          out.push(message.params);
        }
      });
      session.state = "ready";
      session.logLevel = "info";
      return { session, out };
    };
    const a = logging();
    const b = logging();
    given.set(a.session, [
      { uri: url(d.a) },
      { uri: url(`${d.base}/missing-${"x".repeat(5000)}`) },
    ]);
    roots.refresh({ session: a.session });
    const [list] = roots.tools().filter((t) => t.name === "list_directory");
    assert.equal(text(await list.run({}, ctxOf(a.session))), "a.txt (1 bytes)");
    given.set(b.session, [{ uri: url(d.b) }]);
    roots.refresh({ session: b.session });
    assert.equal(text(await list.run({}, ctxOf(b.session))), "b.txt (1 bytes)");
    // A's: the root it was refused (cut) and the one it is served.
    assert.deepEqual(a.out.map((r) => [r.level, r.logger]), [
      ["warning", "t"],
      ["info", "t"],
    ]);
    assert.match(a.out[0].data, /^skipping the client's root "file:/);
    assert.ok(a.out[0].data.length <= 1100, `${a.out[0].data.length}`);
    assert.equal(a.out[1].data, `serving the client's roots: ${d.a}`);
    // B's: its own root only, nothing of A's.
    assert.deepEqual(b.out.map((r) => r.data), [
      `serving the client's roots: ${d.b}`,
    ]);
    // The server's log has every one.
    assert.equal(
      logger.lines.filter((l) => l.startsWith("info: serving")).length,
      2,
    );
  } finally {
    await Deno.remove(d.base, { recursive: true });
  }
});

Deno.test("ClientRoots: the newest listing wins; a failed one serves the fallback", async () => {
  const d = await dirs();
  try {
    const fallback = await openServed([d.cwd], OPTIONS);
    const logger = recorder();
    const answers: (() => Promise<{ uri: string }[]>)[] = [];
    const roots = new ClientRoots({
      ...OPTIONS,
      fallback,
      logger,
      server: new McpServer({ handlers, info: { name: "t", version: "1" } }),
      list: () => answers.shift()!(),
    });
    const session = new Session(() => {});
    session.state = "ready";
    const slow = Promise.withResolvers<{ uri: string }[]>();
    answers.push(
      () => slow.promise,
      () => Promise.resolve([{ uri: url(d.b) }]),
    );
    roots.refresh({ session });
    roots.refresh({ session });
    slow.resolve([{ uri: url(d.a) }]);
    assert.deepEqual((await roots.servedFor(session)).paths, [d.b]);
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(roots.lastServed(session).paths, [d.b]);
    answers.push(() => Promise.reject(new Error("client went away")));
    roots.refresh({ session });
    assert.equal(await roots.servedFor(session), fallback);
    assert.ok(logger.lines.some((l) => l.includes("roots/list failed")));
  } finally {
    await Deno.remove(d.base, { recursive: true });
  }
});

Deno.test("fixedRoots: every session is served the same roots", async () => {
  const d = await dirs();
  try {
    const served = await openServed([d.a, d.b], OPTIONS);
    const source = fixedRoots(served);
    assert.equal(await source.servedFor(new Session(() => {})), served);
    assert.equal(await source.servedFor(new Session(() => {})), served);
  } finally {
    await Deno.remove(d.base, { recursive: true });
  }
});

Deno.test("ClientRoots: a session's templates are its roots' once settled", async () => {
  const d = await dirs();
  try {
    const fallback = await openServed([d.cwd], OPTIONS);
    const answer = Promise.withResolvers<{ uri: string }[]>();
    const roots = new ClientRoots({
      ...OPTIONS,
      fallback,
      logger: recorder(),
      server: new McpServer({ handlers, info: { name: "t", version: "1" } }),
      list: () => answer.promise,
    });
    const session = new Session(() => {});
    roots.refresh({ session });
    const provider = session.resources!;
    const settled = provider.settled!();
    answer.resolve([{ uri: url(d.a) }, { uri: url(d.b) }]);
    await settled;
    assert.deepEqual(
      provider.templates().map((t) => t.uriTemplate),
      [`file://${d.a}/{+path}`, `file://${d.b}/{+path}`],
    );
    assert.equal(
      provider.normalizeUri(`file://${d.b}/b.txt`),
      `file://${d.b}/b.txt`,
    );
  } finally {
    await Deno.remove(d.base, { recursive: true });
  }
});

Deno.test("isWithin: compares path segments, not string prefixes", () => {
  assert.equal(isWithin("/allowed", "/allowed"), true);
  assert.equal(isWithin("/allowed/a/b", "/allowed"), true);
  assert.equal(isWithin("/allowed-evil", "/allowed"), false);
  assert.equal(isWithin("/allowed-evil/x", "/allowed"), false);
  assert.equal(isWithin("/", "/allowed"), false);
  assert.equal(isWithin("/etc", "/"), true);
});

Deno.test("ClientRoots: confined, a root outside the allowed directories (by real path) is refused, and a session left with none is served nothing", async () => {
  const d = await dirs();
  try {
    await Deno.mkdir(`${d.base}/a-evil`);
    await Deno.symlink(d.b, `${d.a}/to-b`);
    const fallback = await openServed([d.cwd], OPTIONS);
    const logger = recorder();
    let given: { uri: string }[] = [];
    const roots = new ClientRoots({
      ...OPTIONS,
      fallback,
      logger,
      confine: { allowed: [d.a], advice: "Use --allow-roots DIR." },
      server: new McpServer({
        handlers,
        info: { name: "t", version: "1" },
      }),
      list: () => Promise.resolve(given),
    });
    const session = new Session(() => {});
    session.state = "ready";
    const [list] = roots.tools().filter((t) => t.name === "list_directory");
    // Inside: served; the prefix sibling and the link out: refused.
    given = [
      { uri: url(d.a) },
      { uri: url(`${d.base}/a-evil`) },
      { uri: url(`${d.a}/to-b`) },
    ];
    roots.refresh({ session });
    assert.equal(
      text(await list.run({}, ctxOf(session))),
      "a.txt (1 bytes)",
    );
    assert.equal(
      logger.lines.filter((l) => l.startsWith("warn: refusing")).length,
      2,
      logger.lines.join("\n"),
    );
    // None allowed: every call says which roots, why and what to do.
    given = [{ uri: url(`${d.a}/to-b`) }];
    roots.refresh({ session });
    await assert.rejects(
      Promise.resolve(list.run({}, ctxOf(session))),
      (error: Error) =>
        error.message.includes(`(${JSON.stringify(d.b)}) is not inside`) &&
        error.message.endsWith("Use --allow-roots DIR."),
    );
    const served = await roots.servedFor(session);
    assert.deepEqual(served.paths, []);
    assert.deepEqual(
      (await session.resources!.list(
        undefined,
        10,
        new AbortController().signal,
      ))
        .resources,
      [],
    );
  } finally {
    await Deno.remove(d.base, { recursive: true });
  }
});
