// Unit tests of the client's pure modules, run by `node --test Tests/WebClient` (tools/test).
import { test } from "node:test";
import assert from "node:assert/strict";
import { backoff, isLocal, localId, outcome, overlay, resolveId } from "../../Plugins/Web/Client/outbox.js";
import { feedChanges, mergeDrawing, ordered } from "../../Plugins/Web/Client/merge.js";

test("a write's outcome: 2xx done, no answer / 401 / 429 / 5xx retried, any other refusal dropped", () => {
  assert.equal(outcome(201), "done");
  assert.equal(outcome(null), "retry");
  assert.equal(outcome(429), "retry");
  assert.equal(outcome(503), "retry");
  assert.equal(outcome(401), "retry", "signed out: kept until the user signs in again, never thrown away");
  assert.equal(outcome(422), "drop");
  assert.equal(outcome(404), "drop");
});

test("backoff grows and stops at 30 s", () => {
  assert.equal(backoff(0), 500);
  assert.equal(backoff(3), 4000);
  assert.equal(backoff(50), 30000);
});

test("a local id is replaced everywhere once the server gives the record its id", () => {
  const id = localId();
  assert.ok(isLocal(id));
  const writes = [
    { key: "a", method: "POST", path: "/api/v1/notes", body: { title: "x" }, kind: "notes.note", id, attempts: 0 },
    { key: "b", method: "PATCH", path: `/api/v1/notes/${id}`, body: { text: "y" }, kind: "notes.note", id, attempts: 0 },
    { key: "c", method: "POST", path: "/api/v1/notes/n_2/move", body: { before: id }, kind: "notes.note", id: "n_2", attempts: 0 },
  ];
  const resolved = resolveId(writes, id, "n_1");
  assert.equal(resolved[1].path, "/api/v1/notes/n_1");
  assert.equal(resolved[1].id, "n_1");
  assert.deepEqual(resolved[2].body, { before: "n_1" });
  assert.equal(resolved[2].id, "n_2");
});

test("the screen shows queued writes on top of the server's copy", () => {
  const records = new Map([["notes.note/n_1", { id: "n_1", title: "old", version: 2 }]]);
  const view = overlay(records, [
    { key: "a", method: "PATCH", path: "/api/v1/notes/n_1", body: { title: "new" }, kind: "notes.note", id: "n_1", attempts: 0 },
    { key: "b", method: "POST", path: "/api/v1/notes", body: { title: "offline" }, kind: "notes.note", id: "local:1", attempts: 0 },
  ]);
  assert.equal(view.get("notes.note/n_1").title, "new");
  assert.equal(view.get("notes.note/local:1").title, "offline");
  const deleted = overlay(view, [{ key: "c", method: "DELETE", path: "/api/v1/notes/n_1", kind: "notes.note", id: "n_1", attempts: 0 }]);
  assert.equal(deleted.has("notes.note/n_1"), false);
});

test("a feed page puts and deletes, but never rolls back a newer copy", () => {
  const held = new Map([["notes.note/a", { version: 5 }]]);
  const { puts, deletes } = feedChanges(held, [
    { kind: "notes.note", id: "a", version: 4, deleted: false, record: { id: "a", title: "stale" } },
    { kind: "notes.note", id: "b", version: 1, deleted: false, record: { id: "b", title: "new" } },
    { kind: "notes.note", id: "c", version: 3, deleted: true },
  ]);
  assert.deepEqual(puts.map(([key]) => key), ["notes.note/b"]);
  assert.deepEqual(deletes, ["notes.note/c"]);
});

test("the user's order: by position, then the moves still queued", () => {
  const notes = [{ id: "c", position: "b" }, { id: "a", position: "a" }, { id: "b", position: "a" }];
  assert.deepEqual(ordered(notes).map((n) => n.id), ["a", "b", "c"]);
  assert.deepEqual(ordered(notes, [{ id: "c", before: "a" }]).map((n) => n.id), ["c", "a", "b"]);
  assert.deepEqual(ordered(notes, [{ id: "a", after: "c" }]).map((n) => n.id), ["b", "c", "a"]);
});

test("a local id inside a string of a queued body is replaced too (a geotag's subject)", () => {
  const id = localId();
  const writes = [{ key: "g", method: "PUT", path: "/api/v1/geo/tags", body: { subject: `notes/${id}`, latitude: 1 }, kind: "notes.note", id, attempts: 0 }];
  const [geotag] = resolveId(writes, id, "n_real");
  assert.deepEqual(geotag.body, { subject: "notes/n_real", latitude: 1 });
  assert.equal(geotag.id, "n_real");
});

test("a drawing drawn on two devices apart keeps both's strokes; what this one erased goes", () => {
  const line = (/** @type {number} */ y) => ({ tool: "pen", color: "#000", width: 0.01, points: [{ x: 0.1, y, pressure: 0.5 }, { x: 0.9, y, pressure: 0.5 }] });
  const base = { strokes: [line(0.1), line(0.2)], texts: [], aspect: 0.66 };
  // This device erased the first stroke and drew a third; the other drew a fourth meanwhile.
  const mine = { strokes: [line(0.2), line(0.3)], texts: [], aspect: 0.66 };
  const theirs = { strokes: [line(0.1), line(0.2), { ...line(0.4), points: line(0.4).points.map((p) => ({ ...p, x: p.x + 0.00001 })) }], texts: [], aspect: 0.66 };
  const merged = mergeDrawing(base, mine, theirs);
  assert.deepEqual(merged.strokes.map((s) => s.points[0].y), [0.2, 0.4, 0.3]);
  assert.equal(merged.aspect, 0.66);
  // The same strokes written back by the server in another form (rounded) are not doubled.
  const echoed = { strokes: mine.strokes.map((s) => ({ ...s, width: 0.0100000001 })), texts: [] };
  assert.equal(mergeDrawing(mine, mine, echoed).strokes.length, 2);
  // Nothing on the server yet: this device's drawing as it is.
  assert.deepEqual(mergeDrawing(null, mine, null).strokes, mine.strokes);
  // Cleared here, while nothing else changed: empty, without an aspect.
  assert.deepEqual(mergeDrawing(base, { strokes: [], texts: [] }, base), { strokes: [], texts: [] });
});
