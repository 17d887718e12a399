// @ts-check
/** Napkin Notes' list, as its manual describes: the notes in the user's own order (drag, or the
 * arrow keys on a note's handle), a new note with today's date and "Title", search, categories,
 * the map of where they were written, and the import from Evernote or Keep. */
import { ApiError } from "./api.js";
import { ordered } from "./merge.js";
import { categoryCounts, filterNotes } from "./notes-filter.js";
import { isLocal, localId } from "./outbox.js";
import { ScreenElement } from "./screen-element.js";
import { announce, h, readableDate, today, whereAmI } from "./ui.js";
import { KIND, NOTES, dropLeftUntouched, has, madeHere, notePhoto } from "./notes-parts.js";

/** @typedef {import("./notes-parts.js").Context} Context */

/** How many matches the list asks the server's search for (it answers no more, and no cursor). */
const SEARCH_LIMIT = 50;

export class NotesList extends ScreenElement {
  /** Draws the list, and again on every change of the synced records (ScreenElement's follow)
   * until the screen leaves the page. @param {Context} context */
  attach(context) {
    this.follow(context);
    // A new note the tab was closed on, left as it came: not kept (note-editor.js drops it on leaving).
    dropLeftUntouched(context.sync);
    this.render();
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
    let notes = filterNotes(all, query, this.category);
    if (query && this.found && navigator.onLine) {
      // The server's ranked matches first, then the phone's own that it did not answer: it answers at
      // most SEARCH_LIMIT (no cursor: the 51st match was hidden) and knows no note not sent yet.
      const ranked = this.found.map((hit) => context.sync.one(KIND, hit.id) ?? hit).filter((note) => !this.category || note.category === this.category);
      const seen = new Set(ranked.map((note) => note.id));
      const full = this.found.length >= SEARCH_LIMIT;
      notes = [...ranked, ...notes.filter((note) => !seen.has(note.id) && (full || isLocal(String(note.id))))];
    }
    const shown = this.near ? notes.filter((note) => this.near?.has(note.id)) : notes;
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.focusKey : undefined;
    const list = h("ol", { class: "notes", "aria-label": query || this.category || this.near ? "Notes found" : "Your notes, in your order" },
      ...shown.map((note, index) => this.item(note, index, shown.length)));
    const empty = all.length === 0 ? h("p", { class: "empty" }, "No notes yet. Tap “New note” to write your first.")
      : shown.length === 0 ? h("p", { class: "empty" }, query ? `No note holds “${query}”.` : this.near ? "No note was written near here."
        : "No notes in this category.") : null;
    /** @type {HTMLElement} */ (this.results).replaceChildren(...(empty ? [empty] : []), list);
    // Said when a search or a filter changes what is found, in one short sentence; the list itself is
    // not a live region (every sync redrew it, and a screen reader read every title out again).
    const found = query || this.category || this.near
      ? (shown.length === 0 ? /** @type {HTMLElement} */ (empty).textContent ?? "" : `${shown.length} note${shown.length === 1 ? "" : "s"} found.`) : "";
    if (this.foundSaid && this.foundSaid.textContent !== found) this.foundSaid.textContent = found;
    if (this.chips) this.chips.replaceChildren(...this.categoryChips(all));
    if (focused) /** @type {HTMLElement | null} */ (this.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`))?.focus();
  }

  /** The parts that stay while the list changes under them: the toolbar, the search box (the
   * caret stays where the user types), the categories and the import's progress.
   * @param {Context} context */
  build(context) {
    this.results = h("div", { class: "results" });
    this.foundSaid = h("p", { class: "visually-hidden", role: "status" });
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
      search, this.chips, this.foundSaid, this.results, this.progress, importer);
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
        const page = await /** @type {Context} */ (this.context).api.get(`${NOTES}/search?q=${encodeURIComponent(asked)}${category}&limit=${SEARCH_LIMIT}`);
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
      notePhoto(context, note, "list").then((url) => thumb.append(h("img", { src: url, alt: "", width: 44, height: 44 })))
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
