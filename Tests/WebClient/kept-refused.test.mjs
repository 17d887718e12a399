// Words the server refused for what they carry (kept.js isRefusal, kept-refused-kinds.js), and the
// indicator's count of changes as a person counts them (outbox.js changeOf).
import { test } from "node:test";
import assert from "node:assert/strict";
import { isRefusal, keptFrom, keptKind, refusedWhy } from "../../Plugins/Web/Client/kept.js";
import { changeOf } from "../../Plugins/Web/Client/outbox.js";
import "../../Plugins/Web/Client/kept-kinds.js";
import "../../Plugins/Web/Client/kept-refused-kinds.js";

test("a refusal that a resend cannot cure keeps the words; a target gone, a version conflict and what may pass later do not", () => {
  for (const status of [400, 403, 409, 413, 415, 422]) assert.equal(isRefusal(status), true, String(status));
  for (const status of [null, 200, 401, 404, 408, 410, 412, 425, 429, 500, 503]) assert.equal(isRefusal(status), false, String(status));
});

test("a refused write's kept record holds the server's message; a later keep of the same record keeps the words", () => {
  const write = { method: "PATCH", path: "/api/v1/notes/n1", kind: "notes.note", id: "n1", key: "k", attempts: 0, body: { text: "x".repeat(10) } };
  const kept = keptFrom(write, { text: "x".repeat(10) }, { refused: { status: 422, message: "A note's text has at most 100000 characters." }, now: "2026-01-01" });
  assert.deepEqual(kept?.refused, { status: 422, message: "A note's text has at most 100000 characters." });
  assert.equal(kept?.fields.text, "x".repeat(10));
  assert.equal(keptFrom(write, { text: "y" }, { before: kept ?? undefined })?.refused, undefined, "gone since: no longer a refusal to edit");
});

test("each app picks what a refused write carried, a create too, and names it", () => {
  const note = keptKind("notes.note");
  assert.deepEqual(note?.pickRefused?.({ method: "PATCH", path: "/api/v1/notes/n1", kind: "notes.note", id: "n1", key: "k", attempts: 0, body: { text: "long" } }), { text: "long" });
  const word = keptKind("vocabulary.entry");
  assert.deepEqual(word?.pickRefused?.({ method: "POST", path: "/api/v1/vocabulary/entries", kind: "vocabulary.entry", id: "local:1", key: "k", attempts: 0,
    body: { word: "obrigado", definitions: ["thanks"], collection: "c1", tags: [] } }), { word: "obrigado", definitions: ["thanks"], collection: "c1" });
  assert.equal(word?.pickRefused?.({ method: "POST", path: "/api/v1/vocabulary/entries/e1/relations", kind: "vocabulary.entry", id: "e1", key: "k", attempts: 0, body: { kind: "related" } }), null);
  const item = keptKind("notebooks.item");
  assert.deepEqual(item?.pickRefused?.({ method: "POST", path: "/api/v1/notebooks/notebooks/nb/pages/pg/items", kind: "notebooks.item", id: "local:2", key: "k", attempts: 0,
    body: { kind: "text", text: "hello", slot: 1 } }), { kind: "text", text: "hello", slot: 1 });
  assert.equal(note?.name?.({ id: "notes.note/n1", kind: "notes.note", recordId: "n1", path: "/api/v1/notes/n1", fields: {}, seen: { title: "Plans" }, at: "" }),
    "Your change to the note “Plans”");
});

test("the indicator counts a note's title, photo and voice note as three changes, a new note's create and move as one", () => {
  const w = (/** @type {any} */ o) => ({ key: "k", attempts: 0, kind: "notes.note", id: "n1", ...o });
  const changes = new Set([
    w({ method: "PATCH", path: "/api/v1/notes/n1", body: { title: "T" } }),
    w({ method: "PATCH", path: "/api/v1/notes/n1", body: { title: "Ti" } }),
    w({ method: "PUT", path: "/api/v1/notes/n1/photo" }),
    w({ method: "PUT", path: "/api/v1/notes/n1/voice" }),
  ].map(changeOf));
  assert.equal(changes.size, 3);
  const created = new Set([
    w({ method: "POST", path: "/api/v1/notes", id: "local:abc" }),
    w({ method: "POST", path: "/api/v1/notes/local:abc/move", id: "local:abc" }),
    w({ method: "PATCH", path: "/api/v1/notes/local:abc", id: "local:abc" }),
  ].map(changeOf));
  assert.equal(created.size, 1);
});

test("an AR box filled meanwhile is said in the screen's words, not the API's; other refusals keep the server's", () => {
  const base = { id: "notebooks.item/x", kind: "notebooks.item", recordId: "x", path: "/api/v1/notebooks/notebooks/nb/pages/pg/items", at: "2026-01-01" };
  const slot = refusedWhy({ ...base, fields: { kind: "text", text: "Hi", slot: 0 },
    refused: { status: 409, message: "Slot 0 on page 7 already holds an item; choose another slot or leave 'slot' out." } });
  assert.match(slot, /box you chose/);
  assert.doesNotMatch(slot, /Slot 0|'slot'/);
  const long = refusedWhy({ ...base, fields: { kind: "text", text: "Hi", slot: 0 }, refused: { status: 422, message: "A text has at most 2000 characters." } });
  assert.equal(long, "A text has at most 2000 characters.");
});
