import { strict as assert } from "node:assert";
import { decodeCursor, pageResult, paginate } from "./pagination.ts";

Deno.test("pageResult: the items, then a nextCursor that resumes after the key", () => {
  const result = pageResult("tools", [{ name: "a" }], "a");
  assert.deepEqual(Object.keys(result), ["tools", "nextCursor"]);
  assert.equal(decodeCursor(result.nextCursor), "a");
  assert.deepEqual(pageResult("resources", [], undefined), { resources: [] });
});

Deno.test("paginate + pageResult: every item once, page by page", () => {
  const items = ["a", "b", "c", "d", "e"];
  const seen: string[] = [];
  let cursor: unknown;
  for (let pages = 0; pages < 10; pages++) {
    const page = paginate(items, cursor, 2, (item) => item);
    const result = pageResult("items", page.items, page.nextKey);
    seen.push(...result.items as string[]);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  assert.deepEqual(seen, items);
});
