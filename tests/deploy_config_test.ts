/**
 * The load balancer configurations in `examples/deploy/` are the ones the
 * README shows, word for word, and the ones `scale_out_test.ts` starts
 * the balancers from: these tests check the first, and that only the
 * addresses change on the way to the second.
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

const README = new URL("../README.md", import.meta.url);

Deno.test("README: the deployment section shows examples/deploy/nginx.conf and haproxy.cfg as they are", async () => {
  const readme = await Deno.readTextFile(README);
  const section = readme.slice(
    readme.indexOf("\n## Deployment behind a load balancer\n"),
  );
  assert.ok(section.length > 1, "the README has a deployment section");
  for (
    const [fence, file] of [["nginx", NGINX_SITE], ["haproxy", HAPROXY_CONFIG]]
  ) {
    const text = await Deno.readTextFile(file as URL);
    assert.ok(
      section.includes("```" + fence + "\n" + text + "```\n"),
      `the README shows ${(file as URL).pathname} unchanged`,
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
