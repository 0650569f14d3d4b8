/**
 * Several `main.ts --http` instances behind a real load balancer (nginx
 * from the system's packages), all on loopback, for the scale-out tests:
 * the instances, the balancer started from the site configuration
 * docs/http.md links (`examples/deploy/nginx.conf`, only its addresses
 * replaced), and a `fetch` for the SDK client that records which instance
 * answered each request (the `X-Upstream` header the test's nginx adds
 * from `$upstream_addr`) and retries a request the balancer could not
 * place (the tools only read, so a retry is safe).
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { permissionFlags, V8_FLAGS_ARG } from "../cli/run_command.ts";
import { type ListeningProcess, startListening } from "./process.ts";
import { PROJECT_ROOT } from "./server_command.ts";

/** The nginx site configuration docs/http.md links. */
export const NGINX_SITE: URL = new URL(
  "../examples/deploy/nginx.conf",
  import.meta.url,
);

/** Where the program `name` is: in /usr/sbin, /usr/local/sbin or on PATH. */
export function findProgram(name: string): string | undefined {
  const dirs = [
    "/usr/sbin",
    "/usr/local/sbin",
    ...(Deno.env.get("PATH") ?? "").split(":").filter((dir) => dir !== ""),
  ];
  for (const dir of dirs) {
    try {
      const info = Deno.statSync(`${dir}/${name}`);
      if (info.isFile && ((info.mode ?? 0) & 0o111) !== 0) {
        return `${dir}/${name}`;
      }
    } catch {
      // Not there.
    }
  }
  return undefined;
}

/**
 * Whether the balancer's test must be skipped: only when `program` is
 * missing and this is not CI (which installs it, `.ci/run`), so that CI
 * never passes a test it did not run.
 */
export function skipWithout(program: string | undefined): boolean {
  return program === undefined && Deno.env.get("CI") === undefined;
}

/** A port free on 127.0.0.1 a moment ago (nginx takes no port 0). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** A `server` line of an upstream block: indent, address, parameters. */
const UPSTREAM_SERVER = /^(\s*)server 127\.0\.0\.1:\d+((?: [^;]*)?);$/;

/** The `listen` line of a server block. */
const LISTEN = /^(\s*)listen [^;]+;$/;

/**
 * The site configuration `template` (`examples/deploy`'s) listening on `listen`
 * (`HOST:PORT`) and balancing over `upstreams` (`HOST:PORT` each): its
 * `listen` line and its upstream `server` lines replaced (each new one
 * with the first one's parameters), everything else as it is. Throws when
 * the template lacks them, so the test and the example cannot drift apart.
 */
export function nginxSite(
  template: string,
  listen: string,
  upstreams: readonly string[],
): string {
  const lines = template.split("\n");
  const servers = lines.flatMap((line, at) =>
    UPSTREAM_SERVER.test(line) ? [at] : []
  );
  const listens = lines.filter((line) => LISTEN.test(line));
  if (servers.length === 0 || listens.length !== 1) {
    throw new Error(
      "the nginx site configuration needs one `listen` line and upstream `server 127.0.0.1:PORT` lines",
    );
  }
  const [, indent, params] = UPSTREAM_SERVER.exec(lines[servers[0]])!;
  const block = upstreams.map((address) =>
    `${indent}server ${address}${params};`
  );
  return lines.flatMap((line, at) =>
    at === servers[0]
      ? block
      : servers.includes(at)
      ? []
      : [line.replace(LISTEN, `$1listen ${listen};`)]
  ).join("\n");
}

/** A balancer running in front of the instances. */
export interface Balancer {
  /** The MCP endpoint through the balancer. */
  url: string;
  /** Its access log so far (one line a request: upstreams, status). */
  accessLog(): string;
  /** Stop it and wait until it exited. */
  stop(): Promise<void>;
}

/**
 * Start nginx (`program`) in the foreground with `site` included in the
 * `http` block of a configuration of its own: one process (no master),
 * its pid, logs and temporary files in a new temporary directory, the
 * instance that answered in an `X-Upstream` header. Retries on another
 * port when the one chosen was taken meanwhile.
 */
export function startNginx(
  program: string,
  site: (listen: string) => string,
): Promise<Balancer> {
  return startBalancer(program, {
    name: "nginx",
    errorLog: "error.log",
    accessLog: "access.log",
    async prepare(dir, listen) {
      await Deno.writeTextFile(`${dir}/site.conf`, site(listen));
      await Deno.writeTextFile(
        `${dir}/nginx.conf`,
        [
          // As root, nginx would run its workers as nobody, who cannot
          // write the temporary directory.
          Deno.uid() === 0 ? "user root;" : "",
          "master_process off;",
          `pid ${dir}/nginx.pid;`,
          `error_log ${dir}/error.log info;`,
          "events { worker_connections 256; }",
          "http {",
          `  client_body_temp_path ${dir}/body;`,
          `  proxy_temp_path ${dir}/proxy;`,
          `  fastcgi_temp_path ${dir}/fastcgi;`,
          `  uwsgi_temp_path ${dir}/uwsgi;`,
          `  scgi_temp_path ${dir}/scgi;`,
          "  log_format upstreams '$request_method $uri $status $upstream_addr';",
          `  access_log ${dir}/access.log upstreams;`,
          "  add_header X-Upstream $upstream_addr always;",
          `  include ${dir}/site.conf;`,
          "}",
          "",
        ].join("\n"),
      );
      return [
        "-p",
        dir,
        "-c",
        `${dir}/nginx.conf`,
        "-e",
        `${dir}/error.log`,
        "-g",
        "daemon off;",
      ];
    },
  });
}

/** The HAProxy configuration docs/http.md links. */
export const HAPROXY_CONFIG: URL = new URL(
  "../examples/deploy/haproxy.cfg",
  import.meta.url,
);

/** A `server` line of a backend: indent, name, address, parameters. */
const BACKEND_SERVER = /^(\s*)server \S+ 127\.0\.0\.1:\d+((?: [^\n]*)?)$/;

/** The `bind` line of a frontend. */
const BIND = /^(\s*)bind \S+$/;

/**
 * The HAProxy configuration `template` (`examples/deploy`'s) bound to `listen`
 * and balancing over `upstreams`, like {@linkcode nginxSite}; and, for the
 * test to see, the instance that answered in an `X-Upstream` header.
 */
export function haproxyConfig(
  template: string,
  listen: string,
  upstreams: readonly string[],
): string {
  const lines = template.split("\n");
  const servers = lines.flatMap((line, at) =>
    BACKEND_SERVER.test(line) ? [at] : []
  );
  if (servers.length === 0 || lines.filter((l) => BIND.test(l)).length !== 1) {
    throw new Error(
      "the HAProxy configuration needs one `bind` line and backend `server NAME 127.0.0.1:PORT` lines",
    );
  }
  const [, indent, params] = BACKEND_SERVER.exec(lines[servers[0]])!;
  const block = [
    `${indent}http-response set-header X-Upstream %si:%sp`,
    ...upstreams.map((address, i) =>
      `${indent}server mcp${i + 1} ${address}${params}`
    ),
  ];
  return lines.flatMap((line, at) =>
    at === servers[0]
      ? block
      : servers.includes(at)
      ? []
      : [line.replace(BIND, `$1bind ${listen}`)]
  ).join("\n");
}

/**
 * Start HAProxy (`program`) in the foreground with `config(listen)` on a
 * free port; retries on another port when the one chosen was taken.
 */
export function startHaproxy(
  program: string,
  config: (listen: string) => string,
): Promise<Balancer> {
  return startBalancer(program, {
    name: "haproxy",
    async prepare(dir, listen) {
      await Deno.writeTextFile(`${dir}/haproxy.cfg`, config(listen));
      return ["-f", `${dir}/haproxy.cfg`, "-db"];
    },
  });
}

/** How a balancer is run. */
interface Launch {
  /** Its name, in its temporary directory's and in messages. */
  name: string;
  /** Write what it needs into `dir` to listen on `listen`; its arguments. */
  prepare(dir: string, listen: string): Promise<string[]>;
  /** A log it writes in `dir`, read when it fails to start. */
  errorLog?: string;
  /** Its access log in `dir`, if it writes one. */
  accessLog?: string;
}

/**
 * Start a balancer (`program`, as `launch` says) in the foreground on a
 * free port, its files in a new temporary directory; retries on another
 * port when the one chosen was taken meanwhile.
 */
async function startBalancer(
  program: string,
  launch: Launch,
): Promise<Balancer> {
  for (let attempt = 1;; attempt++) {
    const dir = await Deno.makeTempDir({ prefix: `shipcode-${launch.name}-` });
    const port = freePort();
    const listen = `127.0.0.1:${port}`;
    const child = new Deno.Command(program, {
      args: await launch.prepare(dir, listen),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const started = await waitForListener(child, port, dir);
    const read = (name: string | undefined) => {
      if (name === undefined) return "";
      try {
        return Deno.readTextFileSync(`${dir}/${name}`);
      } catch {
        return "";
      }
    };
    if (started.ready) {
      return {
        url: `http://${listen}/mcp`,
        accessLog: () => read(launch.accessLog),
        stop: started.stop,
      };
    }
    const why = `${started.output}${read(launch.errorLog)}`;
    await started.stop();
    if (attempt < 3 && /Address already in use/i.test(why)) continue;
    throw new Error(`${launch.name} did not start on ${listen}:\n${why}`);
  }
}

/**
 * Wait (up to 30 s) until `child` accepts connections on `port`; `stop`
 * kills it, waits for it and removes `dir`; `output` is what it printed.
 * When it is not ready, it is already stopped but `dir` is kept, for the
 * caller to read what it logged there before calling `stop`.
 */
async function waitForListener(
  child: Deno.ChildProcess,
  port: number,
  dir: string,
): Promise<{ ready: boolean; output: string; stop(): Promise<void> }> {
  let output = "";
  const decoder = new TextDecoder();
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) {
      if (output.length < 64 * 1024) output += decoder.decode(chunk);
    }
  };
  const reading = Promise.all([drain(child.stdout), drain(child.stderr)])
    .catch(() => {});
  let exited = false;
  const status = child.status.then((status) => {
    exited = true;
    return status;
  });
  const kill = async () => {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    await status;
    await reading;
  };
  const stop = async () => {
    await kill();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  for (let i = 0; i < 300 && !exited; i++) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return { ready: !exited, output, stop };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  // Killed, but its directory kept for the caller to read its logs.
  await kill();
  return { ready: false, output, stop };
}

/** The fixture the instances serve (their working directory). */
export const WORKSPACE_ROOT = `${PROJECT_ROOT}tests/fixtures/ws`;

/** The environment variable that holds the instances' shared key. */
export const STATE_KEY_VARIABLE = "SHIPCODE_SCALE_STATE_KEY";

/** A new random key for `--state-key-env`: 32 bytes, Base64. */
export function randomStateKey(): string {
  return btoa(
    String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))),
  );
}

/**
 * Start `count` instances of the workspace server over HTTP on free ports,
 * offering 2026-07-28 with every feature, serving the fixture from their
 * working directory (no `--root`, so a client that declares roots is asked
 * for them in an input_required round, and allowed roots inside the
 * fixture), accepting the balancer's `Host` (`balancerHost`), and signing
 * request state with `stateKey` (none: each its own random key).
 */
export async function startInstances(
  count: number,
  options: { balancerHost: string; stateKey?: string },
): Promise<ListeningProcess[]> {
  const stateKeyEnv = options.stateKey === undefined ? "" : STATE_KEY_VARIABLE;
  const args = [
    "run",
    ...permissionFlags({ http: "127.0.0.1", authTokenEnv: "", stateKeyEnv }),
    V8_FLAGS_ARG,
    fileURLToPath(new URL("../main.ts", import.meta.url)),
    "--http",
    "127.0.0.1:0",
    "--protocol-versions",
    "2026-07-28,2025-06-18",
    "--features",
    "all",
    "--allow-hosts",
    options.balancerHost,
    // Over HTTP a client's roots are served only inside these.
    "--allow-roots",
    WORKSPACE_ROOT,
    ...(stateKeyEnv === "" ? [] : ["--state-key-env", stateKeyEnv]),
  ];
  const env: Record<string, string> = options.stateKey === undefined
    ? {}
    : { [STATE_KEY_VARIABLE]: options.stateKey };
  const started = await Promise.allSettled(
    Array.from({ length: count }, () =>
      startListening({
        command: Deno.execPath(),
        args,
        cwd: WORKSPACE_ROOT,
        env,
      })),
  );
  const instances = started.flatMap((result) =>
    result.status === "fulfilled" ? [result.value] : []
  );
  const failed = started.find((result) => result.status === "rejected");
  if (failed !== undefined) {
    await Promise.all(instances.map((instance) => instance.stop()));
    throw (failed as PromiseRejectedResult).reason;
  }
  return instances;
}

/** `HOST:PORT` of an instance, as `$upstream_addr` names it. */
export function addressOf(instance: ListeningProcess): string {
  return new URL(instance.url).host;
}

/** One POST through the balancer, as the recording fetch saw it. */
export interface Exchange {
  /** The JSON-RPC method. */
  method: string;
  /** The tool or prompt name, when there is one. */
  name?: string;
  /** Whether the request carried a `requestState` (an MRTR retry). */
  retry: boolean;
  /** The phase of the test when it was sent. */
  phase: string;
  /** `X-Upstream`: every instance tried, the one that answered last. */
  upstreams: string[];
  /** The HTTP status the client got. */
  status: number;
  /** How many times the client sent it (more than 1: it retried). */
  attempts: number;
}

/** What {@linkcode recordingFetch} gives. */
export interface Recorder {
  /** The fetch to hand the SDK transport. */
  fetch: typeof fetch;
  /** Every POST answered so far. */
  exchanges: Exchange[];
  /** The phase recorded with requests sent from now on. */
  phase: string;
}

/** Statuses a balancer answers when it could not place the request. */
const UNPLACED = new Set([502, 503, 504]);

/** How many times a request is sent at most. */
const ATTEMPTS = 3;

/**
 * A fetch that records each POST's method and the instances that served
 * it, and sends a request again (up to {@linkcode ATTEMPTS} times) when
 * the connection fails, the balancer answers 502, 503 or 504, or a JSON
 * answer breaks off: every request here is safe to repeat (the tools only
 * read, and 2026-07-28 keeps no state between requests). A JSON answer is
 * read whole before it is handed on, so a broken one is retried too; an
 * SSE answer is handed on as it comes.
 */
export function recordingFetch(): Recorder {
  const recorder: Recorder = {
    exchanges: [],
    phase: "",
    fetch: async (input, init) => {
      const body = typeof init?.body === "string" ? init.body : undefined;
      let message: {
        method?: string;
        params?: { name?: string; requestState?: unknown };
      } = {};
      try {
        message = body === undefined ? {} : JSON.parse(body);
      } catch {
        // Not one JSON-RPC message: recorded without a method.
      }
      const phase = recorder.phase;
      for (let attempt = 1;; attempt++) {
        let response: Response;
        let bytes: ArrayBuffer | undefined;
        try {
          response = await fetch(input, init);
          const type = response.headers.get("content-type") ?? "";
          if (type.startsWith("application/json")) {
            bytes = await response.arrayBuffer();
          }
        } catch (error) {
          if (attempt < ATTEMPTS && !init?.signal?.aborted) continue;
          throw error;
        }
        if (UNPLACED.has(response.status) && attempt < ATTEMPTS) {
          await response.body?.cancel();
          continue;
        }
        if (init?.method === "POST") {
          recorder.exchanges.push({
            method: message.method ?? "",
            name: message.params?.name,
            retry: message.params?.requestState !== undefined,
            phase,
            upstreams: (response.headers.get("x-upstream") ?? "").split(", ")
              .filter((address) => address !== ""),
            status: response.status,
            attempts: attempt,
          });
        }
        return bytes === undefined ? response : new Response(bytes, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
      }
    },
  };
  return recorder;
}
