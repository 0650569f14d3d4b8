/**
 * The load balancer configurations in `examples/deploy/` are the ones
 * docs/http.md links (and no document copies them, so none can drift from
 * them), and the ones `scale_out_test.ts` starts the balancers from: these
 * tests check the first, and that only the addresses change on the way to
 * the second.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import {
  HAPROXY_CONFIG,
  haproxyConfig,
  NGINX_SITE,
  nginxSite,
} from "./balancer.ts";

const ROOT = new URL("../", import.meta.url);

/** README.md, CONTRIBUTING.md and docs/*.md, by path. */
async function documents(): Promise<Map<string, string>> {
  const paths = ["README.md", "CONTRIBUTING.md"];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.name.endsWith(".md")) paths.push(`docs/${entry.name}`);
  }
  const texts = new Map<string, string>();
  for (const path of paths) {
    texts.set(path, await Deno.readTextFile(new URL(path, ROOT)));
  }
  return texts;
}

Deno.test("docs/http.md: its deployment section links examples/deploy/nginx.conf and haproxy.cfg, and no document copies them", async () => {
  const docs = await documents();
  const http = docs.get("docs/http.md")!;
  const section = http.slice(
    http.indexOf("\n## Deployment behind a load balancer\n"),
  );
  assert.ok(section.length > 1, "docs/http.md has a deployment section");
  for (const file of [NGINX_SITE, HAPROXY_CONFIG]) {
    const name = file.pathname.split("/").pop()!;
    assert.ok(
      section.includes(`](../examples/deploy/${name})`),
      `docs/http.md links examples/deploy/${name}`,
    );
    await Deno.stat(file);
  }
  for (const [path, text] of docs) {
    assert.ok(
      !/```(nginx|haproxy)\n/.test(text),
      `${path} copies a balancer configuration instead of linking it`,
    );
  }
});

Deno.test("nginxSite: the listen address and the upstream servers replaced, nothing else", async () => {
  const template = await Deno.readTextFile(NGINX_SITE);
  const site = nginxSite(template, "127.0.0.1:9000", [
    "127.0.0.1:9001",
    "127.0.0.1:9002",
  ]);
  const servers = site.split("\n").filter((line) =>
    /^\s*server 127/.test(line)
  );
  assert.deepEqual(servers, [
    "    server 127.0.0.1:9001 max_fails=1 fail_timeout=10s;",
    "    server 127.0.0.1:9002 max_fails=1 fail_timeout=10s;",
  ]);
  assert.match(site, /^ {4}listen 127\.0\.0\.1:9000;$/m);
  const kept = (text: string) =>
    text.split("\n").filter((line) => !/^\s*(server 127|listen )/.test(line));
  assert.deepEqual(kept(site), kept(template));
  assert.throws(
    () => nginxSite("server { }", "127.0.0.1:1", ["127.0.0.1:2"]),
    /needs one `listen` line/,
  );
});

Deno.test("haproxyConfig: the bind address and the servers replaced, and the answering instance named", async () => {
  const template = await Deno.readTextFile(HAPROXY_CONFIG);
  const config = haproxyConfig(template, "127.0.0.1:9000", [
    "127.0.0.1:9001",
    "127.0.0.1:9002",
  ]);
  const servers = config.split("\n").filter((line) => /^\s*server /.test(line));
  assert.deepEqual(servers, [
    "    server mcp1 127.0.0.1:9001 check inter 1s fall 2 rise 2",
    "    server mcp2 127.0.0.1:9002 check inter 1s fall 2 rise 2",
  ]);
  assert.match(config, /^ {4}bind 127\.0\.0\.1:9000$/m);
  assert.match(config, /^ {4}http-response set-header X-Upstream %si:%sp$/m);
  const kept = (text: string) =>
    text.split("\n").filter((line) =>
      !/^\s*(server |bind |http-response set-header X-Upstream)/.test(line)
    );
  assert.deepEqual(kept(config), kept(template));
});
