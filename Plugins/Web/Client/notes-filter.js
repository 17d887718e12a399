// @ts-check
/** Napkin Notes' search and categories on the phone without the server: narrowing the synced notes by category and by
 * what is typed (offline, and for notes not sent yet), the way the server's search matches. */

/** Text folded for matching: case and accents ignored. @param {string} text */
export function fold(text) {
  return text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
}

/**
 * The notes whose title or text (or the text read in their photo) holds every typed word (the last
 * as typed so far), title matches first, each group in the user's order; of one category when
 * `category` is given.
 * @template {{title?: string, text?: string, photoText?: string | null, category?: string | null}} Note
 * @param {ReadonlyArray<Note>} notes  in the user's order
 * @param {string} query
 * @param {string | null} [category]
 * @returns {Note[]}
 */
export function filterNotes(notes, query, category) {
  const inCategory = category ? notes.filter((note) => note.category === category) : [...notes];
  const words = fold(query).split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...inCategory];
  /** @type {Note[]} */ const inTitle = [];
  /** @type {Note[]} */ const inText = [];
  for (const note of inCategory) {
    const title = fold(note.title ?? "");
    const both = `${title}\n${fold(note.text ?? "")}\n${fold(note.photoText ?? "")}`;
    if (!words.every((word) => both.includes(word))) continue;
    (words.every((word) => title.includes(word)) ? inTitle : inText).push(note);
  }
  return [...inTitle, ...inText];
}

/**
 * The categories in use, by name, with how many notes each has.
 * @param {ReadonlyArray<{category?: string | null}>} notes
 * @returns {Array<{name: string, count: number}>}
 */
export function categoryCounts(notes) {
  /** @type {Map<string, number>} */ const counts = new Map();
  for (const note of notes) if (note.category) counts.set(note.category, (counts.get(note.category) ?? 0) + 1);
  return [...counts].map(([name, count]) => ({ name, count })).sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
}

/**
 * A `datetime-local` value (the device's time) as an instant, or null when blank or in the past.
 * @param {string} value  YYYY-MM-DDTHH:MM
 * @param {number} now  ms since the epoch
 * @returns {string | null}
 */
export function reminderInstant(value, now) {
  if (!value) return null;
  const at = new Date(value);
  if (Number.isNaN(at.getTime()) || at.getTime() <= now) return null;
  return at.toISOString();
}

/** An instant as a `datetime-local` value in the device's time. @param {string} instant */
export function localDateTime(instant) {
  const at = new Date(instant);
  const pad = (/** @type {number} */ n) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}
