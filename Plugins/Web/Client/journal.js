// @ts-check
/**
 * The write journal: a small synchronous copy of the writes `Sync.write` has shown but IndexedDB
 * may not hold yet. IndexedDB's enqueue finishes some milliseconds after the write is shown as
 * queued, and a reload (or a closed tab) in between used to lose it; `localStorage` is written
 * before `write()` returns, so a write shown is a write kept.
 *
 * - One journal per account on this device, under `quire.journal.<database name>` (the account's
 *   IndexedDB database: `quire-<app>-<account>`), a JSON array of writes in the order made.
 * - A write enters it before it is shown as queued, and leaves it once the outbox holds it (the
 *   enqueue's transaction completed), before it can be sent.
 * - At start, every write in it that the outbox does not hold (by its Idempotency-Key) is added to
 *   the outbox, in order, and the journal is emptied. A write whose enqueue completed but whose
 *   removal from the journal a reload cut off is in both: the outbox's copy is the one kept, so
 *   nothing is sent twice (and a second send would carry the same Idempotency-Key anyway: the
 *   server answers it as the first, creating nothing again).
 * - Bounded: at most `JOURNAL_LIMITS.entries` writes and `JOURNAL_LIMITS.chars` characters. A
 *   write that does not fit (a photo's upload: its body is a Blob, which JSON cannot hold; or a
 *   storage that is full or refused) is not journaled and is kept by IndexedDB alone, as before.
 *
 * Pure functions here (tested by `node --test Tests/WebClient`); `Journal` is the thin
 * `localStorage` wrapper `sync.js` uses.
 */

/** How much the journal holds at most: it holds only the writes of the last few milliseconds. */
export const JOURNAL_LIMITS = Object.freeze({ entries: 200, chars: 2_000_000 });

/** The `localStorage` key of an account's journal. @param {string} databaseName */
export function journalKey(databaseName) {
  return `quire.journal.${databaseName}`;
}

/**
 * The journal's writes, read from its stored text; anything unreadable is dropped (never thrown).
 * @param {string | null} text
 * @returns {import("./outbox.js").Write[]}
 */
export function parseJournal(text) {
  if (!text) return [];
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter((w) => w && typeof w === "object" && typeof w.key === "string" && typeof w.method === "string"
    && typeof w.path === "string" && typeof w.kind === "string" && typeof w.id === "string");
}

/**
 * The journal's text with `write` added, or null when it is not to be journaled (a Blob body, or
 * the journal would pass its limits).
 * @param {import("./outbox.js").Write[]} entries
 * @param {import("./outbox.js").Write} write
 * @param {{entries: number, chars: number}} [limits]
 * @returns {string | null}
 */
export function withWrite(entries, write, limits = JOURNAL_LIMITS) {
  if (typeof Blob !== "undefined" && write.body instanceof Blob) return null;
  if (entries.length >= limits.entries) return null;
  const { seq: _, ...kept } = write;
  const text = JSON.stringify([...entries, { ...kept, attempts: 0 }]);
  return text.length > limits.chars ? null : text;
}

/**
 * The journal's writes without those the outbox holds (by Idempotency-Key).
 * @param {import("./outbox.js").Write[]} entries
 * @param {Iterable<string>} keys
 */
export function without(entries, keys) {
  const gone = new Set(keys);
  return entries.filter((w) => !gone.has(w.key));
}

/**
 * The writes a start must add to the outbox: those journaled that it does not hold, in the order
 * they were made, each once.
 * @param {import("./outbox.js").Write[]} outbox
 * @param {import("./outbox.js").Write[]} entries
 * @returns {import("./outbox.js").Write[]}
 */
export function toReplay(outbox, entries) {
  const held = new Set(outbox.map((w) => w.key));
  /** @type {import("./outbox.js").Write[]} */
  const missing = [];
  for (const entry of entries) {
    if (held.has(entry.key)) continue;
    held.add(entry.key);
    const { seq: _, ...write } = entry;
    missing.push({ ...write, attempts: 0 });
  }
  return missing;
}

/** An account's journal in `localStorage`. Every method is synchronous and never throws. */
export class Journal {
  /** @param {string} databaseName @param {Storage | null} [storage] */
  constructor(databaseName, storage = globalThis.localStorage ?? null) {
    this.key = journalKey(databaseName);
    this.storage = storage;
  }

  /** @returns {import("./outbox.js").Write[]} */
  entries() {
    try {
      return parseJournal(this.storage?.getItem(this.key) ?? null);
    } catch {
      return [];
    }
  }

  /** Keeps a write at once; answers whether it is kept (false: IndexedDB alone keeps it).
   * @param {import("./outbox.js").Write} write */
  add(write) {
    try {
      const text = withWrite(this.entries(), write);
      if (text === null || !this.storage) return false;
      this.storage.setItem(this.key, text);
      return true;
    } catch {
      return false; // storage full or refused
    }
  }

  /** The outbox holds these: out of the journal. @param {Iterable<string>} keys */
  remove(keys) {
    try {
      const before = this.entries();
      const after = without(before, keys);
      if (after.length === before.length) return;
      if (after.length === 0) this.storage?.removeItem(this.key);
      else this.storage?.setItem(this.key, JSON.stringify(after));
    } catch {
      // Left for the next start, which finds them in the outbox and drops them.
    }
  }

  /** Signing out: the account's journal goes with its copy. */
  clear() {
    try {
      this.storage?.removeItem(this.key);
    } catch {
      // Nothing to do: it is read only by this account's next start.
    }
  }
}
