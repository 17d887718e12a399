// @ts-check
/** Napkin Notes, as its manual describes: the list in the user's own order (drag, or the arrow
 * keys on a note's handle), a new note with today's date and "Title", editing, a photo from the
 * camera or the library, the original full screen with pinch-zoom, and the back to draw on. */
import { ordered } from "./merge.js";
import { localId } from "./outbox.js";
import { announce, confirmAction, h, imageURL, readableDate, today } from "./ui.js";
import "./drawing-pad.js";

const KIND = "notes.note";
const NOTES = "/api/v1/notes";

/** @typedef {{api: import("./api.js").Api, sync: import("./sync.js").Sync, go: (hash: string) => void}} Context */

export class NotesList extends HTMLElement {
  /** @param {Context} context */
  attach(context) {
    this.context = context;
    this.render = this.render.bind(this);
    context.sync.addEventListener("change", this.render);
    this.render();
  }

  disconnectedCallback() {
    this.context?.sync.removeEventListener("change", this.render);
  }

  notes() {
    const { sync } = /** @type {Context} */ (this.context);
    return ordered(sync.view(KIND), sync.moves(KIND));
  }

  render() {
    // A change arriving mid-drag (a poke from another device) waits: the row under the finger stays.
    if (this.dragging) {
      this.stale = true;
      return;
    }
    const notes = this.notes();
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.focusKey : undefined;
    const list = h("ol", { class: "notes", "aria-label": "Your notes, in your order" },
      ...notes.map((note, index) => this.item(note, index, notes.length)));
    const empty = notes.length === 0 ? h("p", { class: "empty" }, "No notes yet. Tap “New note” to write your first.") : null;
    this.replaceChildren(h("main", { class: "screen" },
      h("div", { class: "toolbar" }, h("h1", {}, "Notes"),
        h("button", { type: "button", class: "primary", onclick: () => this.create() }, "New note")),
      empty, list));
    if (focused) /** @type {HTMLElement | null} */ (this.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`))?.focus();
  }

  /** @param {any} note @param {number} index @param {number} count */
  item(note, index, count) {
    const context = /** @type {Context} */ (this.context);
    const thumb = h("span", { class: "thumb", "aria-hidden": "true" });
    if (note.photo && !note.id.startsWith("local:")) {
      imageURL(context.api, `${NOTES}/${note.id}/photo/list`).then((url) => thumb.append(h("img", { src: url, alt: "", width: 44, height: 44 })))
        .catch(() => {});
    }
    const handle = h("button", { type: "button", class: "handle", "data-focus-key": `handle-${note.id}`,
      "aria-label": `Move “${note.title}”: arrow keys up or down (note ${index + 1} of ${count})`,
      onkeydown: (/** @type {KeyboardEvent} */ e) => this.keyMove(e, note), onpointerdown: (/** @type {PointerEvent} */ e) => this.drag(e, note) },
    "⋮⋮");
    return h("li", { class: "note", "data-id": note.id },
      h("a", { href: `#/notes/${encodeURIComponent(note.id)}`, class: "open", "data-focus-key": `open-${note.id}` },
        thumb, h("span", { class: "title" }, note.title || "Title"), h("span", { class: "date" }, readableDate(note.date ?? ""))),
      handle);
  }

  async create() {
    const context = /** @type {Context} */ (this.context);
    const id = localId();
    const first = this.notes()[0];
    await context.sync.write({ method: "POST", path: NOTES, body: { title: "Title", text: "", date: today() }, kind: KIND, id });
    // New notes go first, as the manual's list shows them.
    if (first) await context.sync.write({ method: "POST", path: `${NOTES}/${id}/move`, body: { before: first.id }, kind: KIND, id });
    context.go(`#/notes/${encodeURIComponent(id)}`);
  }

  /** @param {any} note @param {number} offset */
  async moveBy(note, offset) {
    const notes = this.notes();
    const index = notes.findIndex((n) => n.id === note.id);
    const target = notes[index + offset];
    if (!target) return;
    const body = offset < 0 ? { before: target.id } : { after: target.id };
    await /** @type {Context} */ (this.context).sync.write({ method: "POST", path: `${NOTES}/${note.id}/move`, body, kind: KIND, id: note.id });
    announce(`“${note.title}” moved to position ${index + offset + 1}.`);
  }

  /** @param {KeyboardEvent} event @param {any} note */
  keyMove(event, note) {
    if (event.key === "ArrowUp" || event.key === "ArrowDown") {
      event.preventDefault();
      this.moveBy(note, event.key === "ArrowUp" ? -1 : 1);
    }
  }

  /** Drag by the handle: the note follows the finger; dropped, it is moved before or after the
   * note it lands on. @param {PointerEvent} event @param {any} note */
  drag(event, note) {
    const handle = /** @type {HTMLElement} */ (event.currentTarget);
    const row = /** @type {HTMLElement} */ (handle.closest("li"));
    handle.setPointerCapture(event.pointerId);
    const startY = event.clientY;
    row.classList.add("dragging");
    this.dragging = true;
    /** @param {PointerEvent} e */
    const move = (e) => { row.style.transform = `translateY(${e.clientY - startY}px)`; };
    /** @param {PointerEvent} e */
    const up = (e) => {
      handle.removeEventListener("pointermove", move);
      handle.removeEventListener("pointerup", up);
      handle.removeEventListener("pointercancel", up);
      row.classList.remove("dragging");
      row.style.transform = "";
      this.dragging = false;
      if (this.stale) {
        this.stale = false;
        this.render();
      }
      const rows = [...this.querySelectorAll("li.note")].filter((r) => r !== row);
      const over = rows.find((r) => { const box = r.getBoundingClientRect(); return e.clientY >= box.top && e.clientY <= box.bottom; });
      if (!over) return;
      const box = over.getBoundingClientRect();
      const target = /** @type {string} */ (/** @type {HTMLElement} */ (over).dataset.id);
      const body = e.clientY < box.top + box.height / 2 ? { before: target } : { after: target };
      /** @type {Context} */ (this.context).sync.write({ method: "POST", path: `${NOTES}/${note.id}/move`, body, kind: KIND, id: note.id });
    };
    handle.addEventListener("pointermove", move);
    handle.addEventListener("pointerup", up);
    handle.addEventListener("pointercancel", up);
  }
}
customElements.define("notes-list", NotesList);

export class NoteEditor extends HTMLElement {
  /** @param {Context} context @param {string} id */
  attach(context, id) {
    this.context = context;
    this.noteId = id;
    /** @type {Record<string, string>} */
    this.pendingEdit = {};
    this.timer = 0;
    this.onChange = () => this.refresh();
    context.sync.addEventListener("change", this.onChange);
    this.render();
  }

  disconnectedCallback() {
    this.flush();
    if (this.onChange) this.context?.sync.removeEventListener("change", this.onChange);
  }

  note() {
    const context = /** @type {Context} */ (this.context);
    return context.sync.one(KIND, this.currentId());
  }

  /** A note created offline gets the server's id once its create is sent. */
  currentId() {
    const id = /** @type {string} */ (this.noteId);
    return /** @type {Context} */ (this.context).sync.resolved.get(id) ?? id;
  }

  /** Keeps the fields the user is typing in; shows the photo when it changed elsewhere. */
  refresh() {
    const note = this.note();
    if (!note) {
      /** @type {Context} */ (this.context).go("#/notes");
      return;
    }
    const photo = this.querySelector(".photo");
    if (photo && photo.getAttribute("data-photo") !== String(note.photo ?? "")) this.render();
  }

  render() {
    const context = /** @type {Context} */ (this.context);
    const note = this.note();
    if (!note) {
      this.replaceChildren(h("main", { class: "screen" }, h("p", {}, "This note is not here any more."),
        h("a", { href: "#/notes", class: "button" }, "Back to the notes")));
      return;
    }
    const field = (/** @type {string} */ name, /** @type {string} */ label, /** @type {HTMLElement} */ input) => {
      input.id = `note-${name}`;
      input.addEventListener("input", () => this.edit(name, /** @type {HTMLInputElement} */ (input).value));
      return [h("label", { for: input.id }, label), input];
    };
    const photo = h("div", { class: "photo", "data-photo": String(note.photo ?? "") });
    if (note.photo && !note.id.startsWith("local:")) {
      imageURL(context.api, `${NOTES}/${note.id}/photo/display`).then((url) => photo.replaceChildren(
        h("button", { type: "button", class: "photo-open", "aria-label": "Show the photo full screen", onclick: () => this.zoom(note) },
          h("img", { src: url, alt: `Photo of “${note.title}”` })))).catch(() => {});
    } else if (note.pendingPhoto) {
      photo.append(h("img", { src: URL.createObjectURL(note.pendingPhoto), alt: "Photo waiting to upload" }));
    }
    const picker = (/** @type {boolean} */ camera) => {
      const input = /** @type {HTMLInputElement} */ (h("input", { type: "file", accept: "image/*", class: "visually-hidden",
        capture: camera ? "environment" : undefined, "aria-label": camera ? "Take a photo" : "Choose a photo" }));
      input.addEventListener("change", () => { if (input.files?.[0]) this.attachPhoto(input.files[0]); });
      return h("label", { class: "button secondary" }, camera ? "Take photo" : "Choose photo", input);
    };
    this.replaceChildren(h("main", { class: "screen editor" },
      h("div", { class: "toolbar" },
        h("a", { href: "#/notes", class: "button secondary", "aria-label": "Back to the notes" }, "‹ Notes"),
        h("a", { href: `#/notes/${encodeURIComponent(note.id)}/back`, class: "button primary" }, "Flip to draw")),
      ...field("title", "Title", h("input", { value: note.title ?? "", autocomplete: "off" })),
      ...field("date", "Date", h("input", { type: "date", value: note.date ?? today() })),
      ...field("text", "Note", h("textarea", { rows: 6 }, note.text ?? "")),
      photo,
      h("div", { class: "row" }, picker(true), picker(false)),
      h("button", { type: "button", class: "danger", onclick: () => this.remove_() }, "Delete note")));
  }

  /** @param {string} name @param {string} value */
  edit(name, value) {
    /** @type {Record<string, string>} */ (this.pendingEdit)[name] = value;
    /** @type {Context} */ (this.context).sync.draft(`${KIND}/${this.currentId()}`, true);
    clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.flush(), 500);
  }

  /** Queues what was typed; the indicator says "Saving" until the write is queued, then counts it. */
  flush() {
    clearTimeout(this.timer);
    const context = this.context;
    if (!context) return;
    const body = this.pendingEdit ?? {};
    this.pendingEdit = {};
    const note = this.note();
    if (Object.keys(body).length && note) {
      context.sync.write({ method: "PATCH", path: `${NOTES}/${note.id}`, body, kind: KIND, id: note.id, baseVersion: note.version || undefined });
    }
    context.sync.draft(`${KIND}/${this.currentId()}`, false);
  }

  /** @param {File} file */
  async attachPhoto(file) {
    const note = this.note();
    if (!note) return;
    await /** @type {Context} */ (this.context).sync.write({ method: "PUT", path: `${NOTES}/${note.id}/photo`, body: file,
      contentType: file.type || "image/jpeg", kind: KIND, id: note.id, local: { pendingPhoto: file } });
    this.render();
    announce("Photo added.");
  }

  /** @param {any} note */
  async zoom(note) {
    const url = await imageURL(/** @type {Context} */ (this.context).api, `${NOTES}/${note.id}/photo`);
    const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "zoom", "aria-label": "The photo, full size" },
      h("button", { type: "button", class: "close", onclick: () => dialog.close() }, "Close"),
      h("div", { class: "zoomable" }, h("img", { src: url, alt: `Photo of “${note.title}”, full size` }))));
    dialog.addEventListener("close", () => dialog.remove());
    document.body.append(dialog);
    dialog.showModal();
  }

  async remove_() {
    const note = this.note();
    if (!note) return;
    if (!(await confirmAction(`Delete “${note.title || "Title"}”? This cannot be undone.`, "Delete"))) return;
    const context = /** @type {Context} */ (this.context);
    this.pendingEdit = {};
    context.sync.draft(`${KIND}/${this.currentId()}`, false);
    await context.sync.write({ method: "DELETE", path: `${NOTES}/${note.id}`, kind: KIND, id: note.id });
    announce("Note deleted.");
    context.go("#/notes");
  }
}
customElements.define("note-editor", NoteEditor);

export class NoteBack extends HTMLElement {
  /** @param {Context} context @param {string} id */
  async attach(context, id) {
    this.context = context;
    const pad = /** @type {import("./drawing-pad.js").DrawingPad} */ (h("drawing-pad"));
    this.replaceChildren(h("main", { class: "screen back" },
      h("div", { class: "toolbar" },
        h("a", { href: `#/notes/${encodeURIComponent(id)}`, class: "button secondary" }, "Flip back"),
        h("h1", {}, "The back")),
      pad));
    const db = /** @type {import("./db.js").Database} */ (context.sync.db);
    let drawing = await db.meta(`drawing:${id}`);
    if (!drawing && !id.startsWith("local:")) {
      drawing = await context.api.get(`${NOTES}/${id}/drawing`).catch(() => null);
    }
    if (drawing) pad.load(drawing);
    pad.addEventListener("change", async (event) => {
      const value = /** @type {CustomEvent} */ (event).detail;
      await db.setMeta(`drawing:${id}`, value);
      await context.sync.write({ method: "PUT", path: `${NOTES}/${id}/drawing`, body: value, kind: KIND, id });
    });
  }
}
customElements.define("note-back", NoteBack);
