// @ts-check
/**
 * iRemember, as its tutorials describe: the main menu (Choose From Phone, Take With Camera, Import
 * from Internet, Recent, Album, Share); mark-up straight after a photo (draw and write on it,
 * notes, tags as big chips with the most used a tap away, the time it was taken); the album by time
 * and by recent days; search by tags (+ adds, − takes away) and by time; month and place folders; a
 * full-screen slideshow; sharing a photo or a search; moving the account to a new phone.
 *
 * Built for people with memory loss: one task per screen, large text and targets, every control
 * labelled, nothing that expires or must be remembered. Everything but sharing and importing works
 * offline: the album is the synced copy on the phone (`album.js` answers its questions), and a photo
 * taken offline is shown at once and uploaded when the network returns.
 */
import * as Album from "./album.js";
import { ApiError } from "./api.js";
import { FollowedForm } from "./follow.js";
import { isLocal, localId } from "./outbox.js";
import { shareLink, showLink } from "./share.js";
import { announce, confirmAction, h, whereAmI } from "./ui.js";
import "./drawing-pad.js";
import { editBody, editedPicture, editMap, followEdit, keptState } from "./photo-edit.js";
import "./photo-editor.js";

const KIND = "album.photo";
const PHOTOS = "/api/v1/album/photos";

/** @typedef {{api: import("./api.js").Api, sync: import("./sync.js").Sync, go: (hash: string) => void}} Context */
/** @typedef {import("./album.js").Photo & {links?: {thumbnail: string, display: string}, width?: number, height?: number, pending?: boolean, edited?: boolean, pendingEdit?: Blob}} Photo */

/**
 * The screen for a route: `parts` is the path after `#/`, `query` what follows `?`.
 * @param {Context} context @param {string[]} parts @param {string} query @returns {HTMLElement}
 */
export function albumScreen(context, parts, query) {
  const [first, id, sub] = parts;
  /** @type {AlbumElement} */
  let screen;
  if (first === "photo" && id && sub === "markup") screen = new MarkupScreen();
  else if (first === "photo" && id && sub === "edit") screen = new PhotoEditScreen();
  else if (first === "photo" && id) screen = new PhotoScreen();
  else if (first === "album" && id === "tags") screen = new TagSearchScreen();
  else if (first === "album" && id === "time") screen = new TimeSearchScreen();
  else if (first === "album") screen = new AlbumScreen();
  else if (first === "recent") screen = new RecentScreen();
  else if (first === "folders") screen = new FoldersScreen();
  else if (first === "slideshow") screen = new SlideshowScreen();
  else if (first === "import") screen = new ImportScreen();
  else if (first === "share" && id === "links") screen = new SharedLinksScreen();
  else if (first === "share") screen = new ShareScreen();
  else if (first === "move") screen = new MoveScreen();
  else screen = new HomeScreen();
  screen.attach(context, id ?? "", Album.parseSearch(query));
  return screen;
}

/** What every album screen shares: the context, re-rendering on sync changes, and the photos. */
class AlbumElement extends HTMLElement {
  /** @param {Context} context @param {string} id @param {import("./album.js").Search} search */
  attach(context, id, search) {
    this.context = context;
    this.id_ = id;
    this.search = search;
    this.rerender = () => this.changed();
    context.sync.addEventListener("change", this.rerender);
    this.render();
  }

  disconnectedCallback() {
    if (this.rerender) this.context?.sync.removeEventListener("change", this.rerender);
    this.releaseCells();
  }

  /** Thumbnails about to be drawn again or gone stop being watched. */
  releaseCells() {
    for (const cell of this.querySelectorAll("a.cell")) nearScreen.unobserve(cell);
  }

  /** Called when the synced photos change; most screens simply draw again. */
  changed() {
    this.render();
  }

  render() {}

  get ctx() {
    return /** @type {Context} */ (this.context);
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
  const key = `picture:${photo.id}:${rendition}@${photo.version}`;
  let url = pictures.get(key);
  if (!url) {
    const db = /** @type {import("./db.js").Database} */ (context.sync.db);
    url = db.meta(key).then(async (kept) => {
      if (kept instanceof Blob) return URL.createObjectURL(kept);
      const answer = await context.api.request("GET", `${PHOTOS}/${photo.id}/image/${rendition}`);
      await db.setMeta(key, answer.body);
      return URL.createObjectURL(answer.body);
    });
    url.catch(() => pictures.delete(key));
    pictures.set(key, url);
  }
  return url;
}

/**
 * A photo's mark-up: while a change of it waits to upload, as drawn on this phone (kept by id, or
 * by the local id it had before it uploaded); else the server's, kept for offline.
 * @param {Context} context @param {Photo} photo @param {string} routeId
 * @returns {Promise<import("./strokes.js").Drawing | null>}
 */
async function loadMarkup(context, photo, routeId) {
  const db = /** @type {import("./db.js").Database} */ (context.sync.db);
  const kept = async () => (await db.meta(`markup:${photo.id}`)) ?? (await db.meta(`markup:${routeId}`)) ?? null;
  const writes = context.sync.writes.filter((w) => w.kind === KIND && (w.id === photo.id || w.id === routeId));
  // A revert waiting: where the server moves the mark-up back to is known once it has; until
  // then the picture is shown without it.
  if (writes.some((w) => w.path.endsWith("/revert"))) return null;
  // A mark-up or a picture edit waiting: the phone's copy is the one moved with the edit.
  const waiting = writes.some((w) => w.path.endsWith("/markup") || w.path.endsWith("/edit"));
  if (waiting || isLocal(photo.id)) return kept();
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
function describe(photo) {
  const tags = photo.tags?.length ? `, tagged ${photo.tags.join(", ")}` : "";
  const place = photo.place?.label ? `, in ${photo.place.label}` : "";
  return `Photo from ${Album.dayLabel(Album.dayOf(photo))}${place}${tags}`;
}

/** Thumbnails are fetched as their cells come near the screen: an album of thousands asks for a few dozen. */
const nearScreen = new IntersectionObserver((entries) => {
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
function grid(context, photos, label, href = (photo) => `#/photo/${encodeURIComponent(photo.id)}`) {
  return h("ul", { class: "grid", "aria-label": label }, ...photos.map((photo) => {
    const cell = h("a", { href: href(photo), class: "cell", "aria-label": describe(photo) });
    if (photo.pending) cell.classList.add("pending");
    /** @type {any} */ (cell).load = () => picture(context, photo, "thumb").then((url) => cell.prepend(h("img", { src: url, alt: "" }))).catch(() => {});
    nearScreen.observe(cell);
    return h("li", {}, cell);
  }));
}

/** The big "back" a screen offers: one place to go, always the same words. @param {string} hash @param {string} label */
function back(hash, label) {
  return h("a", { href: hash, class: "button secondary back" }, `‹ ${label}`);
}

// The main menu -----------------------------------------------------------------------------------

const ICONS = {
  phone: "M4 5h16v14H4z M4 15l5-5 4 4 3-3 4 4",
  camera: "M3 8h4l2-3h6l2 3h4v11H3z M12 17a4 4 0 1 0 0-8 4 4 0 0 0 0 8",
  globe: "M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z M3 12h18 M12 3c3 3 3 15 0 18 M12 3c-3 3-3 15 0 18",
  clock: "M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z M12 7v5l3 3",
  album: "M4 4h7v7H4z M13 4h7v7h-7z M4 13h7v7H4z M13 13h7v7h-7z",
  share: "M12 15V3 M7 8l5-5 5 5 M5 12v8h14v-8",
};

/** @param {keyof typeof ICONS} name */
function icon(name) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "icon");
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", ICONS[name]);
  svg.append(path);
  return svg;
}

export class HomeScreen extends AlbumElement {
  /** A sync meanwhile changes the count, not the buttons (a file chooser may be open on one). */
  changed() {
    const lead = this.querySelector(".lead");
    if (lead) lead.textContent = this.lead();
  }

  lead() {
    const count = this.photos().length;
    return count ? `${count} photo${count === 1 ? "" : "s"} in your album.` : "Add your first photo: take one, or choose one from your phone.";
  }

  render() {
    /** @param {boolean} camera */
    const picker = (camera) => {
      const input = /** @type {HTMLInputElement} */ (h("input", { type: "file", accept: "image/*", hidden: true,
        capture: camera ? "environment" : undefined,
        onchange: () => { const file = input.files?.[0]; if (file) addPhoto(this.ctx, file, camera ? "camera" : "library"); } }));
      return [h("button", { type: "button", class: "tile", onclick: () => input.click() }, icon(camera ? "camera" : "phone"),
        camera ? "Take With Camera" : "Choose From Phone"), input];
    };
    /** @param {string} hash @param {keyof typeof ICONS} name @param {string} text */
    const tile = (hash, name, text) => h("a", { href: hash, class: "tile" }, icon(name), text);
    this.replaceChildren(h("main", { class: "screen home" },
      h("h1", {}, "iRemember"),
      h("p", { class: "lead" }, this.lead()),
      h("nav", { class: "tiles", "aria-label": "Main menu" },
        ...picker(false), ...picker(true), tile("#/import", "globe", "Import from Internet"),
        tile("#/recent", "clock", "Recent"), tile("#/album", "album", "Album"), tile("#/share", "share", "Share")),
      h("a", { href: "#/move", class: "button secondary" }, "Use this album on a new phone")));
  }
}
customElements.define("album-home", HomeScreen);

/**
 * A photo from the camera or the phone: where the phone is (for a photo without GPS) and its
 * clock go with it; it is in the album at once, and the mark-up screen opens.
 * @param {Context} context @param {File} file @param {"camera" | "library"} source
 */
export async function addPhoto(context, file, source) {
  if (!file.type.startsWith("image/")) {
    announce("That file is not a picture. Choose a photo.");
    return;
  }
  const busy = h("div", { class: "busy", role: "status" }, "Saving your photo…");
  document.body.append(busy);
  // The photo's own time when its EXIF says (as the server reads it), so its day is right at once,
  // offline too; else when the file was made (library) or now (camera).
  const exif = await file.slice(0, 256 * 1024).arrayBuffer().then(Album.exifTakenAt).catch(() => null);
  const takenAt = exif ?? Album.localTime(file.lastModified && source === "library" ? new Date(file.lastModified) : new Date());
  const query = new URLSearchParams({ source, takenAt });
  const place = await whereAmI(300_000);
  if (place) {
    query.set("lat", String(place.latitude));
    query.set("lon", String(place.longitude));
    query.set("accuracy", String(Math.round(place.accuracy)));
  }
  const id = localId();
  await context.sync.write({ method: "POST", path: `${PHOTOS}?${query}`, body: file, contentType: file.type, kind: KIND, id,
    recordAt: "photo", local: { takenAt, tags: [], notes: "", source, hasMarkup: false, pendingImage: file } });
  busy.remove();
  context.go(`#/photo/${encodeURIComponent(id)}/markup`);
}

// Import from Internet ----------------------------------------------------------------------------

export class ImportScreen extends AlbumElement {
  changed() {}

  render() {
    const error = h("p", { class: "error", role: "alert", id: "import-error" });
    const url = /** @type {HTMLInputElement} */ (h("input", { id: "import-url", type: "url", inputmode: "url", required: true,
      autocomplete: "off", placeholder: "https://…", "aria-describedby": "import-error" }));
    const ok = /** @type {HTMLButtonElement} */ (h("button", { type: "submit" }, "OK"));
    const form = h("form", { class: "stack", onsubmit: async (/** @type {Event} */ event) => {
      event.preventDefault();
      error.textContent = "";
      ok.disabled = true;
      ok.textContent = "Importing…";
      try {
        const answer = await this.ctx.api.request("POST", `${PHOTOS}/import`, { body: { url: url.value.trim(), takenAt: Album.localTime() },
          headers: { "Idempotency-Key": localId().slice(6) } });
        const photo = answer.body.photo;
        await this.ctx.sync.pull();
        this.ctx.go(`#/photo/${encodeURIComponent(photo.id)}/markup`);
      } catch (failure) {
        error.textContent = failure instanceof ApiError
          ? (failure.offline ? "Importing needs the internet. Try again when this phone is online." : failure.message)
          : "Something went wrong; try again.";
        ok.disabled = false;
        ok.textContent = "OK";
      }
    } },
    h("label", { for: "import-url" }, "Enter the address (URL) of a picture:"), url,
    h("div", { class: "row" }, ok, h("a", { href: "#/", class: "button secondary" }, "Cancel")), error);
    this.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "Import from Internet"), form));
  }
}
customElements.define("album-import", ImportScreen);

// Mark-up -----------------------------------------------------------------------------------------

export class MarkupScreen extends AlbumElement {
  /** @type {HTMLInputElement | undefined} the new-tag box, kept across redraws of the chips */
  tagInput;
  /** @type {string | undefined} */
  tagsShown;
  /**
   * The notes and the time taken: typing kept, sent based on what was shown, following the other
   * phone (see FollowedForm).
   * @type {FollowedForm | null}
   */
  followed = null;
  /** The tags and the fields follow sync while the user draws and types; the pad stays. */
  changed() {
    if (!this.pad) return this.render();
    const photo = this.photo();
    if (!photo) return;
    this.renderTags(photo);
    // The notes and the time taken as the album has it now (the other phone's, the server's from
    // EXIF), except a field being typed in; one this phone typed that the other changed says so.
    this.followed?.follow(photo);
  }

  render() {
    const photo = this.photo();
    if (!photo) {
      this.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "Mark up"), h("p", { class: "empty" }, "This photo is not in your album."), back("#/album", "Album")));
      return;
    }
    const pad = /** @type {import("./drawing-pad.js").DrawingPad} */ (h("drawing-pad", { texts: true, colour: "#c62828", label: "Draw or write on the photo" }));
    this.pad = pad;
    this.followed?.dispose();
    const sync = this.ctx.sync;
    const followed = new FollowedForm({ sync, record: () => this.photo(), key: () => `${KIND}/${this.photo()?.id ?? this.id_}`,
      send: (body, baseVersion) => {
        const now = this.photo();
        return now ? sync.write({ method: "PATCH", path: `${PHOTOS}/${now.id}`, body, kind: KIND, id: now.id, baseVersion }) : Promise.resolve();
      } });
    this.followed = followed;
    const notes = /** @type {HTMLTextAreaElement} */ (h("textarea", { id: "photo-notes", rows: "3", placeholder: "Who, where, what happened" }));
    followed.field("notes", notes);
    const taken = /** @type {HTMLInputElement} */ (h("input", { id: "photo-taken", type: "datetime-local" }));
    // A time half cleared is not sent (the album needs a time); the photo keeps the one it had.
    followed.field("takenAt", taken, { value: (record) => String(record.takenAt ?? "").slice(0, 16),
      parse: (text) => (text ? Album.localTime(new Date(text)) : undefined) });
    this.tagsArea = h("div", { class: "tags-area" });
    this.replaceChildren(h("main", { class: "screen markup" },
      h("div", { class: "toolbar" }, h("h1", {}, "Mark up"),
        h("button", { type: "button", class: "primary done", onclick: () => this.done() }, "Done")),
      pad,
      h("label", { for: "photo-notes" }, "Notes"), notes,
      h("h2", { id: "tags-heading" }, "Tags"), this.tagsArea,
      h("label", { for: "photo-taken" }, "Time taken"), taken,
      h("button", { type: "button", class: "primary done", onclick: () => this.done() }, "Done")));
    this.renderTags(photo);
    picture(this.ctx, photo, "display").then((url) => pad.background(url, photo.width ?? 4, photo.height ?? 3, describe(photo)))
      .catch(() => pad.background("", photo.width ?? 4, photo.height ?? 3, describe(photo)));
    if (!photo.width && photo.pendingImage) {
      // A photo not uploaded yet: its proportions from the picture itself.
      createImageBitmap(photo.pendingImage).then((bitmap) => pad.background(URL.createObjectURL(/** @type {Blob} */ (photo.pendingImage)), bitmap.width, bitmap.height, describe(photo))).catch(() => {});
    }
    // The drawing each save was drawn on goes with it, so it is merged into the server's at send
    // time (another phone's strokes drawn meanwhile stay; see mergeDrawing). Copies: the pad draws
    // into the arrays it was given.
    this.markupBase = null;
    loadMarkup(this.ctx, photo, this.id_ ?? "").then((drawing) => {
      if (!drawing) return;
      this.markupBase = structuredClone(drawing);
      pad.load(drawing);
    });
    pad.addEventListener("change", (event) => this.saveMarkup(/** @type {CustomEvent} */ (event).detail));
    // Typing a reload interrupted (kept by the photo's id, or the local id it had before it uploaded).
    followed.restoreDraft([`${KIND}/${this.id_}`]);
  }

  /** @param {import("./strokes.js").Drawing} drawing */
  async saveMarkup(drawing) {
    const photo = this.photo();
    if (!photo) return;
    const db = /** @type {import("./db.js").Database} */ (this.ctx.sync.db);
    await db.setMeta(`markup:${photo.id}`, drawing);
    const drawnOn = this.markupBase ?? null;
    this.markupBase = structuredClone(drawing);
    await this.ctx.sync.write({ method: "PUT", path: `${PHOTOS}/${photo.id}/markup`, body: drawing, kind: KIND, id: photo.id,
      local: { hasMarkup: drawing.strokes.length + drawing.texts.length > 0 }, rebase: { kind: "drawing", base: drawnOn } });
  }

  /** @param {Record<string, any>} body */
  patch(body) {
    const photo = this.photo();
    if (!photo) return;
    this.ctx.sync.write({ method: "PATCH", path: `${PHOTOS}/${photo.id}`, body, kind: KIND, id: photo.id });
  }

  /** The photo's tags as big chips to take off; the most used others one tap away; a box for new ones. @param {Photo} photo */
  renderTags(photo) {
    const area = /** @type {HTMLElement} */ (this.tagsArea);
    const focused = document.activeElement instanceof HTMLElement && area.contains(document.activeElement) ? document.activeElement.dataset.focusKey : undefined;
    const tags = photo.tags ?? [];
    const suggested = Album.tagCounts(this.photos()).map((t) => t.tag).filter((t) => !tags.includes(t)).slice(0, 8);
    // Drawn again only when the chips change (a sync mid-typing keeps what is typed, and focus).
    const shown = JSON.stringify([tags, suggested]);
    if (this.tagsShown === shown) return;
    this.tagsShown = shown;
    this.tagInput ??= /** @type {HTMLInputElement} */ (h("input", { id: "new-tag", enterkeyhint: "done", autocapitalize: "none",
      placeholder: "A word: Tom, beach, birthday", "data-focus-key": "new-tag" }));
    const input = this.tagInput;
    const add = () => {
      const words = Album.typedTags(input.value);
      if (!words.length) return input.focus();
      input.value = "";
      const now = this.photo()?.tags ?? [];
      this.setTags([...now, ...words.filter((w) => !now.includes(w))]);
      announce(`Tagged ${words.join(", ")}.`);
    };
    area.replaceChildren(...[
      tags.length ? h("ul", { class: "chips", "aria-labelledby": "tags-heading" }, ...tags.map((tag) => h("li", {},
        h("button", { type: "button", class: "chip on", "data-focus-key": `off-${tag}`, "aria-label": `Remove the tag ${tag}`,
          onclick: () => { this.setTags((this.photo()?.tags ?? []).filter((t) => t !== tag)); announce(`Tag ${tag} removed.`); } }, tag, h("span", { "aria-hidden": "true" }, " ×")))))
        : h("p", { class: "hint" }, "No tags yet. Tags help you find this photo later."),
      suggested.length ? h("p", { class: "hint", id: "suggested-heading" }, "Your tags:") : null,
      suggested.length ? h("ul", { class: "chips", "aria-labelledby": "suggested-heading" }, ...suggested.map((tag) => h("li", {},
        h("button", { type: "button", class: "chip", "data-focus-key": `on-${tag}`, "aria-label": `Add the tag ${tag}`,
          onclick: () => { this.setTags([...(this.photo()?.tags ?? []).filter((t) => t !== tag), tag]); announce(`Tagged ${tag}.`); } }, h("span", { "aria-hidden": "true" }, "+ "), tag))))
        : null,
      h("form", { class: "row add-tag", onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); add(); } },
        h("label", { for: "new-tag", class: "visually-hidden" }, "New tag"), input,
        h("button", { type: "submit", class: "secondary" }, "Add tag"))].filter(/** @returns {node is HTMLElement} */ (node) => node !== null));
    if (focused) /** @type {HTMLElement | null} */ (area.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`) ?? area.querySelector("#new-tag"))?.focus();
  }

  /** @param {string[]} tags */
  setTags(tags) {
    this.patch({ tags });
  }

  done() {
    this.followed?.flush();
    const photo = this.photo();
    announce("Saved.");
    this.ctx.go(photo ? `#/photo/${encodeURIComponent(photo.id)}` : "#/album");
  }

  disconnectedCallback() {
    this.followed?.dispose();
    super.disconnectedCallback();
  }
}
customElements.define("album-markup", MarkupScreen);

// One photo ---------------------------------------------------------------------------------------

export class PhotoScreen extends AlbumElement {
  render() {
    const photo = this.photo();
    if (!photo) {
      this.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "Photo"), h("p", { class: "empty" }, "This photo is not in your album any more."), back("#/album", "Album")));
      return;
    }
    if (this.shown === `${photo.id}@${photo.version}:${photo.pending}`) return;
    this.shown = `${photo.id}@${photo.version}:${photo.pending}`;
    const figure = h("figure", { class: "picture" });
    const canvas = /** @type {HTMLCanvasElement} */ (h("canvas", { "aria-hidden": "true" }));
    picture(this.ctx, photo, "display").then(async (url) => {
      const img = /** @type {HTMLImageElement} */ (h("img", { src: url, alt: describe(photo) }));
      figure.prepend(img);
      await img.decode().catch(() => {});
      const drawing = await loadMarkup(this.ctx, photo, this.id_ ?? "");
      if (drawing) overlayDrawing(canvas, img, drawing);
      figure.dataset.markup = drawing ? "shown" : "none";
    }).catch(() => figure.prepend(h("p", { class: "empty" }, "The picture shows when this phone is online.")));
    figure.append(canvas);
    const facts = h("dl", { class: "facts" },
      h("dt", {}, "Taken"), h("dd", {}, Album.dayLabel(Album.dayOf(photo)) + timeOf(photo)),
      photo.place?.label ? h("dt", {}, "Place") : null, photo.place?.label ? h("dd", {}, photo.place.label) : null,
      h("dt", {}, "Tags"), h("dd", {}, photo.tags?.length ? photo.tags.join(", ") : "None"));
    this.replaceChildren(h("main", { class: "screen photo" },
      h("div", { class: "toolbar" }, back("#/album", "Album"), h("h1", {}, "Photo")),
      figure,
      photo.notes ? h("p", { class: "notes" }, photo.notes) : null,
      facts,
      h("div", { class: "actions" },
        h("a", { href: `#/photo/${encodeURIComponent(photo.id)}/markup`, class: "button" }, "Mark up"),
        h("a", { href: `#/photo/${encodeURIComponent(photo.id)}/edit`, class: "button secondary" }, "Edit picture"),
        h("button", { type: "button", class: "secondary", onclick: () => sharePhoto(this.ctx, photo) }, "Share"),
        h("a", { href: `#/slideshow?${Album.searchQuery({ plus: [], minus: [], day: Album.dayOf(photo) })}`, class: "button secondary" }, "Slideshow of this day"),
        h("button", { type: "button", class: "danger", onclick: () => this.remove_(photo) }, "Delete photo"))));
  }

  /** @param {Photo} photo */
  async remove_(photo) {
    if (!(await confirmAction("Delete this photo, its notes and its tags? This cannot be undone.", "Delete"))) return;
    await this.ctx.sync.write({ method: "DELETE", path: `${PHOTOS}/${photo.id}`, kind: KIND, id: photo.id });
    announce("Photo deleted.");
    this.ctx.go("#/album");
  }
}
customElements.define("album-photo", PhotoScreen);

// Edit picture ------------------------------------------------------------------------------------

/**
 * Crop, straighten, turn, or back to the original (photo-editor.js): the edit is a write of the
 * outbox, made on the server by libvips (the original kept), the mark-up moved with the picture.
 */
export class PhotoEditScreen extends AlbumElement {
  /** The editor stays while sync changes arrive (a drag is not interrupted). */
  changed() {
    if (!this.querySelector("photo-editor")) this.render();
  }

  render() {
    const photo = this.photo();
    if (!photo) {
      this.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "Edit picture"), h("p", { class: "empty" }, "This photo is not in your album."), back("#/album", "Album")));
      return;
    }
    const hash = `#/photo/${encodeURIComponent(photo.id)}`;
    if (isLocal(photo.id)) {
      this.replaceChildren(h("main", { class: "screen" }, h("div", { class: "toolbar" }, back(hash, "Photo"), h("h1", {}, "Edit picture")),
        h("p", { class: "empty" }, "This photo is still waiting to upload. Edit the picture once this phone is online and the photo is saved.")));
      return;
    }
    const editor = /** @type {import("./photo-editor.js").PhotoEditor} */ (h("photo-editor"));
    this.editor = editor;
    // Every move of the frame, turn and straightening is kept on the phone until Save or Cancel:
    // a reload (the browser dropped the page) gives it back instead of losing it.
    const draftKey = `${EDIT_DRAFT}${photo.id}`;
    let keeping = false;
    editor.setup({ label: `${describe(photo)}, as it will look`, edited: Boolean(photo.edited),
      onSave: (body) => this.save(body), onRevert: () => this.revert(), onCancel: () => { forgetDraft(photo.id); this.ctx.go(hash); },
      onChange: (state) => {
        if (!keeping) return;
        if (editBody(state)) localStorage.setItem(draftKey, JSON.stringify({ ...state, picture: `${photo.width}x${photo.height}` }));
        else localStorage.removeItem(draftKey);
      } });
    const draft = readDraft(photo);
    if (draft) editor.restore(draft);
    keeping = true;
    this.replaceChildren(h("main", { class: "screen photo-edit" },
      h("div", { class: "toolbar" }, back(hash, "Photo"), h("h1", {}, "Edit picture")),
      draft ? h("p", { class: "notice info", role: "status" }, "Your changes from before are back, not saved yet: Save them, or Start over.") : null,
      h("p", { class: "hint" }, "Drag the corners of the frame to crop. Move the slider to straighten. Your drawing moves with the picture."),
      editor));
    picture(this.ctx, photo, "display").then(async (url) => {
      const img = new Image();
      img.src = url;
      await img.decode();
      const drawing = await loadMarkup(this.ctx, photo, this.id_ ?? "").catch(() => null);
      editor.show(img, img.naturalWidth, img.naturalHeight, drawing);
    }).catch(() => editor.prepend(h("p", { class: "empty" }, "The picture shows when this phone is online.")));
  }

  /** @param {{straighten?: number, rotate?: number, crop?: import("./photo-edit.js").Crop}} body */
  async save(body) {
    const photo = this.photo();
    if (!photo) return;
    forgetDraft(photo.id);
    // Until the server has made it, the phone shows the edit as it made it, and moves its copy of
    // the mark-up as the server will (so what is drawn next lands on the picture as edited).
    /** @type {Record<string, any>} */
    const local = { edited: true };
    const editor = /** @type {import("./photo-editor.js").PhotoEditor | undefined} */ (this.editor);
    const db = /** @type {import("./db.js").Database} */ (this.ctx.sync.db);
    if (editor?.source) {
      const width = photo.width ?? editor.sourceWidth, height = photo.height ?? editor.sourceHeight;
      const after = editMap(body, width, height);
      const made = await editedPicture(editor.source, editor.sourceWidth, editor.sourceHeight, body).catch(() => null);
      if (made) Object.assign(local, { pendingEdit: made, width: Math.round(after.width), height: Math.round(after.height) });
      if (editor.drawing) {
        const moved = followEdit(editor.drawing, body, width, height);
        await db.setMeta(`markup:${photo.id}`, moved);
        local.hasMarkup = moved.strokes.length + moved.texts.length > 0;
      }
    }
    await this.ctx.sync.write({ method: "POST", path: `${PHOTOS}/${photo.id}/edit`, body, kind: KIND, id: photo.id,
      baseVersion: photo.version, local });
    announce(navigator.onLine ? "Picture saved." : "Saved on this phone: the picture changes when the phone is online.");
    this.ctx.go(`#/photo/${encodeURIComponent(photo.id)}`);
  }

  async revert() {
    const photo = this.photo();
    if (!photo) return;
    if (!(await confirmAction("Go back to the picture as it was added? Every crop, turn and straightening is undone; your drawing moves back with it.", "Back to the original"))) return;
    forgetDraft(photo.id);
    // Where the server moves the mark-up back to is known once it has: the phone's copy goes.
    await /** @type {import("./db.js").Database} */ (this.ctx.sync.db).setMeta(`markup:${photo.id}`, null);
    await this.ctx.sync.write({ method: "POST", path: `${PHOTOS}/${photo.id}/revert`, kind: KIND, id: photo.id,
      baseVersion: photo.version, local: { edited: false } });
    announce(navigator.onLine ? "The original picture is back." : "Saved on this phone: the original comes back when the phone is online.");
    this.ctx.go(`#/photo/${encodeURIComponent(photo.id)}`);
  }
}
customElements.define("album-photo-edit", PhotoEditScreen);

/** Where an edit not saved yet is kept on the phone, by photo. */
const EDIT_DRAFT = "iremember.editDraft.";

/**
 * The edit kept for this photo, if it was made on the picture as it is now (one made before
 * another edit changed the picture's size no longer fits it). @param {Photo} photo
 */
function readDraft(photo) {
  let kept;
  try {
    kept = JSON.parse(localStorage.getItem(`${EDIT_DRAFT}${photo.id}`) ?? "null");
  } catch {
    return null;
  }
  if (kept?.picture !== `${photo.width}x${photo.height}`) return null;
  const state = keptState(kept);
  return state && editBody(state) ? state : null;
}

/** @param {string} id */
function forgetDraft(id) {
  localStorage.removeItem(`${EDIT_DRAFT}${id}`);
}

/** @param {Photo} photo */
function timeOf(photo) {
  const time = (photo.takenAt ?? "").slice(11, 16);
  return time ? `, ${time}` : "";
}

/**
 * The mark-up drawn over the shown picture (the picture itself stays as it was taken).
 * @param {HTMLCanvasElement} canvas @param {HTMLImageElement} img @param {import("./strokes.js").Drawing} drawing
 */
async function overlayDrawing(canvas, img, drawing) {
  const { paint, paintText } = await import("./strokes.js");
  const draw = () => {
    const width = img.clientWidth, height = img.clientHeight, ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    const context = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    for (const stroke of drawing.strokes ?? []) paint(context, stroke, width, height);
    for (const text of drawing.texts ?? []) paintText(context, text, width, height);
  };
  new ResizeObserver(draw).observe(img);
}

// Sharing -----------------------------------------------------------------------------------------

/** @param {Context} context @param {Photo} photo */
export function sharePhoto(context, photo) {
  if (photo.pending) {
    showLink(null, "This photo is still waiting to upload. Share it once this phone is online.");
    return Promise.resolve();
  }
  return shareLink(context.api, `${PHOTOS}/${photo.id}/share`, { markup: Boolean(photo.hasMarkup), ...linkLife() }, "A photo from my album");
}

/** @param {Context} context @param {import("./album.js").Search} search */
function shareSearch(context, search) {
  return shareLink(context.api, "/api/v1/album/searches/share", { ...Album.shareBody(search), ...linkLife() }, "Photos from my album");
}

/** How long new links work, chosen on the Share screen (kept on this phone). */
const LINK_LIFE = "iremember.linkLife";
const LIVES = /** @type {const} */ ([["", "Until I stop sharing"], ["86400", "One day"], ["604800", "One week"], ["2592000", "One month"]]);

/** `{expiresInSeconds}` for a new link, or nothing when links last until stopped. */
function linkLife() {
  const seconds = Number(localStorage.getItem(LINK_LIFE) ?? "");
  return seconds > 0 ? { expiresInSeconds: seconds } : {};
}

/** A date and time as people say it: "Today, 14:05", "Tuesday, July 1, 2025, 09:00". @param {string} iso */
function moment(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const day = `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;
  return `${Album.dayLabel(day)}, ${String(date.getHours()).padStart(2, "0")}:${String(date.getMinutes()).padStart(2, "0")}`;
}

// The album ---------------------------------------------------------------------------------------

/** Words for a search, for its heading. @param {import("./album.js").Search} search */
function searchWords(search) {
  const parts = [];
  if (search.day) parts.push(Album.dayLabel(search.day));
  if (search.month) parts.push(Album.monthLabel(search.month));
  if (search.place) parts.push("one place");
  if (search.plus.length) parts.push(`with ${search.plus.join(" or ")}`);
  if (search.minus.length) parts.push(`without ${search.minus.join(" or ")}`);
  /** @param {string} at a day, or a day and a time */
  const when = (at) => Album.dayLabel(at.slice(0, 10)) + (at.length > 10 ? `, ${at.slice(11, 16)}` : "");
  if (search.from || search.to) parts.push(`${search.from ? when(search.from) : "the start"} to ${search.to ? when(search.to) : "today"}`);
  return parts.join(", ");
}

export class AlbumScreen extends AlbumElement {
  render() {
    this.releaseCells();
    const search = /** @type {import("./album.js").Search} */ (this.search);
    const all = this.photos();
    const found = Album.inTimeOrder(all, search);
    const place = search.place ? Album.places(all).find((p) => p.key === search.place)?.label ?? "A place" : "";
    const filtered = !Album.isEmpty(search);
    const query = Album.searchQuery(search);
    const heading = filtered ? (search.place ? place : "Search") : "Album";
    this.replaceChildren(h("main", { class: "screen album" },
      h("div", { class: "toolbar" }, back("#/", "Home"), h("h1", {}, heading)),
      h("nav", { class: "row options", "aria-label": "Find photos" },
        // Only the tags go along: the tag screen shows them as chips, while a time, day, month or
        // place it does not show would silently narrow its counts and its search.
        h("a", { href: `#/album/tags?${Album.searchQuery({ plus: search.plus, minus: search.minus })}`, class: "button secondary" }, "Search by Tags"),
        h("a", { href: `#/album/time?${query}`, class: "button secondary" }, "Search by Time"),
        h("a", { href: "#/folders", class: "button secondary" }, "Folders")),
      filtered ? h("p", { class: "lead" }, `${found.length} photo${found.length === 1 ? "" : "s"}: ${searchWords(search)}. `,
        h("a", { href: "#/album" }, "Show all photos")) : null,
      found.length ? h("div", { class: "row" },
        h("a", { href: `#/slideshow?${query}`, class: "button" }, "Slideshow"),
        filtered ? h("button", { type: "button", class: "secondary", onclick: () => shareSearch(this.ctx, search) }, "Share these photos") : null) : null,
      found.length ? null : h("p", { class: "empty" }, all.length ? "No photo matches this search." : "No photos yet. Go Home and take one."),
      ...Album.byDay(found).map(({ day, photos }) => h("section", { class: "day", "aria-label": Album.dayLabel(day) },
        h("h2", {}, Album.dayLabel(day)), grid(this.ctx, photos, `Photos from ${Album.dayLabel(day)}`)))));
  }
}
customElements.define("album-browse", AlbumScreen);

export class TagSearchScreen extends AlbumElement {
  render() {
    this.releaseCells();
    const search = /** @type {import("./album.js").Search} */ (this.search);
    const all = this.photos();
    const found = Album.inTimeOrder(all, search);
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.focusKey : undefined;
    /** @param {string} tag @param {"+" | "-" | "x"} how */
    const set = (tag, how) => {
      this.search = Album.withTag(search, tag, how);
      history.replaceState(null, "", `#/album/tags?${Album.searchQuery(this.search)}`);
      this.render();
      const count = Album.inTimeOrder(this.photos(), this.search).length;
      announce(`${count} photo${count === 1 ? "" : "s"} found.`);
    };
    const selected = [...search.plus.map((t) => ["+", t]), ...search.minus.map((t) => ["−", t])];
    this.replaceChildren(h("main", { class: "screen tag-search" },
      h("div", { class: "toolbar" }, back(`#/album?${Album.searchQuery(search)}`, "Album"), h("h1", {}, "Search by Tags")),
      h("p", { class: "hint" }, "Tap + to show the photos with a tag, − to hide them."),
      selected.length ? h("ul", { class: "chips", "aria-label": "Selected tags" }, ...selected.map(([how, tag]) => h("li", {},
        h("button", { type: "button", class: `chip on ${how === "+" ? "plus" : "minus"}`, "data-focus-key": `x-${tag}`,
          "aria-label": `${how === "+" ? "With" : "Without"} ${tag}: remove from the search`, onclick: () => set(tag, "x") },
        `${how} ${tag}`, h("span", { "aria-hidden": "true" }, " ×"))))) : null,
      h("ul", { class: "tag-list", "aria-label": "Your tags, most used first" }, ...Album.tagCounts(all).map(({ tag, count }) => h("li", {},
        h("span", { class: "tag-name" }, tag, h("span", { class: "count" }, ` (${count})`)),
        h("button", { type: "button", class: "round", "data-focus-key": `plus-${tag}`, "aria-label": `Show photos tagged ${tag}`,
          "aria-pressed": String(search.plus.includes(tag)), onclick: () => set(tag, search.plus.includes(tag) ? "x" : "+") }, "+"),
        h("button", { type: "button", class: "round", "data-focus-key": `minus-${tag}`, "aria-label": `Hide photos tagged ${tag}`,
          "aria-pressed": String(search.minus.includes(tag)), onclick: () => set(tag, search.minus.includes(tag) ? "x" : "-") }, "−")))),
      all.length ? null : h("p", { class: "empty" }, "No tags yet: add tags when you mark up a photo."),
      h("p", { class: "lead", role: "status" }, `${found.length} photo${found.length === 1 ? "" : "s"}`),
      h("div", { class: "row" },
        h("a", { href: `#/album?${Album.searchQuery(search)}`, class: "button" }, "Show these photos"),
        found.length && !Album.isEmpty(search) ? h("button", { type: "button", class: "secondary", onclick: () => shareSearch(this.ctx, search) }, "Share these photos") : null),
      grid(this.ctx, found.slice(0, 60), "Photos found")));
    if (focused) /** @type {HTMLElement | null} */ (this.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`))?.focus();
  }
}
customElements.define("album-tag-search", TagSearchScreen);

export class TimeSearchScreen extends AlbumElement {
  changed() {}

  render() {
    const search = /** @type {import("./album.js").Search} */ (this.search);
    // A day, and a time of day if wanted (9:00 to 12:00 that morning): both optional.
    /** @param {string} id @param {string | undefined} at */
    const pair = (id, at) => [
      /** @type {HTMLInputElement} */ (h("input", { id: `${id}`, type: "date", value: (at ?? "").slice(0, 10) })),
      /** @type {HTMLInputElement} */ (h("input", { id: `${id}-time`, type: "time", value: (at ?? "").slice(11, 16) }))];
    const [from, fromTime] = pair("time-from", search.from);
    const [to, toTime] = pair("time-to", search.to);
    const error = h("p", { class: "error", role: "alert" });
    /** @param {HTMLInputElement} day @param {HTMLInputElement} time */
    const at = (day, time) => (day.value ? (time.value ? `${day.value}T${time.value}` : day.value) : undefined);
    this.replaceChildren(h("main", { class: "screen" },
      h("div", { class: "toolbar" }, back(`#/album?${Album.searchQuery(search)}`, "Album"), h("h1", {}, "Search by Time")),
      h("form", { class: "stack", onsubmit: (/** @type {Event} */ event) => {
        event.preventDefault();
        if ((fromTime.value && !from.value) || (toTime.value && !to.value)) {
          error.textContent = "A time needs its day too. Choose the day, or clear the time.";
          return;
        }
        const start = at(from, fromTime), end = at(to, toTime);
        // A day alone runs to its end: compared as days; with a time, to the minute.
        const startKey = start ? (start.length > 10 ? start : `${start}T00:00`) : "";
        const endKey = end ? (end.length > 10 ? end : `${end}T23:59`) : "";
        if (start && end && startKey > endKey) {
          error.textContent = "“From” is after “To”. Choose an earlier “From”.";
          return;
        }
        const next = { ...search, from: start, to: end, day: undefined, month: undefined };
        this.ctx.go(`#/album?${Album.searchQuery(next)}`);
      } },
      h("fieldset", { class: "stack" }, h("legend", {}, "From"),
        h("label", { for: "time-from" }, "From day"), from,
        h("label", { for: "time-from-time" }, "From time (if you want)"), fromTime),
      h("fieldset", { class: "stack" }, h("legend", {}, "To"),
        h("label", { for: "time-to" }, "To day"), to,
        h("label", { for: "time-to-time" }, "To time (if you want)"), toTime),
      error,
      h("button", { type: "submit" }, "Confirm"))));
  }
}
customElements.define("album-time-search", TimeSearchScreen);

export class RecentScreen extends AlbumElement {
  render() {
    const days = Album.recentDays(this.photos(), 7);
    const tags = Album.recentTags(this.photos(), 8);
    this.replaceChildren(h("main", { class: "screen" },
      h("div", { class: "toolbar" }, back("#/", "Home"), h("h1", {}, "Recent")),
      days.length ? h("p", { class: "hint" }, "Your most recent days with photos.") : h("p", { class: "empty" }, "No photos yet. Go Home and take one."),
      h("ul", { class: "big-list", "aria-label": "Recent days" }, ...days.map(({ day, count }) => h("li", {},
        h("a", { href: `#/album?${Album.searchQuery({ plus: [], minus: [], day })}`, class: "big-link" },
          h("span", {}, Album.dayLabel(day)), h("span", { class: "count" }, `${count} photo${count === 1 ? "" : "s"}`))))),
      tags.length ? h("h2", { id: "recent-tags-heading" }, "Recent tags") : null,
      tags.length ? h("ul", { class: "chips", "aria-labelledby": "recent-tags-heading" }, ...tags.map((tag) => h("li", {},
        h("a", { href: `#/album?${Album.searchQuery({ plus: [tag], minus: [] })}`, class: "chip", "aria-label": `Photos tagged ${tag}` }, tag))))
        : null));
  }
}
customElements.define("album-recent", RecentScreen);

export class FoldersScreen extends AlbumElement {
  render() {
    const photos = this.photos();
    const months = Album.months(photos);
    const places = Album.places(photos);
    /** @param {string} hash @param {string} label @param {number} count */
    const folder = (hash, label, count) => h("li", {}, h("a", { href: hash, class: "big-link" },
      h("span", {}, label), h("span", { class: "count" }, `${count} photo${count === 1 ? "" : "s"}`)));
    this.replaceChildren(h("main", { class: "screen" },
      h("div", { class: "toolbar" }, back("#/album", "Album"), h("h1", {}, "Folders")),
      h("h2", { id: "months-heading" }, "Months"),
      months.length ? h("ul", { class: "big-list", "aria-labelledby": "months-heading" },
        ...months.map(({ month, count }) => folder(`#/album?month=${month}`, Album.monthLabel(month), count))) : h("p", { class: "empty" }, "No photos yet."),
      h("h2", { id: "places-heading" }, "Places"),
      places.length ? h("ul", { class: "big-list", "aria-labelledby": "places-heading" },
        ...places.map(({ key, label, count }) => folder(`#/album?place=${encodeURIComponent(key)}`, label, count)))
        : h("p", { class: "empty" }, "No places yet: photos taken with the location on go here.")));
  }
}
customElements.define("album-folders", FoldersScreen);

// Slideshow ---------------------------------------------------------------------------------------

const SLIDE_SECONDS = 5;

/**
 * A slideshow control's face: its symbol and, under it, its word (a symbol alone is one more thing
 * to remember).
 * @param {string} symbol @param {string} word
 */
function face(symbol, word) {
  return [h("span", { class: "symbol", "aria-hidden": "true" }, symbol), h("span", { class: "word" }, word)];
}

export class SlideshowScreen extends AlbumElement {
  /** New photos do not reshuffle a running show. */
  changed() {}

  render() {
    const search = /** @type {import("./album.js").Search} */ (this.search);
    this.order = Album.shuffled(Album.inTimeOrder(this.photos(), search));
    this.index = 0;
    this.playing = true;
    const leave = `#/album?${Album.searchQuery(search)}`;
    this.img = /** @type {HTMLImageElement} */ (h("img", { alt: "" }));
    this.caption = h("p", { class: "caption", "aria-live": "polite" });
    this.playButton = h("button", { type: "button", class: "big", "aria-label": "Pause", onclick: () => this.toggle() }, ...face("❚❚", "Pause"));
    this.replaceChildren(h("main", { class: "slideshow" },
      h("h1", { class: "visually-hidden" }, "Slideshow"),
      h("div", { class: "top" }, h("a", { href: leave, class: "button big close", "aria-label": "Close the slideshow" }, ...face("✕", "Close"))),
      h("div", { class: "slide" }, this.img),
      this.caption,
      h("div", { class: "controls", role: "toolbar", "aria-label": "Slideshow controls" },
        h("button", { type: "button", class: "big", "aria-label": "Previous photo", onclick: () => this.step(-1) }, ...face("‹", "Previous")),
        this.playButton,
        h("button", { type: "button", class: "big", "aria-label": "Next photo", onclick: () => this.step(1) }, ...face("›", "Next")))));
    this.keys = (/** @type {KeyboardEvent} */ event) => {
      if (event.key === "ArrowRight") this.step(1);
      else if (event.key === "ArrowLeft") this.step(-1);
      else if (event.key === "Escape") this.ctx.go(leave);
    };
    document.addEventListener("keydown", this.keys);
    if (!this.order.length) {
      this.caption.textContent = "No photos to show.";
      return;
    }
    this.show();
  }

  show() {
    const order = /** @type {Photo[]} */ (this.order);
    const photo = order[/** @type {number} */ (this.index)];
    const img = /** @type {HTMLImageElement} */ (this.img);
    picture(this.ctx, photo, "display").then((url) => {
      img.src = url;
      img.alt = describe(photo);
    }).catch(() => { img.alt = "This photo shows when the phone is online."; });
    const next = order[(/** @type {number} */ (this.index) + 1) % order.length];
    if (next) picture(this.ctx, next, "display").catch(() => {});
    /** @type {HTMLElement} */ (this.caption).textContent = `${Album.dayLabel(Album.dayOf(photo))}${photo.notes ? " · " + photo.notes : ""} (${(this.index ?? 0) + 1} of ${order.length})`;
    clearTimeout(this.timer);
    if (this.playing) this.timer = window.setTimeout(() => this.step(1), SLIDE_SECONDS * 1000);
  }

  /** @param {number} by */
  step(by) {
    const count = this.order?.length ?? 0;
    if (!count) return;
    this.index = ((this.index ?? 0) + by + count) % count;
    this.show();
  }

  toggle() {
    this.playing = !this.playing;
    const button = /** @type {HTMLElement} */ (this.playButton);
    button.replaceChildren(...(this.playing ? face("❚❚", "Pause") : face("▶", "Play")));
    button.setAttribute("aria-label", this.playing ? "Pause" : "Play");
    announce(this.playing ? "Playing." : "Paused.");
    this.show();
  }

  disconnectedCallback() {
    clearTimeout(this.timer);
    if (this.keys) document.removeEventListener("keydown", this.keys);
    super.disconnectedCallback();
  }
}
customElements.define("album-slideshow", SlideshowScreen);

// Share -------------------------------------------------------------------------------------------

export class ShareScreen extends AlbumElement {
  /** How long the links made from now on work (kept on this phone). */
  lifeChoice() {
    const now = localStorage.getItem(LINK_LIFE) ?? "";
    const select = /** @type {HTMLSelectElement} */ (h("select", { id: "link-life", onchange: () => {
      localStorage.setItem(LINK_LIFE, select.value);
      announce(`New links work for: ${select.selectedOptions[0]?.textContent ?? ""}.`);
    } }, ...LIVES.map(([seconds, words]) => h("option", { value: seconds, selected: seconds === now }, words))));
    return select;
  }

  render() {
    this.releaseCells();
    const photos = Album.inTimeOrder(this.photos());
    this.replaceChildren(h("main", { class: "screen" },
      h("div", { class: "toolbar" }, back("#/", "Home"), h("h1", {}, "Share")),
      h("p", { class: "lead" }, "Tap the photo you want to share."),
      h("a", { href: "#/album/tags", class: "button secondary" }, "Share photos by tag instead"),
      h("div", { class: "stack" }, h("label", { for: "link-life" }, "New links work for"), this.lifeChoice()),
      h("a", { href: "#/share/links", class: "button secondary" }, "Links I have shared"),
      photos.length ? grid(this.ctx, photos.slice(0, 60), "Photos to share", (photo) => `#/photo/${encodeURIComponent(photo.id)}`)
        : h("p", { class: "empty" }, "No photos yet. Go Home and take one.")));
    // A tap shares straight away (the photo screen has a Share button too).
    for (const [index, cell] of [...this.querySelectorAll("a.cell")].entries()) {
      const photo = photos[index];
      cell.setAttribute("aria-label", `Share: ${describe(photo)}`);
      cell.addEventListener("click", (event) => {
        event.preventDefault();
        sharePhoto(this.ctx, photo);
      });
    }
  }
}
customElements.define("album-share", ShareScreen);

/** Share links made from this album, newest first: what each shows, until when, and Stop sharing. */
export class SharedLinksScreen extends AlbumElement {
  changed() {}

  render() {
    const list = h("div", { class: "links", "aria-live": "polite" }, h("p", { class: "hint" }, "Looking for your links…"));
    this.replaceChildren(h("main", { class: "screen shared-links" },
      h("div", { class: "toolbar" }, back("#/share", "Share"), h("h1", {}, "Links I have shared")),
      h("p", { class: "hint" }, "Anyone with one of these links can see what it shows. Stop sharing, and the link stops working at once."),
      list));
    this.load(list);
  }

  /** @param {HTMLElement} list */
  async load(list) {
    /** @type {any[]} */
    let links;
    try {
      links = (await this.ctx.api.get("/api/v1/share-link/links?limit=200")).items ?? [];
    } catch (failure) {
      list.replaceChildren(h("p", { class: "empty" }, failure instanceof ApiError && !failure.offline ? failure.message
        : "The list of your links needs the internet. Try again when this phone is online."));
      return;
    }
    if (!links.length) {
      list.replaceChildren(h("p", { class: "empty" }, "You have not shared anything yet."));
      return;
    }
    const now = Date.now();
    list.replaceChildren(h("ul", { class: "big-list link-list", "aria-label": "Your links, newest first" }, ...links.map((link) => {
      const photo = link.resource?.photo ? this.ctx.sync.one(KIND, link.resource.photo) : undefined;
      const what = link.kind?.endsWith("search") ? "Photos from a search" : photo ? describe(photo) : "A photo";
      const stopped = Boolean(link.revokedAt), expired = !stopped && link.expiresAt && Date.parse(link.expiresAt) <= now;
      const state = stopped ? `Stopped ${moment(link.revokedAt)}` : expired ? `Ended ${moment(link.expiresAt)}`
        : link.expiresAt ? `Works until ${moment(link.expiresAt)}` : "Works until you stop sharing";
      const item = h("li", { class: `link${stopped || expired ? " ended" : ""}` },
        h("p", { class: "what" }, what),
        h("p", { class: "hint" }, `Shared ${moment(link.createdAt)}. `, h("strong", {}, state), "."));
      if (photo) picture(this.ctx, photo, "thumb").then((url) => item.prepend(h("img", { src: url, alt: "", class: "thumb" }))).catch(() => {});
      if (!stopped && !expired) {
        item.append(h("button", { type: "button", class: "danger", "aria-label": `Stop sharing: ${what}, shared ${moment(link.createdAt)}`,
          onclick: () => this.stop(link, what, list) }, "Stop sharing"));
      }
      return item;
    })));
  }

  /** @param {any} link @param {string} what @param {HTMLElement} list */
  async stop(link, what, list) {
    if (!(await confirmAction(`Stop sharing “${what}”? The link stops working for everyone who has it.`, "Stop sharing"))) return;
    try {
      await this.ctx.api.request("DELETE", `/api/v1/share-link/links/${encodeURIComponent(link.id)}`);
      announce("Stopped: the link does not work any more.");
    } catch (failure) {
      announce(failure instanceof ApiError && !failure.offline ? failure.message : "Stopping a link needs the internet. Try again when this phone is online.");
    }
    await this.load(list);
  }
}
customElements.define("album-shared-links", SharedLinksScreen);

// Moving to a new phone ---------------------------------------------------------------------------

export class MoveScreen extends AlbumElement {
  changed() {}

  render() {
    const session = this.ctx.api.session;
    if (!session?.deviceSecret) {
      this.replaceChildren(h("main", { class: "screen" },
        h("div", { class: "toolbar" }, back("#/", "Home"), h("h1", {}, "A new phone")),
        h("p", { class: "lead" }, `You signed in as ${session?.username ?? "a user"}: on a new phone, sign in with the same user name and password.`),
        this.signOutButton()));
      return;
    }
    const code = Album.moveCode({ accountId: session.accountId, deviceSecret: session.deviceSecret });
    const link = `${location.origin}/#/move/${code}`;
    const field = /** @type {HTMLInputElement} */ (h("input", { id: "move-code", readonly: true, value: code }));
    const said = h("p", { class: "hint", role: "status" });
    this.replaceChildren(h("main", { class: "screen move" },
      h("div", { class: "toolbar" }, back("#/", "Home"), h("h1", {}, "A new phone")),
      h("p", { class: "lead" }, "To see this album on another phone, send this code to yourself, then open it there."),
      h("label", { for: "move-code" }, "Your album's code"), field,
      h("div", { class: "row" },
        h("button", { type: "button", onclick: async () => {
          field.select();
          try {
            await navigator.clipboard.writeText(code);
            said.textContent = "Copied. On the new phone, open this app and choose “I have a code”.";
          } catch {
            said.textContent = "Select the code above and copy it.";
          }
        } }, "Copy code"),
        typeof navigator.share === "function" ? h("button", { type: "button", class: "secondary",
          onclick: () => navigator.share({ title: "My iRemember album", url: link }).catch(() => {}) }, "Send to my other phone") : null),
      said,
      h("p", { class: "warning" }, "Keep this code to yourself: anyone who has it can see your photos."),
      this.signOutButton()));
  }

  signOutButton() {
    return h("button", { type: "button", class: "link", onclick: () => this.dispatchEvent(new CustomEvent("quire:sign-out", { bubbles: true })) },
      "Sign out of this phone");
  }
}
customElements.define("album-move", MoveScreen);
