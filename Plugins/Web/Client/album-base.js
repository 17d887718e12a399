// @ts-check
/**
 * What iRemember's screens share (screen-album.js routes to them): the base element, the photo's
 * pictures and mark-up as kept on the phone, the thumbnail grid, the big "back", and sharing a
 * photo or a search.
 */
import * as Album from "./album.js";
import { isLocal } from "./outbox.js";
import * as Pictures from "./picture-cache.js";
import { ScreenElement } from "./screen-element.js";
import { shareLink, showLink } from "./share.js";
import { h } from "./ui.js";

export const KIND = "album.photo";
export const PHOTOS = "/api/v1/album/photos";

/** @typedef {import("./screen-element.js").Context} Context */
/** @typedef {import("./album.js").Photo & {links?: {thumbnail: string, display: string}, width?: number, height?: number, pending?: boolean, edited?: boolean, pendingEdit?: Blob}} Photo */

/**
 * What every album screen shares, on the one base of app screens (ScreenElement: the context,
 * drawing again when the synced photos change, forgetting them when it leaves): the route's id and
 * search, the photos, and the thumbnails it watches.
 */
export class AlbumElement extends ScreenElement {
  /** @type {string | undefined} */
  id_;
  /** @type {import("./album.js").Search | undefined} */
  search;

  /** @param {Context} context @param {string} id @param {import("./album.js").Search} search */
  attach(context, id, search) {
    this.id_ = id;
    this.search = search;
    this.follow(context);
    this.render();
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.releaseCells();
  }

  /** Thumbnails about to be drawn again or gone stop being watched. */
  releaseCells() {
    for (const cell of this.querySelectorAll("a.cell")) nearScreen.unobserve(cell);
  }

  /** @returns {readonly Photo[]} */
  photos() {
    return this.ctx.sync.view(KIND);
  }

  /** The photo this screen shows, following its id once the server gave it one. @returns {Photo | undefined} */
  photo() {
    const id = this.ctx.sync.resolved.get(this.id_ ?? "") ?? this.id_ ?? "";
    return this.ctx.sync.one(KIND, id);
  }
}

// Pictures --------------------------------------------------------------------------------------

/** @type {Map<string, Promise<string>>} */
const pictures = new Map();

/**
 * An object URL for a photo's rendition: the bytes picked on this phone while they wait to upload,
 * else the device's kept copy, else the server's (then kept, so the album opens offline).
 * @param {Context} context @param {Photo} photo @param {"thumb" | "display"} rendition
 * @returns {Promise<string>}
 */
export function picture(context, photo, rendition) {
  if (photo.pendingImage) {
    const key = `pending:${photo.id}`;
    if (!pictures.has(key)) pictures.set(key, Promise.resolve(URL.createObjectURL(photo.pendingImage)));
    return /** @type {Promise<string>} */ (pictures.get(key));
  }
  if (photo.pendingEdit) {
    // An edit waiting to reach the server: the picture as this phone made it, until the server's.
    const blob = photo.pendingEdit;
    const key = `edit:${photo.id}:${blob.size}:${photo.width}x${photo.height}`;
    if (!pictures.has(key)) pictures.set(key, Promise.resolve(URL.createObjectURL(blob)));
    return /** @type {Promise<string>} */ (pictures.get(key));
  }
  // Kept by version: an edit changes the picture behind the same path.
  return Pictures.pictureURL(context, `${PHOTOS}/${photo.id}/image/${rendition}`, bound, `${photo.id}:${rendition}@${photo.version}`);
}

// The picture cache -------------------------------------------------------------------------------

/** How big the phone's copy of the pictures may grow, in MB (the settings screen; picture-cache.js). */
export const CACHE_SIZE = "iremember.pictureCacheMB";

/** iRemember's bound: the size chosen on the settings screen. @returns {Pictures.Bound} */
function bound() {
  return { bytes: Pictures.budgetBytes(localStorage.getItem(CACHE_SIZE)) };
}

/**
 * What the phone keeps now, after trimming it to the size just chosen (the settings screen).
 * @param {Context} context @returns {Promise<{bytes: number, count: number}>}
 */
export function pictureCache(context) {
  const db = context.sync.db;
  return db ? Pictures.keptNow(db, bound()) : Promise.resolve({ bytes: 0, count: 0 });
}

/**
 * A photo's mark-up: while a change of it waits to upload, as drawn on this phone (kept by id, or
 * by the local id it had before it uploaded); else the server's, kept for offline.
 * @param {Context} context @param {Photo} photo @param {string} routeId
 * @returns {Promise<import("./strokes.js").Drawing | null>}
 */
export async function loadMarkup(context, photo, routeId) {
  const db = /** @type {import("./db.js").Database} */ (context.sync.db);
  const kept = async () => (await db.meta(`markup:${photo.id}`)) ?? (await db.meta(`markup:${routeId}`)) ?? null;
  const writes = context.sync.writes.filter((w) => w.kind === KIND && (w.id === photo.id || w.id === routeId));
  // A revert waiting: where the server moves the mark-up back to is known once it has; until
  // then the picture is shown without it.
  if (writes.some((w) => w.path.endsWith("/revert"))) return null;
  // A mark-up or a picture edit waiting: the phone's copy is the one moved with the edit.
  const waiting = writes.some((w) => w.path.endsWith("/markup") || w.path.endsWith("/edit"));
  if (waiting || isLocal(photo.id)) {
    // The drawing queued last is the newest: it is queued before the phone's copy is kept.
    const last = writes.filter((w) => w.path.endsWith("/markup") || w.path.endsWith("/edit")).pop();
    if (last?.path.endsWith("/markup") && last.body) return structuredClone(last.body);
    return kept();
  }
  if (!photo.hasMarkup) return null;
  try {
    const drawing = await context.api.get(`${PHOTOS}/${photo.id}/markup`);
    await db.setMeta(`markup:${photo.id}`, drawing);
    return drawing;
  } catch {
    return kept();
  }
}

/** @param {Photo} photo */
export function describe(photo) {
  const tags = photo.tags?.length ? `, tagged ${photo.tags.join(", ")}` : "";
  const place = photo.place?.label ? `, in ${photo.place.label}` : "";
  return `Photo from ${Album.dayLabel(Album.dayOf(photo))}${place}${tags}`;
}

/** Thumbnails are fetched as their cells come near the screen: an album of thousands asks for a few dozen. */
export const nearScreen = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    nearScreen.unobserve(entry.target);
    /** @type {any} */ (entry.target).load?.();
  }
}, { rootMargin: "400px 0px" });

/**
 * A grid of thumbnails; each opens its photo.
 * @param {Context} context @param {Photo[]} photos @param {string} label
 * @param {(photo: Photo) => string} [href]
 */
export function grid(context, photos, label, href = (photo) => `#/photo/${encodeURIComponent(photo.id)}`) {
  return h("ul", { class: "grid", "aria-label": label }, ...photos.map((photo) => {
    const cell = h("a", { href: href(photo), class: "cell", "aria-label": describe(photo) });
    if (photo.pending) cell.classList.add("pending");
    /** @type {any} */ (cell).load = () => picture(context, photo, "thumb").then((url) => cell.prepend(h("img", { src: url, alt: "" }))).catch(() => {});
    nearScreen.observe(cell);
    return h("li", {}, cell);
  }));
}

/** The big "back" a screen offers: one place to go, always the same words. @param {string} hash @param {string} label */
export function back(hash, label) {
  return h("a", { href: hash, class: "button secondary back" }, `‹ ${label}`);
}

// Sharing -----------------------------------------------------------------------------------------

/** @param {Context} context @param {Photo} photo */
export function sharePhoto(context, photo) {
  if (photo.pending) {
    showLink(null, "This photo is still waiting to upload. Share it once this phone is online.");
    return Promise.resolve();
  }
  return shareLink(context.api, `${PHOTOS}/${photo.id}/share`, { markup: Boolean(photo.hasMarkup), ...linkLife(), ...namesChoice() }, "A photo from my album");
}

/** @param {Context} context @param {import("./album.js").Search} search */
export function shareSearch(context, search) {
  return shareLink(context.api, "/api/v1/album/searches/share", { ...Album.shareBody(search), ...linkLife() }, "Photos from my album");
}

/** Whether new photo links name the people in the photo, chosen on the Share screen (kept on this phone): "off" leaves them out. */
export const SHARE_NAMES = "iremember.shareNames";

/** `{people: false}` when new links leave people's names out; else nothing (the page names them, as before). */
export function namesChoice() {
  return localStorage.getItem(SHARE_NAMES) === "off" ? { people: false } : {};
}

/** How long new links work, chosen on the Share screen (kept on this phone). */
export const LINK_LIFE = "iremember.linkLife";
export const LIVES = /** @type {const} */ ([["", "Until I stop sharing"], ["86400", "One day"], ["604800", "One week"], ["2592000", "One month"]]);

/** `{expiresInSeconds}` for a new link, or nothing when links last until stopped. */
export function linkLife() {
  const seconds = Number(localStorage.getItem(LINK_LIFE) ?? "");
  return seconds > 0 ? { expiresInSeconds: seconds } : {};
}
