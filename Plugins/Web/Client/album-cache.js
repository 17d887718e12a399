// @ts-check
/**
 * The rules of the picture cache on the phone (iRemember keeps every thumbnail and picture it has
 * shown in IndexedDB, so the album opens offline): bounded by a size the person chooses on the
 * settings screen, the pictures viewed least recently dropped first. Pure, so the order is
 * unit-tested (Tests/WebClient/album-cache.test.mjs); album-base.js keeps the pictures and the
 * index this module works on.
 */

/** @typedef {{size: number, at: number}} Entry what one kept picture weighs (bytes) and when it was last shown (ms) */
/** @typedef {Record<string, Entry>} Index kept pictures by their key */

/** The sizes to choose from, in megabytes; the first of them until the person chooses. */
export const SIZES = /** @type {const} */ ([200, 50, 100, 500, 1000]);
export const DEFAULT_MB = SIZES[0];

/**
 * The budget in bytes for a chosen size (megabytes, as kept); the default for anything else.
 * @param {unknown} chosen @returns {number}
 */
export function budgetBytes(chosen) {
  const mb = Number(chosen);
  return (SIZES.some((size) => size === mb) ? mb : DEFAULT_MB) * 1024 * 1024;
}

/**
 * The index with `key` shown now (added when new, its size updated).
 * @param {Index} index @param {string} key @param {number} size @param {number} now @returns {Index}
 */
export function touched(index, key, size, now) {
  return { ...index, [key]: { size: Math.max(0, size || 0), at: now } };
}

/** @param {Index} index */
export function totalBytes(index) {
  return Object.values(index).reduce((sum, entry) => sum + entry.size, 0);
}

/**
 * What to drop to bring the cache within `budget` bytes: the least recently viewed first (the
 * earlier key first among equals, so the order is the same every time); `keep` (the picture being
 * shown) is never dropped, even when it alone is over the budget.
 * @param {Index} index @param {number} budget @param {string} [keep] @returns {string[]}
 */
export function toDrop(index, budget, keep) {
  let total = totalBytes(index);
  if (total <= budget) return [];
  const oldestFirst = Object.entries(index).filter(([key]) => key !== keep)
    .sort(([a, x], [b, y]) => x.at - y.at || (a < b ? -1 : a > b ? 1 : 0));
  const dropped = [];
  for (const [key, entry] of oldestFirst) {
    if (total <= budget) break;
    dropped.push(key);
    total -= entry.size;
  }
  return dropped;
}

/**
 * The index without `keys`. @param {Index} index @param {readonly string[]} keys @returns {Index}
 */
export function without(index, keys) {
  const left = { ...index };
  for (const key of keys) delete left[key];
  return left;
}

/** "12 MB", "840 KB": a size as people read it. @param {number} bytes */
export function sizeWords(bytes) {
  if (bytes >= 1024 * 1024) return `${Math.round(bytes / (1024 * 1024))} MB`;
  return `${Math.max(0, Math.round(bytes / 1024))} KB`;
}
