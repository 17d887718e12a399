// What a person wrote offline to a record deleted on another device is kept (Plugins/Web/Client/kept.js,
// kept-kinds.js): which refusals keep, how writes to one record merge, the bound, and each app's sentence
// naming the thing (never an id). Run by `node --test Tests/WebClient`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { KEPT_LIMIT, backSentence, idsIn, isGone, keptFrom, keptKind, keptRecordBack, pickFields, quoted, remembered, withKept, withoutKept } from "../../Plugins/Web/Client/kept.js";
import "../../Plugins/Web/Client/kept-kinds.js";

const patch = (kind, id, body, path = `/api/v1/x/${id}`) => ({ key: "k" + Math.random(), method: "PATCH", path, body, kind, id, attempts: 0 });

test("only a refusal saying the target is gone keeps", () => {
  assert.equal(isGone(404), true);
  assert.equal(isGone(410), true);
  for (const status of [null, 200, 400, 409, 412, 422, 500]) assert.equal(isGone(status), false, String(status));
});

test("writes to one record merge into one kept record, the later fields winning", () => {
  const first = keptFrom(patch("notes.note", "n1", {}), { title: "A", text: "one" }, { seen: { title: "Offline idea" }, now: "t0" });
  const second = keptFrom(patch("notes.note", "n1", {}), { text: "one two" }, { before: first, now: "t1" });
  assert.deepEqual(second.fields, { title: "A", text: "one two" });
  assert.equal(second.id, "notes.note/n1");
  assert.equal(second.seen.title, "Offline idea", "what was seen stays");
  assert.equal(second.at, "t0", "kept since the first");
  const list = withKept(withKept([], first), second);
  assert.equal(list.length, 1);
  assert.deepEqual(withoutKept(list, "notes.note/n1"), []);
  assert.equal(keptFrom(patch("notes.note", "n1", {}), null), null, "nothing picked: nothing kept");
  assert.equal(keptFrom(patch("notes.note", "n1", {}), {}), null);
});

test("the kept list is bounded, the oldest going first", () => {
  let list = [];
  for (let i = 0; i < KEPT_LIMIT + 5; i += 1) list = withKept(list, keptFrom(patch("notes.note", `n${i}`, {}), { text: String(i) }));
  assert.equal(list.length, KEPT_LIMIT);
  assert.equal(list[0].recordId, "n5");
});

test("helpers: ids in a path, quotes, fields picked", () => {
  assert.deepEqual(idsIn("/api/v1/notebooks/notebooks/nb1/pages/pg2/items?slot=1"), ["api", "v1", "notebooks", "notebooks", "nb1", "pages", "pg2", "items"]);
  assert.equal(quoted("a  b\nc"), "“a b c”");
  assert.equal(quoted("x".repeat(100), 10), `“${"x".repeat(9)}…”`);
  assert.deepEqual(pickFields({ text: "t", before: "x" }, ["text", "title"]), { text: "t" });
  assert.equal(pickFields({ before: "x" }, ["text"]), null);
  assert.equal(pickFields(null, ["text"]), null);
});

test("Napkin: an edit's title and text are kept, a move is not; the note is named by its title", () => {
  const how = keptKind("notes.note");
  assert.ok(how);
  assert.equal(how.pick({ ...patch("notes.note", "n1", { before: "n2" }), method: "POST", path: "/api/v1/notes/n1/move" }), null);
  const kept = keptFrom(patch("notes.note", "n_01abc", { text: "typed offline" }), how.pick(patch("notes.note", "n_01abc", { text: "typed offline" })),
    { seen: { id: "n_01abc", title: "Offline idea", text: "" } });
  const said = how.describe(kept);
  assert.match(said, /“Offline idea”/);
  assert.match(said, /“typed offline”/);
  assert.doesNotMatch(said, /n_01abc/);
  const action = (/** @type {any} */ k) => (typeof how.action === "function" ? how.action(k) : how.action);
  assert.equal(action(kept), "Keep my text as a new note");
  // The back's drawing, drawn offline too, is kept with it (walk10: lost); an empty one is not.
  const back = { ...patch("notes.note", "n_01abc", { strokes: [{ points: [[1, 2], [3, 4]] }], texts: [] }), method: "PUT", path: "/api/v1/notes/n_01abc/drawing" };
  assert.deepEqual(how.pick(back)?.drawing?.strokes?.length, 1);
  assert.equal(how.pick({ ...back, body: { strokes: [], texts: [] } }), null);
  const both = keptFrom(back, how.pick(back), { before: kept });
  assert.match(how.describe(both), /What you typed and drew is kept/);
  const drawnOnly = keptFrom(back, how.pick(back), { seen: { title: "Sketch" } });
  assert.equal(action(drawnOnly), "Keep my drawing as a new note");
});

test("Foreign Note: the word is named, never its id", () => {
  const how = keptKind("vocabulary.entry");
  const write = patch("vocabulary.entry", "e_01a216a46cd63244oz38cbyjt", { word: "obrigado", example: "Muito obrigado!", collection: "c1" });
  const kept = keptFrom(write, how.pick(write), { seen: { word: "obrigado" } });
  assert.deepEqual(kept.fields, { word: "obrigado", example: "Muito obrigado!", collection: "c1" });
  assert.match(how.describe(kept), /The word “obrigado” was deleted/);
  assert.doesNotMatch(how.describe(kept), /e_01a2/);
  assert.equal(how.action, "Add it again as a new word");
  // Its collection deleted on the other phone (the phone holds it no more): said so, and where it goes.
  const holding = (/** @type {string[]} */ ids) => ({ resolve: (/** @type {string} */ id) => id, one: (/** @type {string} */ kind, /** @type {string} */ id) => (kind === "vocabulary.collection" && ids.includes(id) ? { id } : undefined) });
  assert.match(how.describe(kept, holding([])), /deleted on another device, with its collection, .*first collection/);
  assert.doesNotMatch(how.describe(kept, holding(["c1"])), /with its collection/);
});

test("iRemember: the notes are kept and quoted; a caption and tags with them; a mark-up or a time alone keeps nothing", () => {
  const how = keptKind("album.photo");
  const action = (/** @type {any} */ kept) => (typeof how.action === "function" ? how.action(kept) : how.action);
  assert.equal(how.pick(patch("album.photo", "p1", { takenAt: "2026-07-20T09:30:00Z" })), null);
  assert.equal(how.pick(patch("album.photo", "p1", { tags: [] })), null, "tags all taken off: nothing written to keep");
  const write = patch("album.photo", "p_9", { notes: "Grandma at the lake" });
  const kept = keptFrom(write, how.pick(write), { seen: { takenAt: "2026-07-20T09:30:00Z" } });
  assert.match(how.describe(kept), /taken on (20 July 2026|July 20, 2026)/);
  assert.match(how.describe(kept), /“Grandma at the lake”/);
  assert.doesNotMatch(how.describe(kept), /p_9/);
  assert.equal(action(kept), "Copy my notes");
  // A tag added after (walk9: it vanished with the photo, unsaid): kept with the notes, and said.
  const tagged = patch("album.photo", "p_9", { tags: ["tom", "lake"] });
  const both = keptFrom(tagged, how.pick(tagged), { before: kept });
  assert.deepEqual(both.fields, { notes: "Grandma at the lake", tags: ["tom", "lake"] });
  assert.match(how.describe(both), /the notes “Grandma at the lake” and the tags “tom”, “lake”/);
  assert.equal(action(both), "Copy what I wrote");
});

test("AR Notebook: a text for a deleted page names the page by its number, never its id", () => {
  const how = keptKind("notebooks.item");
  const write = { key: "k", method: "POST", path: "/api/v1/notebooks/notebooks/nb1/pages/pgccc7c00ea3c9ba6d/items", body: { kind: "keyboard", text: "Offline caption", slot: 0 },
    kind: "notebooks.item", id: "local:0123456789abcdef", attempts: 0, recordAt: "item" };
  assert.deepEqual(how.pick(write), { kind: "keyboard", text: "Offline caption" });
  assert.equal(how.pick({ ...write, body: new Blob(["x"]) }), null, "a picture is not a text");
  const kept = keptFrom(write, how.pick(write), { around: { "notebooks.page/pgccc7c00ea3c9ba6d": { id: "pgccc7c00ea3c9ba6d", number: 3, notebook: "nb1" } } });
  const said = how.describe(kept);
  assert.match(said, /“Offline caption” could not go on page 3/);
  assert.doesNotMatch(said, /pgccc/);
  assert.equal(how.action, "Keep my text as a new text");
});

/** A sync whose server takes every write (its local id resolved once settled). @param {any[]} writes */
function accepting(writes) {
  const resolved = new Map();
  return { state: "idle", writes: [], resolved, settled: async () => { for (const w of writes) resolved.set(w.id, `srv-${w.id}`); },
    write: async (/** @type {any} */ w) => { writes.push(w); } };
}
globalThis.navigator ??= /** @type {any} */ ({ onLine: true });

test("AR Notebook: recovering says the text is on its page only once the server has it; offline, that it is kept and goes there", async () => {
  const how = keptKind("notebooks.item");
  const queued = [];
  const sync = { one: () => ({ pages: ["pg1", "pg2"] }), state: "offline", resolved: new Map(), writes: queued, settled: async () => {},
    write: async (/** @type {any} */ w) => { queued.push(w); } };
  const kept = keptFrom({ key: "k", method: "POST", path: "/api/v1/notebooks/notebooks/nb1/pages/pg3/items", kind: "notebooks.item", id: "local:1", attempts: 0 },
    { kind: "text", text: "Offline caption" }, { around: { "notebooks.page/pg3": { id: "pg3", number: 3 } } });
  const said = await how.recover(kept, /** @type {any} */ (sync));
  assert.doesNotMatch(said, /is on page/);
  assert.match(said, /kept on this phone and goes on page 2 when the phone is online/);
  const refused = { ...sync, state: "idle", writes: [], write: async () => {} };
  assert.equal(await how.recover(kept, /** @type {any} */ (refused)), "", "refused meanwhile: its own notice says why");
});

test("AR Notebook: recovering puts the text on the page before the deleted one, as a new write", async () => {
  const how = keptKind("notebooks.item");
  const writes = [];
  const sync = { one: (kind, id) => (kind === "notebooks.notebook" && id === "nb1" ? { pages: ["pg1", "pg2", "pg9"] } : undefined),
    ...accepting(writes) };
  const kept = keptFrom({ key: "k", method: "POST", path: "/api/v1/notebooks/notebooks/nb1/pages/pg3/items", kind: "notebooks.item", id: "local:1", attempts: 0 },
    { kind: "keyboard", text: "Offline caption" }, { around: { "notebooks.page/pg3": { id: "pg3", number: 3 } } });
  assert.equal(await how.recover(kept, /** @type {any} */ (sync)), "Your text is on page 2.");
  assert.equal(writes.length, 1);
  assert.equal(writes[0].path, "/api/v1/notebooks/notebooks/nb1/pages/pg2/items");
  assert.deepEqual(writes[0].body, { kind: "keyboard", text: "Offline caption" });
});

test("Napkin and Foreign Note: recovering creates a new record from what was seen and typed", async () => {
  const writes = [];
  const sync = { view: (kind) => (kind === "vocabulary.collection" ? [{ id: "c2" }] : []), write: async (w) => { writes.push(w); } };
  const note = keptFrom(patch("notes.note", "n1", {}), { text: "typed" }, { seen: { title: "Offline idea", text: "old", date: "2026-11-20" } });
  await keptKind("notes.note").recover(note, /** @type {any} */ (sync));
  assert.equal(writes[0].method, "POST");
  assert.equal(writes[0].path, "/api/v1/notes");
  assert.deepEqual(writes[0].body, { title: "Offline idea", text: "typed", date: "2026-11-20" });
  const word = keptFrom(patch("vocabulary.entry", "e1", {}), { example: "Muito obrigado!" },
    { seen: { word: "obrigado", definitions: ["thank you"], languages: ["pt", "en"], collection: "c-gone", tags: [] } });
  await keptKind("vocabulary.entry").recover(word, /** @type {any} */ (sync));
  assert.equal(writes[1].path, "/api/v1/vocabulary/entries");
  assert.deepEqual(writes[1].body, { word: "obrigado", definitions: ["thank you"], languages: ["pt", "en"], example: "Muito obrigado!", tags: [], collection: "c2" });
});

test("AR Notebook: a deleted page is remembered with its number (its place in the notebook's order)", () => {
  const records = new Map([["notebooks.notebook/nb1", { id: "nb1", pages: ["pg1", "pg2", "pg3"] }]]);
  assert.equal(remembered("notebooks.page/pg3", { id: "pg3", notebook: "nb1" }, records).number, 3);
  assert.deepEqual(remembered("notes.note/n1", { id: "n1" }, records), { id: "n1" }, "a kind without a hook: as it is");
  const how = keptKind("notebooks.item");
  const kept = keptFrom({ key: "k", method: "POST", path: "/api/v1/notebooks/notebooks/nb1/pages/pg3/items", kind: "notebooks.item", id: "local:1", attempts: 0 },
    { text: "Offline caption" }, { around: { "notebooks.page/pg3": { id: "pg3" } } });
  assert.match(how.describe(kept), /could not go on its page/, "a page without a number is never “page undefined”");
});

test("AR Notebook: a notebook left without pages gets a new page for the text", async () => {
  const writes = [];
  const sync = { one: () => ({ pages: [] }), ...accepting(writes) };
  const kept = keptFrom({ key: "k", method: "POST", path: "/api/v1/notebooks/notebooks/nb1/pages/pg1/items", kind: "notebooks.item", id: "local:1", attempts: 0 },
    { kind: "keyboard", text: "Alone" }, { around: { "notebooks.page/pg1": { id: "pg1", number: 1 } } });
  assert.equal(await keptKind("notebooks.item").recover(kept, /** @type {any} */ (sync)), "Your text is on a new page.");
  assert.equal(writes[0].path, "/api/v1/notebooks/notebooks/nb1/pages");
  assert.equal(writes[1].path, `/api/v1/notebooks/notebooks/nb1/pages/${writes[0].id}/items`);
});

test("a kept change whose record is back (its deletion undone) goes back on it; a kept create or refusal never does", () => {
  const write = patch("vocabulary.entry", "e1", { example: "Bom dia, Maria!" }, "/api/v1/vocabulary/entries/e1");
  const kept = keptFrom(write, { example: "Bom dia, Maria!" }, { seen: { word: "bom dia" } });
  const held = new Map();
  const sync = { one: (/** @type {string} */ kind, /** @type {string} */ id) => held.get(`${kind}/${id}`) };
  assert.equal(keptRecordBack(kept, sync), undefined, "still deleted");
  held.set("vocabulary.entry/e1", { id: "e1", word: "bom dia", version: 4 });
  assert.equal(keptRecordBack(kept, sync)?.version, 4);
  assert.match(backSentence(kept), /“bom dia” is back/);
  const refused = keptFrom(write, { example: "x" }, { refused: { status: 422, message: "too long" } });
  assert.equal(keptRecordBack(refused, sync), undefined, "a refusal is edited and sent again, not put back");
  const create = keptFrom({ ...write, method: "POST", path: "/api/v1/notebooks/notebooks/nb/pages/pg/items", id: "local:0123456789abcdef" }, { text: "x" });
  assert.equal(keptRecordBack(create, sync), undefined, "a create has no record to come back");
});
