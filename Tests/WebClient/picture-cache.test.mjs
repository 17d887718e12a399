// The one picture cache of iRemember, AR Notebook and Napkin Notes (picture-cache.js): its order of
// dropping, each app's bound, and the kept copy on a stand-in for the account's IndexedDB copy.
// Run by `node --test Tests/WebClient`.
import assert from "node:assert/strict";
import test from "node:test";
import {
  BOUNDS, budgetBytes, DEFAULT_MB, keptNow, pictureURL, sizeWords, toDrop, totalBytes, touched, without,
} from "../../Plugins/Web/Client/picture-cache.js";

const MB = 1024 * 1024;

test("the least recently viewed pictures are dropped first, until the cache is within its size", () => {
  let index = {};
  index = touched(index, "a", 40 * MB, 1);
  index = touched(index, "b", 40 * MB, 2);
  index = touched(index, "c", 40 * MB, 3);
  assert.deepEqual(toDrop(index, 120 * MB), [], "within the size: nothing goes");
  index = touched(index, "d", 40 * MB, 4);
  assert.deepEqual(toDrop(index, 120 * MB), ["a"]);
  assert.deepEqual(toDrop(index, 50 * MB), ["a", "b", "c"]);
  assert.deepEqual(toDrop(index, { bytes: 120 * MB }), ["a"], "a bound without a count is the size alone");
});

test("viewing a picture again keeps it: the next oldest goes instead", () => {
  let index = {};
  for (const [key, at] of [["a", 1], ["b", 2], ["c", 3]]) index = touched(index, key, 10, at);
  index = touched(index, "a", 10, 4);
  assert.deepEqual(toDrop(index, 20), ["b"]);
  assert.deepEqual(toDrop(index, 10), ["b", "c"]);
});

test("the picture being shown is never dropped, even alone over the size; equal times drop in key order", () => {
  let index = touched({}, "big", 300 * MB, 5);
  index = touched(index, "y", MB, 1);
  index = touched(index, "x", MB, 1);
  assert.deepEqual(toDrop(index, 200 * MB, "big"), ["x", "y"]);
  assert.deepEqual(without(index, ["x", "y"]), { big: { size: 300 * MB, at: 5 } });
  assert.equal(totalBytes(index), 302 * MB);
});

test("a count bound (AR's 300 pictures) drops the oldest past the count, even when the bytes are within", () => {
  let index = {};
  for (let n = 0; n < 5; n += 1) index = touched(index, `p${n}`, 1, n);
  assert.deepEqual(toDrop(index, { bytes: 60 * MB, count: 5 }), []);
  assert.deepEqual(toDrop(index, { bytes: 60 * MB, count: 3 }), ["p0", "p1"]);
  assert.deepEqual(toDrop(index, { bytes: 60 * MB, count: 3 }, "p0"), ["p1", "p2"], "the one shown stays, the next oldest go");
  // Both bounds: whichever asks for more goes.
  index = touched(index, "huge", 59 * MB, 9);
  assert.deepEqual(toDrop(index, { bytes: 58 * MB, count: 10 }, "p4"), ["p0", "p1", "p2", "p3", "huge"]);
});

test("each app has its own bound: AR 300 pictures / 60 MB, Napkin 500 / 100 MB, iRemember the size chosen", () => {
  assert.deepEqual(BOUNDS.ar, { bytes: 60 * MB, count: 300 });
  assert.deepEqual(BOUNDS.napkin, { bytes: 100 * MB, count: 500 });
  assert.equal(budgetBytes("500"), 500 * MB);
  assert.equal(budgetBytes(null), DEFAULT_MB * MB);
  assert.equal(budgetBytes("7"), DEFAULT_MB * MB);
  assert.equal(sizeWords(12 * MB + 1), "12 MB");
  assert.equal(sizeWords(840 * 1024), "840 KB");
});

/** A stand-in for db.js's Database (`db`): its meta store is a Map (`store`). */
function fakeDatabase() {
  const store = new Map([["picture-cache", {}]]);
  const db = {
    meta: async (key) => store.get(key),
    setMeta: async (key, value) => { store.set(key, value); },
    run: async (_name, _mode, body) => { body({ delete: (key) => store.delete(key) }); },
  };
  return { db, store };
}

test("a picture is fetched once and kept; past the bound the least recently shown is let go from the store", async () => {
  globalThis.window ??= globalThis;
  const { db, store } = fakeDatabase();
  const asked = [];
  const api = { request: async (_method, path) => { asked.push(path); return { status: 200, body: new Blob([path]) }; } };
  const context = { api, sync: { db } };
  const bound = { bytes: MB, count: 2 };
  for (const path of ["/a", "/b", "/c"]) assert.match(await pictureURL(context, path, bound), /^blob:/);
  assert.match(await pictureURL(context, "/b", bound), /^blob:/);
  const kept = await keptNow(db, bound);
  assert.deepEqual(asked, ["/a", "/b", "/c"], "each picture fetched once");
  assert.equal(kept.count, 2);
  assert.deepEqual([...store.keys()].filter((k) => k.startsWith("picture:")).sort(), ["picture:/b", "picture:/c"],
    "the oldest (/a) was let go, the two shown since are kept");
  assert.deepEqual(Object.keys(store.get("picture-cache")).sort(), ["picture:/b", "picture:/c"], "the index is kept beside them");
});

test("a picture kept on the phone shows without the network (a new page: nothing in memory)", async () => {
  globalThis.window ??= globalThis;
  const { db, store } = fakeDatabase();
  store.set("picture:/kept@2", new Blob(["bytes"]));
  store.set("picture-cache", { "picture:/kept@2": { size: 5, at: 1 } });
  const api = { request: async () => { throw new Error("offline"); } };
  assert.match(await pictureURL({ api, sync: { db } }, "/kept", BOUNDS.napkin, "/kept@2"), /^blob:/);
  await assert.rejects(pictureURL({ api, sync: { db } }, "/kept", BOUNDS.napkin, "/kept@3"), /offline/, "another version is not the kept one");
  assert.equal((await keptNow(db, BOUNDS.napkin)).count, 1);
});
