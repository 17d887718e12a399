// AR Notebook: a text this phone wrote that another device then replaced (notebook-overwrites.js,
// issue 39). Run by `node --test Tests/WebClient`.
import assert from "node:assert/strict";
import test from "node:test";
import { mine, overwrites, wrote } from "../../Plugins/Web/Client/notebook-overwrites.js";

test("a text of this phone's that another device changed since is told; one still its own follows the new version", () => {
  const kept = new Map([["a", { text: "Lisbon. A", version: 3 }], ["b", { text: "Porto", version: 2 }]]);
  const { told, left } = overwrites(kept, [{ id: "a", text: "Lisbon. B", version: 4 }, { id: "b", text: "Porto", version: 5 }]);
  assert.deepEqual(told, [{ id: "a", mine: "Lisbon. A", now: "Lisbon. B" }]);
  assert.deepEqual([...left], [["b", { text: "Porto", version: 5 }]], "moved (a new version, the same text): still followed");
});

test("not told: the feed not yet bringing this phone's own change, a change still waiting, an item removed", () => {
  const kept = new Map([["a", { text: "new", version: 7 }], ["b", { text: "queued", version: null }], ["c", { text: "gone", version: 1 }]]);
  const { told, left } = overwrites(kept, [{ id: "a", text: "old", version: 6 }, { id: "b", text: "before", version: 2, pending: true }]);
  assert.deepEqual(told, []);
  assert.deepEqual([...left.keys()], ["a", "b"]);
});

test("a change sent from the outbox is judged once it is no longer waiting", () => {
  const kept = new Map([["b", { text: "queued", version: null }]]);
  assert.deepEqual(overwrites(kept, [{ id: "b", text: "queued", version: 3 }]).left.get("b"), { text: "queued", version: 3 });
  assert.deepEqual(overwrites(kept, [{ id: "b", text: "theirs", version: 3 }]).told, [{ id: "b", mine: "queued", now: "theirs" }]);
});

test("what is remembered: a text PATCH of an item with the version answered; an undo forgets all", () => {
  mine.clear();
  wrote({ method: "PATCH", path: "/api/v1/notebooks/notebooks/n1/items/i1", body: { text: "Mine" }, id: "i1" }, { version: 4, item: {} });
  wrote({ method: "PATCH", path: "/api/v1/notebooks/notebooks/n1/items/i2", body: { frame: {} }, id: "i2" }, { version: 2 });
  wrote({ method: "PATCH", path: "/api/v1/notebooks/notebooks/n1/items/i3", body: { text: "Queued" }, id: "i3" }, null);
  assert.deepEqual([...mine], [["i1", { text: "Mine", version: 4 }], ["i3", { text: "Queued", version: null }]]);
  wrote({ method: "POST", path: "/api/v1/notebooks/notebooks/n1/undo", id: "n1" }, {});
  assert.equal(mine.size, 0);
});
