/**
 * The tools and resources over a hostile workspace: a directory swapped
 * with a link out while calls run, files churning, a growing file, a
 * 2 GiB sparse file, an absurd path, link fan-out, and names with `:`,
 * `\` and bytes that are not UTF-8. No byte from outside comes back, no
 * call hangs, and one bad entry never fails a whole call.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { WorkspaceResources } from "../resources/provider.ts";
import { stopRegexWorker } from "../tools/regex_worker.ts";
import { Workspace } from "../workspace/workspace.ts";
import { call, callRaw, textOf, toolServer } from "./tools_harness.ts";
import type { JsonObject } from "../mcp/jsonrpc.ts";
import { within } from "./within.ts";

const SECRET = "SECRET-OUTSIDE-THE-ROOT-91be";
const NEVER = new AbortController().signal;

async function tempBase(): Promise<string> {
  return await Deno.realPath(
    await Deno.makeTempDir({ prefix: "shipcode-hostile-" }),
  );
}

/** A child process running `body` (JavaScript) with `Deno.args`. */
function child(body: string, ...args: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["eval", body, ...args],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
}

// Both children below run until the file named by their last argument
// exists (at most two minutes), so that calls race them for as long as a
// loaded machine needs to make enough calls.
const STOPPED = `
  const stopped = () => {
    try {
      Deno.statSync(Deno.args.at(-1));
      return true;
    } catch {
      return false;
    }
  };
`;

const SWAPPER = STOPPED + `
  const [root] = Deno.args;
  const end = Date.now() + 120_000;
  const pause = new Int32Array(new SharedArrayBuffer(4)); let turns = 0;
  const swap = (a, b, c) => {
    try { Deno.renameSync(a, c); Deno.renameSync(b, a); Deno.renameSync(c, b); } catch {}
  };
  while (Date.now() < end) {
    swap(root + "/dir", root + "/dir.link", root + "/dir.tmp");
    swap(root + "/f.txt", root + "/f.link", root + "/f.tmp");
    if (++turns % 5 === 0) Atomics.wait(pause, 0, 0, 1); // Leave the other core some time.
    if (turns % 50 === 0 && stopped()) break;
  }
`;

Deno.test("swap race through the tools: no outside byte in thousands of answers", async () => {
  const base = await tempBase();
  const root = `${base}/root`;
  await Deno.mkdir(`${base}/outside`, { recursive: true });
  await Deno.writeTextFile(`${base}/outside/f.txt`, `${SECRET} the\n`);
  await Deno.writeTextFile(`${base}/outside/outside-only.txt`, `${SECRET}\n`);
  await Deno.writeTextFile(`${base}/secret.txt`, `${SECRET} the\n`);
  await Deno.mkdir(`${root}/dir`, { recursive: true });
  await Deno.writeTextFile(`${root}/dir/f.txt`, "inside: the text\n");
  await Deno.writeTextFile(`${root}/f.txt`, "inside: the text\n");
  await Deno.symlink("../outside", `${root}/dir.link`);
  await Deno.symlink("../secret.txt", `${root}/f.link`);
  const { server, session } = await toolServer(root);
  const swapper = child(SWAPPER, root, `${base}/stop`);
  let answers = 0;
  let inside = 0;
  // At least 3 s, and until enough answers to tell (at most a minute).
  const started = Date.now();
  const racing = () => {
    const elapsed = Date.now() - started;
    return elapsed < 3000 ||
      elapsed < 60_000 && (answers <= 200 || inside <= 20);
  };
  try {
    const calls: [string, Record<string, unknown>][] = [
      ["read_file", { path: "dir/f.txt" }],
      ["read_file", { path: "f.txt" }],
      ["list_directory", { path: "dir" }],
      ["list_directory", { depth: 3 }],
      ["search_text", { query: "the" }],
      ["search_text", { query: "the", path: "dir" }],
      ["find_files", { pattern: "*.txt" }],
      ["file_info", { path: "dir/f.txt" }],
    ];
    while (racing()) {
      // A breath per round, for other tests sharing the machine.
      await new Promise((resolve) => setTimeout(resolve, 1));
      for (const [tool, args] of calls) {
        const text = JSON.stringify(
          await callRaw(server, session, tool, args),
        );
        answers++;
        assert.ok(!text.includes(SECRET), `${tool} leaked: ${text}`);
        assert.ok(!text.includes("outside-only"), `${tool} listed outside`);
        if (text.includes("inside: the text")) inside++;
      }
    }
  } finally {
    await Deno.writeTextFile(`${base}/stop`, "");
    await swapper.status;
    stopRegexWorker();
    await Deno.remove(base, { recursive: true });
  }
  assert.ok(answers > 200, `only ${answers} answers`);
  assert.ok(inside > 20, `only ${inside} answers read the inside file`);
});

Deno.test("churn: files created and deleted during calls never fail a call", async () => {
  const base = await tempBase();
  for (let i = 0; i < 20; i++) {
    await Deno.writeTextFile(`${base}/stable${i}.txt`, "stable text\n");
  }
  await Deno.mkdir(`${base}/churn`);
  const churner = child(
    STOPPED + `
    const [dir] = Deno.args;
    const end = Date.now() + 120_000;
    let i = 0;
    const pause = new Int32Array(new SharedArrayBuffer(4)); let turns = 0;
    while (Date.now() < end) {
      const n = i++ % 200;
      try { Deno.writeTextFileSync(dir + "/f" + n + ".txt", "churn text\\n"); } catch {}
      try { Deno.mkdirSync(dir + "/d" + n); Deno.writeTextFileSync(dir + "/d" + n + "/x.txt", "x"); } catch {}
      try { Deno.removeSync(dir + "/f" + ((n + 100) % 200) + ".txt"); } catch {}
      try { Deno.removeSync(dir + "/d" + ((n + 100) % 200), { recursive: true }); } catch {}
      if (++turns % 5 === 0) Atomics.wait(pause, 0, 0, 1); // Leave the other core some time.
      if (turns % 50 === 0 && stopped()) break;
    }
  `,
    `${base}/churn`,
    `${base}/stop`,
  );
  const { server, session } = await toolServer(base);
  let calls = 0;
  try {
    // At least 3 s, and more than 8 calls (at most a minute).
    const started = Date.now();
    while (
      Date.now() - started < 3000 ||
      calls <= 8 && Date.now() - started < 60_000
    ) {
      for (
        const [tool, args] of [
          ["list_directory", { depth: 3 }],
          ["find_files", { pattern: "*.txt" }],
          ["search_text", { query: "text" }],
          ["search_text", { query: "te.t", regex: true }],
        ] as const
      ) {
        const result = await call(server, session, tool, args);
        calls++;
        assert.notEqual(result.isError, true, JSON.stringify(result));
      }
    }
  } finally {
    await Deno.writeTextFile(`${base}/stop`, "");
    await churner.status;
    stopRegexWorker();
    await Deno.remove(base, { recursive: true });
  }
  assert.ok(calls > 8, `only ${calls} calls`);
});

Deno.test("read_file: a growing file and a 2 GiB sparse file stay within the cap, quickly", async () => {
  const base = await tempBase();
  const cap = 65536;
  const grower = child(
    `
    const [path, seconds] = Deno.args;
    const end = Date.now() + Number(seconds) * 1000;
    const block = new TextEncoder().encode("grow line\\n".repeat(6553));
    const file = Deno.openSync(path, { append: true, create: true });
    let written = 0;
    while (Date.now() < end && written < 64 * 1024 * 1024) {
      written += file.writeSync(block);
    }
    file.close();
  `,
    `${base}/grow.log`,
    "2",
  );
  try {
    const sparse = await Deno.open(`${base}/sparse.txt`, {
      write: true,
      create: true,
    });
    await sparse.write(new TextEncoder().encode("text head\n".repeat(820)));
    await sparse.truncate(2 * 1024 * 1024 * 1024);
    sparse.close();
    const { server, session } = await toolServer(base, {
      caps: { maxReadBytes: cap },
    });
    // The file bytes an answer holds: its numbered lines, less the numbers.
    const bytesOf = (result: { content: JsonObject[] }) =>
      new TextEncoder().encode(
        textOf(result).split("\n").flatMap((row) => {
          const line = /^ *\d+\t(.*)$/s.exec(row);
          return line === null ? [] : [`${line[1]}\n`];
        }).join(""),
      ).length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    const end = Date.now() + 1000;
    while (Date.now() < end) {
      const grown = await within(
        call(server, session, "read_file", { path: "grow.log" }),
        10_000,
        "read_file grow.log",
      );
      assert.ok(bytesOf(grown) <= cap + 1, `${bytesOf(grown)} bytes of text`);
    }
    for (
      const args of [{ path: "sparse.txt" }, {
        path: "sparse.txt",
        offset: 800,
      }]
    ) {
      const started = performance.now();
      const result = await within(
        call(server, session, "read_file", args),
        10_000,
        "read_file sparse.txt",
      );
      assert.ok(bytesOf(result) <= cap + 1);
      assert.ok(bytesOf(result) > 0, "no lines read");
      assert.match(textOf(result), /limit per call was reached/);
      assert.ok(performance.now() - started < 5000, "slow sparse read");
    }
    // Past the giant line: the scan is cancellable and keeps timers going.
    // A timer sends the cancel on its fifth turn, so that the cancel itself
    // shows the loop turns during the scan (a scan that never yields is
    // never cancelled, and its whole run takes seconds, past `within`).
    // After the cancel, the scan stops at its next pause: a timer that
    // keeps turning counts for how long, in turns rather than in ms that a
    // loaded machine stretches. A scan that ignored the cancel would run on
    // for hundreds of turns (about 1,000 on an idle machine).
    let ticks = 0;
    let ticksAtCancel = -1;
    const timer = setInterval(() => {
      if (++ticks !== 5) return;
      ticksAtCancel = ticks;
      server.handle({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 7 },
      }, session);
    }, 10);
    let answer;
    try {
      answer = await within(
        server.handle({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: {
            name: "read_file",
            arguments: { path: "sparse.txt", offset: 900 },
          },
        }, session),
        10_000,
        "cancelled read_file",
      );
    } finally {
      clearInterval(timer);
    }
    assert.equal(ticksAtCancel, 5, "the scan ended before it was cancelled");
    assert.equal(answer, undefined, "a cancelled call was answered");
    const turnsAfterCancel = ticks - ticksAtCancel;
    assert.ok(turnsAfterCancel <= 50, `${turnsAfterCancel} turns after cancel`);
  } finally {
    await grower.status;
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("an absurd path and a link fan-out are answered at once", async () => {
  const base = await tempBase();
  try {
    for (let level = 0; level < 30; level++) {
      await Deno.mkdir(`${base}/l${level}`);
      await Deno.writeTextFile(`${base}/l${level}/f.txt`, "fan\n");
      if (level < 29) {
        await Deno.symlink(`../l${level + 1}`, `${base}/l${level}/x`);
        await Deno.symlink(`../l${level + 1}`, `${base}/l${level}/y`);
      }
    }
    const { server, session } = await toolServer(base);
    const started = performance.now();
    const long = await within(
      call(server, session, "read_file", { path: "a/".repeat(20_000) }),
      5000,
      "read_file of 20,000 segments",
    );
    assert.equal(long.isError, true);
    for (
      const [tool, args] of [
        ["find_files", { pattern: "**/f.txt" }],
        ["find_files", { pattern: "**/f.txt", path: "l0/x" }],
        ["search_text", { query: "fan" }],
        ["list_directory", { depth: 8 }],
      ] as const
    ) {
      const result = await within(
        call(server, session, tool, args),
        10_000,
        tool,
      );
      assert.notEqual(result.isError, true);
    }
    const found = await call(server, session, "find_files", {
      pattern: "**/f.txt",
    });
    assert.equal(textOf(found).split("\n").length, 30);
    assert.ok(performance.now() - started < 10_000);
  } finally {
    stopRegexWorker();
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("odd names: ':' and '\\' read back by tools and resources; non-UTF-8 names left out", async () => {
  const base = await tempBase();
  const root = `${base}/with\\backslash`;
  try {
    await Deno.mkdir(root);
    const names = ["notes:v2.md", "C:\\temp.txt", "back\\slash.txt"];
    for (const name of names) {
      await Deno.writeTextFile(`${root}/${name}`, `${name}\n`);
    }
    const bad = await new Deno.Command("sh", {
      args: [
        "-c",
        `printf 'bad text\\n' > "$1/bad$(printf '\\377').txt"`,
        "sh",
        root,
      ],
    }).output();
    assert.ok(bad.success, "could not make a non-UTF-8 name");
    const { server, session } = await toolServer(root);
    for (const name of names) {
      const read = await call(server, session, "read_file", { path: name });
      assert.notEqual(read.isError, true, JSON.stringify(read));
      const text = (read.content as { text: string }[])[0].text;
      assert.equal(text, `1\t${name}`);
    }
    const listed = await call(server, session, "list_directory", {});
    assert.notEqual(listed.isError, true);
    const paths = (listed.content as { text: string }[])[0].text.split("\n")
      .filter((line) => !line.startsWith("["))
      .map((line) => line.replace(/ \(\d+ bytes\)$/, "")).sort();
    assert.deepEqual(paths, [...names].sort());
    // The client is told what was left out, and why.
    assert.match(
      (listed.content as { text: string }[])[0].text,
      /\[1 entry was left out \(1 with a name that is not valid UTF-8\)\.\]$/,
    );
    const found = await call(server, session, "find_files", { pattern: "*" });
    assert.match(
      (found.content as { text: string }[])[0].text,
      /1 entry was left out \(1 with a name that is not valid UTF-8\)/,
    );
    const searched = await call(server, session, "search_text", {
      query: "t",
    });
    assert.notEqual(searched.isError, true);
    assert.ok(!JSON.stringify(searched).includes("bad text"));
    assert.match(
      (searched.content as { text: string }[])[0].text,
      /1 entry was left out/,
    );
    // Resources: every listed URI reads back, the bad name is not listed.
    const ws = await Workspace.open(root);
    const resources = new WorkspaceResources(ws, {
      maxReadBytes: 1 << 20,
      maxResources: 1000,
    });
    const page = await resources.list(undefined, 100, NEVER);
    assert.equal(page.resources.length, names.length);
    for (const resource of page.resources) {
      const [contents] = await resources.read(resource.uri, NEVER);
      assert.equal(
        "text" in contents ? contents.text : "",
        `${resource.name}\n`,
      );
    }
  } finally {
    stopRegexWorker();
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("a file name with a newline cannot forge entries in tool text", async () => {
  const base = await tempBase();
  try {
    const forged = "x.txt (1 bytes)\nforged.txt";
    await Deno.writeTextFile(`${base}/${forged}`, "needle\n");
    await Deno.writeTextFile(`${base}/plain.txt`, "needle\n");
    const { server, session } = await toolServer(base);
    const textOf = (result: { content?: unknown }) =>
      (result.content as { text: string }[])[0].text;
    const listed = textOf(await call(server, session, "list_directory", {}));
    assert.deepEqual(listed.split("\n"), [
      "plain.txt (7 bytes)",
      `${JSON.stringify(forged)} (7 bytes)`,
    ]);
    const found = textOf(
      await call(server, session, "find_files", { pattern: "*.txt" }),
    );
    assert.deepEqual(found.split("\n"), ["plain.txt", JSON.stringify(forged)]);
    const searched = textOf(
      await call(server, session, "search_text", { query: "needle" }),
    );
    assert.deepEqual(searched.split("\n"), [
      "plain.txt:1:needle",
      `${JSON.stringify(forged)}:1:needle`,
    ]);
    // The quoted name, read back as JSON, is the file's real name.
    const read = await call(server, session, "read_file", {
      path: JSON.parse(found.split("\n")[1]),
    });
    assert.equal(textOf(read), "1\tneedle");
  } finally {
    stopRegexWorker();
    await Deno.remove(base, { recursive: true });
  }
});
