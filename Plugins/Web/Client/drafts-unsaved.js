// @ts-check
/**
 * What was typed and is kept only as a draft on this phone (`quire.draft.…` in localStorage: AR
 * Notebook's "Write on the page" before Add, a word's form before Save, a reminder set offline…),
 * in the person's words, for the sign-out question. Signing out forgets every draft (app.js); the
 * battery alert's "Sign out and close" did so unasked, over the text being written.
 * Pure but for the storage it is given (tested by `node --test Tests/WebClient`).
 */

/** The fields a draft's words are in, the most telling first. */
const FIELDS = ["text", "word", "title", "definitions", "note", "notes", "example"];

/**
 * The words of each draft holding any (a word's remembered copy, `….seen/…`, is not typing).
 * @param {Pick<Storage, "length" | "key" | "getItem">} storage
 * @returns {string[]}
 */
export function unsavedDrafts(storage) {
  /** @type {string[]} */
  const out = [];
  for (let i = 0; i < storage.length; i += 1) {
    const key = storage.key(i);
    if (!key || !key.startsWith("quire.draft.") || key.includes(".seen/")) continue;
    const raw = storage.getItem(key) ?? "";
    /** @type {any} */
    let value = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // A draft kept as plain text.
    }
    const words = typeof value === "string" ? value
      : value && typeof value === "object" ? FIELDS.map((f) => (Array.isArray(value[f]) ? value[f].join(" ") : value[f]))
        .find((v) => typeof v === "string" && v.trim() !== "") : undefined;
    if (typeof words === "string" && words.trim()) out.push(words.replace(/\s+/g, " ").trim());
  }
  return out;
}

/**
 * The sentence saying they go with a sign-out, quoting them (at most two, shortened).
 * @param {string[]} drafts
 */
export function draftsSentence(drafts) {
  if (drafts.length === 0) return "";
  const quote = (/** @type {string} */ s) => `“${s.length > 60 ? `${s.slice(0, 59)}…` : s}”`;
  const more = drafts.length > 2 ? ` and ${drafts.length - 2} more` : "";
  return `What you were writing and have not saved (${drafts.slice(0, 2).map(quote).join(", ")}${more}) is only on this phone: signing out deletes it.`;
}
