// @ts-check
/**
 * Foreign Note's words, worked out on the device with the server's rules: folding and tokens (the
 * server's `SearchText`, scalar for scalar), the order of a collection (the server's sort key,
 * then id), search over the local copy when offline (the server's tiers: exact word, then a prefix
 * of it, then every typed word among its words, then in its definitions), the matched parts to
 * highlight, tag filters. Pure, unit-tested in `Tests/WebClient`.
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

// Folding and tokens: the server's `SearchText` (Plugins/Storage/StorageAPI/SearchText.swift),
// scalar for scalar. `Tests/WebClient/vocab.test.mjs` and `Tests/VocabularyTests` hold both to the
// same cases (Tests/WebClient/fold-cases.json).

/** Foundation's folding of a few letters it does not decompose (the server's table). @type {Record<number, string>} */
const SPECIAL = { 0xdf: "ss", 0x1e9e: "ss", 0xe6: "ae", 0xc6: "ae", 0x153: "oe", 0x152: "oe", 0xf8: "o", 0xd8: "o", 0x142: "l", 0x141: "l",
  0x111: "d", 0x110: "d", 0x131: "i", 0xfe: "th", 0xde: "th", 0xf0: "d", 0xd0: "d", 0x345: "\u03b9" };

/** Folded forms below U+3000, made once when first needed (as the server's table is). @type {string[] | null} */
let table = null;

/**
 * One scalar folded as the server folds it: lower case, no diacritics (`é` → `e`), compatibility
 * forms (`ﬁ` → `fi`, full-width `Ａ` → `a`), `ß` → `ss`, `æ` → `ae`, `œ` → `oe`, `ø` → `o`, `ł` → `l`;
 * empty for a combining mark.
 * @param {number} code
 * @returns {string}
 */
export function foldScalar(code) {
  if (code < 0x80) return code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : String.fromCharCode(code);
  if (code < 0x3000) {
    if (!table) {
      table = [];
      for (let value = 0; value < 0x3000; value++) table.push(value >= 0xd800 && value <= 0xdfff ? "" : foldLatin(value));
    }
    return table[code];
  }
  // Full-width Latin letters and digits.
  if (code >= 0xff01 && code <= 0xff5e) return foldScalar(code - 0xfee0);
  return String.fromCodePoint(code).toLowerCase();
}

/**
 * What Foundation's case- and diacritic-insensitive folding, then NFKC, makes of a scalar below
 * U+3000 (checked against the server's table for every one of them).
 * @param {number} code
 */
function foldLatin(code) {
  const special = SPECIAL[code];
  if (special !== undefined) return special;
  return String.fromCodePoint(code).normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/\u03c2/g, "\u03c3")
    .normalize("NFKC").replace(/\p{Mn}/gu, "");
}

const WORD_SCALAR = /[\p{L}\p{Nd}\p{Nl}\p{No}\p{M}]/u;

/** A letter, a digit or a mark: part of a word. @param {number} code @param {string} char */
function isWordScalar(code, char) {
  if (code < 0x80) return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
  return WORD_SCALAR.test(char);
}

/** Han, hiragana, katakana (and their half-width forms): each one a token of its own. @param {number} code */
export function isIdeographic(code) {
  return (code >= 0x3040 && code <= 0x30ff) || (code >= 0x31f0 && code <= 0x31ff) || (code >= 0x3400 && code <= 0x4dbf)
    || (code >= 0x4e00 && code <= 0x9fff) || (code >= 0xf900 && code <= 0xfaff) || (code >= 0xff66 && code <= 0xff9f)
    || (code >= 0x20000 && code <= 0x3134f);
}

/** @typedef {{folded: string, start: number, end: number, ideographic: boolean}} Token */

/**
 * The tokens of a text: runs of letters and digits folded, and every Chinese or Japanese character
 * alone, each with where it is in the original (UTF-16 offsets, [start, end)).
 * @param {string} text
 * @returns {Token[]}
 */
export function tokens(text) {
  /** @type {Token[]} */
  const found = [];
  let current = "";
  let start = 0;
  let end = 0;
  let offset = 0;
  for (const char of text) {
    const code = /** @type {number} */ (char.codePointAt(0));
    const width = char.length;
    if (isIdeographic(code)) {
      if (current) { found.push({ folded: current, start, end, ideographic: false }); current = ""; }
      found.push({ folded: char, start: offset, end: offset + width, ideographic: true });
    } else if (isWordScalar(code, char)) {
      if (!current) start = offset;
      current += foldScalar(code);
      end = offset + width;
    } else if (current) {
      found.push({ folded: current, start, end, ideographic: false });
      current = "";
    }
    offset += width;
  }
  if (current) found.push({ folded: current, start, end, ideographic: false });
  return found;
}

/**
 * A text folded as the server's sort and search keys are: its tokens joined by single spaces
 * (`"✨ Crème  BRÛLÉE!"` → `"creme brulee"`).
 * @param {string} text
 */
export function fold(text) {
  return tokens(text).map((t) => t.folded).join(" ");
}

/**
 * The words of a text, folded.
 * @param {string} text
 * @returns {string[]}
 */
export function words(text) {
  return tokens(text).map((t) => t.folded);
}

/**
 * Two folded keys in the server's order: by code point (UTF-8 bytes), not by UTF-16 unit.
 * @param {string} a @param {string} b @returns {number}
 */
export function compareKeys(a, b) {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  let i = 0;
  while (i < length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === length) return a.length < b.length ? -1 : 1;
  return /** @type {number} */ (a.codePointAt(i)) < /** @type {number} */ (b.codePointAt(i)) ? -1 : 1;
}

/**
 * Records by name as the server lists collections and tags: folded name, then id.
 * @template {{id: string, name: string}} T
 * @param {readonly T[]} named @returns {T[]}
 */
export function byName(named) {
  return named.map((item) => ({ item, key: fold(item.name ?? "") }))
    .sort((a, b) => compareKeys(a.key, b.key) || compareKeys(a.item.id, b.item.id))
    .map(({ item }) => item);
}

/**
 * What a query asks for, as the server reads it: groups of folded tokens that must all be found (a
 * word, or a run of Chinese or Japanese characters that must be adjacent and in order), and
 * whether the last is a prefix (it is unless the query ends with a space).
 * @typedef {{groups: string[][], lastIsPrefix: boolean}} Terms
 * @param {string} query
 * @returns {Terms}
 */
export function terms(query) {
  /** @type {string[][]} */
  const groups = [];
  let previousEnd = -1;
  let previousIdeographic = false;
  for (const token of tokens(query)) {
    if (token.ideographic && previousIdeographic && token.start === previousEnd && groups.length) groups[groups.length - 1].push(token.folded);
    else groups.push([token.folded]);
    previousEnd = token.end;
    previousIdeographic = token.ideographic;
  }
  return { groups, lastIsPrefix: !/\s$/u.test(query) };
}

/** The query folded as a key is. @param {Terms} terms */
function foldedKey(terms) {
  return terms.groups.flat().join(" ");
}

/**
 * Where `group` starts among `have` (the last of it as a prefix when `prefix`).
 * @param {string[]} group @param {Token[]} have @param {boolean} prefix @returns {number[]}
 */
function occurrences(group, have, prefix) {
  /** @type {number[]} */
  const found = [];
  if (!group.length || have.length < group.length) return found;
  for (let start = 0; start <= have.length - group.length; start++) {
    let ok = true;
    for (let offset = 0; offset < group.length; offset++) {
      const token = have[start + offset];
      const term = group[offset];
      const last = offset === group.length - 1;
      if (!(token.folded === term || (prefix && last && token.folded.startsWith(term)))) { ok = false; break; }
      // Inside a run of ideographic characters, tokens must be adjacent in the text too.
      if (offset > 0 && token.start !== have[start + offset - 1].end) { ok = false; break; }
    }
    if (ok) found.push(start);
  }
  return found;
}

/** Whether every group is found among `have`. @param {Token[]} have @param {Terms} terms */
function matchesAll(have, terms) {
  const last = terms.groups.length - 1;
  return terms.groups.every((group, index) => occurrences(group, have, terms.lastIsPrefix && index === last).length > 0);
}

/**
 * The parts of `text` that match the query, as [start, end) UTF-16 ranges, merged and in order (the
 * server's `highlights`): a prefix marks only the typed part of its word.
 * @param {string} text @param {Terms | string} query
 * @returns {Array<[number, number]>}
 */
export function ranges(text, query) {
  const wanted = typeof query === "string" ? terms(query) : query;
  const have = tokens(text);
  /** @type {Array<[number, number]>} */
  const found = [];
  const lastGroup = wanted.groups.length - 1;
  wanted.groups.forEach((group, index) => {
    const prefix = wanted.lastIsPrefix && index === lastGroup;
    for (const first of occurrences(group, have, prefix)) {
      const last = have[first + group.length - 1];
      const final = group[group.length - 1];
      const end = prefix && last.folded !== final ? prefixEnd(text, last, final) : last.end;
      found.push([have[first].start, end]);
    }
  });
  found.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  /** @type {Array<[number, number]>} */
  const merged = [];
  for (const range of found) {
    const previous = merged.at(-1);
    if (previous && range[0] <= previous[1]) previous[1] = Math.max(previous[1], range[1]);
    else merged.push([range[0], range[1]]);
  }
  return merged;
}

/**
 * Where the typed part of a word ends in the original: its folded prefix mapped back onto the
 * characters, with the combining marks that follow the last one.
 * @param {string} text @param {Token} token @param {string} prefix
 */
function prefixEnd(text, token, prefix) {
  let folded = "";
  let offset = token.start;
  for (const char of text.slice(token.start, token.end)) {
    if (folded.length >= prefix.length && folded.startsWith(prefix)) break;
    folded += foldScalar(/** @type {number} */ (char.codePointAt(0)));
    offset += char.length;
  }
  while (offset < token.end && foldScalar(text.charCodeAt(offset)) === "") offset++;
  return offset;
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
 * Entries as the server lists them (a collection, a tag, a browse): by the word folded into its
 * sort key (`fold`), compared by code point, then by id. "✨ blue" sorts as "blue".
 * @param {readonly Entry[]} entries @returns {Entry[]}
 */
export function byWord(entries) {
  const kept = sortedByWord.get(entries);
  if (kept) return kept;
  const sorted = entries.map((entry) => ({ entry, key: keyOf(entry) }))
    .sort((a, b) => compareKeys(a.key, b.key) || compareKeys(a.entry.id, b.entry.id))
    .map(({ entry }) => entry);
  // A frozen list (the synced copy's view) does not change: its order is kept until the next view.
  if (Object.isFrozen(entries)) sortedByWord.set(entries, sorted);
  return sorted;
}

/** @type {WeakMap<readonly Entry[], Entry[]>} */
const sortedByWord = new WeakMap();

const TIERS = /** @type {const} */ (["exact", "prefix", "word", "definition"]);

/** @type {WeakMap<Entry, {key: string, word: Token[], definitions: Token[][]}>} */
const foldedWords = new WeakMap();

/**
 * An entry's tokens, folded once per version of it (the synced copy keeps the same object until the
 * entry changes), so a keystroke over 50,000 entries does not fold 50,000 words again.
 * @param {Entry} entry
 */
/**
 * An entry's folded word alone (what the lists sort by): its definitions are not folded until a
 * search looks at them.
 * @param {Entry} entry
 */
function keyOf(entry) {
  let key = foldedKeys.get(entry) ?? foldedWords.get(entry)?.key;
  if (key === undefined) {
    key = tokens(entry.word ?? "").map((t) => t.folded).join(" ");
    foldedKeys.set(entry, key);
  }
  return key;
}

/** @type {WeakMap<Entry, string>} */
const foldedKeys = new WeakMap();

function wordsOf(entry) {
  let found = foldedWords.get(entry);
  if (!found) {
    const word = tokens(entry.word ?? "");
    found = { key: word.map((t) => t.folded).join(" "), word, definitions: (entry.definitions ?? []).map(tokens) };
    foldedWords.set(entry, found);
  }
  return found;
}

/**
 * Search as you type over the device's copy, with the server's tiers (`SearchRules.tier`): the
 * exact word; words starting with the query; words holding every query word; then entries where
 * each query word is in the word or a definition. The last word is a prefix unless the query ends
 * with a space. With no words, every entry passing the filters, by word. Within a tier, by sort key
 * then id.
 * @param {readonly Entry[]} entries @param {string} query @param {Filters} filters @param {number} [limit]
 * @returns {Hit[]}
 */
export function search(entries, query, filters, limit = 25) {
  const wanted = terms(query);
  const candidates = filtering(filters) ? entries.filter((entry) => passes(entry, filters)) : entries;
  if (!wanted.groups.length) {
    return byWord(candidates).slice(0, limit).map((entry) => ({ entry, match: /** @type {Match} */ ("listed"), highlights: {} }));
  }
  const whole = foldedKey(wanted);
  const started = wanted.lastIsPrefix ? whole : whole + " ";
  const last = wanted.groups.length - 1;
  /** Each group alone, to be found within one field. */
  const singles = wanted.groups.map((group, index) => ({ groups: [group], lastIsPrefix: wanted.lastIsPrefix && index === last }));
  // The best `limit` by tier, then key: kept sorted as they come, so a keystroke never sorts every match.
  const best = new Top(limit);
  /** @type {Entry[]} entries whose word did not match: their definitions are looked at only if the words found too few */
  const rest = [];
  for (const entry of candidates) {
    const known = wordsOf(entry);
    const tier = known.key === whole ? 0 : known.key.startsWith(started) ? 1 : matchesAll(known.word, wanted) ? 2 : -1;
    if (tier >= 0) best.offer(entry, tier, known.key);
    else rest.push(entry);
  }
  if (best.size < limit) {
    for (const entry of rest) {
      const known = wordsOf(entry);
      const fields = [known.word, ...known.definitions];
      if (singles.every((single) => fields.some((field) => matchesAll(field, single)))) best.offer(entry, 3, known.key);
    }
  }
  // Highlights only for what is shown.
  return best.items.map(({ entry, tier }) => {
    /** @type {Record<string, Array<[number, number]>>} */
    const highlights = {};
    const inWord = ranges(entry.word, wanted);
    if (inWord.length) highlights.word = inWord;
    (entry.definitions ?? []).forEach((definition, index) => {
      const marked = ranges(definition, wanted);
      if (marked.length) highlights[`definitions.${index}`] = marked;
    });
    return { entry, match: TIERS[tier], highlights };
  });
}

/** The first `limit` entries by (tier, sort key, id), kept as they are offered. */
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
  return (compareKeys(a.key, b.key) || compareKeys(a.entry.id, b.entry.id)) < 0;
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
