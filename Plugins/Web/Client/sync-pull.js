// @ts-check
/**
 * The sync layer's pull of the change feed (`/api/v1/sync/changes`), page by page from the cursor
 * this device holds until it is current: each page's records and deletions go into `sync.records`
 * and IndexedDB with the new cursor in one transaction. A cursor the server compacted past (410)
 * starts over from the beginning. sync.js calls it (Sync.pull runs one at a time).
 */
import { ApiError } from "./api.js";
import { feedChanges } from "./merge.js";

/** One pull until the feed is current. @param {import("./sync.js").Sync} sync @returns {Promise<void>} */
export async function pullFeed(sync) {
  const db = /** @type {import("./db.js").Database} */ (sync.db);
  if (!sync.api.session) return;
  try {
    let more = true;
    while (more) {
      const cursor = await db.meta("cursor");
      const query = cursor ? `?after=${encodeURIComponent(cursor)}&limit=500` : "?limit=500";
      const page = await sync.api.get(`/api/v1/sync/changes${query}`);
      const { puts, deletes } = feedChanges(sync.records, page.items);
      // A record deleted elsewhere while this phone's writes to it (or into it: an AR page's
      // new text) wait: kept as last shown, so what the refusal keeps can be named.
      await sync.keeping.remember(deletes);
      for (const [key, value] of puts) sync.records.set(key, value);
      for (const key of deletes) sync.records.delete(key);
      await db.applyRecords(puts, deletes, page.nextCursor);
      if (puts.length || deletes.length) sync.changed();
      more = page.hasMore;
    }
    // A pull answered after the phone went offline leaves it offline (the answer raced the event).
    if (sync.writes.length === 0 && navigator.onLine) sync.setState("idle");
  } catch (error) {
    if (error instanceof ApiError && error.status === 410) {
      // The server compacted past this device's cursor: start over from the beginning.
      await db.setMeta("cursor", null);
      sync.records = new Map();
      sync.views.clear();
      await db.run("records", "readwrite", (store) => store.clear());
      return pullFeed(sync);
    }
    if (error instanceof ApiError && error.offline) sync.setState("offline");
  }
}
