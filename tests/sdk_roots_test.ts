/**
 * The official SDK client's roots served as the workspace: a server
 * started without `--root` asks the client for its roots once initialized,
 * serves them (one root as it serves `--root`, several as named top-level
 * directories), and swaps them when the client sends
 * `notifications/roots/list_changed`. A client without the `roots`
 * capability gets the current directory, as before.
 *
 * Over HTTP the client is not the user: its roots are served only inside
 * `--allow-roots` directories (real paths), and refused without any, with
 * a tool error that says why. On stdio any root is served.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { pathToFileURL } from "node:url";
import {
  Client,
  ListRootsRequestSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "./sdk.ts";
import { targetStatus } from "./server_command.ts";
import { connectSdk, launchCommand, type Wire } from "./sdk_connect.ts";

interface Fixture {
  dir: string;
  a: string;
  b: string;
  cwd: string;
}

async function fixture(): Promise<Fixture> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const a = `${dir}/alpha`;
  const b = `${dir}/beta`;
  const cwd = `${dir}/cwd`;
  for (const d of [a, b, cwd]) await Deno.mkdir(d);
  await Deno.writeTextFile(`${a}/a.txt`, "in alpha\n");
  await Deno.writeTextFile(`${b}/b.txt`, "in beta\n");
  await Deno.writeTextFile(`${cwd}/c.txt`, "in the cwd\n");
  // A link out of alpha into beta: beta being served does not make it
  // reachable through alpha.
  await Deno.symlink(`${b}/b.txt`, `${a}/to_beta.txt`);
  return { dir, a, b, cwd };
}

async function connect(
  wire: Wire,
  cwd: string,
  roots: { uri: string; name?: string }[] | undefined,
  flags: string[] = [],
  // Over HTTP, the directories allowed for client roots: by default the
  // fixture's (cwd's parent), as an operator allows their projects.
  allowRoots: string[] = [cwd.slice(0, cwd.lastIndexOf("/"))],
): Promise<{
  client: Client;
  setRoots(next: typeof roots): Promise<void>;
  stderr(): string;
  close(): Promise<void>;
}> {
  let current = roots ?? [];
  const client = new Client(
    { name: "shipcode-roots-tests", version: "0.0.1" },
    {
      capabilities: roots === undefined ? {} : { roots: { listChanged: true } },
    },
  );
  if (roots !== undefined) {
    client.setRequestHandler(
      ListRootsRequestSchema,
      () => ({ roots: current }),
    );
  }
  const { close, stderr } = await connectSdk(client, wire, {
    ...launchCommand(
      { target: "source", wire },
      [
        "--features",
        "list-changed",
        ...flags,
        ...(wire === "http"
          ? allowRoots.flatMap((dir) => ["--allow-roots", dir])
          : []),
      ],
    ),
    cwd,
  });
  return {
    client,
    close,
    stderr,
    async setRoots(next) {
      current = next ?? [];
      await client.sendRootsListChanged();
    },
  };
}

function text(result: unknown): string {
  const content = (result as { content: { type: string; text: string }[] })
    .content;
  return content.map((block) => block.text).join("\n");
}

async function listTop(client: Client): Promise<string> {
  return text(
    await client.callTool({ name: "list_directory", arguments: {} }),
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean | Promise<boolean>, ms: number) {
  const end = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > end) return false;
    await sleep(20);
  }
  return true;
}

const available = targetStatus("source").available;

/**
 * Register a test once per wire: as named over stdio, and with `[http]`
 * over HTTP, where each session asks its own client for its roots.
 */
function wireTest(
  t: { name: string; ignore: boolean; fn(wire: Wire): Promise<void> },
): void {
  for (const wire of ["stdio", "http"] as const) {
    Deno.test({
      name: wire === "stdio"
        ? t.name
        : t.name.replace(/^sdk roots:/, "sdk roots [http]:"),
      ignore: t.ignore,
      fn: () => t.fn(wire),
    });
  }
}

wireTest({
  name: "sdk roots: two client roots are served as named top-level directories",
  ignore: !available,
  async fn(wire) {
    const f = await fixture();
    const { client, close } = await connect(wire, f.cwd, [
      { uri: pathToFileURL(f.a).href, name: "A" },
      { uri: pathToFileURL(f.b).href },
      { uri: "https://example.com/not-a-file-root" },
      { uri: pathToFileURL(`${f.dir}/missing`).href },
    ]);
    try {
      assert.equal(await listTop(client), "alpha/\nbeta/");
      assert.match(
        text(
          await client.callTool({
            name: "read_file",
            arguments: { path: "beta/b.txt" },
          }),
        ),
        /in beta/,
      );
      const escape = await client.callTool({
        name: "read_file",
        arguments: { path: "alpha/to_beta.txt" },
      });
      assert.equal(escape.isError, true);
      assert.match(text(escape), /outside/);
      const { resources } = await client.listResources();
      assert.deepEqual(
        resources.map((r: { name: string; uri: string }) => [r.name, r.uri])
          .sort(),
        [
          ["alpha/a.txt", pathToFileURL(`${f.a}/a.txt`).href],
          ["beta/b.txt", pathToFileURL(`${f.b}/b.txt`).href],
        ],
      );
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.equal(resourceTemplates.length, 2);
      const read = await client.readResource({
        uri: pathToFileURL(`${f.a}/a.txt`).href,
      });
      assert.equal((read.contents[0] as { text: string }).text, "in alpha\n");
    } finally {
      await close();
      await Deno.remove(f.dir, { recursive: true });
    }
  },
});

wireTest({
  name:
    "sdk roots: sendRootsListChanged swaps the served roots and lists change",
  ignore: !available,
  async fn(wire) {
    const f = await fixture();
    const { client, setRoots, close } = await connect(wire, f.cwd, [
      { uri: pathToFileURL(f.a).href },
    ]);
    let listChanged = 0;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      listChanged++;
    });
    try {
      // One root: served as --root serves one, paths relative to it.
      assert.match(await listTop(client), /^a\.txt \(9 bytes\)/);
      await setRoots([{ uri: pathToFileURL(f.b).href }]);
      assert.ok(
        await until(
          async () => (await listTop(client)) === "b.txt (8 bytes)",
          30_000,
        ),
        "the tools never served the new root",
      );
      assert.ok(await until(() => listChanged >= 1, 30_000), "no list_changed");
      const { resources } = await client.listResources();
      assert.deepEqual(resources.map((r: { name: string }) => r.name), [
        "b.txt",
      ]);
      // No usable root: the current directory, as without client roots.
      await setRoots([{ uri: "file:///no/such/dir" }]);
      assert.ok(
        await until(
          async () => (await listTop(client)) === "c.txt (11 bytes)",
          30_000,
        ),
        "the fallback was not served",
      );
    } finally {
      await close();
      await Deno.remove(f.dir, { recursive: true });
    }
  },
});

wireTest({
  name:
    "sdk roots: a client without the roots capability gets the current directory",
  ignore: !available,
  async fn(wire) {
    const f = await fixture();
    const { client, close } = await connect(wire, f.cwd, undefined);
    try {
      assert.equal(await listTop(client), "c.txt (11 bytes)");
    } finally {
      await close();
      await Deno.remove(f.dir, { recursive: true });
    }
  },
});

wireTest({
  name:
    "sdk roots: with --watch, a session is sent the changes of its own roots",
  ignore: !available,
  async fn(wire) {
    const f = await fixture();
    const { client, setRoots, close } = await connect(wire, f.cwd, [
      { uri: pathToFileURL(f.a).href },
    ], ["--watch"]);
    const updated: string[] = [];
    let listChanged = 0;
    client.setNotificationHandler(
      ResourceUpdatedNotificationSchema,
      (n: { params: { uri: string } }) => {
        updated.push(n.params.uri);
      },
    );
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      listChanged++;
    });
    try {
      assert.match(await listTop(client), /^a\.txt/);
      // Serving the client's roots in place of the current directory was
      // itself a change of the list (announced before the answer above).
      assert.equal(listChanged, 1);
      const uri = pathToFileURL(`${f.a}/a.txt`).href;
      await client.subscribeResource({ uri });
      // The current directory is not this session's: no news of it.
      await Deno.writeTextFile(`${f.cwd}/new_in_cwd.txt`, "x");
      await sleep(600);
      assert.equal(listChanged, 1);
      // The watch of the new roots may start late on a loaded machine: a
      // write it missed is made again, 2 s on (far past the 75 ms quiet
      // period, so a slow notification is not answered by a second write).
      for (let i = 0; !updated.includes(uri); i++) {
        assert.ok(i < 15, "no update in 30 s");
        await Deno.writeTextFile(`${f.a}/a.txt`, `changed ${i}\n`);
        await until(() => updated.includes(uri), 2000);
      }
      await sleep(300);
      assert.deepEqual(updated, [uri], "one change, one notification");
      await Deno.writeTextFile(`${f.a}/new.txt`, "new\n");
      assert.ok(await until(() => listChanged >= 2, 30_000), "no list_changed");
      // Swapped to beta: changes there are its news now.
      await setRoots([{ uri: pathToFileURL(f.b).href }]);
      assert.ok(
        await until(
          async () => (await listTop(client)) === "b.txt (8 bytes)",
          30_000,
        ),
      );
      // A new file each time (a second write to the same one would be a
      // change, not a new entry), until beta's watch reports one.
      const seen = listChanged;
      for (let i = 0; listChanged === seen; i++) {
        assert.ok(i < 15, "beta unwatched");
        await Deno.writeTextFile(`${f.b}/more${i}.txt`, "more\n");
        await until(() => listChanged > seen, 2000);
      }
    } finally {
      await close();
      await Deno.remove(f.dir, { recursive: true });
    }
  },
});

/** The values `completion/complete` suggests for `ref`'s argument `name`. */
async function complete(
  client: Client,
  ref:
    | { type: "ref/prompt"; name: string }
    | { type: "ref/resource"; uri: string },
  value: string,
  name = "path",
): Promise<string[]> {
  const { completion } = await client.complete({
    ref,
    argument: { name, value },
  });
  return completion.values;
}

/** The URI of the file a review_file prompt embeds for `path`. */
async function reviewedUri(client: Client, path: string): Promise<string> {
  const prompt = await client.getPrompt({
    name: "review_file",
    arguments: { path },
  });
  const content = prompt.messages[1].content as {
    type: string;
    resource: { uri: string };
  };
  assert.equal(content.type, "resource");
  return content.resource.uri;
}

wireTest({
  name:
    "sdk roots: prompts and completion serve the client's roots and follow sendRootsListChanged",
  ignore: !available,
  async fn(wire) {
    const f = await fixture();
    await Deno.mkdir(`${f.b}/sub`);
    await Deno.writeTextFile(`${f.b}/.gitignore`, "hidden.txt\n");
    await Deno.writeTextFile(`${f.b}/hidden.txt`, "ignored\n");
    const { client, setRoots, close } = await connect(wire, f.cwd, [
      { uri: pathToFileURL(f.a).href },
    ], ["--features", "all"]);
    const promptRef = { type: "ref/prompt", name: "review_file" } as const;
    try {
      // One client root: served as one --root, paths relative to it.
      assert.equal(
        await reviewedUri(client, "a.txt"),
        pathToFileURL(`${f.a}/a.txt`).href,
      );
      // The link out of alpha is not suggested: the sandbox holds.
      assert.deepEqual(await complete(client, promptRef, ""), ["a.txt"]);
      const [alphaTemplate] = (await client.listResourceTemplates())
        .resourceTemplates;
      assert.deepEqual(
        await complete(client, {
          type: "ref/resource",
          uri: alphaTemplate.uriTemplate,
        }, "a"),
        ["a.txt"],
      );
      // The cwd (the server's own root) is not this session's.
      await assert.rejects(reviewedUri(client, "c.txt"), /not|exist/i);

      // Two roots: paths start with a root's name, each root its template.
      await setRoots([
        { uri: pathToFileURL(f.a).href },
        { uri: pathToFileURL(f.b).href },
      ]);
      assert.ok(
        await until(
          async () =>
            (await complete(client, promptRef, "")).join() === "alpha/,beta/",
          30_000,
        ),
        "the prompt's completion never served the new roots",
      );
      assert.equal(
        await reviewedUri(client, "beta/b.txt"),
        pathToFileURL(`${f.b}/b.txt`).href,
      );
      assert.deepEqual(await complete(client, promptRef, "beta/"), [
        "beta/b.txt",
        "beta/sub/",
        "beta/.gitignore",
      ]);
      // The sandbox holds for each root: no way out through "..".
      assert.deepEqual(await complete(client, promptRef, "alpha/../"), []);
      await assert.rejects(
        reviewedUri(client, "alpha/to_beta.txt"),
        /outside/,
      );
      const templates = (await client.listResourceTemplates())
        .resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate);
      assert.deepEqual(templates, [
        `${pathToFileURL(f.a).href}/{+path}`,
        `${pathToFileURL(f.b).href}/{+path}`,
      ]);
      assert.deepEqual(
        await complete(client, { type: "ref/resource", uri: templates[0] }, ""),
        ["a.txt"],
      );
      assert.deepEqual(
        await complete(client, { type: "ref/resource", uri: templates[1] }, ""),
        ["b.txt", "sub/", ".gitignore"],
      );
      // A template of no root served (the cwd's) is unknown here.
      await assert.rejects(
        complete(client, {
          type: "ref/resource",
          uri: `${pathToFileURL(f.cwd).href}/{+path}`,
        }, ""),
        /unknown resource template/,
      );
    } finally {
      await close();
      await Deno.remove(f.dir, { recursive: true });
    }
  },
});

wireTest({
  name:
    "sdk roots: without --allow-roots, file:///etc is served on stdio only; over HTTP read_file passwd says why not",
  ignore: !available,
  async fn(wire) {
    const f = await fixture();
    const { client, stderr, close } = await connect(
      wire,
      f.cwd,
      [{ uri: "file:///etc" }],
      ["--log-level", "warn"],
      [],
    );
    try {
      const read = await client.callTool({
        name: "read_file",
        arguments: { path: "passwd" },
      });
      if (wire === "stdio") {
        // The client is the user: its root is served, as before.
        assert.equal(read.isError, undefined, text(read));
        assert.match(text(read), /root:x:0:0/);
        return;
      }
      assert.equal(read.isError, true, text(read));
      assert.doesNotMatch(text(read), /root:x:0:0/);
      assert.match(
        text(read),
        /"file:\/\/\/etc" \("\/etc"\) is not inside a directory allowed for client roots \(none is\)/,
      );
      assert.match(text(read), /--allow-roots DIR/);
      // Nothing else is served either: no listing, no resources.
      const list = await client.callTool({
        name: "list_directory",
        arguments: {},
      });
      assert.equal(list.isError, true);
      assert.deepEqual((await client.listResources()).resources, []);
      assert.match(stderr(), /refusing the client's root: "file:\/\/\/etc"/);
    } finally {
      await close();
      await Deno.remove(f.dir, { recursive: true });
    }
  },
});

wireTest({
  name:
    "sdk roots: with --allow-roots DIR, roots inside it are served; a prefix sibling and a link out are refused",
  ignore: !available,
  async fn(wire) {
    const f = await fixture();
    // alpha is allowed; alpha-evil only shares its name's prefix; a link
    // inside alpha leads to beta, outside it.
    const evil = `${f.a}-evil`;
    await Deno.mkdir(evil);
    await Deno.writeTextFile(`${evil}/secret.txt`, "evil\n");
    await Deno.symlink(f.b, `${f.a}/link-to-beta`);
    const url = (path: string) => pathToFileURL(path).href;
    const { client, setRoots, close } = await connect(
      wire,
      f.cwd,
      [{ uri: url(f.a) }, { uri: url(evil) }, {
        uri: url(`${f.a}/link-to-beta`),
      }],
      // Given on both wires: on stdio too, it confines the client's roots.
      ["--allow-roots", f.a],
      [],
    );
    try {
      // Only alpha is served (one root: paths relative to it).
      assert.match(await listTop(client), /^a\.txt \(9 bytes\)/);
      await setRoots([{ uri: url(evil) }, { uri: url(`${f.a}/link-to-beta`) }]);
      let last = "";
      assert.ok(
        await until(async () => {
          last = text(
            await client.callTool({
              name: "read_file",
              arguments: { path: "secret.txt" },
            }),
          );
          return /refused/.test(last);
        }, 30_000),
        `never refused: ${last}`,
      );
      assert.doesNotMatch(last, /^evil/m);
      assert.match(last, /alpha-evil/);
      assert.match(last, new RegExp(`"${f.b}"`), "the link's real path");
      const beta = await client.callTool({
        name: "read_file",
        arguments: { path: "b.txt" },
      });
      assert.equal(beta.isError, true);
      assert.doesNotMatch(text(beta), /in beta/);
    } finally {
      await close();
      await Deno.remove(f.dir, { recursive: true });
    }
  },
});
