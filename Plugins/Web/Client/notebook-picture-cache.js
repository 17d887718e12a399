// @ts-check
/**
 * AR Notebook's pictures kept on the phone (UC-15): a picture on a page is kept in IndexedDB the
 * first time it is fetched, and a notebook opened online fetches all of its pictures, so its pages
 * show them offline afterwards. Bounded: at most MAX_PICTURES pictures and MAX_BYTES bytes, the
 * least recently shown dropped first. Keyed by the picture's API path (an item's picture never
 * changes; a removed item's is dropped with age).
 */
import { ApiError } from "./api.js";

const DB = "quire-ar-pictures";
const STORE = "pictures";
export const MAX_PICTURES = 300;
export const MAX_BYTES = 60 * 1024 * 1024;

/** @typedef {{path: string, account: string, blob: Blob, size: number, at: number}} Kept */

/** @type {Promise<IDBDatabase | null> | null} */
let opening = null;

/** The database, or null where IndexedDB is refused (private modes): pictures are then fetched each time. */
function open() {
  opening ??= new Promise((resolve) => {
    try {
      const request = indexedDB.open(DB, 1);
      request.onupgradeneeded = () => {
        const store = request.result.createObjectStore(STORE, { keyPath: "path" });
        store.createIndex("at", "at");
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => resolve(null);
    } catch {
      resolve(null);
    }
  });
  return opening;
}

/** @template T @param {IDBRequest<T>} request @returns {Promise<T>} */
function done(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** @param {string} account @param {string} path @returns {Promise<Blob | null>} */
async function kept(account, path) {
  const db = await open();
  if (!db) return null;
  try {
    const store = db.transaction(STORE, "readwrite").objectStore(STORE);
    const found = /** @type {Kept | undefined} */ (await done(store.get(path)));
    if (!found || found.account !== account) return null;
    store.put({ ...found, at: Date.now() }); // shown now: the last to be dropped
    return found.blob;
  } catch {
    return null;
  }
}

/** Keeps a picture, then drops the least recently shown beyond the bounds. @param {string} account @param {string} path @param {Blob} blob */
async function keep(account, path, blob) {
  const db = await open();
  if (!db) return;
  try {
    await done(db.transaction(STORE, "readwrite").objectStore(STORE).put({ path, account, blob, size: blob.size, at: Date.now() }));
    const all = /** @type {Kept[]} */ (await done(db.transaction(STORE).objectStore(STORE).index("at").getAll()));
    let bytes = all.reduce((sum, k) => sum + k.size, 0);
    let count = all.length;
    const drop = [];
    for (const oldest of all) {
      if (count <= MAX_PICTURES && bytes <= MAX_BYTES) break;
      drop.push(oldest.path);
      count -= 1;
      bytes -= oldest.size;
    }
    if (drop.length) {
      const store = db.transaction(STORE, "readwrite").objectStore(STORE);
      for (const path of drop) store.delete(path);
    }
  } catch {
    // Storage full or refused: the picture still shows now.
  }
}

/** @type {Map<string, Promise<string>>} */
const urls = new Map();

/**
 * An object URL for a picture of a notebook: kept on the phone if it was seen before (online or
 * not), else fetched and kept. Rejects when it is neither kept nor reachable.
 * @param {import("./api.js").Api} api @param {string} path @returns {Promise<string>}
 */
export function pictureURL(api, path) {
  let url = urls.get(path);
  if (!url) {
    const account = api.session?.accountId ?? "";
    url = kept(account, path).then(async (blob) => {
      if (blob) return URL.createObjectURL(blob);
      const answer = await api.request("GET", path);
      if (!(answer.body instanceof Blob)) throw new ApiError("The picture could not be read.", answer.status);
      await keep(account, path, answer.body);
      return URL.createObjectURL(answer.body);
    });
    url.catch(() => urls.delete(path));
    urls.set(path, url);
  }
  return url;
}

/**
 * A notebook opened online: every picture on its pages fetched and kept now (a few at a time), so
 * that its pages show them offline later.
 * @param {import("./api.js").Api} api @param {string[]} paths
 */
export async function keepPictures(api, paths) {
  const queue = [...paths];
  const worker = async () => {
    for (let path = queue.shift(); path; path = queue.shift()) await pictureURL(api, path).catch(() => {});
  };
  await Promise.all([worker(), worker(), worker()]);
}
