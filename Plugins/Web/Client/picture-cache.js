// @ts-check
/**
 * The one picture cache of the phone apps (issue 40): iRemember's photos, AR Notebook's pictures
 * on pages and Napkin Notes' photos are kept the first time they are fetched, so they show offline
 * afterwards. Each app has its own bound (BOUNDS; iRemember's size is chosen on its settings
 * screen); past it, the pictures shown least recently are dropped first, the one being shown never.
 *
 * Where: the account's own IndexedDB copy (db.js, `context.sync.db`, one per app and account, gone
 * at sign-out), in its `meta` store as `picture:<key>` → Blob, with an index (each kept picture's
 * size and when it was last shown) under `picture-cache`. The rules (touched, toDrop, …) are pure
 * and unit-tested (Tests/WebClient/picture-cache.test.mjs).
 */

/** @typedef {{size: number, at: number}} Entry what one kept picture weighs (bytes) and when it was last shown (ms) */
/** @typedef {Record<string, Entry>} Index kept pictures by their stored key */
/** @typedef {{bytes: number, count?: number}} Bound at most `bytes` bytes and, when given, `count` pictures */

const MB = 1024 * 1024;

/** iRemember's sizes to choose from, in megabytes; the first of them until the person chooses. */
export const SIZES = /** @type {const} */ ([200, 50, 100, 500, 1000]);
export const DEFAULT_MB = SIZES[0];

/** Each app's bound: iRemember's follows the size chosen (budgetBytes); AR's and Napkin's are fixed. */
export const BOUNDS = {
  /** AR Notebook: 300 pictures or 60 MB. */
  ar: /** @type {Bound} */ ({ bytes: 60 * MB, count: 300 }),
  /** Napkin Notes: a list thumbnail and a note's photo each, 500 pictures or 100 MB. */
  napkin: /** @type {Bound} */ ({ bytes: 100 * MB, count: 500 }),
};

/**
 * The budget in bytes for a chosen size (megabytes, as kept); the default for anything else.
 * @param {unknown} chosen @returns {number}
 */
export function budgetBytes(chosen) {
  const mb = Number(chosen);
  return (SIZES.some((size) => size === mb) ? mb : DEFAULT_MB) * MB;
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
 * What to drop to bring the cache within its bound (bytes, or a Bound of bytes and a count): the
 * least recently shown first (the earlier key first among equals, so the order is the same every
 * time); `keep` (the picture being shown) is never dropped, even when it alone is over the bound.
 * @param {Index} index @param {number | Bound} bound @param {string} [keep] @returns {string[]}
 */
export function toDrop(index, bound, keep) {
  const { bytes, count = Infinity } = typeof bound === "number" ? { bytes: bound } : bound;
  let total = totalBytes(index);
  let left = Object.keys(index).length;
  if (total <= bytes && left <= count) return [];
  const oldestFirst = Object.entries(index).filter(([key]) => key !== keep)
    .sort(([a, x], [b, y]) => x.at - y.at || (a < b ? -1 : a > b ? 1 : 0));
  const dropped = [];
  for (const [key, entry] of oldestFirst) {
    if (total <= bytes && left <= count) break;
    dropped.push(key);
    total -= entry.size;
    left -= 1;
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
  if (bytes >= MB) return `${Math.round(bytes / MB)} MB`;
  return `${Math.max(0, Math.round(bytes / 1024))} KB`;
}

// Kept on the phone -------------------------------------------------------------------------------

/** The index's key in the meta store. */
const INDEX = "picture-cache";
/** What is stored under a picture's key. @param {string} key */
const stored = (key) => `picture:${key}`;

/** @typedef {import("./db.js").Database} Database */
/** @typedef {{index: Promise<Index>, saving?: number, work: Promise<unknown>, urls: Map<string, Promise<string>>}} Cache */

/** @type {WeakMap<Database, Cache>} */
const caches = new WeakMap();
/** Object URLs where the account has no copy on the phone (IndexedDB refused): fetched once a page. */
const unkept = new Map();

/**
 * The account's cache, its index read once. Pictures kept before the index existed are counted,
 * as shown longest ago. @param {Database} db @returns {Cache}
 */
function cacheOf(db) {
  let cache = caches.get(db);
  if (!cache) {
    const index = db.meta(INDEX).then(async (kept) => {
      if (kept && typeof kept === "object") return /** @type {Index} */ (kept);
      const range = IDBKeyRange.bound("picture:", "picture:\uffff");
      const [keys, values] = await Promise.all([db.run("meta", "readonly", (store) => store.getAllKeys(range)),
        db.run("meta", "readonly", (store) => store.getAll(range))]);
      /** @type {Index} */
      const found = {};
      keys.forEach((/** @type {IDBValidKey} */ key, /** @type {number} */ at) => {
        if (values[at] instanceof Blob) found[String(key)] = { size: values[at].size, at: 0 };
      });
      return found;
    }).catch(() => /** @type {Index} */ ({}));
    cache = { index, work: Promise.resolve(), urls: new Map() };
    caches.set(db, cache);
  }
  return cache;
}

/** @param {Bound | (() => Bound)} bound @returns {Bound} */
const boundOf = (bound) => (typeof bound === "function" ? bound() : bound);

/**
 * Lets pictures go, least recently shown first, until the cache is within its bound.
 * @param {Database} db @param {Index} index @param {Bound} bound @param {string} [keep] @returns {Promise<Index>}
 */
async function trim(db, index, bound, keep) {
  const drop = toDrop(index, bound, keep);
  if (!drop.length) return index;
  await db.run("meta", "readwrite", (store) => { for (const key of drop) store.delete(key); });
  return without(index, drop);
}

/**
 * A kept picture was shown: it becomes the most recently shown, and the cache lets the least
 * recently shown go while it is over its bound.
 * @param {Database} db @param {string} key stored key @param {number} size @param {Bound | (() => Bound)} bound
 */
function shown(db, key, size, bound) {
  const cache = cacheOf(db);
  cache.work = cache.work.then(async () => {
    let index = touched(await cache.index, key, size, Date.now());
    index = await trim(db, index, boundOf(bound), key);
    cache.index = Promise.resolve(index);
    // The index is written a moment later: a screen of thumbnails is one write, not sixty.
    clearTimeout(cache.saving);
    cache.saving = window.setTimeout(() => { db.setMeta(INDEX, index).catch(() => {}); }, 1_000);
  }).catch(() => {});
}

/** AR Notebook kept its pictures in a database of their own before this cache: it goes, once a page. */
let oldStoreDropped = false;
function dropOldStore() {
  if (oldStoreDropped) return;
  oldStoreDropped = true;
  try {
    indexedDB.deleteDatabase("quire-ar-pictures");
  } catch {
    // IndexedDB refused: there is nothing of it to drop.
  }
}

/**
 * An object URL for a picture: the phone's kept copy if it was seen before (online or not), else
 * fetched from `path` and kept. Rejects when it is neither kept nor reachable.
 * @param {{api: import("./api.js").Api, sync: {db: Database | null}}} context
 * @param {string} path the API path of the picture
 * @param {Bound | (() => Bound)} bound the app's bound
 * @param {string} [key] what it is kept by, when its path alone does not say which picture it is (a version)
 * @returns {Promise<string>}
 */
export function pictureURL(context, path, bound, key = path) {
  dropOldStore();
  const db = context.sync.db;
  const fetched = async () => {
    const answer = await context.api.request("GET", path);
    if (!(answer.body instanceof Blob)) throw new Error(`The picture could not be read (HTTP ${answer.status}).`);
    return answer.body;
  };
  if (!db) {
    let url = unkept.get(path);
    if (!url) {
      url = fetched().then((blob) => URL.createObjectURL(blob));
      url.catch(() => unkept.delete(path));
      unkept.set(path, url);
    }
    return url;
  }
  const { urls } = cacheOf(db);
  const name = stored(key);
  let url = urls.get(name);
  if (!url) {
    url = db.meta(name).catch(() => undefined).then(async (kept) => {
      if (kept instanceof Blob) {
        shown(db, name, kept.size, bound);
        return URL.createObjectURL(kept);
      }
      const blob = await fetched();
      // Storage full or refused: the picture still shows now.
      await db.setMeta(name, blob).then(() => shown(db, name, blob.size, bound), () => {});
      return URL.createObjectURL(blob);
    });
    url.catch(() => urls.delete(name));
    urls.set(name, url);
  } else {
    url.then(() => cacheOf(db).index).then((index) => shown(db, name, index[name]?.size ?? 0, bound)).catch(() => {});
  }
  return url;
}

/**
 * Pictures about to be needed offline (a notebook opened online): each fetched and kept now, a
 * few at a time. @param {Parameters<typeof pictureURL>[0]} context @param {string[]} paths
 * @param {Bound | (() => Bound)} bound
 */
export async function keepPictures(context, paths, bound) {
  const queue = [...paths];
  const worker = async () => {
    for (let path = queue.shift(); path; path = queue.shift()) await pictureURL(context, path, bound).catch(() => {});
  };
  await Promise.all([worker(), worker(), worker()]);
}

/**
 * What the phone keeps now, after trimming it to its bound (iRemember's settings screen, after a
 * size is chosen). @param {Database} db @param {Bound} bound @returns {Promise<{bytes: number, count: number}>}
 */
export async function keptNow(db, bound) {
  const cache = cacheOf(db);
  /** @type {Index} */
  let index = {};
  cache.work = cache.work.then(async () => {
    index = await trim(db, await cache.index, bound);
    cache.index = Promise.resolve(index);
    await db.setMeta(INDEX, index);
  }).catch(() => {});
  await cache.work;
  return { bytes: totalBytes(index), count: Object.keys(index).length };
}
