/**
 * The official SDK client against every build target: lists the fixture
 * workspace's resources following every cursor, reads each one and
 * compares it with the file on disk, and, with `--watch`, receives
 * `updated` and `list_changed` notifications for changes in a temp root.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { Buffer } from "node:buffer";
import { fileURLToPath } from "node:url";
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "./sdk.ts";
import { PROJECT_ROOT } from "./server_command.ts";
import { sdkTest } from "./sdk_connect.ts";

const ROOT = `${PROJECT_ROOT}tests/fixtures/ws`;

// What a text resource's bytes decode to, by byte-order mark.
function decodeByBom(bytes: Uint8Array): string {
  const encoding = bytes[0] === 0xff && bytes[1] === 0xfe
    ? "utf-16le"
    : bytes[0] === 0xfe && bytes[1] === 0xff
    ? "utf-16be"
    : "utf-8";
  return new TextDecoder(encoding).decode(bytes);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) return false;
    await sleep(10);
  }
  return true;
}

sdkTest(
  "sdk resources [launch] lists every page and reads every resource as on disk",
  ["--root", ROOT, "--page-size", "3"],
  async ({ client }) => {
    const names: string[] = [];
    const resources = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listResources(cursor ? { cursor } : {});
      assert.ok(page.resources.length <= 3);
      resources.push(...page.resources);
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    assert.ok(pages > 1, "the fixture spans several pages");
    for (const r of resources) names.push(r.name);
    assert.equal(new Set(names).size, names.length, "no resource twice");
    assert.ok(names.includes("src/main.ts"));
    assert.ok(names.includes("images/pixel.png"));
    assert.ok(!names.includes("app.log"), "ignored file listed");
    assert.ok(
      !names.some((n) => n.startsWith("build/")),
      "ignored dir listed",
    );

    for (const resource of resources) {
      const path = fileURLToPath(resource.uri);
      assert.equal(path, `${Deno.realPathSync(ROOT)}/${resource.name}`);
      const onDisk = await Deno.readFile(path);
      assert.equal(resource.size, onDisk.length, resource.name);
      const { contents } = await client.readResource({ uri: resource.uri });
      assert.equal(contents.length, 1);
      const [content] = contents;
      assert.equal(content.uri, resource.uri);
      if ("blob" in content && typeof content.blob === "string") {
        assert.deepEqual(
          new Uint8Array(Buffer.from(content.blob, "base64")),
          onDisk,
          resource.name,
        );
      } else {
        assert.equal(content.text, decodeByBom(onDisk), resource.name);
      }
      if (resource.mimeType !== undefined) {
        assert.equal(content.mimeType, resource.mimeType, resource.name);
      }
    }
    const png = await client.readResource({
      uri: resources.find((r) => r.name === "images/pixel.png")!.uri,
    });
    assert.ok("blob" in png.contents[0], "a PNG is a blob");

    const { resourceTemplates } = await client.listResourceTemplates();
    assert.equal(resourceTemplates.length, 1);
    const template = resourceTemplates[0].uriTemplate;
    assert.ok(template.endsWith("{+path}"));
    const expanded = template.replace("{+path}", "src/main.ts");
    assert.equal(
      expanded,
      resources.find((r) => r.name === "src/main.ts")!.uri,
    );
    await assert.rejects(
      client.readResource({ uri: template.replace("{+path}", "nope.txt") }),
      (error: { code?: number }) => error.code === -32002,
    );
  },
);

sdkTest(
  "sdk resources [launch] --watch: one updated per write, list_changed on create",
  async () => {
    const root = await Deno.realPath(
      await Deno.makeTempDir({ prefix: "sdk_watch_" }),
    );
    await Deno.writeTextFile(`${root}/a.txt`, "first");
    return ["--root", root, "--watch"];
  },
  async ({ client, args: [, root] }) => {
    const started = performance.now();
    assert.deepEqual(client.getServerCapabilities()?.resources, {
      subscribe: true,
      listChanged: true,
    });
    const updated: string[] = [];
    let listChanged = 0;
    client.setNotificationHandler(
      ResourceUpdatedNotificationSchema,
      (n: { params: { uri: string } }) => void updated.push(n.params.uri),
    );
    client.setNotificationHandler(
      ResourceListChangedNotificationSchema,
      () => void listChanged++,
    );
    const { resources } = await client.listResources();
    const uri = resources.find((r: { name: string }) => r.name === "a.txt")!
      .uri;
    await client.subscribeResource({ uri });
    // The watcher starts with the session, later on a loaded machine: a
    // file made (again every 300 ms, past the 75 ms quiet period) until
    // the list changes, then removed, shows it is up.
    const probe = `${root}/probe.txt`;
    while (listChanged === 0) {
      await Deno.writeTextFile(probe, "probe");
      if (await until(() => listChanged > 0, 300)) break;
      assert.ok(performance.now() - started < 30_000, "no list_changed");
    }
    const made = listChanged;
    await Deno.remove(probe);
    assert.ok(await until(() => listChanged > made, 30_000), "no removal");
    assert.deepEqual(updated, [], "probe.txt is not subscribed");
    listChanged = 0;

    // An editor-like burst: several writes in quick succession (no turn
    // of the event loop between them, so that only a stall past the
    // server's 75 ms quiet period could split the burst).
    for (let i = 0; i < 3; i++) {
      Deno.writeTextFileSync(`${root}/a.txt`, `edit ${i}`);
    }
    assert.ok(
      await until(() => updated.length > 0, 30_000),
      "no update in 30 s",
    );
    await sleep(300);
    assert.deepEqual(updated, [uri], "exactly one update for the burst");
    assert.equal(listChanged, 0, "a modified file does not change the list");
    const read = await client.readResource({ uri });
    assert.equal(read.contents[0].text, "edit 2");

    await Deno.writeTextFile(`${root}/b.txt`, "new");
    assert.ok(await until(() => listChanged > 0, 30_000), "no list_changed");
    assert.deepEqual(updated, [uri], "b.txt is not subscribed");
    const after = await client.listResources();
    assert.deepEqual(after.resources.map((r: { name: string }) => r.name), [
      "a.txt",
      "b.txt",
    ]);

    await client.unsubscribeResource({ uri });
    await Deno.writeTextFile(`${root}/a.txt`, "after unsubscribe");
    await sleep(400);
    assert.deepEqual(updated, [uri], "no update after unsubscribe");
  },
  { after: ({ args: [, root] }) => Deno.remove(root, { recursive: true }) },
);
