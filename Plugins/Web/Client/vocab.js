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
  const tags = entry.tags ?? [];
  if (filters.collection && entry.collection !== filters.collection) return false;
  if (filters.all.some((t) => !tags.includes(t))) return false;
  if (filters.any.length && !filters.any.some((t) => tags.includes(t))) return false;
  if (filters.none.some((t) => tags.includes(t))) return false;
  return true;
}

/** Whether any filter is set (when none is, every entry passes and none need be looked at). @param {Filters} filters */
function filtering(filters) {
  return Boolean(filters.collection) || filters.all.length > 0 || filters.any.length > 0 || filters.none.length > 0;
}

/**
 * Entries by word, case and accents aside (how a collection lists them).
 * @param {readonly Entry[]} entries @returns {Entry[]}
 */
export function byWord(entries) {
  const kept = sortedByWord.get(entries);
  if (kept) return kept;
  const sorted = entries.map((entry) => ({ entry, key: wordsOf(entry).key }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.entry.word < b.entry.word ? -1 : a.entry.word > b.entry.word ? 1 : a.entry.id < b.entry.id ? -1 : 1))
    .map(({ entry }) => entry);
  // A frozen list (the synced copy's view) does not change: its order is kept until the next view.
  if (Object.isFrozen(entries)) sortedByWord.set(entries, sorted);
  return sorted;
}

/** @type {WeakMap<readonly Entry[], Entry[]>} */
const sortedByWord = new WeakMap();

const TIERS = /** @type {const} */ (["exact", "prefix", "word", "definition"]);

/** @type {WeakMap<Entry, {key: string, word: string[], joined: string, definitions: string[][]}>} */
const foldedWords = new WeakMap();

/**
 * An entry's words, folded once per version of it (the synced copy keeps the same object until the
 * entry changes), so a keystroke over 50,000 entries does not fold 50,000 words again.
 * @param {Entry} entry
 */
function wordsOf(entry) {
  let found = foldedWords.get(entry);
  if (!found) {
    const word = words(entry.word);
    found = { key: fold(entry.word), word, joined: word.join(" "), definitions: (entry.definitions ?? []).map(words) };
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
  const candidates = filtering(filters) ? entries.filter((entry) => passes(entry, filters)) : entries;
  if (!typed.length) {
    return byWord(candidates).slice(0, limit).map((entry) => ({ entry, match: /** @type {Match} */ ("listed"), highlights: {} }));
  }
  const open = !/\s$/.test(query);
  const whole = typed.join(" ");
  const last = typed.length - 1;
  /** Every typed word is among `have` (the last as a prefix while typing). @param {string[]} have */
  const all = (have) => {
    for (let i = 0; i <= last; i++) {
      const want = typed[i];
      const prefix = i === last && open;
      let hit = false;
      for (const w of have) {
        if (prefix ? w.startsWith(want) : w === want) { hit = true; break; }
      }
      if (!hit) return false;
    }
    return true;
  };
  // The best `limit` by tier, then word: kept sorted as they come, so a keystroke never sorts every match.
  const best = new Top(limit);
  /** @type {Entry[]} entries whose word did not match: their definitions are looked at only if the words found too few */
  const rest = [];
  for (const entry of candidates) {
    const known = wordsOf(entry);
    const tier = known.joined === whole ? 0 : open && known.joined.startsWith(whole) ? 1 : all(known.word) ? 2 : -1;
    if (tier >= 0) best.offer(entry, tier, known.key);
    else rest.push(entry);
  }
  if (best.size < limit) {
    for (const entry of rest) {
      const known = wordsOf(entry);
      if (known.definitions.some(all)) best.offer(entry, 3, known.key);
    }
  }
  // Highlights only for what is shown.
  return best.items.map(({ entry, tier }) => {
    /** @type {Record<string, Array<[number, number]>>} */
    const highlights = {};
    const inWord = ranges(entry.word, typed);
    if (inWord.length) highlights.word = inWord;
    (entry.definitions ?? []).forEach((definition, index) => {
      const marked = ranges(definition, typed);
      if (marked.length) highlights[`definitions.${index}`] = marked;
    });
    return { entry, match: TIERS[tier], highlights };
  });
}

/** The first `limit` entries by (tier, folded word, word), kept as they are offered. */
class Top {
  /** @param {number} limit */
  constructor(limit) {
    this.limit = limit;
    /** @type {Array<{entry: Entry, tier: number, key: string}>} */
    this.items = [];
  }

  get size() {
    return this.items.length;
  }

  /** @param {Entry} entry @param {number} tier @param {string} key */
  offer(entry, tier, key) {
    const items = this.items;
    const item = { entry, tier, key };
    if (items.length === this.limit && !before(item, items[items.length - 1])) return;
    let at = items.length;
    while (at > 0 && before(item, items[at - 1])) at--;
    items.splice(at, 0, item);
    if (items.length > this.limit) items.pop();
  }
}

/** @param {{entry: Entry, tier: number, key: string}} a @param {{entry: Entry, tier: number, key: string}} b */
function before(a, b) {
  if (a.tier !== b.tier) return a.tier < b.tier;
  if (a.key !== b.key) return a.key < b.key;
  return a.entry.word < b.entry.word;
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
