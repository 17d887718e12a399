// @ts-check
/** Napkin Notes, as its manual describes: the list in the user's own order (drag, or the arrow
 * keys on a note's handle), a new note with today's date and "Title", editing, a photo from the
 * camera or the library, the original full screen with pinch-zoom, and the back to draw on. */
import { ApiError } from "./api.js";
import { ordered } from "./merge.js";
import { categoryCounts, filterNotes, localDateTime, reminderInstant } from "./notes-filter.js";
import { localId } from "./outbox.js";
import { FollowedForm } from "./follow.js";
import { announce, askText, confirmAction, h, imageURL, readableDate, today, whereAmI } from "./ui.js";
import { shareLink } from "./share.js";
import "./drawing-pad.js";

const KIND = "notes.note";
const NOTES = "/api/v1/notes";
/** Notes this page made with "New note": one left untouched is not kept. @type {Set<string>} */
const madeHere = new Set();

/** @typedef {{api: import("./api.js").Api, sync: import("./sync.js").Sync, go: (hash: string) => void, features?: Set<string>}} Context */

/** Whether the app switched a feature on (`search`, `categories`, `plugin:reminders`…). @param {Context | undefined} context @param {string} feature */
function has(context, feature) {
  return Boolean(context?.features?.has(feature));
}

/** An instant as a person reads it: "Nov 26, 2026, 9:30 AM" in the device's language. @param {string} instant */
function when(instant) {
  return new Date(instant).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

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
    const context = /** @type {Context} */ (this.context);
    if (!this.shell) this.build(context);
    const all = this.notes();
    if (this.mapShown) {
      if (this.chips) this.chips.replaceChildren();
      this.showMap(all);
      return;
    }
    const query = this.query ?? "";
    const notes = query && this.found && navigator.onLine
      ? this.found.map((hit) => context.sync.one(KIND, hit.id) ?? hit).filter((note) => !this.category || note.category === this.category)
      : filterNotes(all, query, this.category);
    const shown = this.near ? notes.filter((note) => this.near?.has(note.id)) : notes;
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.focusKey : undefined;
    const list = h("ol", { class: "notes", "aria-label": query || this.category || this.near ? "Notes found" : "Your notes, in your order" },
      ...shown.map((note, index) => this.item(note, index, shown.length)));
    const empty = all.length === 0 ? h("p", { class: "empty" }, "No notes yet. Tap “New note” to write your first.")
      : shown.length === 0 ? h("p", { class: "empty" }, query ? `No note holds “${query}”.` : this.near ? "No note was written near here."
        : "No notes in this category.") : null;
    /** @type {HTMLElement} */ (this.results).replaceChildren(...(empty ? [empty] : []), list);
    if (this.chips) this.chips.replaceChildren(...this.categoryChips(all));
    if (focused) /** @type {HTMLElement | null} */ (this.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`))?.focus();
  }

  /** The parts that stay while the list changes under them: the toolbar, the search box (the
   * caret stays where the user types), the categories and the import's progress.
   * @param {Context} context */
  build(context) {
    this.results = h("div", { class: "results", "aria-live": "polite" });
    const search = has(context, "search")
      ? h("div", { class: "search-box" }, h("label", { for: "notes-search", class: "visually-hidden" }, "Search notes"),
        h("input", { id: "notes-search", type: "search", placeholder: "Search notes", autocomplete: "off", enterkeyhint: "search",
          oninput: (/** @type {Event} */ e) => this.search(/** @type {HTMLInputElement} */ (e.target).value) }))
      : null;
    this.chips = has(context, "categories") ? h("ul", { class: "chips", "aria-label": "Categories" }) : null;
    this.progress = h("div", { class: "import-progress", "aria-live": "polite" });
    const importer = has(context, "import:enex") ? this.importButton() : null;
    this.shell = h("main", { class: "screen" },
      h("div", { class: "toolbar" }, h("h1", {}, "Notes"),
        has(context, "plugin:geo") ? h("button", { type: "button", class: "secondary map-toggle", "aria-pressed": "false",
          onclick: (/** @type {Event} */ e) => this.toggleMap(/** @type {HTMLElement} */ (e.currentTarget)) }, "Map") : null,
        h("button", { type: "button", class: "primary", onclick: () => this.create() }, "New note")),
      search, this.chips, this.results, this.progress, importer);
    this.replaceChildren(this.shell);
  }

  /** @param {Array<any>} all */
  categoryChips(all) {
    const chip = (/** @type {string | null} */ name, /** @type {string} */ label) => h("li", {}, h("button", {
      type: "button", class: this.category === name ? "chip on" : "chip", "aria-pressed": String(this.category === name),
      "data-focus-key": `category-${name ?? ""}`, onclick: () => {
        this.category = name;
        // "All" is every note: the place filter goes too, or the list stays narrowed to it.
        if (name === null) this.near = null;
        this.search(this.query ?? "");
      } }, label));
    const counts = categoryCounts(all);
    if (this.category && !counts.some((c) => c.name === this.category)) this.category = null;
    const near = has(this.context, "plugin:geo")
      ? [h("li", {}, h("button", { type: "button", class: this.near ? "chip on" : "chip", "aria-pressed": String(Boolean(this.near)),
        "data-focus-key": "near", onclick: () => this.nearHere() }, "Written near here"))]
      : [];
    return counts.length === 0 && near.length === 0 ? []
      : [chip(null, "All"), ...counts.map((c) => chip(c.name, `${c.name} (${c.count})`)), ...near];
  }

  /** The list, or the map of where the notes were written. @param {HTMLElement} button */
  toggleMap(button) {
    this.mapShown = !this.mapShown;
    // A toggle: "Map" pressed shows the map, released the list again; pressed, it is filled
    // (CSSOM, which the CSP allows), as the drawing tools are.
    button.setAttribute("aria-pressed", String(this.mapShown));
    button.style.background = this.mapShown ? "var(--accent)" : "";
    button.style.color = this.mapShown ? "var(--accent-ink)" : "";
    if (!this.mapShown) this.mapView = null;
    this.render();
  }

  /** Where each note was written (geo's tags of kind notes), a marker each; a tap opens the note.
   * @param {Array<any>} all */
  async showMap(all) {
    const context = /** @type {Context} */ (this.context);
    await import("./map-view.js");
    if (!this.mapView) {
      this.mapView = /** @type {import("./map-view.js").MapView} */ (h("map-view", { label: "Where your notes were written",
        empty: "No note has a place yet: a note made while the phone shares its location is put on the map." }));
      /** @type {HTMLElement} */ (this.results).replaceChildren(this.mapView);
    }
    const map = this.mapView;
    /** @type {Array<any>} */
    let tags = [];
    try {
      let cursor = "";
      do {
        const page = await context.api.get(`/api/v1/geo/box?south=-90&west=-180&north=90&east=180&kind=notes&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
        tags = tags.concat(page.items);
        cursor = page.nextCursor ?? "";
      } while (cursor && tags.length < 2000);
    } catch {
      map.connectedCallback();
      map.say("The map needs the internet; try again when this phone is online.");
      return;
    }
    if (map !== this.mapView) return;
    const byId = new Map(all.map((note) => [note.id, note]));
    const places = tags.map((hit) => {
      const tag = hit.geotag ?? hit;
      const id = String(tag.subject).replace(/^notes\//, "");
      const note = byId.get(id);
      return note ? { latitude: tag.latitude, longitude: tag.longitude, label: note.title || "Title",
        open: () => context.go(`#/notes/${encodeURIComponent(id)}`) } : null;
    }).filter((place) => place !== null);
    await map.show(/** @type {Set<string>} */ (context.features ?? new Set()), /** @type {any} */ (places));
  }

  /** Narrows the list to the notes written within 1 km of where the phone is (geo's index). */
  async nearHere() {
    if (this.near) {
      this.near = null;
      this.render();
      return;
    }
    const context = /** @type {Context} */ (this.context);
    const here = await whereAmI(60_000);
    if (!here) {
      announce("The phone did not say where it is; allow location for this site and try again.");
      return;
    }
    try {
      const page = await context.api.get(`/api/v1/geo/near?lat=${here.latitude}&lon=${here.longitude}&radiusKm=1&kind=notes&limit=200`);
      this.near = new Set(page.items.map((/** @type {any} */ hit) => String(hit.geotag.subject).replace(/^notes\//, "")));
      this.render();
      announce(`${this.near.size} note${this.near.size === 1 ? "" : "s"} written near here.`);
    } catch (error) {
      announce(error instanceof Error ? error.message : String(error));
    }
  }

  /** As the user types: the server's search index when online (titles first, every word, the last
   * as a prefix), the synced notes when not. @param {string} query */
  search(query) {
    this.query = query.trim();
    clearTimeout(this.searchTimer);
    this.found = null;
    this.render();
    if (!this.query || !navigator.onLine) return;
    const asked = this.query;
    const category = this.category ? `&category=${encodeURIComponent(this.category)}` : "";
    this.searchTimer = window.setTimeout(async () => {
      try {
        const page = await /** @type {Context} */ (this.context).api.get(`${NOTES}/search?q=${encodeURIComponent(asked)}${category}&limit=50`);
        if (asked !== this.query) return;
        this.found = page.items.map((/** @type {any} */ hit) => hit.note);
        this.render();
      } catch {
        // Offline after all, or the server busy: the synced notes are searched instead.
      }
    }, 150);
  }

  importButton() {
    const input = /** @type {HTMLInputElement} */ (h("input", { type: "file", class: "visually-hidden", accept: ".enex,.zip,application/zip,application/xml",
      "aria-label": "Import notes from Evernote (.enex) or Google Keep (Takeout .zip)" }));
    input.addEventListener("change", () => { if (input.files?.[0]) this.importFile(input.files[0]); input.value = ""; });
    return h("div", { class: "import" }, h("label", { class: "button secondary" }, "Import from Evernote or Keep…", input),
      h("p", { class: "hint" }, "An Evernote export (.enex) or a Google Takeout zip of Keep: the notes are added after yours."));
  }

  /** Sends the file and follows the job until it ends. @param {File} file */
  async importFile(file) {
    const context = /** @type {Context} */ (this.context);
    const progress = /** @type {HTMLElement} */ (this.progress);
    const format = /\.zip$/i.test(file.name) || file.type === "application/zip" ? "keep" : "enex";
    const bar = /** @type {HTMLProgressElement} */ (h("progress", { max: "100", "aria-label": "Import progress" }));
    const line = h("p", {}, `Sending ${file.name}…`);
    progress.replaceChildren(h("div", { class: "card" }, line, bar));
    const failed = (/** @type {string} */ message) => progress.replaceChildren(h("div", { class: "card", role: "alert" }, h("p", {}, message),
      h("button", { type: "button", class: "secondary", onclick: () => progress.replaceChildren() }, "OK")));
    // Unlike a note, an import is not kept to send later: the file is the user's, to choose again.
    const offline = `You are offline: ${file.name} was not imported. An import sends the whole file to the server; choose it again once you are online.`;
    if (!navigator.onLine) {
      failed(offline);
      return;
    }
    try {
      let job = (await context.api.request("POST", `${NOTES}/imports?format=${format}`, { body: file,
        contentType: format === "keep" ? "application/zip" : "application/enex+xml" })).body;
      while (job.state === "running") {
        if (job.progressTotal) bar.value = Math.min(100, Math.floor((100 * job.progressDone) / job.progressTotal));
        line.textContent = `Importing ${file.name}: ${job.imported} notes so far…`;
        await new Promise((resolve) => setTimeout(resolve, 1000));
        job = await context.api.get(`${NOTES}/imports/${job.id}`);
      }
      if (job.state === "failed") {
        failed(job.failure ?? "The import failed; nothing of it was kept.");
        return;
      }
      const summary = `Imported ${job.imported} note${job.imported === 1 ? "" : "s"} from ${file.name}`
        + (job.skipped ? `; ${job.skipped} from Keep's trash left out` : "") + ".";
      const problems = job.problemCount ? h("details", {}, h("summary", {}, `${job.problemCount} note${job.problemCount === 1 ? "" : "s"} with a problem`),
        h("ul", {}, ...job.problems.map((/** @type {any} */ p) => h("li", {}, `Note ${p.note}${p.title ? ` (“${p.title}”)` : ""}: ${p.imported ? "" : "not imported — "}${p.message}`)))) : null;
      progress.replaceChildren(h("div", { class: "card" }, h("p", {}, summary), problems,
        h("button", { type: "button", class: "secondary", onclick: () => progress.replaceChildren() }, "OK")));
      announce(summary);
      await context.sync.pull();
    } catch (error) {
      failed(error instanceof ApiError && error.offline ? offline : error instanceof Error ? error.message : String(error));
    }
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
      "aria-label": `Move “${note.title || "Title"}”: arrow keys up or down (note ${index + 1} of ${count})`,
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
    madeHere.add(id);
    const first = this.notes()[0];
    await context.sync.write({ method: "POST", path: NOTES, body: { title: "", text: "", date: today() }, kind: KIND, id });
    // New notes go first, as the manual's list shows them.
    if (first) await context.sync.write({ method: "POST", path: `${NOTES}/${id}/move`, body: { before: first.id }, kind: KIND, id });
    context.go(`#/notes/${encodeURIComponent(id)}`);
    // Where it was written (apps with geo), when the device says: queued behind the note's create.
    if (has(context, "plugin:geo")) {
      const here = await whereAmI(60_000);
      if (here) {
        await context.sync.write({ method: "PUT", path: "/api/v1/geo/tags", kind: KIND, id,
          body: { subject: `notes/${id}`, latitude: here.latitude, longitude: here.longitude, accuracy: Math.round(here.accuracy) } });
      }
    }
  }

  /** @param {any} note @param {number} offset */
  async moveBy(note, offset) {
    const notes = this.notes();
    const index = notes.findIndex((n) => n.id === note.id);
    const target = notes[index + offset];
    if (!target) return;
    const body = offset < 0 ? { before: target.id } : { after: target.id };
    await /** @type {Context} */ (this.context).sync.write({ method: "POST", path: `${NOTES}/${note.id}/move`, body, kind: KIND, id: note.id });
    announce(`“${note.title || "Title"}” moved to position ${index + offset + 1}.`);
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

/** Whether two drawings hold the same strokes and words (numbers as the server writes them back).
 * @param {any} a @param {any} b */
function sameDrawing(a, b) {
  const r = (/** @type {any} */ n) => (typeof n === "number" ? Math.round(n * 1e4) / 1e4 : n);
  const keys = (/** @type {any} */ d) => JSON.stringify([
    (d?.strokes ?? []).map((/** @type {any} */ s) => [s.tool, s.color, r(s.width), (s.points ?? []).map((/** @type {any} */ p) => [r(p.x), r(p.y)])]),
    (d?.texts ?? []).map((/** @type {any} */ t) => [t.text, t.color, r(t.x), r(t.y), r(t.size)]), r(d?.aspect)]);
  return keys(a) === keys(b);
}

/**
 * Pinch (two fingers) or double-tap to zoom a picture inside its frame, one finger to move it once
 * zoomed; the frame does not scroll the page. `data-scale` says how far it is zoomed.
 * @param {HTMLElement} frame @param {HTMLImageElement} img
 */
function pinchZoom(frame, img) {
  frame.style.touchAction = "none"; // CSSOM, which the CSP allows: the gestures are ours
  img.style.transformOrigin = "0 0";
  let scale = 1, x = 0, y = 0;
  /** @type {Map<number, {x: number, y: number}>} */
  const fingers = new Map();
  /** @type {{distance: number, scale: number, x: number, y: number, mid: {x: number, y: number}} | null} */
  let pinch = null;
  const apply = () => {
    scale = Math.min(6, Math.max(1, scale));
    if (scale === 1) x = y = 0;
    img.style.transform = `translate(${x}px, ${y}px) scale(${scale})`;
    img.dataset.scale = scale.toFixed(2);
  };
  /** A point on the screen, from where the picture's untransformed corner is. @param {number} cx @param {number} cy */
  const local = (cx, cy) => {
    const box = img.getBoundingClientRect();
    return { x: cx - (box.left - x), y: cy - (box.top - y) };
  };
  const spread = () => {
    const [a, b] = [...fingers.values()];
    return { distance: Math.hypot(a.x - b.x, a.y - b.y), mid: local((a.x + b.x) / 2, (a.y + b.y) / 2) };
  };
  frame.addEventListener("pointerdown", (event) => {
    frame.setPointerCapture(event.pointerId);
    fingers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (fingers.size === 2) pinch = { ...spread(), scale, x, y };
  });
  frame.addEventListener("pointermove", (event) => {
    const last = fingers.get(event.pointerId);
    if (!last) return;
    const now = { x: event.clientX, y: event.clientY };
    fingers.set(event.pointerId, now);
    if (pinch && fingers.size === 2) {
      const { distance, mid } = spread();
      const next = Math.min(6, Math.max(1, pinch.scale * (distance / Math.max(1, pinch.distance))));
      // The point between the fingers stays under them.
      x = mid.x - ((pinch.mid.x - pinch.x) * next) / pinch.scale;
      y = mid.y - ((pinch.mid.y - pinch.y) * next) / pinch.scale;
      scale = next;
      apply();
    } else if (fingers.size === 1 && scale > 1) {
      x += now.x - last.x;
      y += now.y - last.y;
      apply();
    }
  });
  const up = (/** @type {PointerEvent} */ event) => {
    fingers.delete(event.pointerId);
    if (fingers.size < 2) pinch = null;
  };
  frame.addEventListener("pointerup", up);
  frame.addEventListener("pointercancel", up);
  frame.addEventListener("dblclick", (event) => {
    const to = scale > 1 ? 1 : 2.5;
    const at = local(event.clientX, event.clientY);
    x = at.x - ((at.x - x) * to) / scale;
    y = at.y - ((at.y - y) * to) / scale;
    scale = to;
    apply();
  });
  apply();
}

/** A field's value as its input holds it. @param {any} note @param {string} name */
function fieldValue(note, name) {
  return name === "date" ? String(note.date ?? today()) : String(note[name] ?? "");
}

export class NoteEditor extends HTMLElement {
  constructor() {
    super();
    /** @type {Context | undefined} */
    this.context = undefined;
    /** The form, once the note was found. @type {HTMLElement | null} */
    this.form = null;
    /** Its fields: typing kept, sent based on what was shown, following other devices. @type {FollowedForm | null} */
    this.followed = null;
    /** What this phone typed in the fields, as typed (kept should the note be deleted elsewhere). @type {Record<string, string> | null} */
    this.typedHere = null;
    /** This phone is deleting the note. */
    this.deleting = false;
  }

  /** @param {Context} context @param {string} id */
  attach(context, id) {
    this.context = context;
    this.noteId = id;
    this.onChange = () => this.refresh();
    context.sync.addEventListener("change", this.onChange);
    this.render();
  }

  disconnectedCallback() {
    this.followed?.dispose();
    if (this.onChange) this.context?.sync.removeEventListener("change", this.onChange);
    this.dropIfUntouched();
  }

  /** A note just made with "New note" and left as it came (no title, text, photo, drawing or
   * category) is not kept: leaving it ("‹ Notes", the phone's Back) deletes it. Flipping to its
   * back keeps it. */
  dropIfUntouched() {
    const context = this.context;
    const note = this.note();
    if (!context || !note || this.deleting) return;
    // Made here by its local id; the screen may have been opened again by the server's since.
    const made = [...madeHere].find((local) => local === this.noteId || context.sync.resolve(local) === note.id);
    if (!made) return;
    if (/^#\/notes\/[^/]+\/back$/.test(location.hash)) return;
    if (note.title || note.text || note.photo || note.pendingPhoto || note.drawing || note.category) return;
    if (context.sync.writes.some((w) => w.kind === KIND && (w.id === note.id || w.id === this.noteId) && w.path.endsWith("/drawing"))) return;
    madeHere.delete(made);
    context.sync.write({ method: "DELETE", path: `${NOTES}/${note.id}`, kind: KIND, id: note.id });
  }

  note() {
    const context = /** @type {Context} */ (this.context);
    return context.sync.one(KIND, this.currentId());
  }

  /** A note created offline gets the server's id once its create is sent. */
  currentId() {
    return /** @type {Context} */ (this.context).sync.resolve(/** @type {string} */ (this.noteId));
  }

  /** Follows the note as other devices change it (see FollowedForm); a note deleted elsewhere
   * closes with a word. */
  refresh() {
    const note = this.note();
    if (!note) {
      if (this.form && !this.deleting) this.deletedElsewhere();
      return;
    }
    if (!this.form) {
      this.render();
      return;
    }
    this.followed?.follow(note);
    const photo = this.querySelector(".photo");
    if (photo && photo.getAttribute("data-photo") !== this.photoKey(note)) this.renderPhoto(note);
  }

  /** The note was deleted on another phone while open here: said plainly, and what was typed
   * here (kept as typed, even when the server refused it) can become a new note. */
  deletedElsewhere() {
    const context = /** @type {Context} */ (this.context);
    const mine = this.typedHere;
    this.followed?.discard();
    this.followed?.dispose();
    this.followed = null;
    this.form = null;
    const said = mine ? "This note was deleted on another phone. What you typed here is kept below: keep it as a new note, or let it go."
      : "This note was deleted on another phone.";
    const keep = async () => {
      if (!mine) return;
      const id = localId();
      await context.sync.write({ method: "POST", path: NOTES, kind: KIND, id,
        body: { title: mine.title ?? "", text: mine.text ?? "", date: mine.date || today(), ...(mine.category ? { category: mine.category } : {}) } });
      announce("Kept as a new note.");
      context.go(`#/notes/${encodeURIComponent(id)}`);
    };
    this.replaceChildren(h("main", { class: "screen deleted-elsewhere" },
      h("h1", {}, "Note deleted"),
      h("p", { role: "alert" }, said),
      mine ? h("div", { class: "card kept-text" }, mine.title ? h("p", {}, h("strong", {}, mine.title)) : null,
        h("p", { class: "pre-wrap" }, mine.text ?? "")) : null,
      h("div", { class: "row" },
        mine ? h("button", { type: "button", class: "primary", onclick: keep }, "Keep my text as a new note") : null,
        h("a", { href: "#/notes", class: mine ? "button secondary" : "button" }, mine ? "Let it go" : "Back to the notes"))));
    const kept = /** @type {HTMLElement | null} */ (this.querySelector(".pre-wrap"));
    if (kept) kept.style.whiteSpace = "pre-wrap"; // CSSOM, which the CSP allows
  }

  /** @param {any} note */
  photoKey(note) {
    return `${note.photo ?? ""}|${note.pendingPhoto ? "pending" : ""}|${note.photoPlace ? `${note.photoPlace.latitude},${note.photoPlace.longitude}` : ""}`;
  }

  render() {
    const context = /** @type {Context} */ (this.context);
    const note = this.note();
    if (!note) {
      this.form = null;
      this.replaceChildren(h("main", { class: "screen" }, h("p", {}, "This note is not here any more."),
        h("a", { href: "#/notes", class: "button" }, "Back to the notes")));
      return;
    }
    this.followed?.dispose();
    const followed = new FollowedForm({ sync: context.sync, record: () => this.note(), key: () => `${KIND}/${this.currentId()}`,
      send: (body, baseVersion) => {
        const now = this.note();
        return now ? context.sync.write({ method: "PATCH", path: `${NOTES}/${now.id}`, body, kind: KIND, id: now.id, baseVersion }) : Promise.resolve();
      } });
    this.followed = followed;
    const field = (/** @type {string} */ name, /** @type {string} */ label, /** @type {HTMLInputElement | HTMLTextAreaElement} */ input) => {
      input.id = `note-${name}`;
      followed.field(name, input, { value: (record) => fieldValue(record, name),
        parse: name === "category" ? (text) => text.trim() || null : undefined });
      return [h("label", { for: input.id }, label), input];
    };
    const photo = h("div", { class: "photo" });
    const picker = (/** @type {boolean} */ camera) => {
      const input = /** @type {HTMLInputElement} */ (h("input", { type: "file", accept: "image/*", class: "visually-hidden",
        capture: camera ? "environment" : undefined, "aria-label": camera ? "Take a photo" : "Choose a photo" }));
      input.addEventListener("change", () => { if (input.files?.[0]) this.attachPhoto(input.files[0]); input.value = ""; });
      return h("label", { class: "button secondary" }, camera ? "Take photo" : "Choose photo", input);
    };
    this.form = h("main", { class: "screen editor" },
      // Named for the status area as the screen opens (coming back from the back, too).
      h("h1", { class: "visually-hidden" }, note.title ? `Note “${note.title}”` : "New note"),
      h("div", { class: "toolbar" },
        h("a", { href: "#/notes", class: "button secondary", "aria-label": "Back to the notes" }, "‹ Notes"),
        h("a", { href: `#/notes/${encodeURIComponent(note.id)}/back`, class: "button primary" }, "Flip to draw")),
      ...field("title", "Title", /** @type {HTMLInputElement} */ (h("input", { autocomplete: "off", placeholder: "Title" }))),
      ...field("date", "Date", /** @type {HTMLInputElement} */ (h("input", { type: "date" }))),
      ...field("text", "Note", /** @type {HTMLTextAreaElement} */ (h("textarea", { rows: 6 }))),
      ...(has(context, "categories") ? this.categoryField(field, note) : []),
      has(context, "plugin:geo") ? this.placeLine(note) : null,
      photo,
      h("div", { class: "row" }, picker(true), picker(false)),
      has(context, "plugin:reminders") ? this.reminderBlock(note) : null,
      h("div", { class: "row" },
        has(context, "share:notes.note") ? h("button", { type: "button", class: "secondary", onclick: () => this.share() }, "Share this note") : null,
        has(context, "plugin:mail") ? h("button", { type: "button", class: "secondary email-button", onclick: () => this.email() }, "Email this note")
          : this.mailtoLink()),
      h("button", { type: "button", class: "danger", onclick: () => this.remove_() }, "Delete note"));
    this.replaceChildren(this.form);
    // What this phone typed, as typed: kept even if the server refuses it (the note deleted).
    this.form.addEventListener("input", () => {
      /** @type {Record<string, string>} */
      const texts = {};
      for (const name of ["title", "text", "date", "category"]) {
        const input = /** @type {HTMLInputElement | null} */ (this.querySelector(`#note-${name}`));
        if (input) texts[name] = input.value;
      }
      this.typedHere = texts;
    });
    this.renderPhoto(note);
    followed.restoreDraft([`${KIND}/${this.noteId}`]);
  }

  /** Only the photo: the fields around it (and what is being typed in them) stay as they are. @param {any} note */
  renderPhoto(note) {
    const context = /** @type {Context} */ (this.context);
    const photo = /** @type {HTMLElement | null} */ (this.querySelector(".photo"));
    if (!photo) return;
    photo.setAttribute("data-photo", this.photoKey(note));
    photo.replaceChildren();
    if (note.pendingPhoto) {
      photo.append(h("img", { src: URL.createObjectURL(note.pendingPhoto), alt: "Photo waiting to upload" }));
    } else if (note.photo && !note.id.startsWith("local:")) {
      const taken = this.photoPlaceLine(note);
      imageURL(context.api, `${NOTES}/${note.id}/photo/display`).then((url) => photo.replaceChildren(
        h("button", { type: "button", class: "photo-open", "aria-label": "Show the photo full screen", onclick: () => this.zoom(note) },
          h("img", { src: url, alt: `Photo of “${note.title || "Title"}”` })), taken ?? "")).catch(() => {});
    }
  }

  /** Where the photo was taken (its EXIF GPS, kept by the server on upload), as a place name when
   * the app has geo's gazetteer, else as coordinates; null when the photo does not say.
   * @param {any} note */
  photoPlaceLine(note) {
    const at = note.photoPlace;
    if (!at || typeof at.latitude !== "number" || typeof at.longitude !== "number") return null;
    const line = h("p", { class: "hint photo-place" }, `📷 Photo taken at ${at.latitude.toFixed(4)}, ${at.longitude.toFixed(4)}`);
    if (has(this.context, "plugin:geo")) {
      /** @type {Context} */ (this.context).api.get(`/api/v1/geo/place?lat=${at.latitude}&lon=${at.longitude}`)
        .then((place) => { line.textContent = `📷 Photo taken near ${place.label}`; }).catch(() => {});
    }
    return line;
  }

  /** Where the note was written, as a place name (geo's offline gazetteer), when it was geotagged.
   * @param {any} note */
  placeLine(note) {
    const line = h("p", { class: "hint place" });
    if (note.id.startsWith("local:")) return line;
    const api = /** @type {Context} */ (this.context).api;
    api.get(`/api/v1/geo/tags?subject=${encodeURIComponent(`notes/${note.id}`)}`)
      .then((tag) => api.get(`/api/v1/geo/place?lat=${tag.latitude}&lon=${tag.longitude}`))
      .then((place) => { line.textContent = `📍 Written near ${place.label}`; })
      .catch(() => {});
    return line;
  }

  /** A category to type or pick from those in use; blank clears it.
   * @param {(name: string, label: string, input: HTMLInputElement) => HTMLElement[]} field @param {any} note */
  categoryField(field, note) {
    const context = /** @type {Context} */ (this.context);
    const names = categoryCounts(context.sync.view(KIND)).map((c) => c.name);
    return [...field("category", "Category", /** @type {HTMLInputElement} */ (h("input", { value: note.category ?? "", list: "note-categories", autocomplete: "off",
      maxlength: "40", placeholder: "Home, Work, Ideas…" }))),
    h("datalist", { id: "note-categories" }, ...names.map((name) => h("option", { value: name })))];
  }

  /** When to be reminded of this note: the time, set or moved or cleared (the server keeps the
   * schedule; every device of the user hears when it comes). @param {any} note */
  reminderBlock(note) {
    const context = /** @type {Context} */ (this.context);
    const subject = `notes/${note.id}`;
    const current = context.sync.view("reminders.reminder").find((r) => r.subject === subject && r.state === "pending");
    const input = /** @type {HTMLInputElement} */ (h("input", { id: "note-reminder", type: "datetime-local",
      value: current ? localDateTime(current.at) : "", "aria-describedby": "note-reminder-status" }));
    const status = h("p", { id: "note-reminder-status", class: "hint" },
      current ? `You will be reminded ${when(current.at)}.` : "No reminder.");
    const send = async (/** @type {boolean} */ clear) => {
      const at = clear ? null : reminderInstant(input.value, Date.now());
      if (!clear && !at) {
        status.textContent = "Pick a time in the future.";
        input.focus();
        return;
      }
      try {
        if (clear) {
          await context.api.request("DELETE", `/api/v1/reminders?subject=${encodeURIComponent(subject)}`);
          input.value = "";
          status.textContent = "No reminder.";
        } else {
          await context.api.request("PUT", "/api/v1/reminders", { body: { subject, at, title: note.title || "Title" } });
          status.textContent = `You will be reminded ${when(/** @type {string} */ (at))}.`;
          if ("Notification" in window && Notification.permission === "default") Notification.requestPermission().catch(() => {});
        }
        const said = status.textContent ?? "";
        announce(said);
        // The feed brings the reminder as it is now; the block then offers to move or clear it.
        await context.sync.pull();
        const fresh = this.reminderBlock(note);
        block.replaceWith(fresh);
        const line = fresh.querySelector(".hint");
        if (line) line.textContent = said;
      } catch (error) {
        status.textContent = error instanceof Error ? error.message : String(error);
      }
    };
    const block = h("fieldset", { class: "reminder" }, h("legend", {}, "Remind me"),
      h("label", { for: "note-reminder", class: "visually-hidden" }, "Reminder time"), input, status,
      h("div", { class: "row" },
        h("button", { type: "button", onclick: () => send(false) }, current ? "Move reminder" : "Set reminder"),
        current ? h("button", { type: "button", class: "secondary", onclick: () => send(true) }, "Clear") : null));
    return block;
  }

  /** A read-only link to the note (its text, photo and drawing) through the phone's share sheet,
   * or shown to copy where there is none. */
  async share() {
    this.followed?.flush();
    const note = this.note();
    if (!note) return;
    if (note.id.startsWith("local:")) {
      announce("This note is not on the server yet; share it once you are online.");
      return;
    }
    await shareLink(/** @type {Context} */ (this.context).api, `${NOTES}/${note.id}/share`, {}, note.title || "A note");
  }

  /** Without a mail server (no `mail:` in the app's YAML): the phone's own mail app, through a
   * `mailto:` link holding the note's title, date and text as they are when it is tapped. */
  mailtoLink() {
    const link = /** @type {HTMLAnchorElement} */ (h("a", { class: "button secondary email-button", href: "mailto:" }, "Email this note"));
    const fill = () => {
      this.followed?.flush();
      const note = this.note();
      if (!note) return;
      const body = [readableDate(note.date ?? ""), "", note.text ?? ""].join("\n");
      link.href = `mailto:?subject=${encodeURIComponent(note.title || "Title")}&body=${encodeURIComponent(body)}`;
    };
    // Filled as the finger or the keyboard reaches it, and again on the tap itself.
    link.addEventListener("pointerdown", fill);
    link.addEventListener("focus", fill);
    link.addEventListener("click", fill);
    return link;
  }

  /** Sends the note (text and photo) to an address, through the app's mail server. */
  async email() {
    const context = /** @type {Context} */ (this.context);
    this.followed?.flush();
    const to = await askText({ title: "Email this note", label: "To (an email address)", id: "email-to", action: "Send",
      required: "Type the address to send it to.", maxlength: 254 });
    const note = this.note();
    if (!to || !note) return;
    if (note.id.startsWith("local:")) {
      announce("This note is not on the server yet; send it once you are online.");
      return;
    }
    // Said beside the button the user pressed, and scrolled into view (a dialog just closed).
    const say = (/** @type {HTMLElement} */ line) => {
      this.querySelector(".mail-status")?.remove();
      this.querySelector(".email-button")?.after(line);
      line.scrollIntoView({ block: "nearest" });
    };
    try {
      await context.api.request("POST", `${NOTES}/${note.id}/email`, { body: { to } });
      announce(`Sent to ${to}.`);
      say(h("p", { class: "mail-status hint", role: "status" }, `Sent to ${to}.`));
    } catch (error) {
      say(h("p", { class: "mail-status error", role: "alert" }, error instanceof Error ? error.message : String(error)));
    }
  }

  /** Keeps what is being typed: it is queued first, and only the photo is drawn again. @param {File} file */
  async attachPhoto(file) {
    this.followed?.flush();
    const note = this.note();
    if (!note) return;
    await /** @type {Context} */ (this.context).sync.write({ method: "PUT", path: `${NOTES}/${note.id}/photo`, body: file,
      contentType: file.type || "image/jpeg", kind: KIND, id: note.id, local: { pendingPhoto: file } });
    const now = this.note();
    if (now) this.renderPhoto(now);
    announce("Photo added.");
  }

  /** The original, full screen, pinch-zoomable. The phone's Back closes it (an entry of its own in
   * the history) rather than leaving the note. @param {any} note */
  async zoom(note) {
    const url = await imageURL(/** @type {Context} */ (this.context).api, `${NOTES}/${note.id}/photo`);
    const hint = h("p", { class: "zoom-hint" }, "Pinch or double-tap to zoom.");
    // CSSOM, which the CSP allows: white on the black of the full-screen photo, at its foot.
    Object.assign(hint.style, { position: "fixed", bottom: "1rem", left: "0", right: "0", margin: "0", textAlign: "center", color: "#fff",
      background: "rgba(0, 0, 0, 0.6)", padding: ".25rem", pointerEvents: "none" });
    const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "zoom", "aria-label": "The photo, full size" },
      h("button", { type: "button", class: "close", onclick: () => dialog.close() }, "Close"),
      h("div", { class: "zoomable" }, h("img", { src: url, alt: `Photo of “${note.title || "Title"}”, full size` })),
      hint));
    pinchZoom(/** @type {HTMLElement} */ (dialog.querySelector(".zoomable")), /** @type {HTMLImageElement} */ (dialog.querySelector(".zoomable img")));
    const back = () => dialog.close();
    dialog.addEventListener("close", () => {
      window.removeEventListener("popstate", back);
      dialog.remove();
      if (history.state?.zoom) history.back();
    });
    document.body.append(dialog);
    dialog.showModal();
    history.pushState({ zoom: true }, "");
    window.addEventListener("popstate", back);
  }

  async remove_() {
    const note = this.note();
    if (!note) return;
    if (!(await confirmAction(`Delete “${note.title || "Title"}”? This cannot be undone.`, "Delete"))) return;
    const context = /** @type {Context} */ (this.context);
    this.deleting = true;
    this.followed?.discard();
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
    this.fit = () => this.fitCanvas(pad);
    window.addEventListener("resize", this.fit);
    requestAnimationFrame(() => this.fit?.());
    const db = /** @type {import("./db.js").Database} */ (context.sync.db);
    // The newest drawing this phone knows: one it drew that still waits to be sent; else the
    // server's (another phone may have drawn since this one last looked); else, offline, the copy
    // kept when this phone last saw or drew it.
    const real = context.sync.resolve(id);
    const waiting = context.sync.writes.filter((w) => w.kind === KIND && w.method === "PUT" && w.path.endsWith("/drawing")
      && (w.id === real || w.id === id)).at(-1);
    let drawing = waiting?.body ?? null;
    if (!drawing && !real.startsWith("local:")) {
      try {
        drawing = await context.api.get(`${NOTES}/${real}/drawing`);
      } catch (error) {
        // Offline: the copy kept here. Answered (none on the server): none.
        drawing = error instanceof ApiError && error.offline ? await db.meta(`drawing:${id}`) : null;
      }
      if (drawing) await db.setMeta(`drawing:${id}`, drawing);
    } else {
      drawing ??= await db.meta(`drawing:${id}`);
    }
    if (drawing) pad.load(drawing);
    // Each put carries the drawing it was drawn on, so it is merged into the server's at send
    // time: another phone's strokes drawn meanwhile stay (see mergeDrawing).
    // Copies: the pad draws into the arrays it was given.
    let base = drawing ? structuredClone(drawing) : null;
    this.followDrawing(context, id, pad, (/** @type {any} */ now) => { base = structuredClone(now); });
    pad.addEventListener("change", async (event) => {
      const value = /** @type {CustomEvent} */ (event).detail;
      const drawnOn = base;
      base = structuredClone(value);
      // Queued first: the indicator says "Saving" from the stroke on, never "Saved" while the
      // stroke is still only on the canvas (seen by a fresh-clone walk).
      const queued = context.sync.write({ method: "PUT", path: `${NOTES}/${id}/drawing`, body: value, kind: KIND, id,
        rebase: { kind: "drawing", base: drawnOn } });
      await db.setMeta(`drawing:${id}`, value);
      await queued;
    });
  }

  disconnectedCallback() {
    if (this.onChange) this.context?.sync.removeEventListener("change", this.onChange);
    if (this.fit) window.removeEventListener("resize", this.fit);
  }

  /** The canvas takes the height the screen has left under the tools, upright or turned: the
   * whole back in view, never past the screen's foot (the drawing keeps its shape inside it,
   * letterboxed; see strokes.js). @param {import("./drawing-pad.js").DrawingPad} pad */
  fitCanvas(pad) {
    const canvas = /** @type {HTMLCanvasElement | undefined} */ (pad.canvas);
    if (!canvas || !this.isConnected) return;
    const box = canvas.getBoundingClientRect();
    const main = /** @type {HTMLElement} */ (this.querySelector("main"));
    const top = box.top + window.scrollY;
    const below = Math.max(0, main.getBoundingClientRect().bottom - box.bottom) + parseFloat(getComputedStyle(main).marginBottom || "0");
    const room = Math.floor(window.innerHeight - top - below - 4);
    // Turned (a low screen): the tools take most of it, so the canvas takes the screen's height
    // and is scrolled into view, the tools just above it.
    const low = room < 200;
    // The app's bar stays at the top as the page scrolls: the canvas fits under it.
    const bar = document.querySelector("header.bar");
    const covered = bar && /sticky|fixed/.test(getComputedStyle(bar).position) ? bar.getBoundingClientRect().height : 0;
    // CSSOM, which the CSP allows.
    canvas.style.height = `${low ? Math.max(120, Math.floor(window.innerHeight - covered - 8)) : room}px`;
    if (low) requestAnimationFrame(() => canvas.scrollIntoView({ block: "end" }));
  }

  connectedCallback() {
    // Measured once laid out.
    requestAnimationFrame(() => this.fit?.());
  }

  /**
   * The open back follows the other phone as the front's text does: when the note's drawing
   * changed on the server and this phone has nothing of its own still to send for it, the
   * server's drawing is shown (a stroke being drawn here waits for the finger to lift, then is
   * added to it; see DrawingPad.follow). While this phone's strokes wait in the outbox they are
   * merged into the server's when sent, and the answer brings the merged drawing back.
   * @param {Context} context @param {string} id @param {import("./drawing-pad.js").DrawingPad} pad
   * @param {(drawing: any) => void} seen  the drawing the next stroke is drawn on
   */
  followDrawing(context, id, pad, seen) {
    const waiting = () => {
      const real = context.sync.resolve(id);
      return context.sync.writes.some((w) => w.kind === KIND && w.path.endsWith("/drawing") && (w.id === real || w.id === id));
    };
    let shown = context.sync.one(KIND, context.sync.resolve(id))?.drawing ?? null;
    let fetching = false;
    const check = async () => {
      const real = context.sync.resolve(id);
      const note = context.sync.one(KIND, real);
      if (!note || fetching || real.startsWith("local:") || waiting()) return;
      const now = note.drawing ?? null;
      if (now === shown) return;
      fetching = true;
      try {
        const drawing = await context.api.get(`${NOTES}/${real}/drawing`);
        // A stroke finished meanwhile is on its way: its answer brings the drawing again.
        if (waiting() || !this.isConnected) return;
        shown = now;
        seen(drawing);
        // This phone's own write answered: the same drawing, nothing to draw again.
        if (!sameDrawing(drawing, pad.drawing)) pad.follow(drawing);
        await /** @type {import("./db.js").Database} */ (context.sync.db).setMeta(`drawing:${id}`, drawing);
      } catch {
        // Offline or refused: the drawing shown stays; the next change tries again.
      } finally {
        fetching = false;
      }
      if (this.isConnected && (context.sync.one(KIND, context.sync.resolve(id))?.drawing ?? null) !== shown) check();
    };
    this.onChange = () => { check(); };
    context.sync.addEventListener("change", this.onChange);
  }
}
customElements.define("note-back", NoteBack);
