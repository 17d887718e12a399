// @ts-check
/**
 * The outbox: every write the user makes, kept (in IndexedDB, by `db.js`) until the server has it.
 * Pure functions here; `sync.js` persists and sends. Each write carries its Idempotency-Key (a
 * resend after a lost answer creates nothing twice) and the version it was based on (If-Match: the
 * server merges an edit made offline into newer changes field by field).
 */

/**
 * @typedef {object} Write
 * @property {number} [seq]            order of the user's actions (IndexedDB key)
 * @property {string} key              Idempotency-Key
 * @property {"POST"|"PATCH"|"PUT"|"DELETE"} method
 * @property {string} path             API path, may name a local id `local:…` not yet known to the server
 * @property {any} [body]              JSON body, or a Blob for an upload
 * @property {string} [contentType]    for a Blob body
 * @property {number} [baseVersion]    If-Match
 * @property {string} kind             the record's sync kind, `notes.note`
 * @property {string} id               the record's id (local until the server gives one)
 * @property {number} attempts
 * @property {Record<string, any>} [local] how the record looks meanwhile, for writes whose body is not
 *   the record's fields (a move, a photo picked offline)
 * @property {string} [recordAt]     where the record is in the server's answer, when the answer is more
 *   than the record (`photo` in the album's mark-up screen)
 * @property {{kind: "drawing" | "tags", base: any}} [rebase] a whole drawing put after drawing on `base`: at send
 *   time it is merged into the server's drawing as it is then (`mergeDrawing`), so strokes another
 *   device drew meanwhile stay; `tags`: a photo's tags changed from `base`, what was added and taken
 *   off put onto the server's tags then (`mergeTags`)
 */

/** A new random Idempotency-Key. */
export function newKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A local id for a record created offline; replaced by the server's id once it is created. */
export function localId() {
  return "local:" + newKey().slice(0, 16);
}

/** @param {string} id */
export function isLocal(id) {
  return id.startsWith("local:");
}

/**
 * Rewrites queued writes once the server gave a local record its id.
 * @param {Write[]} writes
 * @param {string} local
 * @param {string} real
 * @returns {Write[]}
 */
export function resolveId(writes, local, real) {
  return writes.map((write) => {
    const path = write.path.split(local).join(real);
    let body = write.body;
    if (body && typeof body === "object" && !(body instanceof Blob)) {
      // Inside strings too (a geotag's subject `notes/local:…`): a local id is random enough to be unique.
      body = JSON.parse(JSON.stringify(body).split(local).join(real));
    }
    return { ...write, path, body, id: write.id === local ? real : write.id };
  });
}

/** Parts of a record written apart that are still the same change as the record's (a new note's place in the list). */
const SAME_CHANGE = new Set(["move"]);

/**
 * The change a person made that a write is part of, as they count changes (the indicator's
 * "3 waiting"): the record (`kind/id`: a new note is a create, a move and an edit, and the person
 * made one note), and each part of it written apart (a note's photo, its voice note, its drawing).
 * @param {Write} write
 */
export function changeOf(write) {
  const segments = write.path.split("?")[0].split("/");
  const at = Math.max(segments.lastIndexOf(write.id), segments.lastIndexOf(encodeURIComponent(write.id)));
  const part = at >= 0 ? segments.slice(at + 1).join("/") : "";
  return `${write.kind}/${write.id}${part && !SAME_CHANGE.has(part) ? `#${part}` : ""}`;
}

/**
 * The record in the server's answer to a write.
 * @param {Write} write
 * @param {any} answer
 * @returns {any}
 */
export function recordIn(write, answer) {
  return write.recordAt && answer && typeof answer === "object" ? answer[write.recordAt] : answer;
}

/**
 * What to do with a write after the server answered (or did not).
 * @param {number | null} status  null: no answer (offline, network error)
 * @returns {"done" | "retry" | "drop"}
 */
export function outcome(status) {
  if (status === null) return "retry";
  if (status >= 200 && status < 300) return "done";
  // Signed out meanwhile (a refresh token that expired during a long time offline): the write
  // waits in this account's outbox until its owner signs in again.
  if (status === 401) return "retry";
  // 404/410 on an edit of something deleted elsewhere: nothing to retry. Too many requests and
  // server trouble: later. Any other refusal will not change by resending.
  if (status === 408 || status === 425 || status === 429 || status >= 500) return "retry";
  return "drop";
}

/**
 * How long to wait before the next attempt: exponential with a cap, so a server that is down is
 * not hammered, and one that is back is found within half a minute.
 * @param {number} attempts
 */
export function backoff(attempts) {
  return Math.min(30_000, 500 * 2 ** Math.min(attempts, 6));
}

/**
 * The records as the user sees them: the server's copies with every queued write applied on top,
 * so a screen shows what the user just did before the server has it.
 * @param {Map<string, any>} records   key `kind/id` → record as the server shows it
 * @param {Write[]} writes
 * @returns {Map<string, any>}
 */
export function overlay(records, writes) {
  if (writes.length === 0) return records; // nothing queued: the server's copies as they are (not to be changed)
  const view = new Map(records);
  for (const write of writes) {
    const key = `${write.kind}/${write.id}`;
    const current = view.get(key);
    if (write.method === "DELETE" && write.path.endsWith(write.id)) {
      view.delete(key);
    } else if (write.method === "POST" && !current && write.local) {
      view.set(key, { ...write.local, id: write.id, version: 0, pending: true });
    } else if (write.method === "POST" && !current && write.body && typeof write.body === "object" && !(write.body instanceof Blob)) {
      view.set(key, { ...write.body, id: write.id, version: 0, pending: true });
    } else if (current && write.method === "PATCH" && write.body && typeof write.body === "object") {
      view.set(key, { ...current, ...write.body, pending: true });
    } else if (current && write.local) {
      view.set(key, { ...current, ...write.local, pending: true });
    }
  }
  return view;
}
