// @ts-check
/**
 * What the user's own screens read from the phone's synced copy (`context.sync`), for one album a
 * caregiver helps with: the photo open, the album's people and the photo's faces, read from the
 * album's caregiver routes and kept in memory only (the album is someone else's: the caregiver's
 * phone keeps no copy). So the user's own people and recorded-caption parts (album-people.js,
 * voice-note.js) run unchanged on the caregiver's photo screen: their writes to the user's routes
 * (`/api/v1/album/…`) go to the same routes under `/api/v1/album/helping/OWNER/…`, at once (no
 * outbox: offline, the write fails and says so).
 */
import { HELPING, said } from "./album-caregivers.js";
import { FACE, PERSON } from "./people.js";
import { announce } from "./ui.js";

/** @typedef {import("./album-base.js").Context} Context */
/** @typedef {{method: string, path: string, body?: any, contentType?: string, kind: string, id: string, local?: object}} Write */

const ALBUM = "/api/v1/album/";
const PHOTO = "album.photo";

export class HelpingStore extends EventTarget {
  /** @param {Context} context @param {string} owner */
  constructor(context, owner) {
    super();
    this.api = context.api;
    this.prefix = `${HELPING}/${encodeURIComponent(owner)}`;
    /** @type {Map<string, Map<string, any>>} kind → id → record */
    this.records = new Map();
    /** @type {Map<string, string>} a local id (a person made here) → the server's */
    this.resolved = new Map();
    /** No database: pictures and recordings are fetched each time (picture-cache.js). */
    this.db = undefined;
  }

  /** @param {string} kind */
  view(kind) {
    return [...(this.records.get(kind)?.values() ?? [])];
  }

  /** @param {string} kind @param {string} id */
  one(kind, id) {
    return this.records.get(kind)?.get(id);
  }

  /** @param {string} id */
  resolve(id) {
    return this.resolved.get(id) ?? id;
  }

  /** @param {string} kind @param {any} record */
  keep(kind, record) {
    let records = this.records.get(kind);
    if (!records) this.records.set(kind, records = new Map());
    records.set(record.id, record);
  }

  /** A user's route as this album's caregiver route. @param {string} path */
  route(path) {
    let routed = path.startsWith(HELPING) || !path.startsWith(ALBUM) ? path : `${this.prefix}/${path.slice(ALBUM.length)}`;
    for (const [local, real] of this.resolved) routed = routed.split(encodeURIComponent(local)).join(real).split(local).join(real);
    return routed;
  }

  /** The photo, the album's people and the photo's faces, from the server. @param {string} photoId @returns {Promise<any>} */
  async load(photoId) {
    const path = `${this.prefix}/photos/${encodeURIComponent(photoId)}`;
    const photo = (await this.api.request("GET", path)).body;
    this.keep(PHOTO, photo);
    const [people, faces] = await Promise.all([this.api.get(`${this.prefix}/people`), this.api.get(`${path}/people`)])
      .catch(() => [{ items: [] }, { items: [] }]);  // people off (404 people_off): nobody to show
    for (const person of people.items ?? []) this.keep(PERSON, person);
    for (const face of faces.items ?? []) this.keep(FACE, face);
    return photo;
  }

  /**
   * Sends a write as the user's screens queue it, to the caregiver's route, and keeps what the
   * server answers. A failure is said aloud and thrown.
   * @param {Write} write
   */
  async write(write) {
    const body = write.body && !(write.body instanceof Blob)
      ? JSON.parse(JSON.stringify(write.body), (_, value) => (typeof value === "string" ? this.resolve(value) : value))
      : write.body;
    let answer;
    try {
      answer = await this.api.request(write.method, this.route(write.path), { body, contentType: write.contentType });
    } catch (failure) {
      announce(said(failure));
      throw failure;
    }
    if (write.method === "DELETE" && write.kind !== PHOTO) {
      this.records.get(write.kind)?.delete(this.resolve(write.id));
    } else if (answer.body && typeof answer.body === "object" && !(answer.body instanceof Blob) && answer.body.id) {
      if (answer.body.id !== write.id && write.kind !== PHOTO) this.resolved.set(write.id, answer.body.id);
      this.keep(write.kind, answer.body);
    }
    this.dispatchEvent(new Event("change"));
    return answer;
  }
}

/**
 * The context the user's screens get on a caregiver's photo screen: the same app (its features,
 * its API) with this album's store as its "sync".
 * @param {Context} context @param {HelpingStore} store @returns {Context}
 */
export function helpingContext(context, store) {
  const helped = Object.create(context);
  Object.defineProperty(helped, "sync", { value: store });
  return helped;
}
