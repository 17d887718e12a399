// @ts-check
/**
 * Foreign Note's words, worked out on the device: folding (case and accents aside, as the server
 * folds), search over the local copy when offline (exact word, then a prefix of it, then every typed
 * word among its words, then in its definitions — the server's tiers), the matched parts to
 * highlight, tag filters, and the order of a collection. Pure, unit-tested in `Tests/WebClient`.
 */

/**
 * @typedef {object} Entry
 * @property {string} id
 * @property {number} version
 * @property {string} word
 * @property {string[]} definitions
 * @property {string[]} [languages]
 * @property {string | null} [note]
 * @property {string | null} [example]
 * @property {string} collection
 * @property {string[]} tags
 * @property {Array<{kind: "related" | "alternative", entry: string}>} [relations]
 */

/** @typedef {{collection?: string, all: string[], any: string[], none: string[]}} Filters */
/** @typedef {"exact" | "prefix" | "word" | "definition" | "listed"} Match */
/** @typedef {{entry: Entry, match: Match, highlights: Record<string, Array<[number, number]>>}} Hit */

/**
 * One character folded: lower case, accents off (`É` → `e`), `ß` → `ss`.
 * @param {string} char
 */
function foldChar(char) {
  return char.normalize("NFD").replace(/\p{M}+/gu, "").toLowerCase().replace(/ß/g, "ss");
}

/**
 * Text folded, with where each folded code unit came from (UTF-16 indexes into `text`), so a
 * match in the folded text highlights the right part of the original.
 * @param {string} text
 * @returns {{folded: string, from: number[]}}
 */
export function folding(text) {
  let folded = "";
  /** @type {number[]} */
  const from = [];
  let index = 0;
  for (const char of text) {
    const out = foldChar(char);
    folded += out;
    for (let i = 0; i < out.length; i++) from.push(index);
    index += char.length;
  }
  from.push(index);
  return { folded, from };
}

/** @param {string} text */
export function fold(text) {
  return folding(text).folded;
}

/**
 * The words of a text, folded: runs of letters and digits.
 * @param {string} text
 * @returns {string[]}
 */
export function words(text) {
  return fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Where the typed words occur at the start of a word of `text`, as [start, end) UTF-16 ranges
 * of the original text, merged and in order.
 * @param {string} text @param {string[]} typed folded words
 * @returns {Array<[number, number]>}
 */
export function ranges(text, typed) {
  const { folded, from } = folding(text);
  /** @type {Array<[number, number]>} */
  const found = [];
  for (const match of folded.matchAll(/[\p{L}\p{N}]+/gu)) {
    const start = match.index ?? 0;
    for (const word of typed) {
      if (word && match[0].startsWith(word)) found.push([from[start], from[start + word.length]]);
    }
  }
  found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  /** @type {Array<[number, number]>} */
  const merged = [];
  for (const range of found) {
    const last = merged.at(-1);
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push([range[0], range[1]]);
  }
  return merged;
}

/** @param {Entry} entry @param {Filters} filters */
export function passes(entry, filters) {
  const tags = new Set(entry.tags ?? []);
  if (filters.collection && entry.collection !== filters.collection) return false;
  if (filters.all.some((t) => !tags.has(t))) return false;
  if (filters.any.length && !filters.any.some((t) => tags.has(t))) return false;
  if (filters.none.some((t) => tags.has(t))) return false;
  return true;
}

/**
 * Entries by word, case and accents aside (how a collection lists them).
 * @param {readonly Entry[]} entries @returns {Entry[]}
 */
export function byWord(entries) {
  return entries.map((entry) => ({ entry, key: wordsOf(entry).key }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.entry.word < b.entry.word ? -1 : a.entry.word > b.entry.word ? 1 : a.entry.id < b.entry.id ? -1 : 1))
    .map(({ entry }) => entry);
}

const TIERS = /** @type {const} */ (["exact", "prefix", "word", "definition"]);

/** @type {WeakMap<Entry, {key: string, word: string[], definitions: string[][]}>} */
const foldedWords = new WeakMap();

/**
 * An entry's words, folded once per version of it (the synced copy keeps the same object until the
 * entry changes), so a keystroke over 50,000 entries does not fold 50,000 words again.
 * @param {Entry} entry
 */
function wordsOf(entry) {
  let found = foldedWords.get(entry);
  if (!found) {
    found = { key: fold(entry.word), word: words(entry.word), definitions: (entry.definitions ?? []).map(words) };
    foldedWords.set(entry, found);
  }
  return found;
}

/**
 * Search as you type over the device's copy. The last typed word matches as a prefix unless the
 * query ends with a space; with no words, every entry passing the filters, by word.
 * @param {readonly Entry[]} entries @param {string} query @param {Filters} filters @param {number} [limit]
 * @returns {Hit[]}
 */
export function search(entries, query, filters, limit = 25) {
  const typed = words(query);
  const candidates = entries.filter((entry) => passes(entry, filters));
  if (!typed.length) {
    return byWord(candidates).slice(0, limit).map((entry) => ({ entry, match: /** @type {Match} */ ("listed"), highlights: {} }));
  }
  const open = !/\s$/.test(query);
  const whole = typed.join(" ");
  /** @param {string[]} have @param {string} want @param {boolean} last */
  const has = (have, want, last) => have.some((w) => (last && open ? w.startsWith(want) : w === want));
  /** @param {string[]} have */
  const all = (have) => typed.every((want, i) => has(have, want, i === typed.length - 1));
  /** @type {Array<{entry: Entry, match: Match, key: string}>} */
  const found = [];
  for (const entry of candidates) {
    const known = wordsOf(entry);
    const folded = known.word.join(" ");
    /** @type {Match | null} */
    let match = null;
    if (folded === whole) match = "exact";
    else if (open && folded.startsWith(whole)) match = "prefix";
    else if (all(known.word)) match = "word";
    else if (known.definitions.some(all)) match = "definition";
    if (match) found.push({ entry, match, key: known.key });
  }
  found.sort((a, b) => TIERS.indexOf(/** @type {any} */ (a.match)) - TIERS.indexOf(/** @type {any} */ (b.match))
    || (a.key < b.key ? -1 : a.key > b.key ? 1 : a.entry.word < b.entry.word ? -1 : a.entry.word > b.entry.word ? 1 : 0));
  // Highlights only for what is shown.
  return found.slice(0, limit).map(({ entry, match }) => {
    /** @type {Record<string, Array<[number, number]>>} */
    const highlights = {};
    const inWord = ranges(entry.word, typed);
    if (inWord.length) highlights.word = inWord;
    (entry.definitions ?? []).forEach((definition, index) => {
      const marked = ranges(definition, typed);
      if (marked.length) highlights[`definitions.${index}`] = marked;
    });
    return { entry, match, highlights };
  });
}

/**
 * Text cut at its highlighted ranges: `[text, marked]` pieces to build `<mark>`s from.
 * @param {string} text @param {Array<[number, number]>} [marked]
 * @returns {Array<[string, boolean]>}
 */
export function pieces(text, marked = []) {
  /** @type {Array<[string, boolean]>} */
  const out = [];
  let at = 0;
  for (const [start, end] of marked) {
    if (start < at || end > text.length || start >= end) continue;
    if (start > at) out.push([text.slice(at, start), false]);
    out.push([text.slice(start, end), true]);
    at = end;
  }
  if (at < text.length) out.push([text.slice(at), false]);
  return out;
}

/**
 * Definitions as typed, one a line; blank lines dropped.
 * @param {string} text @returns {string[]}
 */
export function definitionsOf(text) {
  return text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
}

/**
 * Languages as typed ("fr, en"): codes, each once.
 * @param {string} text @returns {string[]}
 */
export function languagesOf(text) {
  return [...new Set(text.split(/[\s,;]+/).map((code) => code.trim()).filter(Boolean))];
}
