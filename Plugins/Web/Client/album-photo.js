// @ts-check
/**
 * One photo: mark-up straight after it is added (draw and write on it, notes, tags as big chips
 * with the most used a tap away, the time it was taken) and the photo itself. Edit picture (crop,
 * straighten, turn, back to the original) is album-photo-edit.js.
 */
import * as Album from "./album.js";
import { AlbumElement, KIND, PHOTOS, back, describe, loadMarkup, picture, sharePhoto } from "./album-base.js";
import { FollowedForm } from "./follow.js";
import { giveBackRefused } from "./kept-refused.js";
import { isLocal } from "./outbox.js";
import { announce, confirmAction, h } from "./ui.js";
import { readAloud, userLanguage } from "./speak.js";
import { captionVoice } from "./album-voice.js";
import { photoPeople } from "./album-people.js";
import { addedByFacts, captionByLine } from "./album-caregivers.js";

/**
 * Why the photo with local id `id` never reached the album (the server refused it as it was added),
 * in words for the person; "" when it was not refused. @param {Context} context @param {string} id
 */
function notAdded(context, id) {
  if (!isLocal(id) || !context.sync.refusedCreates.has(id)) return "";
  const why = context.sync.refusedCreates.get(id)?.trim();
  return `This photo was not added to your album: ${why || "the server did not take it."}`;
}
import "./drawing-pad.js";

/** @typedef {import("./album-base.js").Context} Context */
/** @typedef {import("./album-base.js").Photo} Photo */

// Mark-up -----------------------------------------------------------------------------------------

export class MarkupScreen extends AlbumElement {
  /** @type {HTMLInputElement | undefined} the new-tag box, kept across redraws of the chips */
  tagInput;
  /** @type {string | undefined} */
  tagsShown;
  /** The photo's version whose mark-up the pad shows (see followMarkup). @type {number | undefined} */
  markupSeen;
  fetchingMarkup = false;
  /** The photo's version the fields last followed, and whether this phone had writes waiting for it then. @type {number | undefined} */
  versionFollowed;
  wasWriting = false;
  /** Whether the screen says the photo was deleted on another phone. */
  goneShown = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  goneCheck;
  /** @type {import("./strokes.js").Drawing | null} */
  markupBase = null;
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
    if (!photo) return this.gone();
    if (this.goneShown) return;
    this.renderTags(photo);
    // The notes and the time taken as the album has it now (the other phone's, the server's from
    // EXIF), except a field being typed in; one this phone typed that the other changed says so.
    // A write of this phone's answered without a new version was refused (the photo deleted on
    // another phone: 404): what was typed stays in the box, not put back to the server's.
    const writing = this.ctx.sync.writes.some((w) => w.kind === KIND && (w.id === photo.id || w.id === this.id_));
    const refused = photo.version === this.versionFollowed && this.wasWriting && !writing;
    this.wasWriting = writing;
    this.versionFollowed = photo.version;
    if (!refused) this.followed?.follow(photo);
    this.followMarkup(photo);
  }

  /**
   * The photo left the album while its mark-up is open (another phone deleted it): said at once,
   * nothing more is sent for it, and the notes typed stay in their box, with a button to copy them
   * (the photo, its picture and its mark-up are gone from the server: there is no undo).
   * A local id giving way to the server's is not a deletion: looked at again a moment later.
   */
  gone() {
    if (this.goneShown) return;
    clearTimeout(this.goneCheck);
    this.goneCheck = setTimeout(() => { if (this.isConnected && !this.photo()) this.showGone(); }, 300);
  }

  showGone() {
    this.goneShown = true;
    this.followed?.dispose();
    this.followed = null;
    const notes = /** @type {HTMLTextAreaElement | null} */ (this.querySelector("#photo-notes"));
    if (this.pad) this.pad.inert = true;
    this.tagsArea?.replaceChildren();
    const copy = async () => {
      const text = notes?.value ?? "";
      try {
        await navigator.clipboard.writeText(text);
        await this.ctx.sync.answerKept(`${KIND}/${this.id_}`);
        announce("Your notes are copied: paste them where you want to keep them.");
      } catch {
        notes?.select();
        announce("The phone did not let the app copy: your notes are selected, copy them from the box.");
      }
    };
    const typed = Boolean(notes?.value.trim());
    // This screen offers the way back for the notes typed: the header does not offer it twice (kept.js).
    if (typed) this.ctx.sync.claimKept(`${KIND}/${this.id_}`);
    // Never in the album: the server refused the photo as it was added (not a picture, too big).
    const refused = notAdded(this.ctx, this.id_);
    if (refused) this.querySelector("main h1")?.replaceChildren("Photo not added");
    // Copied, or answered: leaving says nothing more. Notes typed after the notice count too (walk11:
    // typed on, then Done went to the album and they were gone, unsaid).
    let copied = false;
    const copyButton = h("button", { type: "button", class: "secondary", hidden: !typed, onclick: async () => { await copy(); copied = true; } }, "Copy my notes");
    notes?.addEventListener("input", () => { copyButton.hidden = !notes.value.trim(); copied = false; });
    const unsaved = () => Boolean(notes?.value.trim()) && !copied && this.isConnected;
    const leave = async (/** @type {Event} */ event) => {
      if (!unsaved()) return;
      event.preventDefault();
      event.stopPropagation();
      const link = event.currentTarget instanceof HTMLAnchorElement ? event.currentTarget : event.target instanceof Element ? event.target.closest("a[href]") : null;
      const to = link?.getAttribute("href") ?? "#/album";
      if (await confirmAction("Leave without your notes? They cannot be saved: the photo is gone. Copy them first to keep them.", "Leave without them", "Stay")) {
        await this.ctx.sync.answerKept(`${KIND}/${this.id_}`).catch(() => {});
        this.leaveGuard?.();
        this.ctx.go(to);
      }
    };
    // Any other way out asks too: the header's links (walk12: Home left without asking), and a
    // reload or the tab closed (the browser's own question).
    const anyLink = (/** @type {MouseEvent} */ event) => {
      const link = event.target instanceof Element ? event.target.closest("a[href^='#']") : null;
      if (link && !this.contains(link)) void leave(event);
    };
    const unload = (/** @type {BeforeUnloadEvent} */ event) => {
      if (unsaved()) event.preventDefault();
    };
    this.leaveGuard?.();
    document.addEventListener("click", anyLink, true);
    window.addEventListener("beforeunload", unload);
    this.leaveGuard = () => {
      document.removeEventListener("click", anyLink, true);
      window.removeEventListener("beforeunload", unload);
      this.leaveGuard = undefined;
    };
    const notice = h("div", { class: "notice gone", role: "alert", id: "photo-gone" },
      h("p", {}, refused
        ? `${refused}${typed ? " Your notes are still in the box below: copy them to keep them." : ""}`
        : typed
          ? "This photo was deleted on another phone, so your notes cannot be saved with it. They are still in the box below: copy them to keep them."
          : "This photo was deleted on another phone: nothing more can be saved on it."),
      h("div", { class: "row" },
        copyButton,
        refused ? h("a", { href: "#/", class: "button", onclick: leave }, "Choose another photo") : null,
        h("a", { href: "#/album", class: "button secondary", onclick: leave }, "Album")));
    // Nothing more can be saved: Done, the pen and its tools, the tags and the time go; the picture
    // stays (dimmed) to show what it was, and the notes typed stay, to copy. The notice sits above
    // the notes, where a person typing is looking, and is brought into view.
    for (const part of /** @type {HTMLElement[]} */ ([...this.querySelectorAll("main .done, main .tags-area, #tags-heading, #photo-taken, label[for=photo-taken]")])) {
      part.style.display = "none";
    }
    if (this.pad) this.pad.style.opacity = "0.5";
    const notesLabel = this.querySelector("label[for=photo-notes]");
    if (refused || !notesLabel) this.querySelector("main .toolbar")?.after(notice);
    else notesLabel.before(notice);
    // Centred: the notes under it stay in view too.
    notice.scrollIntoView({ block: "center" });
    if (refused) {
      // Nothing to mark up: the picture that never arrived is not shown broken under the notice;
      // only the notes typed stay, to copy. Two long buttons wrap (CSSOM).
      for (const part of /** @type {HTMLElement[]} */ ([...this.querySelectorAll("main.markup > :not(.toolbar):not(#photo-gone)")])) {
        if (!(typed && (part.id === "photo-notes" || part.getAttribute("for") === "photo-notes"))) part.style.display = "none";
      }
      /** @type {HTMLElement | null} */ (notice.querySelector(".row"))?.style.setProperty("flex-wrap", "wrap");
    }
    announce(refused || "This photo was deleted on another phone.");
  }

  /**
   * The open mark-up follows the other phone as the notes do: when the photo changed on the
   * server and this phone has no mark-up of its own still to send for it, the server's drawing is
   * shown (a stroke being drawn here waits for the finger to lift, then is added to it: see
   * DrawingPad.follow). Strokes waiting in the outbox are merged into the server's when sent, and
   * the photo's new version after brings the merged drawing back here.
   * @param {Photo} photo
   */
  async followMarkup(photo) {
    const pad = this.pad;
    const ids = [photo.id, this.id_];
    const waiting = () => this.ctx.sync.writes.some((w) => w.kind === KIND && ids.includes(w.id) && /\/(markup|edit|revert)$/.test(w.path));
    if (!pad || isLocal(photo.id) || this.fetchingMarkup || photo.version === this.markupSeen || waiting()) return;
    const version = photo.version;
    this.fetchingMarkup = true;
    try {
      const has = /** @type {any} */ (photo).hasMarkup;
      const drawing = has ? await this.ctx.api.get(`${PHOTOS}/${photo.id}/markup`) : null;
      if (waiting() || !this.isConnected || this.pad !== pad) return;
      this.markupSeen = version;
      const shown = pad.drawing;
      if (!drawing && !(shown?.strokes?.length || shown?.texts?.length)) return;
      const now = drawing ?? { strokes: [], texts: [], aspect: shown?.aspect };
      this.markupBase = structuredClone(now);
      pad.follow(structuredClone(now));
      await /** @type {import("./db.js").Database} */ (this.ctx.sync.db).setMeta(`markup:${photo.id}`, drawing);
    } catch {
      // Offline or refused: the drawing shown stays; the next change tries again.
    } finally {
      this.fetchingMarkup = false;
    }
    const now = this.photo();
    if (now && this.isConnected && this.pad === pad && now.version !== this.markupSeen) this.followMarkup(now);
  }

  render() {
    const photo = this.photo();
    if (!photo) {
      const refused = notAdded(this.ctx, this.id_);
      this.replaceChildren(refused
        ? h("main", { class: "screen" }, h("h1", {}, "Photo not added"), h("p", { class: "empty", role: "alert" }, refused),
          h("div", { class: "row" }, h("a", { href: "#/", class: "button" }, "Choose another photo"), back("#/album", "Album")))
        : h("main", { class: "screen" }, h("h1", {}, "Mark up"), h("p", { class: "empty" }, "This photo is not in your album."), back("#/album", "Album")));
      if (refused) announce(refused);
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
    this.markupSeen = photo.version;
    this.goneShown = false;
    // Loaded into this pad only, and only while nothing was drawn on it: a load answered late (a
    // second render's pad, or a stroke drawn meanwhile) set the base of another pad's drawing, and
    // the next save then "erased" strokes it never showed (CI of 72920c5: three strokes, one kept).
    let drawnHere = false;
    loadMarkup(this.ctx, photo, this.id_ ?? "").then((drawing) => {
      if (!drawing || this.pad !== pad || drawnHere) return;
      this.markupBase = structuredClone(drawing);
      pad.load(drawing);
    });
    pad.addEventListener("change", (event) => {
      drawnHere = true;
      if (this.pad === pad) this.saveMarkup(/** @type {CustomEvent} */ (event).detail);
    });
    // Typing a reload interrupted (kept by the photo's id, or the local id it had before it uploaded).
    followed.restoreDraft([`${KIND}/${this.id_}`]);
    // "Edit and send again" on notes the server refused: back in the field, with its message (kept-refused.js).
    giveBackRefused(sync, followed, [`${KIND}/${photo.id}`, `${KIND}/${this.id_}`], this.querySelector(".toolbar"));
  }

  /** @param {import("./strokes.js").Drawing} drawing */
  async saveMarkup(drawing) {
    const photo = this.photo();
    if (!photo) return;
    const db = /** @type {import("./db.js").Database} */ (this.ctx.sync.db);
    const drawnOn = this.markupBase ?? null;
    this.markupBase = structuredClone(drawing);
    // Queued first (as Napkin Notes' back): the indicator says "Saving" from the stroke on, and a
    // reload straight after finds the stroke in the outbox, never only on the canvas.
    const queued = this.ctx.sync.write({ method: "PUT", path: `${PHOTOS}/${photo.id}/markup`, body: drawing, kind: KIND, id: photo.id,
      local: { hasMarkup: drawing.strokes.length + drawing.texts.length > 0 }, rebase: { kind: "drawing", base: drawnOn } });
    await db.setMeta(`markup:${photo.id}`, drawing);
    await queued;
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
    // A tag typed and not added yet is kept as a draft: a reload gives it back (walk9: it was lost).
    const draft = `quire.draft.album.newTag.${this.id_}`;
    this.tagInput ??= /** @type {HTMLInputElement} */ (h("input", { id: "new-tag", enterkeyhint: "done", autocapitalize: "none",
      placeholder: "A word: Tom, beach, birthday", "data-focus-key": "new-tag", value: localStorage.getItem(draft) ?? "",
      oninput: () => (input.value.trim() ? localStorage.setItem(draft, input.value) : localStorage.removeItem(draft)) }));
    const input = this.tagInput;
    const add = () => {
      const words = Album.typedTags(input.value);
      if (!words.length) return input.focus();
      input.value = "";
      localStorage.removeItem(draft);
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
    const photo = this.photo();
    if (!photo) return;
    // What was added and taken off, put onto the server's tags when sent (another phone's stay).
    this.ctx.sync.write({ method: "PATCH", path: `${PHOTOS}/${photo.id}`, body: { tags }, kind: KIND, id: photo.id,
      rebase: { kind: "tags", base: photo.tags ?? [] } });
  }

  done() {
    if (this.goneShown) return; // gone: nothing to save (its Done is hidden with the notice)
    this.followed?.flush();
    const photo = this.photo();
    announce("Saved.");
    this.ctx.go(photo ? `#/photo/${encodeURIComponent(photo.id)}` : "#/album");
  }

  disconnectedCallback() {
    this.followed?.dispose();
    this.leaveGuard?.();
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
      h("dt", {}, "Tags"), h("dd", {}, photo.tags?.length ? photo.tags.join(", ") : "None"), ...addedByFacts(photo));
    this.replaceChildren(h("main", { class: "screen photo" },
      h("div", { class: "toolbar" }, back("#/album", "Album"), h("h1", {}, "Photo")),
      figure,
      photoPeople(this.ctx, photo, figure),
      photo.notes ? h("p", { class: "notes" }, photo.notes) : null,
      captionByLine(photo),
      photo.notes ? readAloud(this.ctx, photo.notes, userLanguage, "the notes") : null,
      captionVoice(this.ctx, () => this.photo()),
      facts,
      readAloud(this.ctx, () => [`Taken ${Album.dayLabel(Album.dayOf(photo))}${timeOf(photo)}.`, photo.place?.label ? `Place: ${photo.place.label}.` : "",
        photo.tags?.length ? `Tags: ${photo.tags.join(", ")}.` : ""].join(" "), userLanguage, "when and where it was taken"),
      h("div", { class: "actions" },
        h("a", { href: `#/photo/${encodeURIComponent(photo.id)}/markup`, class: "button" }, "Mark up"),
        h("a", { href: `#/photo/${encodeURIComponent(photo.id)}/edit`, class: "button secondary" }, "Edit picture"),
        h("button", { type: "button", class: "secondary", onclick: () => sharePhoto(this.ctx, photo) }, "Share"),
        h("button", { type: "button", class: "secondary", onclick: () => saveToPhone(this.ctx, photo) }, "Save to phone"),
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

/**
 * Keeps a copy of the photo on the phone itself (tutorial 6.c): the picture as it is now, handed to
 * the share sheet as a file where the phone can take one (its "Save image" puts it in the
 * gallery), else downloaded with a name that says what it is.
 * @param {import("./album-base.js").Context} context @param {Photo} photo
 */
export async function saveToPhone(context, photo) {
  /** @type {Blob} */
  let picture;
  if (photo.pendingImage) picture = photo.pendingImage;
  else {
    try {
      picture = (await context.api.request("GET", `${PHOTOS}/${photo.id}/image`)).body;
    } catch {
      announce("Saving this photo to the phone needs the internet. Try again when this phone is online.");
      return;
    }
  }
  const type = picture.type || "image/jpeg";
  const name = Album.photoFileName(photo, type);
  const file = new File([picture], name, { type });
  if (typeof navigator.canShare === "function" && navigator.canShare({ files: [file] })) {
    try {
      await navigator.share({ files: [file], title: name });
      announce("Choose “Save image” to keep it in your photos.");
      return;
    } catch (failure) {
      if (failure instanceof DOMException && failure.name === "AbortError") return; // the person closed the sheet
    }
  }
  const url = URL.createObjectURL(file);
  const link = h("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  announce(`Saved to this phone's downloads as “${name}”.`);
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
