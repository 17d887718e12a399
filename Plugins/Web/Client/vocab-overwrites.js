// @ts-check
/**
 * Foreign Note: a word's field this phone saved that another device then replaced. The device that
 * saved later is told by the server's answer ("your edit replaced …", app.js); this is the other
 * one: it follows the feed, finds a field it saved no longer reads what it saved, and says so with
 * "Bring back mine" (its value, saved again on top of the word as it is now; the server keeps the
 * replaced one in its history) — as AR Notebook's texts do (`notebook-overwrites.js`, whose pure
 * `overwrites` this uses). Remembered on the phone (localStorage) until told, so a reload right
 * after saving still tells it (held in memory only, a reload hid that the change was replaced).
 * What was told is remembered too until the person answers it (OK or "Bring back mine"): told an
 * instant before a reload, the notice would otherwise go with the page, and the field with it.
 */
import { overwrites } from "./notebook-overwrites.js";
import { PHONE, storedJSON } from "./ui.js";

const ENTRY = "vocabulary.entry";
/** The fields followed, as a sentence names them, and its verb. @type {Record<string, [string, string]>} */
const NAMES = { word: ["word", "was"], definitions: ["definitions", "were"], example: ["example", "was"], note: ["note", "was"] };
/** Where what this phone saved is kept across reloads. */
const KEPT = `${PHONE}vocab.saved`;
/** What this phone saved, by `entryId field` (the value as JSON). @type {Map<string, import("./notebook-overwrites.js").Mine>} */
const mine = new Map(readKept());
/** Where what was told and not answered yet is kept across reloads. */
const TOLD = `${PHONE}vocab.told`;
/** @typedef {{key: string, mine: string, now: string, word: string}} Told a field's change said, not answered yet */
/** @type {WeakSet<import("./sync.js").Sync>} */
const following = new WeakSet();

/** @returns {Array<[string, import("./notebook-overwrites.js").Mine]>} */
function readKept() {
  const kept = storedJSON(KEPT, []);
  return Array.isArray(kept) ? kept.filter((pair) => Array.isArray(pair) && typeof pair[0] === "string" && typeof pair[1]?.text === "string") : [];
}

function keep() {
  if (mine.size) localStorage.setItem(KEPT, JSON.stringify([...mine].slice(-200)));
  else localStorage.removeItem(KEPT);
}

/**
 * Follows the feed for what this phone saved (from any Foreign Note screen, also after a reload).
 * @param {import("./sync.js").Sync} sync
 */
export function followSaved(sync) {
  if (following.has(sync)) return;
  following.add(sync);
  sync.addEventListener("change", () => tell(sync));
  // Said before a reload and not answered: said again.
  for (const told of toldKept()) say(sync, told);
  tell(sync);
}

/** @returns {Told[]} */
function toldKept() {
  const told = storedJSON(TOLD, []);
  return Array.isArray(told) ? told.filter((t) => typeof t?.key === "string" && typeof t.mine === "string" && typeof t.now === "string") : [];
}

/** @param {Told[]} told */
function keepTold(told) {
  if (told.length) localStorage.setItem(TOLD, JSON.stringify(told.slice(-5)));
  else localStorage.removeItem(TOLD);
}

/** @param {unknown} value */
const shown = (value) => {
  const text = Array.isArray(value) ? value.join("; ") : String(value ?? "");
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
};

/**
 * A word's fields about to be saved from this phone (before `sync.write`): the ones that change are
 * followed from now on. @param {import("./sync.js").Sync} sync @param {string} id @param {any} before @param {Record<string, any>} body
 */
export function rememberSaved(sync, id, before, body) {
  for (const name of Object.keys(NAMES)) {
    if (name in body && JSON.stringify(body[name] ?? null) !== JSON.stringify(before?.[name] ?? null)) {
      mine.set(`${id} ${name}`, { text: JSON.stringify(body[name] ?? null), version: null });
    }
  }
  keep();
  followSaved(sync);
}

/** @param {import("./sync.js").Sync} sync */
function tell(sync) {
  if (!mine.size) return;
  /** @type {import("./notebook-overwrites.js").Seen[]} */
  const fields = [];
  // Words this phone does not hold now (not read yet after a reload, or deleted): kept, not judged
  // (the newest 200 are kept).
  /** @type {Array<[string, import("./notebook-overwrites.js").Mine]>} */
  const unseen = [];
  for (const [key, kept] of mine) {
    const [id, name] = key.split(" ");
    const entry = sync.one(ENTRY, sync.resolve(id));
    if (entry) fields.push({ id: key, text: JSON.stringify(entry[name] ?? null), version: entry.version, pending: entry.pending });
    else unseen.push([key, kept]);
  }
  const { told, left } = overwrites(mine, fields);
  const before = JSON.stringify([...mine]);
  mine.clear();
  for (const [key, kept] of unseen) mine.set(key, kept);
  for (const [key, kept] of left) mine.set(key, kept);
  if (JSON.stringify([...mine]) !== before) keep();
  for (const { id: key, mine: was, now } of told) {
    const [id] = key.split(" ");
    // Its change kept on this phone (refused while the word was deleted; back now): that notice
    // offers the way back, not a second one saying "changed on another device".
    if (sync.kept.some((k) => k.kind === ENTRY && sync.resolve(k.recordId) === sync.resolve(id))) continue;
    const said = { key, mine: was, now, word: String(sync.one(ENTRY, sync.resolve(id))?.word ?? "") };
    keepTold([...toldKept().filter((t) => t.key !== key), said]);
    say(sync, said);
  }
}

/**
 * Says that another device replaced a field this phone saved, with "Bring back mine" (its value,
 * saved on top of the word as it is now); remembered until answered.
 * @param {import("./sync.js").Sync} sync @param {Told} said
 */
function say(sync, said) {
  const [id, name] = said.key.split(" ");
  const names = NAMES[name];
  if (!names) return keepTold(toldKept().filter((t) => t.key !== said.key));
  const [label, verb] = names;
  const value = JSON.parse(said.mine);
  const answered = () => keepTold(toldKept().filter((t) => t.key !== said.key));
  window.dispatchEvent(new CustomEvent("quire:notice", { detail: {
    kind: "info",
    text: `Your ${label} for “${said.word}” ${verb} changed on another device: “${shown(value)}” now reads “${shown(JSON.parse(said.now))}”.`,
    dismissed: answered,
    action: { label: "Bring back mine", run: () => {
      answered();
      const latest = sync.one(ENTRY, sync.resolve(id));
      if (!latest) return;
      rememberSaved(sync, latest.id, latest, { [name]: value });
      void sync.write({ method: "PATCH", path: `/api/v1/vocabulary/entries/${latest.id}`, body: { [name]: value }, kind: ENTRY, id: latest.id,
        baseVersion: latest.version || undefined });
    } },
  } }));
}
