// The write journal (Plugins/Web/Client/journal.js): a write shown as queued is kept synchronously
// until the outbox holds it, and replayed into the outbox at start without doubling anything.
// Run by `node --test Tests/WebClient`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { JOURNAL_LIMITS, Journal, journalKey, parseJournal, toReplay, withWrite, without } from "../../Plugins/Web/Client/journal.js";

/** A Storage in memory (localStorage's methods), optionally full. */
class MemoryStorage {
  constructor(full = false) {
    this.items = new Map();
    this.full = full;
  }
  getItem(key) { return this.items.has(key) ? this.items.get(key) : null; }
  setItem(key, value) {
    if (this.full) throw new Error("QuotaExceededError");
    this.items.set(key, String(value));
  }
  removeItem(key) { this.items.delete(key); }
}

const write = (key, extra = {}) => ({ key, method: "PATCH", path: `/api/v1/notes/n_${key}`, body: { title: key }, kind: "notes.note", id: `n_${key}`, attempts: 0, ...extra });

test("each account has its own journal key", () => {
  assert.equal(journalKey("quire-napkin-notes-acc_1"), "quire.journal.quire-napkin-notes-acc_1");
  assert.notEqual(new Journal("quire-a-acc_1", new MemoryStorage()).key, new Journal("quire-a-acc_2", new MemoryStorage()).key);
});

test("a write is kept synchronously and leaves once the outbox holds it", () => {
  const storage = new MemoryStorage();
  const journal = new Journal("db", storage);
  assert.equal(journal.add(write("a")), true);
  assert.equal(journal.add(write("b", { seq: 7, attempts: 3 })), true);
  assert.deepEqual(journal.entries().map((w) => w.key), ["a", "b"]);
  assert.equal(journal.entries()[1].seq, undefined, "a journaled write carries no outbox seq");
  assert.equal(journal.entries()[1].attempts, 0);
  journal.remove(["a"]);
  assert.deepEqual(journal.entries().map((w) => w.key), ["b"]);
  journal.remove(["b"]);
  assert.equal(storage.getItem(journal.key), null, "an empty journal leaves nothing behind");
});

test("a reload before the enqueue completed: the journaled writes are replayed, in order", () => {
  const entries = [write("a"), write("b"), write("c")];
  const replayed = toReplay([], entries);
  assert.deepEqual(replayed.map((w) => w.key), ["a", "b", "c"]);
  assert.ok(replayed.every((w) => w.seq === undefined && w.attempts === 0));
});

test("a reload after the enqueue completed but before the journal let go: nothing is added twice", () => {
  const outbox = [{ ...write("a"), seq: 1 }, { ...write("b"), seq: 2 }];
  assert.deepEqual(toReplay(outbox, [write("a"), write("b"), write("c")]).map((w) => w.key), ["c"]);
  assert.deepEqual(toReplay(outbox, [write("a"), write("b")]), []);
  // A create (the one whose doubling would make two notes) is found by its key too.
  const create = write("new", { method: "POST", path: "/api/v1/notes", id: "local:abc" });
  assert.deepEqual(toReplay([{ ...create, seq: 3 }], [create]), []);
  // A journal that holds one write twice (two tabs) adds it once.
  assert.deepEqual(toReplay([], [create, create]).map((w) => w.key), ["new"]);
});

test("replaying twice is harmless: the second start finds the writes in the outbox", () => {
  const storage = new MemoryStorage();
  const journal = new Journal("db", storage);
  journal.add(write("a"));
  journal.add(write("b"));
  /** @type {any[]} */
  const outbox = [];
  for (let start = 0; start < 2; start += 1) {
    const entries = journal.entries();
    for (const w of toReplay(outbox, entries)) outbox.push({ ...w, seq: outbox.length + 1 });
    // A start cut off before the journal let go leaves it as it was: the next start adds nothing.
    if (start === 1) journal.remove(entries.map((w) => w.key));
  }
  assert.deepEqual(outbox.map((w) => w.key), ["a", "b"]);
  assert.deepEqual(journal.entries(), []);
});

test("bounded: a Blob body, too many writes or too many characters are left to IndexedDB alone", () => {
  assert.equal(withWrite([], write("photo", { body: new Blob(["x"]) })), null);
  const many = Array.from({ length: JOURNAL_LIMITS.entries }, (_, i) => write(`w${i}`));
  assert.equal(withWrite(many, write("one more")), null);
  assert.notEqual(withWrite(many.slice(1), write("one more")), null);
  assert.equal(withWrite([], write("big", { body: { text: "x".repeat(100) } }), { entries: 10, chars: 50 }), null);
  const journal = new Journal("db", new MemoryStorage(true));
  assert.equal(journal.add(write("a")), false, "a full storage is said, never thrown");
  assert.deepEqual(journal.entries(), []);
});

test("an unreadable journal is read as empty, and only well-formed writes are kept", () => {
  assert.deepEqual(parseJournal(null), []);
  assert.deepEqual(parseJournal("{not json"), []);
  assert.deepEqual(parseJournal('{"key":"a"}'), []);
  assert.deepEqual(parseJournal(JSON.stringify([write("a"), { key: 3 }, null, "x"])).map((w) => w.key), ["a"]);
  assert.deepEqual(without([write("a"), write("b")], new Set(["b"])).map((w) => w.key), ["a"]);
});

test("signing out clears the account's journal", () => {
  const storage = new MemoryStorage();
  const journal = new Journal("db", storage);
  journal.add(write("a"));
  journal.clear();
  assert.equal(storage.getItem(journal.key), null);
});
