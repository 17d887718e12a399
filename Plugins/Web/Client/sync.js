// @ts-check
/**
 * The device's copy of the user's records and the way it stays current: a pull of the change feed
 * at start, on every poke from the live connection and when the network returns; every write goes
 * to the outbox first and is sent in order when the server can be reached. Screens read `view()`
 * and listen for `change`; they never wait on the network to show what the user did.
 *
 * Here: the outbox (write, drain, settle) and the copy the screens read. Beside it: sync-pull.js
 * (the change feed), sync-live.js (the live connection), sync-kept.js (what was written to a
 * record deleted on another device), journal.js (writes kept before IndexedDB holds them).
 */
import { ApiError } from "./api.js";
import { Database, forget } from "./db.js";
import { Journal, toReplay } from "./journal.js";
import { isGone, isRefusal } from "./kept.js";
import { mergeDrawing } from "./merge.js";
import { mergeTags } from "./merge-tags.js";
import { backoff, changeOf, isLocal, newKey, outcome, overlay, recordIn, resolveId } from "./outbox.js";
import { KeptWrites } from "./sync-kept.js";
import { connectLive } from "./sync-live.js";
import { pullFeed } from "./sync-pull.js";
import { followWrite } from "./wrote.js";

/** @typedef {"offline" | "syncing" | "idle"} SyncState */

export class Sync extends EventTarget {
  /** @param {import("./api.js").Api} api @param {string} app */
  constructor(api, app) {
    super();
    this.api = api;
    this.app = app;
    /** @type {Database | null} */
    this.db = null;
    /** Writes shown before IndexedDB holds them, kept synchronously (journal.js). @type {Journal | null} */
    this.journal = null;
    /** @type {Map<string, any>} */
    this.records = new Map();
    /** Each kind's records as the user sees them, kept until the next change. @type {Map<string, readonly any[]>} */
    this.views = new Map();
    /** @type {import("./outbox.js").Write[]} */
    this.writes = [];
    /** Local ids of records created offline → the ids the server gave them. @type {Map<string, string>} */
    this.resolved = new Map();
    /** Local ids of records whose create the server refused → its words (a photo that is not one):
     * the record's screen says that, not "deleted on another phone". @type {Map<string, string>} */
    this.refusedCreates = new Map();
    /** Screens' changes typed but not yet queued. @type {Set<string>} */
    this.drafts = new Set();
    /** Writes the server refused since the user last said OK to being told: the indicator says
     * "Not saved" rather than "Saved" meanwhile. */
    this.refused = 0;
    /** What the person wrote to records deleted elsewhere, refused and kept (sync-kept.js). */
    this.keeping = new KeptWrites(this);
    /** @type {SyncState} */
    this.state = navigator.onLine ? "syncing" : "offline";
    this.draining = false;
    this.drainAgain = false;
    this.pulling = /** @type {Promise<void> | null} */ (null);
    this.pullAgain = false;
    /** @type {WebSocket | null} */
    this.socket = null;
    this.retryTimer = 0;
    this.liveAttempts = 0;
    this.stopped = false;
  }

  /** The IndexedDB database holding this account's copy on this device. */
  get databaseName() {
    return `quire-${this.app}-${this.api.session?.accountId ?? "anonymous"}`;
  }

  async start() {
    this.db = await Database.open(this.databaseName);
    this.journal = new Journal(this.databaseName);
    this.records = await this.db.allRecords();
    // Kept with the answer that gave it, so a screen opened by a record's local id (a reload right
    // after creating it) still finds the record once the server has named it.
    this.resolved = new Map(Object.entries((await this.db.meta("resolved")) ?? {}));
    this.writes = await this.db.outbox();
    await this.keeping.load(this.db);
    // Writes shown as queued that a reload cut off before IndexedDB held them (journal.js): into
    // the outbox now, in order; those it already holds (by Idempotency-Key) are not added again.
    const journaled = this.journal.entries();
    for (const write of toReplay(this.writes, journaled)) {
      this.writes.push({ ...write, seq: await this.db.enqueue(write) });
    }
    this.journal.remove(journaled.map((w) => w.key));
    for (const [local, real] of this.resolved) {
      if (this.writes.some((w) => mentions(w, local))) this.writes = resolveId(this.writes, local, real);
    }
    this.changed();
    window.addEventListener("online", this.onOnline);
    window.addEventListener("offline", this.onOffline);
    this.connect();
    this.pull().then(() => this.drain());
  }

  /** The id the server knows a record by: a local id once its create was answered, or the id itself. @param {string} id */
  resolve(id) {
    return this.resolved.get(id) ?? id;
  }

  /** Stops and deletes this account's copy on this device (signing out). */
  async forget() {
    this.stop();
    (this.journal ?? new Journal(this.databaseName)).clear();
    this.db?.db.close();
    this.db = null;
    await forget(this.databaseName);
  }

  stop() {
    this.stopped = true;
    window.removeEventListener("online", this.onOnline);
    window.removeEventListener("offline", this.onOffline);
    this.socket?.close();
    clearTimeout(this.retryTimer);
  }

  onOnline = () => {
    this.setState("syncing");
    this.connect();
    this.pull().then(() => this.drain());
  };

  onOffline = () => this.setState("offline");

  /** @param {SyncState} state */
  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.dispatchEvent(new Event("state"));
  }

  changed() {
    this.views.clear();
    this.dispatchEvent(new Event("change"));
  }

  /** Resolves once nothing waits for the server, or after `ms`. @param {number} ms @returns {Promise<void>} */
  settled(ms) {
    if (this.pending === 0) return Promise.resolve();
    this.drain();
    return new Promise((/** @type {(value?: void) => void} */ resolve) => {
      const check = () => {
        if (this.pending > 0) return;
        done();
      };
      const done = () => {
        clearTimeout(timer);
        this.removeEventListener("state", check);
        this.removeEventListener("change", check);
        resolve();
      };
      const timer = window.setTimeout(done, ms);
      this.addEventListener("state", check);
      this.addEventListener("change", check);
    });
  }

  /** The user read what was refused (the notice's OK): the indicator may say "Saved" again. */
  acknowledgeRefusals() {
    this.refused = 0;
    this.dispatchEvent(new Event("state"));
  }

  /** How many of the user's changes wait for the server (typed but not yet queued included). */
  get pending() {
    // Counted as the user sees them, not requests (outbox.js changeOf): a new note is one change,
    // its title, its photo and its voice note three.
    const changed = new Set(this.writes.map(changeOf));
    for (const draft of this.drafts) changed.add(draft);
    return changed.size;
  }

  /**
   * Marks a screen's change as typed but not yet written (an editor waits for a pause in typing):
   * the indicator says "Saving" rather than "Saved" meanwhile.
   * @param {string} key @param {boolean} open
   */
  draft(key, open) {
    if (open === this.drafts.has(key)) return;
    if (open) this.drafts.add(key);
    else this.drafts.delete(key);
    this.dispatchEvent(new Event("state"));
  }

  /**
   * The records of a kind as the user sees them: the server's copies with queued writes on top.
   * @param {string} kind
   * @returns {readonly any[]}
   */
  view(kind) {
    // Kept until the next change: a keystroke over 50,000 entries does not copy them again.
    const kept = this.views.get(kind);
    if (kept) return kept;
    const prefix = kind + "/";
    /** @type {any[]} */
    const found = [];
    for (const [key, value] of overlay(this.records, this.writes)) if (key.startsWith(prefix)) found.push(value);
    const frozen = Object.freeze(found);
    this.views.set(kind, frozen);
    return frozen;
  }

  /** @param {string} kind @param {string} id */
  one(kind, id) {
    return overlay(this.records, this.writes).get(`${kind}/${id}`);
  }

  /** The moves queued for a kind, in order (lists apply them on top of the server's order). */
  moves(kind) {
    return this.writes.filter((w) => w.kind === kind && w.path.endsWith("/move")).map((w) => ({ id: w.id, ...w.body }));
  }

  /**
   * Queues a write and shows it at once; it is sent when the network allows. `key` is given when
   * the same request may already have reached the server (sent directly, then its answer lost).
   * Answers the write's key at once: its "settled" event (below) names it, so a screen can say what
   * became of it. The screen does not wait for IndexedDB, which can take a second on a busy phone:
   * a Save that waited left its form under the person's finger, and a tag chosen after the wait
   * was missed by a Save tapped meanwhile. The journal keeps the write across a reload until then;
   * a write it cannot keep (a Blob) is answered once IndexedDB holds it, as before.
   * @param {Omit<import("./outbox.js").Write, "key" | "attempts"> & {key?: string}} write
   * @returns {Promise<string>}
   */
  async write(write) {
    /** @type {import("./outbox.js").Write} */
    let queued = { ...write, key: write.key ?? newKey(), attempts: 0 };
    // A screen may still hold a record's local id after its create was answered (a geotag asked
    // for while the phone looked for its position): the write takes the server's id, or it would
    // wait for a create that is not coming.
    for (const [local, real] of this.resolved) {
      if (mentions(queued, local)) queued = resolveId([queued], local, real)[0];
    }
    followWrite(queued); // what a form remembers this phone sent moves along (wrote.js)
    // Kept synchronously first (journal.js): a reload before IndexedDB holds it finds it there.
    const journalled = this.journal?.add(queued) ?? false;
    // Counted and shown at once; sent once IndexedDB holds it (a crash meanwhile loses nothing
    // the server was told).
    this.writes.push(queued);
    this.changed();
    const kept = this.enqueue(queued);
    // What the journal cannot keep (a photo's upload, a Blob; a full storage) is waited for: the
    // screen goes on only once IndexedDB holds it, so a reload after it loses nothing.
    if (!journalled) await kept;
    // Else IndexedDB failing leaves the write in the journal, added to the outbox at the next start.
    else kept.catch((error) => console.warn("quire: the outbox could not keep a write; the journal holds it until the next start", error));
    return queued.key;
  }

  /**
   * Puts a queued write in IndexedDB, then lets it be sent. IndexedDB runs its transactions in the
   * order they were opened, so writes keep their order (their seq) without waiting on each other.
   * @param {import("./outbox.js").Write} queued
   */
  async enqueue(queued) {
    const seq = await /** @type {Database} */ (this.db).enqueue(queued);
    // Out of the journal before it can be sent (its seq): a write sent is never replayed.
    this.journal?.remove([queued.key]);
    // The queue may have been rewritten meanwhile (a create answered: its local id resolved), so
    // the write is found again by its key.
    const held = this.writes.find((w) => w.key === queued.key);
    if (held) held.seq = seq;
    this.drain();
  }

  /** Sends queued writes in order until one cannot be sent now. */
  async drain() {
    if (this.stopped || !this.db) return;
    // Asked while a drain runs (the phone came back online while a send was failing offline): once
    // it ends, it drains again at once, rather than leaving the queue to a backoff of up to 30 s.
    if (this.draining) {
      this.drainAgain = true;
      return;
    }
    this.draining = true;
    try {
      while (this.writes.length > 0) {
        const write = this.writes[0];
        if (write.seq === undefined) break; // not in IndexedDB yet: write() drains once it is
        if (isLocal(write.id) && write.method !== "POST") break; // its create has not been answered yet
        /** @type {Record<string, string>} */
        const headers = { "Idempotency-Key": write.key };
        if (write.baseVersion) headers["If-Match"] = `"${write.baseVersion}"`;
        let status = null;
        let answer = null;
        let message = "";
        /** @type {any} */
        let problem = null;
        try {
          const body = write.rebase ? await this.rebased(write) : write.body;
          const response = await this.api.request(write.method, write.path, { body, contentType: write.contentType, headers });
          status = response.status;
          answer = response.body;
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          status = error.status;
          message = error.message;
          problem = error.problem;
        }
        let next = outcome(status);
        // Made on two devices while apart (a collection of the same name): this one's create
        // becomes the other's record, and what was added to it here goes there.
        const existing = problem?.conflictingId;
        if (next === "drop" && status === 409 && write.method === "POST" && isLocal(write.id) && typeof existing === "string") {
          answer = write.recordAt ? { [write.recordAt]: { id: existing } } : { id: existing };
          next = "done";
          this.dispatchEvent(new CustomEvent("merged", { detail: `${message} What you added to it on this phone went to that one.` }));
        }
        if (next === "retry") {
          write.attempts += 1;
          this.setState(status === null ? "offline" : "syncing");
          clearTimeout(this.retryTimer);
          this.retryTimer = window.setTimeout(() => this.drain(), backoff(write.attempts));
          break;
        }
        // A refusal is counted before the write leaves the queue: the bar never says "Saved" in
        // between (a pull's change while IndexedDB settles it drew "Saved" for a change the server refused).
        if (next !== "done") this.refused += 1;
        // Its target deleted on another device: what the person wrote is kept (kept.js), before
        // the write leaves the queue, so a reload in between finds it in one place or the other.
        const answered = next === "drop" && isGone(status) && this.keeping.answered.has(`${write.kind}/${write.id}`);
        if (answered) this.refused -= 1; // its screen already said so and the person chose
        // Refused for what it carries (too long, a character the server does not take), its target
        // still there: its words are kept too, with the server's message, to edit and send again
        // (kept-refused.js), never resent as they are.
        const kept = next !== "drop" || answered ? null : isGone(status) ? await this.keeping.keep(write)
          : isRefusal(status) ? await this.keeping.keep(write, { status: status ?? 0, message }) : null;
        if (kept) this.refused -= 1; // said by its own notice, with its way back and Discard
        await this.settle(write, next === "done" ? answer : undefined);
        if (next !== "done" && write.method === "POST" && isLocal(write.id)) this.refusedCreates.set(write.id, message);
        // What became of it, for a screen that waits to say so ("Photo added." only once the server
        // took it; a refusal with the server's words): `done`, else `message`.
        this.dispatchEvent(new CustomEvent("settled", { detail: { key: write.key, id: write.id, done: next === "done", message } }));
        if (kept) {
          // What was changed of it since (a text written, then changed, offline) is what is kept;
          // removed since, nothing is. The writes themselves can never be sent now.
          const now = write.method === "POST" && isLocal(write.id) ? await this.keeping.fold(kept, await this.dropWritesFor(write.id)) : kept;
          if (now && !this.keeping.claimed.has(now.id)) this.dispatchEvent(new CustomEvent("kept", { detail: now }));
        } else if (next !== "done" && !answered) {
          // A create refused: the writes queued for what it would have made can never be sent
          // (they would wait for it forever and hold every later change behind them).
          const lost = write.method === "POST" && isLocal(write.id) ? (await this.dropWritesFor(write.id)).length : 0;
          this.dispatchEvent(new CustomEvent("refused", { detail: lost
            ? `${message} ${lost} later change${lost === 1 ? "" : "s"} to it could not be saved either.` : message }));
        }
        this.changed();
      }
    } finally {
      this.draining = false;
      if (this.writes.length === 0 && this.state !== "offline" && navigator.onLine) this.setState("idle");
      this.dispatchEvent(new Event("state"));
      if (this.drainAgain) {
        this.drainAgain = false;
        clearTimeout(this.retryTimer);
        if (navigator.onLine) window.setTimeout(() => this.drain(), 0);
      }
    }
  }

  /** What the person wrote to records deleted elsewhere, kept on this phone (kept.js). */
  get kept() {
    return this.keeping.kept;
  }

  /** Records whose open screen offers its own way back for what was typed (see claimKept). */
  get claimed() {
    return this.keeping.claimed;
  }

  /** The person chose Discard, or the recovery was done: the kept record goes. @param {string} id */
  dropKept(id) {
    return this.keeping.drop(id);
  }

  /**
   * A screen showing record `key` (`kind/id`) deleted elsewhere offers its own way back for what
   * was typed: the header does not offer it a second time. Until the person chooses there, what
   * the sync layer kept stays kept (a reload shows it in the header). @param {string} key
   */
  claimKept(key) {
    this.keeping.claim(key);
  }

  /** The screen's way back was taken, or let go: nothing stays kept for `key`. @param {string} key */
  answerKept(key) {
    return this.keeping.answer(key);
  }

  /**
   * The app's way back for a kept record (a new note, a new word…): a write like any other, so it
   * works offline too; the kept record goes once it is queued. Answers what to say (and where
   * what it made opens).
   * @param {string} id @returns {Promise<import("./kept.js").Recovered>}
   */
  recoverKept(id) {
    return this.keeping.recover(id);
  }

  /**
   * A whole drawing drawn on this device, merged into the server's as it is now (another device
   * may have drawn on it meanwhile, online or off). Unreachable, it throws as a send would.
   * @param {import("./outbox.js").Write} write
   */
  async rebased(write) {
    try {
      const now = await this.api.request("GET", write.path);
      if (write.rebase?.kind === "tags") return { ...write.body, tags: mergeTags(write.rebase.base ?? [], write.body.tags ?? [], now.body?.tags ?? []) };
      return mergeDrawing(write.rebase?.base ?? null, write.body, now.body);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return write.body; // none there yet
      throw error;
    }
  }

  /**
   * Takes out of the queue every write that names a local id whose create the server refused.
   * @param {string} local @returns {Promise<import("./outbox.js").Write[]>} those writes, in order
   */
  async dropWritesFor(local) {
    const db = /** @type {Database} */ (this.db);
    const doomed = this.writes.filter((w) => mentions(w, local));
    this.writes = this.writes.filter((w) => !mentions(w, local));
    for (const write of doomed) if (write.seq !== undefined) await db.dequeue(write.seq);
    return doomed;
  }

  /**
   * A write is done with: it leaves the queue and, when the server took it (`reply` given), its
   * answer is the record as it is now. All of it is kept in one IndexedDB transaction.
   * @param {import("./outbox.js").Write} write
   * @param {any} [reply]  the server's answer; undefined when the write was refused
   */
  async settle(write, reply) {
    const db = /** @type {Database} */ (this.db);
    this.writes.shift();
    /** @type {Array<[string, any]>} */
    const puts = [];
    /** @type {string[]} */
    const deletes = [];
    /** @type {import("./outbox.js").Write[] | undefined} */
    let rewrite;
    const answer = reply === undefined ? undefined : recordIn(write, reply);
    if (isLocal(write.id) && answer?.id) {
      this.writes = resolveId(this.writes, write.id, answer.id);
      rewrite = this.writes;
      this.resolved.set(write.id, answer.id);
      // Bounded: a screen needs the newest few, not every record this device ever made.
      for (const old of [...this.resolved.keys()].slice(0, Math.max(0, this.resolved.size - 500))) this.resolved.delete(old);
      this.records.delete(`${write.kind}/${write.id}`);
      deletes.push(`${write.kind}/${write.id}`);
      // The address bar names the record the server's way, so a reload or a shared tab finds it.
      if (location.hash.includes(write.id) || location.hash.includes(encodeURIComponent(write.id))) {
        const hash = location.hash.split(encodeURIComponent(write.id)).join(answer.id).split(write.id).join(answer.id);
        history.replaceState(history.state, "", hash);
      }
    }
    if (answer && typeof answer === "object" && answer.id && typeof answer.version === "number") {
      const key = `${write.kind}/${answer.id}`;
      const held = this.records.get(key);
      // The feed's copy of this very version (a pull that raced this answer) is kept: a route's
      // answer may carry fewer fields than the feed (an AR item's answer has no notebook or page),
      // and putting it over the feed's hid the item on this phone for good (the cursor had passed it).
      // A newer answer goes over what is held, keeping the fields it does not carry.
      if (!held || held.version < answer.version) {
        const { replaced: _, replacedBy: __, ...fields } = answer;
        const record = { ...(held ?? {}), ...fields, kind: write.kind };
        this.records.set(key, record);
        puts.push([key, record]);
      }
    } else if (reply !== undefined && write.method === "DELETE" && write.path.endsWith(write.id)) {
      this.records.delete(`${write.kind}/${write.id}`);
      deletes.push(`${write.kind}/${write.id}`);
    }
    await db.settle({ seq: /** @type {number} */ (write.seq), rewrite, puts, deletes,
      resolved: rewrite ? Object.fromEntries(this.resolved) : undefined });
    // Merged into changes another device made meanwhile: the values this write replaced are said,
    // with a way to bring them back (the server keeps them in the record's history too).
    // `replacedBy`: a family member who helps with the album wrote what was replaced (not a device).
    const replaced = reply && typeof reply === "object" ? (reply.replaced ?? answer?.replaced) : undefined;
    if (replaced && typeof replaced === "object" && Object.keys(replaced).length) {
      const by = reply.replacedBy ?? answer?.replacedBy;
      this.dispatchEvent(new CustomEvent("replaced", { detail: { write: resolveId([write], write.id, answer?.id ?? write.id)[0], replaced, record: answer,
        by: typeof by === "string" && by ? by : undefined } }));
    }
  }

  /** Pulls the feed until it is current; a pull asked for meanwhile runs once more after. */
  async pull() {
    if (this.pulling) {
      this.pullAgain = true;
      return this.pulling;
    }
    this.pulling = (async () => {
      do {
        this.pullAgain = false;
        await this.pullOnce();
      } while (this.pullAgain);
    })().finally(() => {
      this.pulling = null;
    });
    return this.pulling;
  }

  /** One pull until the feed is current (sync-pull.js). */
  pullOnce() {
    return pullFeed(this);
  }

  /** The live connection (sync-live.js): a poke means pull; it reconnects when dropped. */
  connect() {
    connectLive(this);
  }
}

/** Whether a write names a local id (its record, its path, or inside its body). @param {import("./outbox.js").Write} write @param {string} local */
function mentions(write, local) {
  return write.id === local || write.path.includes(local)
    || (write.body !== undefined && !(write.body instanceof Blob) && JSON.stringify(write.body).includes(local));
}
