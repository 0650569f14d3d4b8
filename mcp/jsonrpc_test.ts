import { strict as assert } from "node:assert";
import {
  classify,
  decode,
  encodeError,
  encodeNotification,
  encodeRequest,
  encodeResult,
  ErrorCode,
  idKey,
  type IncomingMessage,
  type RawJson,
  type RequestId,
  RpcError,
} from "./jsonrpc.ts";

// TypeScript's lib does not declare JSON.rawJSON / JSON.isRawJSON yet.
const json = JSON as unknown as {
  rawJSON(text: string): RawJson;
  isRawJSON(value: unknown): value is RawJson;
};

/** A compact, comparable summary of what a line decodes to. */
function summary(message: IncomingMessage): string {
  const id = (value: RequestId | null) => JSON.stringify(value);
  switch (message.kind) {
    case "request":
      return `request ${id(message.id)} ${message.method} ${
        JSON.stringify(message.params)
      }`;
    case "notification":
      return `notification ${message.method} ${JSON.stringify(message.params)}`;
    case "response":
      return `response ${id(message.id)}`;
    case "invalid":
      return `invalid ${id(message.id)} ${message.error.code}`;
    case "dropped":
      return "dropped";
  }
}

// Each row: the line, then what it must decode to (ids as they are echoed).
const TABLE: [string, string][] = [
  ['{"jsonrpc":"2.0","id":1,"method":"ping"}', "request 1 ping undefined"],
  [
    '{"jsonrpc":"2.0","id":"a","method":"m","params":{"x":[1]}}',
    'request "a" m {"x":[1]}',
  ],
  ['{"method":"ping","id":0,"jsonrpc":"2.0"}', "request 0 ping undefined"],
  ['{"jsonrpc":"2.0","id":-7,"method":"ping"}', "request -7 ping undefined"],
  ['{"jsonrpc":"2.0","id":-0,"method":"ping"}', "request -0 ping undefined"],
  [
    '{"jsonrpc":"2.0","id":9007199254740993,"method":"p"}',
    "request 9007199254740993 p undefined",
  ],
  [
    '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"p"}',
    "request 123456789012345678901234567890 p undefined",
  ],
  [
    '{"jsonrpc":"2.0","id":"\\u00e9","method":"p"}',
    'request "\\u00e9" p undefined',
  ],
  ['{"jsonrpc":"2.0","id":"\\"","method":"p"}', 'request "\\"" p undefined'],
  ['{"jsonrpc":"2.0","id":"é","method":"p"}', 'request "é" p undefined'],
  ['{"jsonrpc":"2.0","id":"","method":"p"}', 'request "" p undefined'],
  [
    '{"jsonrpc":"2.0", "id" : 5 ,"method":"p","params":{"id":1.5}}',
    'request 5 p {"id":1.5}',
  ],
  [
    '{"jsonrpc":"2.0","method":"notifications/x"}',
    "notification notifications/x undefined",
  ],
  ['{"jsonrpc":"2.0","method":"n","params":{}}', "notification n {}"],
  ['{"jsonrpc":"2.0","method":"n","params":[]}', "dropped"],
  ['{"jsonrpc":"2.0","method":"n","params":null}', "dropped"],
  ['{"jsonrpc":"2.0","id":1,"result":{}}', "response 1"],
  [
    '{"jsonrpc":"2.0","id":"s1","error":{"code":1,"message":"m"}}',
    'response "s1"',
  ],
  [
    '{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}',
    "response null",
  ],
  ["not json", "invalid null -32700"],
  ['{"jsonrpc":"2.0","id":1', "invalid null -32700"],
  ["", "invalid null -32700"],
  ["[]", "invalid null -32600"],
  ['[{"jsonrpc":"2.0","id":1,"method":"ping"}]', "invalid null -32600"],
  ["1", "invalid null -32600"],
  ["null", "invalid null -32600"],
  ['"s"', "invalid null -32600"],
  ['{"id":1,"method":"ping"}', "invalid 1 -32600"],
  ['{"jsonrpc":"1.0","id":"x","method":"ping"}', 'invalid "x" -32600'],
  ['{"jsonrpc":2,"id":1,"method":"ping"}', "invalid 1 -32600"],
  ['{"jsonrpc":"2.0","id":1,"method":1}', "invalid 1 -32600"],
  ['{"jsonrpc":"2.0","id":1}', "invalid 1 -32600"],
  ['{"jsonrpc":"2.0","method":null}', "invalid null -32600"],
  ['{"jsonrpc":"2.0","id":null,"method":"ping"}', "invalid null -32600"],
  ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', "invalid null -32600"],
  ['{"jsonrpc":"2.0","id":1.0,"method":"ping"}', "invalid null -32600"],
  ['{"jsonrpc":"2.0","id":1e3,"method":"ping"}', "invalid null -32600"],
  ['{"jsonrpc":"2.0","id":1E3,"method":"ping"}', "invalid null -32600"],
  ['{"jsonrpc":"2.0","id":2.0,"method":"ping"}', "invalid null -32600"],
  ['{"jsonrpc":"2.0","id":100e-2,"method":"ping"}', "invalid null -32600"],
  // The last of duplicate ids counts, however the first is written.
  ['{"jsonrpc":"2.0","id":99,"id":1.0,"method":"ping"}', "invalid null -32600"],
  [
    '{"jsonrpc":"2.0","id":1.0,"id":7,"method":"ping"}',
    "request 7 ping undefined",
  ],
  // Numbers and number-like text elsewhere in the line leave the id alone.
  [
    '{"jsonrpc":"2.0","id":3,"method":"m","params":{"a":1.5,"b":-0,"c":"2e5"}}',
    'request 3 m {"a":1.5,"b":0,"c":"2e5"}',
  ],
  [
    '{"jsonrpc":"2.0","id":4,"method":"m","params":{"d":"2025-06-18","v":"1.0"}}',
    'request 4 m {"d":"2025-06-18","v":"1.0"}',
  ],
  ['{"jsonrpc":"2.0","id":false,"method":"ping"}', "invalid null -32600"],
  ['{"jsonrpc":"2.0","id":{},"method":"ping"}', "invalid null -32600"],
  ['{"jsonrpc":"2.0","id":[],"method":"ping"}', "invalid null -32600"],
  ['{"jsonrpc":"2.0","id":2,"method":"ping","params":[]}', "invalid 2 -32602"],
  ['{"jsonrpc":"2.0","id":2,"method":"ping","params":"x"}', "invalid 2 -32602"],
  ['{"jsonrpc":"2.0","id":2,"method":"ping","params":0}', "invalid 2 -32602"],
];

Deno.test("decode: the classification table", () => {
  for (const [line, expected] of TABLE) {
    assert.equal(summary(decode(line)), expected, line);
  }
});

Deno.test("decode: an error's message is the standard one followed by what was wrong", () => {
  const messages: Record<number, string> = {
    [-32700]: "Parse error",
    [-32600]: "Invalid Request",
    [-32602]: "Invalid params",
  };
  for (const [line] of TABLE) {
    const message = decode(line);
    if (message.kind !== "invalid") continue;
    assert.ok(message.error instanceof RpcError);
    // Clients show the message and drop data: it must say it all.
    const standard = messages[message.error.code] + ": ";
    assert.ok(message.error.message.startsWith(standard), line);
    assert.ok(message.error.message.length > standard.length + 10, line);
    assert.equal(message.error.data, undefined, line);
  }
});

Deno.test("decode: ids that JSON numbers cannot hold travel as their source text", () => {
  const big = decode('{"jsonrpc":"2.0","id":9007199254740993,"method":"p"}');
  assert.equal(big.kind, "request");
  if (big.kind !== "request") return;
  assert.ok(json.isRawJSON(big.id));
  assert.equal(
    encodeResult(big.id, {}),
    '{"jsonrpc":"2.0","id":9007199254740993,"result":{}}',
  );

  // A safe integer written plainly stays a number (the fast path).
  const small = decode('{"jsonrpc":"2.0","id":42,"method":"p"}');
  assert.ok(small.kind === "request" && small.id === 42);
  // A plain string id stays a string.
  const text = decode('{"jsonrpc":"2.0","id":"abc","method":"p"}');
  assert.ok(text.kind === "request" && text.id === "abc");
});

Deno.test("decode: the id of an invalid message is echoed exactly too", () => {
  const message = decode('{"jsonrpc":"1.0","id":"\\u00e9","method":"p"}');
  assert.equal(message.kind, "invalid");
  if (message.kind !== "invalid") return;
  assert.equal(
    encodeError(message.id, message.error.code, message.error.message),
    '{"jsonrpc":"2.0","id":"\\u00e9","error":{"code":-32600,"message":"Invalid Request: the \\"jsonrpc\\" member must be exactly \\"2.0\\"."}}',
  );
});

Deno.test("classify: parsed values, with and without the id's source", () => {
  assert.equal(
    summary(classify({ jsonrpc: "2.0", id: 3, method: "m" })),
    "request 3 m undefined",
  );
  assert.equal(
    summary(classify({ jsonrpc: "2.0", id: 2 ** 53, method: "m" })),
    "invalid null -32600",
  );
  assert.equal(
    summary(
      classify(
        { jsonrpc: "2.0", id: 2 ** 53, method: "m" },
        "9007199254740993",
      ),
    ),
    "request 9007199254740993 m undefined",
  );
  assert.equal(
    summary(classify({ jsonrpc: "2.0", id: 1, method: "m" }, "1.0")),
    "invalid null -32600",
  );
});

Deno.test("encodeResult: compact, keys jsonrpc, id, result", () => {
  assert.equal(encodeResult(1, {}), '{"jsonrpc":"2.0","id":1,"result":{}}');
  assert.equal(
    encodeResult("p-2", { b: 1, a: [2, "x"] }),
    '{"jsonrpc":"2.0","id":"p-2","result":{"b":1,"a":[2,"x"]}}',
  );
  assert.equal(
    encodeResult(json.rawJSON('"\\/"'), {}),
    '{"jsonrpc":"2.0","id":"\\/","result":{}}',
  );
  assert.equal(
    encodeResult(0, { s: "é\n\u2028" }),
    '{"jsonrpc":"2.0","id":0,"result":{"s":"é\\n\u2028"}}',
  );
});

Deno.test("encodeError: keys code, message, then data only when defined", () => {
  assert.equal(
    encodeError(null, ErrorCode.ParseError, "Parse error"),
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
  );
  assert.equal(
    encodeError(7, ErrorCode.InvalidParams, "Invalid params", undefined),
    '{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params"}}',
  );
  assert.equal(
    encodeError("x", ErrorCode.MethodNotFound, "Method not found", 'no "m"'),
    '{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"Method not found","data":"no \\"m\\""}}',
  );
  assert.equal(
    encodeError(1, -32603, "Internal error", null),
    '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error","data":null}}',
  );
});

Deno.test("encodeNotification and encodeRequest: compact, params only when given", () => {
  assert.equal(encodeNotification("n"), '{"jsonrpc":"2.0","method":"n"}');
  assert.equal(
    encodeNotification("n", { a: 1 }),
    '{"jsonrpc":"2.0","method":"n","params":{"a":1}}',
  );
  assert.equal(
    encodeRequest("s1", "roots/list"),
    '{"jsonrpc":"2.0","id":"s1","method":"roots/list"}',
  );
  assert.equal(
    encodeRequest(2, "m", {}),
    '{"jsonrpc":"2.0","id":2,"method":"m","params":{}}',
  );
});

Deno.test("RpcError: standard messages by code, data kept", () => {
  assert.equal(new RpcError(-32700).message, "Parse error");
  assert.equal(new RpcError(-32600).message, "Invalid Request");
  assert.equal(new RpcError(-32601).message, "Method not found");
  assert.equal(new RpcError(-32602).message, "Invalid params");
  assert.equal(new RpcError(-32603).message, "Internal error");
  assert.deepEqual(
    new RpcError(-32002, "Resource not found", { uri: "x" }).data,
    { uri: "x" },
  );
  assert.equal(new RpcError(-32000, "Custom").message, "Custom");
});

Deno.test("idKey: equal ids get equal keys, whatever their spelling", () => {
  assert.equal(idKey(1), idKey(json.rawJSON("1")));
  assert.equal(idKey("é"), idKey(json.rawJSON('"\\u00e9"')));
  assert.equal(idKey("a"), idKey(json.rawJSON('"a"')));
  assert.notEqual(idKey(1), idKey("1"));
  assert.notEqual(
    idKey(json.rawJSON("9007199254740993")),
    idKey(json.rawJSON("9007199254740992")),
  );
  assert.notEqual(idKey(""), idKey(0));
});
