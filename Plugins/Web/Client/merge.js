// @ts-check
/**
 * Applying the sync feed to the local copy, and ordering a user's list. Pure: `sync.js` reads and
 * writes IndexedDB around these.
 */

/**
 * @typedef {object} FeedItem
 * @property {string} kind
 * @property {string} id
 * @property {number} version
 * @property {boolean} deleted
 * @property {string} [owner]
 * @property {any} [record]
 */

/**
 * The changes a feed page makes to the local records: puts and deletes by `kind/id`. A record the
 * device holds at a newer version than the item (an answer to its own write came first) stays.
 * @param {Map<string, {version: number}>} held   what the device holds now
 * @param {FeedItem[]} items
 * @returns {{puts: Array<[string, any]>, deletes: string[]}}
 */
export function feedChanges(held, items) {
  /** @type {Array<[string, any]>} */
  const puts = [];
  /** @type {string[]} */
  const deletes = [];
  for (const item of items) {
    const key = `${item.kind}/${item.id}`;
    const current = held.get(key);
    if (current && current.version > item.version) continue;
    if (item.deleted) deletes.push(key);
    else if (item.record) puts.push([key, { ...item.record, kind: item.kind, version: item.version, owner: item.owner }]);
  }
  return { puts, deletes };
}

/**
 * A list in the user's own order: by `position` (order keys compare as strings, byte order), then
 * id; then the moves still waiting in the outbox, applied in the order they were made.
 * @template {{id: string, position?: string}} T
 * @param {readonly T[]} items
 * @param {Array<{id: string, before?: string, after?: string}>} [moves]
 * @returns {T[]}
 */
export function ordered(items, moves = []) {
  const list = [...items].sort((a, b) => {
    const pa = a.position ?? "", pb = b.position ?? "";
    if (pa !== pb) return pa < pb ? -1 : 1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
  for (const move of moves) {
    const from = list.findIndex((item) => item.id === move.id);
    if (from < 0) continue;
    const [item] = list.splice(from, 1);
    const anchor = list.findIndex((other) => other.id === (move.before ?? move.after));
    if (anchor < 0) {
      list.splice(from, 0, item);
      continue;
    }
    list.splice(move.before ? anchor : anchor + 1, 0, item);
  }
  return list;
}

/** A stroke or text as compared across devices: what it draws, to four decimals (the server may
 * write numbers back in another form). @param {any} item */
function drawnKey(item) {
  const r = (/** @type {any} */ n) => (typeof n === "number" ? Math.round(n * 1e4) / 1e4 : n);
  if (Array.isArray(item?.points)) {
    return JSON.stringify(["s", item.tool, item.color, r(item.width), item.points.map((/** @type {any} */ p) => [r(p.x), r(p.y)])]);
  }
  return JSON.stringify(["t", item?.text, item?.color, r(item?.x), r(item?.y), r(item?.size)]);
}

/**
 * A drawing drawn on while another device drew on it too: the other device's strokes and texts
 * stay, this device's new ones are added, and the ones this device erased or cleared go.
 * `base` is the drawing this device started from, `mine` what it made of it, `theirs` the
 * server's now.
 * @param {{strokes?: any[], texts?: any[], aspect?: number} | null} base
 * @param {{strokes?: any[], texts?: any[], aspect?: number}} mine
 * @param {{strokes?: any[], texts?: any[], aspect?: number} | null} theirs
 * @returns {{strokes: any[], texts: any[], aspect?: number}}
 */
export function mergeDrawing(base, mine, theirs) {
  /** @param {"strokes" | "texts"} part */
  const merged = (part) => {
    const before = new Set((base?.[part] ?? []).map(drawnKey));
    const now = new Set((mine[part] ?? []).map(drawnKey));
    const kept = (theirs?.[part] ?? []).filter((item) => { const key = drawnKey(item); return now.has(key) || !before.has(key); });
    const there = new Set(kept.map(drawnKey));
    return [...kept, ...(mine[part] ?? []).filter((item) => !there.has(drawnKey(item)) && !before.has(drawnKey(item)))];
  };
  const strokes = merged("strokes");
  const texts = merged("texts");
  const aspect = theirs?.aspect ?? mine.aspect;
  return strokes.length || texts.length ? (aspect ? { strokes, texts, aspect } : { strokes, texts }) : { strokes, texts };
}
