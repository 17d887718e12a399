// @ts-check
/**
 * What a person wrote offline is never thrown away because the other phone deleted its target.
 * When the server refuses a queued write because what it changes is gone (404 / 410: the note,
 * the word, the photo, or the page an AR text was to go on, deleted on another device), the sync
 * layer keeps what was written as a "kept" record in the account's IndexedDB (`meta` "kept":
 * survives reloads) and says so in a sentence naming the thing by its title / word / caption, with
 * the app's own recovery ("Keep my text as a new note", …) and "Discard".
 *
 * The sync layer knows no app by name: each app registers, for its record kinds, how to pick what
 * a refused write carried that is worth keeping, how to name it, and how to recover it
 * (`registerKept`, in `kept-kinds.js`). Pure functions here (tested by `node --test Tests/WebClient`).
 */

/**
 * @typedef {object} Kept
 * @property {string} id          `kind/recordId`: writes to one record are kept as one
 * @property {string} kind        the record's sync kind
 * @property {string} recordId    the record's id (a local one for a create)
 * @property {string} path        the refused write's path (an app reads its notebook, page… from it)
 * @property {Record<string, any>} fields  what the person wrote (the app's pick of the writes' bodies)
 * @property {any} [seen]         the record as this phone last showed it (its title, word, caption)
 * @property {Record<string, any>} [around] records the path names, as last shown (an AR text's page)
 * @property {string} at          when it was kept (ISO)
 * @property {{status: number, message: string}} [refused]  the server refused what was written (too long, a
 *   character it does not take…), its target still there: its words, to edit and send again (kept-refused.js)
 */

/** @typedef {string | {text: string, route: string}} Recovered what a way back says, and where what it made is */

/**
 * @typedef {object} KeptKind
 * @property {(write: import("./outbox.js").Write) => Record<string, any> | null} pick  what of a refused
 *   write is worth keeping (null: nothing a person wrote, e.g. a move)
 * @property {(kept: Kept, sync?: import("./sync.js").Sync) => string} describe  the sentence saying what was kept, naming
 *   the thing (never an id); `sync`: what the phone holds now (whether its collection went too)
 * @property {string | ((kept: Kept) => string)} action    the recovery's label, as the app offers it online (given
 *   what was kept, where the label depends on it)
 * @property {(kept: Kept, sync: import("./sync.js").Sync) => Promise<Recovered>} recover  does it; answers what to say (with the
 *   route of what it made, to open)
 * @property {(write: import("./outbox.js").Write) => Record<string, any> | null} [pickRefused]  what of a write the
 *   server refused (422, 413…) is worth keeping, when not `pick`'s (a create too)
 * @property {(kept: Kept) => string} [name]  the thing a refused write was for, in words ("the note “Plans”")
 * @property {(kept: Kept) => string | undefined} [why]  the refusal in the app's own words, where the server's name
 *   its API (an AR box's slot number); undefined: the server's message
 * @property {(kept: Kept, sync: import("./sync.js").Sync, account: string) => string} [edit]  puts a refused write's
 *   words back where they are typed (a draft the form gives back); answers the route to go to
 * @property {(replaced: Record<string, any>) => ((write: {path: string, id: string}, sync: import("./sync.js").Sync, account: string) => string) | undefined} [bringBackTheirs]
 *   for a change of this phone's that replaced another device's (sync's `replaced`), where the kind offers both
 *   in its form rather than putting theirs back outright (AR's text): the step that puts both there as a draft
 *   and answers the route to go to; undefined: the app's "Bring it back"
 */

/** @type {Map<string, KeptKind>} */
const kinds = new Map();

/** An app says how its kind's refused writes are kept. @param {string} kind @param {KeptKind} how */
export function registerKept(kind, how) {
  kinds.set(kind, how);
}

/** @param {string} kind */
export function keptKind(kind) {
  return kinds.get(kind);
}

/** @type {Map<string, (record: any, records: Map<string, any>) => any>} */
const remembers = new Map();

/**
 * An app says what of its kind's record to remember when a pull deletes it while writes wait for
 * it (an AR page: its number, which only its notebook's order knows). @param {string} kind
 * @param {(record: any, records: Map<string, any>) => any} how
 */
export function registerRemember(kind, how) {
  remembers.set(kind, how);
}

/** The record as it is to be remembered (the app's hook, else as it is). @param {string} key @param {any} record @param {Map<string, any>} records */
export function remembered(key, record, records) {
  const how = remembers.get(key.slice(0, key.indexOf("/")));
  try {
    return how ? how(record, records) : record;
  } catch {
    return record;
  }
}

/** How many kept records an account holds at most (the oldest go first). */
export const KEPT_LIMIT = 50;

/**
 * Whether a refusal says the write's target is gone (deleted, maybe on another device).
 * @param {number | null} status
 */
export function isGone(status) {
  return status === 404 || status === 410;
}

/**
 * Whether a refusal is one to keep the words of, to edit and send again: the server will refuse the
 * same body again (422 invalid, 413 too large, 409 not a version conflict, 400, 403, 415…). Not a
 * target gone (404/410, isGone), not a version conflict (412), not what a resend may cure.
 * @param {number | null} status
 */
export function isRefusal(status) {
  return status !== null && status >= 400 && status < 500 && !isGone(status)
    && ![401, 408, 412, 425, 429].includes(status);
}

/**
 * A write's kept record, merged into what is already kept for the same record (a later edit's
 * fields win), or null when its kind keeps nothing of it.
 * @param {import("./outbox.js").Write} write
 * @param {Record<string, any> | null} fields  the app's pick
 * @param {{seen?: any, around?: Record<string, any>, before?: Kept, now?: string, refused?: {status: number, message: string}}} [context]
 * @returns {Kept | null}
 */
export function keptFrom(write, fields, context = {}) {
  if (!fields || Object.keys(fields).length === 0) return null;
  const { seen, around, before, refused, now = new Date().toISOString() } = context;
  return {
    id: `${write.kind}/${write.id}`, kind: write.kind, recordId: write.id, path: write.path,
    fields: { ...(before?.fields ?? {}), ...fields },
    seen: seen ?? before?.seen, around: { ...(before?.around ?? {}), ...(around ?? {}) }, at: before?.at ?? now,
    ...(refused ? { refused } : {}),
  };
}

/** The list with `kept` in (replacing one of the same id), bounded. @param {Kept[]} list @param {Kept} kept */
export function withKept(list, kept, limit = KEPT_LIMIT) {
  const rest = list.filter((k) => k.id !== kept.id);
  return [...rest, kept].slice(-limit);
}

/** @param {Kept[]} list @param {string} id */
export function withoutKept(list, id) {
  return list.filter((k) => k.id !== id);
}

/** The ids a path names (its segments), to find the records it is about. @param {string} path */
export function idsIn(path) {
  return path.split("?")[0].split("/").filter(Boolean).map((s) => decodeURIComponent(s));
}

/** A text shortened for a sentence, in quotes. @param {unknown} text @param {number} [max] */
export function quoted(text, max = 60) {
  const s = String(text ?? "").replace(/\s+/g, " ").trim();
  return `“${s.length > max ? `${s.slice(0, max - 1)}…` : s}”`;
}

/** Only the named fields of a body that a person wrote (not undefined). @param {any} body @param {string[]} names */
export function pickFields(body, names) {
  if (!body || typeof body !== "object" || (typeof Blob !== "undefined" && body instanceof Blob)) return null;
  /** @type {Record<string, any>} */
  const out = {};
  for (const name of names) if (body[name] !== undefined) out[name] = body[name];
  return Object.keys(out).length ? out : null;
}

/**
 * Why the server refused what was kept, in the app's words where its kind has them (`why`), else the server's.
 * @param {Kept} kept
 */
export function refusedWhy(kept) {
  let own;
  try {
    own = keptKind(kept.kind)?.why?.(kept);
  } catch {
    own = undefined;
  }
  return own ?? (kept.refused?.message?.trim() || "the server refused it.");
}

/**
 * The record a kept change was for, when it is on this phone again (its deletion undone on another
 * device): the kept words then go back on it, not into a copy ("Add it again as a new word" made the
 * word twice; walk10). Only a change of an existing record (a create kept for a page deleted has
 * nothing to come back to). @param {Kept} kept @param {{one: (kind: string, id: string) => any}} sync
 */
export function keptRecordBack(kept, sync) {
  if (kept.refused || kept.recordId.startsWith("local:") || !kept.path.split("?")[0].endsWith(`/${kept.recordId}`)) return undefined;
  return sync.one(kept.kind, kept.recordId) ?? undefined;
}

/** What the notice says of a kept change whose record is back. @param {Kept} kept */
export function backSentence(kept) {
  const seen = kept.seen ?? {};
  const name = [seen.word, seen.title, seen.caption, seen.notes].find((v) => typeof v === "string" && v.trim());
  return `${name ? quoted(name) : "What you changed"} is back: its deletion was undone on another device, without the changes you made `
    + "meanwhile. They are kept on this phone: put them back on it, or discard them.";
}

/**
 * Puts a kept change back on its record, now that it is back: a write like any other (offline
 * too), based on the version shown, so the kept words are what it says after.
 * @param {Kept} kept @param {import("./sync.js").Sync} sync
 */
export async function putBack(kept, sync) {
  const record = keptRecordBack(kept, sync);
  await sync.write({ method: "PATCH", path: kept.path, body: { ...kept.fields }, kind: kept.kind, id: kept.recordId,
    baseVersion: typeof record?.version === "number" ? record.version : undefined });
}
