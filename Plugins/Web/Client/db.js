// @ts-check
/**
 * A small promise wrapper over IndexedDB: one database per account, three stores — `records`
 * (what the server showed, by `kind/id`), `outbox` (writes not yet acknowledged, in order) and
 * `meta` (the feed's cursor). Nothing else in the client touches IndexedDB.
 */

/** @param {IDBRequest} request @returns {Promise<any>} */
function done(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

export class Database {
  /** @param {IDBDatabase} db */
  constructor(db) {
    this.db = db;
  }

  /** @param {string} name */
  static async open(name) {
    const request = indexedDB.open(name, 1);
    request.onupgradeneeded = () => {
      const db = request.result;
      db.createObjectStore("records");
      db.createObjectStore("outbox", { keyPath: "seq", autoIncrement: true });
      db.createObjectStore("meta");
    };
    return new Database(await done(request));
  }

  /**
   * @param {string} store
   * @param {IDBTransactionMode} mode
   * @param {(store: IDBObjectStore) => IDBRequest | void} body
   * @returns {Promise<any>}
   */
  async run(store, mode, body) {
    const transaction = this.db.transaction(store, mode);
    const request = body(transaction.objectStore(store));
    const result = request ? await done(request) : undefined;
    await new Promise((resolve, reject) => {
      transaction.oncomplete = () => resolve(undefined);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
    return result;
  }

  /** @returns {Promise<Map<string, any>>} */
  async allRecords() {
    const map = new Map();
    const transaction = this.db.transaction("records", "readonly");
    const store = transaction.objectStore("records");
    const [keys, values] = await Promise.all([done(store.getAllKeys()), done(store.getAll())]);
    keys.forEach((key, index) => map.set(String(key), values[index]));
    return map;
  }

  /** @param {Array<[string, any]>} puts @param {string[]} deletes @param {string | null} [cursor] */
  async applyRecords(puts, deletes, cursor) {
    const transaction = this.db.transaction(["records", "meta"], "readwrite");
    const records = transaction.objectStore("records");
    for (const [key, value] of puts) records.put(value, key);
    for (const key of deletes) records.delete(key);
    if (cursor !== undefined && cursor !== null) transaction.objectStore("meta").put(cursor, "cursor");
    await new Promise((resolve, reject) => {
      transaction.oncomplete = () => resolve(undefined);
      transaction.onerror = () => reject(transaction.error);
    });
  }

  /** @param {string} key */
  meta(key) {
    return this.run("meta", "readonly", (store) => store.get(key));
  }

  /** @param {string} key @param {any} value */
  setMeta(key, value) {
    return this.run("meta", "readwrite", (store) => store.put(value, key));
  }

  /** @returns {Promise<import("./outbox.js").Write[]>} */
  outbox() {
    return this.run("outbox", "readonly", (store) => store.getAll());
  }

  /** @param {import("./outbox.js").Write} write @returns {Promise<number>} */
  enqueue(write) {
    return this.run("outbox", "readwrite", (store) => store.add(write));
  }

  /** @param {import("./outbox.js").Write[]} writes */
  async replaceOutbox(writes) {
    const transaction = this.db.transaction("outbox", "readwrite");
    const store = transaction.objectStore("outbox");
    for (const write of writes) store.put(write);
    await new Promise((resolve, reject) => {
      transaction.oncomplete = () => resolve(undefined);
      transaction.onerror = () => reject(transaction.error);
    });
  }

  /** @param {number} seq */
  dequeue(seq) {
    return this.run("outbox", "readwrite", (store) => store.delete(seq));
  }

  /**
   * What the server's answer to a write changes, kept in one transaction: the write leaves the
   * outbox, the record as the server answered enters `records`, and a create's id is remembered
   * with the writes that named its local id rewritten. A reload at any moment finds either all of
   * it or none (the write is then sent again, and its Idempotency-Key makes that harmless).
   * @param {{seq: number, rewrite?: import("./outbox.js").Write[], puts?: Array<[string, any]>, deletes?: string[],
   *   resolved?: Record<string, string>}} change
   */
  async settle({ seq, rewrite = [], puts = [], deletes = [], resolved }) {
    const transaction = this.db.transaction(["outbox", "records", "meta"], "readwrite");
    const outbox = transaction.objectStore("outbox");
    const records = transaction.objectStore("records");
    outbox.delete(seq);
    // Only writes IndexedDB already holds: one still being added gets its rewritten form when it
    // is read back at the next start (`Sync.start` resolves the ids it knows).
    for (const write of rewrite) if (write.seq !== undefined) outbox.put(write);
    for (const key of deletes) records.delete(key);
    for (const [key, value] of puts) records.put(value, key);
    if (resolved) transaction.objectStore("meta").put(resolved, "resolved");
    await new Promise((resolve, reject) => {
      transaction.oncomplete = () => resolve(undefined);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
  }
}

/** Deletes an account's copy on this device (signing out). @param {string} name */
export function forget(name) {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => resolve(undefined);
    request.onerror = () => reject(request.error);
    // Another tab still has it open: it is deleted once that tab lets go.
    request.onblocked = () => resolve(undefined);
  });
}
