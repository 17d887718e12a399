// @ts-check
/**
 * The sync layer's side of kept.js: what the person wrote to a record deleted on another device,
 * kept on this phone (IndexedDB `meta` "kept") when the server refuses the write, with the record
 * as last shown (`meta` "seen", remembered when a pull deletes a record that writes still wait
 * for) so the header can name it; and the screens that offer their own way back for it (claimed),
 * or whose way back was taken (answered). sync.js calls in here; the apps' kinds are kept-kinds.js.
 */
import { idsIn, keptFrom, keptKind, remembered, withKept, withoutKept } from "./kept.js";

export class KeptWrites {
  /** @param {import("./sync.js").Sync} sync */
  constructor(sync) {
    this.sync = sync;
    /** What the person wrote to records deleted elsewhere, refused and kept (kept.js). @type {import("./kept.js").Kept[]} */
    this.kept = [];
    /** Records a pull deleted while writes for them waited: as last shown, to name what is kept. @type {Map<string, any>} */
    this.seen = new Map();
    /** Records whose open screen offers its own way back for what was typed (a note open when it was
     * deleted): their kept record is not said again in the header meanwhile. @type {Set<string>} */
    this.claimed = new Set();
    /** …and those whose screen's way back was taken (or let go): nothing more is kept for them. @type {Set<string>} */
    this.answered = new Set();
    /** Kept records whose way back is under way. @type {Set<string>} */
    this.recovering = new Set();
  }

  /** What this device kept before (a reload). @param {import("./db.js").Database} db */
  async load(db) {
    this.kept = (await db.meta("kept")) ?? [];
    this.seen = new Map(Object.entries((await db.meta("seen")) ?? {}));
  }

  /**
   * A pull deletes `deletes` (`kind/id`): those that writes still wait for (to them, or into them:
   * an AR page's new text) are remembered as last shown, so what a refusal keeps can be named.
   * Called before the records leave `sync.records`. @param {string[]} deletes
   */
  async remember(deletes) {
    const { records, writes } = this.sync;
    let saw = false;
    for (const key of deletes) {
      const id = key.slice(key.indexOf("/") + 1);
      const held = records.get(key);
      if (held && writes.some((w) => w.id === id || idsIn(w.path).includes(id))) {
        this.seen.set(key, remembered(key, held, records));
        saw = true;
      }
    }
    if (saw) {
      for (const old of [...this.seen.keys()].slice(0, Math.max(0, this.seen.size - 100))) this.seen.delete(old);
      await this.sync.db?.setMeta("seen", Object.fromEntries(this.seen));
    }
  }

  /**
   * What a refused write carried, kept for the person (its app's pick, merged into what is kept
   * for the same record) and saved, or null when its kind keeps nothing of it.
   * `refused`: the server refused the write itself (its target still there): its words are kept to
   * edit and send again, with the server's message (kept-refused.js).
   * @param {import("./outbox.js").Write} write @param {{status: number, message: string}} [refused]
   * @returns {Promise<import("./kept.js").Kept | null>}
   */
  async keep(write, refused) {
    const how = keptKind(write.kind);
    let fields = null;
    try {
      fields = (refused && how?.pickRefused ? how.pickRefused(write) : how?.pick(write)) ?? null;
    } catch {
      fields = null;
    }
    const key = `${write.kind}/${write.id}`;
    /** @type {Record<string, any>} */
    const around = {};
    for (const id of idsIn(write.path)) {
      for (const [k, v] of this.seen) if (k.endsWith(`/${id}`) && k !== key) around[k] = v;
    }
    const kept = keptFrom(write, fields, { seen: this.seen.get(key) ?? this.sync.records.get(key), around,
      before: this.kept.find((k) => k.id === key), refused });
    if (!kept) return null;
    this.kept = withKept(this.kept, kept);
    await this.sync.db?.setMeta("kept", this.kept);
    return kept;
  }

  /**
   * The writes queued after a kept create that changed its record, folded into what is kept: a
   * text changed after it was written (both offline) is kept as last typed, not as first written;
   * removed after, nothing is kept. Answers what is kept now.
   * @param {import("./kept.js").Kept} kept @param {import("./outbox.js").Write[]} later
   * @returns {Promise<import("./kept.js").Kept | null>}
   */
  async fold(kept, later) {
    const how = keptKind(kept.kind);
    let now = kept;
    for (const write of later) {
      if (`${write.kind}/${write.id}` !== kept.id) continue;
      if (write.method === "DELETE") {
        await this.drop(kept.id);
        return null;
      }
      let fields = null;
      try {
        fields = how?.pick(write) ?? null;
      } catch {
        fields = null;
      }
      if (fields) now = { ...now, fields: { ...now.fields, ...fields } };
    }
    if (now === kept) return kept;
    this.kept = withKept(this.kept, now);
    await this.sync.db?.setMeta("kept", this.kept);
    return now;
  }

  /** The person chose Discard, or the recovery was done: the kept record goes. @param {string} id */
  async drop(id) {
    if (!this.kept.some((k) => k.id === id)) return;
    this.kept = withoutKept(this.kept, id);
    await this.sync.db?.setMeta("kept", this.kept);
    this.sync.dispatchEvent(new CustomEvent("kept-gone", { detail: id }));
    this.sync.dispatchEvent(new Event("state"));
  }

  /** See Sync.claimKept. @param {string} key */
  claim(key) {
    this.claimed.add(key);
    this.sync.dispatchEvent(new CustomEvent("kept-gone", { detail: key }));
  }

  /** See Sync.answerKept. @param {string} key */
  async answer(key) {
    this.claimed.add(key);
    this.answered.add(key);
    await this.drop(key);
  }

  /** See Sync.recoverKept. @param {string} id @returns {Promise<import("./kept.js").Recovered>} */
  async recover(id) {
    const kept = this.kept.find((k) => k.id === id);
    const how = kept ? keptKind(kept.kind) : undefined;
    // A second tap while the first waits for the server's answer recovers nothing twice.
    if (!kept || !how || this.recovering.has(id)) return "";
    this.recovering.add(id);
    try {
      const said = await how.recover(kept, this.sync);
      await this.drop(id);
      return said;
    } finally {
      this.recovering.delete(id);
    }
  }
}
