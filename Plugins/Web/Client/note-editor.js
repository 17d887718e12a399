// @ts-check
/** Napkin Notes' front of a note: editing its fields, a photo from the camera or the library, the
 * original full screen with pinch-zoom, a category, a reminder, sharing and mailing it. */
import { categoryCounts, localDateTime, reminderInstant } from "./notes-filter.js";
import { localId } from "./outbox.js";
import { FollowedForm } from "./follow.js";
import { giveBackRefused } from "./kept-refused.js";
import { ApiError } from "./api.js";
import { forgetReminder, keepReminder, keptReminder, sendKeptReminders, watchKeptReminders } from "./reminder-kept.js";
import { ScreenElement } from "./screen-element.js";
import { announce, askText, confirmAction, h, readableDate, today } from "./ui.js";
import { shareLink } from "./share.js";
import { NoteVoice } from "./voice-note.js";
import { showPhotoText } from "./note-photo-text.js";
import { KIND, NOTES, has, madeHere, notePhoto, pinchZoom, untouched, when } from "./notes-parts.js";

/** @typedef {import("./notes-parts.js").Context} Context */

/** A field's value as its input holds it. @param {any} note @param {string} name */
function fieldValue(note, name) {
  return name === "date" ? String(note.date ?? today()) : String(note[name] ?? "");
}


/** The notes' geotags by subject, as last listed, and when. */
let geotags = { at: 0, bySubject: /** @type {Map<string, any>} */ (new Map()) };

/**
 * A note's geotag, or undefined when it has none, from geo's list of the notes' geotags (the
 * map's query: a list answers an empty page, where asking a note without a place for its tag was
 * a 404, an error in the console, on every such note). Listed again for a note not in the last
 * list, or after 15 s. @param {import("./api.js").Api} api @param {string} subject
 */
async function geotagOf(api, subject) {
  if (!geotags.bySubject.has(subject) || Date.now() - geotags.at > 15_000) {
    const bySubject = new Map();
    let cursor = "";
    do {
      const page = await api.get(`/api/v1/geo/box?south=-90&west=-180&north=90&east=180&kind=notes&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      for (const hit of page.items) {
        const tag = hit.geotag ?? hit;
        bySubject.set(String(tag.subject), tag);
      }
      cursor = page.nextCursor ?? "";
    } while (cursor && bySubject.size < 2000);
    geotags = { at: Date.now(), bySubject };
  }
  return geotags.bySubject.get(subject);
}
export class NoteEditor extends ScreenElement {
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
    this.noteId = id;
    this.follow(context);
    this.render();
  }

  /** Another device's change, or this one's write answered: the note is followed (see refresh). */
  changed() {
    this.refresh();
  }

  disconnectedCallback() {
    this.followed?.dispose();
    super.disconnectedCallback();
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
    if (!untouched(context.sync, note, made)) return;
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
    this.nameHeading();
    const photo = this.querySelector(".photo");
    if (photo && photo.getAttribute("data-photo") !== this.photoKey(note)) this.renderPhoto(note);
    /** @type {NoteVoice | null} */ (this.querySelector("note-voice"))?.update(note);
    showPhotoText(this.querySelector(".photo-text"), note);
  }

  /** The screen's heading names the note by the title it shows now (typed here, or changed on
   * another phone): a screen reader's list of headings kept the name the note opened with. */
  nameHeading() {
    const heading = this.querySelector("#note-heading");
    const title = /** @type {HTMLInputElement | null} */ (this.querySelector("#note-title"))?.value.trim() ?? "";
    const name = title ? `Note “${title}”` : "New note";
    if (heading && heading.textContent !== name) heading.textContent = name;
  }

  /** The voice note (voice-note.js): what is being typed is queued before the recording. */
  voiceBlock() {
    const voice = /** @type {NoteVoice} */ (document.createElement("note-voice"));
    voice.attach(/** @type {Context} */ (this.context), () => this.note(), () => this.followed?.flush());
    return voice;
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
    // This screen offers the way back for what was typed: the header does not offer it twice (kept.js).
    const key = `${KIND}/${this.currentId()}`;
    if (mine) context.sync.claimKept(key);
    const keep = async () => {
      if (!mine) return;
      // The back's drawing made here and kept with the refused writes goes to the new note too.
      const drawing = context.sync.kept.find((k) => k.id === key)?.fields.drawing;
      await context.sync.answerKept(key);
      const id = localId();
      await context.sync.write({ method: "POST", path: NOTES, kind: KIND, id,
        body: { title: mine.title ?? "", text: mine.text ?? "", date: mine.date || today(), ...(mine.category ? { category: mine.category } : {}) } });
      if (drawing?.strokes?.length || drawing?.texts?.length) {
        await context.sync.write({ method: "PUT", path: `${NOTES}/${id}/drawing`, body: drawing, kind: KIND, id });
      }
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
        h("a", { href: "#/notes", class: mine ? "button secondary" : "button", onclick: () => { if (mine) context.sync.answerKept(key); } },
          mine ? "Let it go" : "Back to the notes"))));
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
      if (name === "title") input.addEventListener("change", () => this.nameHeading());
      return [h("label", { for: input.id }, label), input];
    };
    const photo = h("div", { class: "photo" });
    const picker = (/** @type {boolean} */ camera) => {
      // Named by its label's visible words ("Choose photo"), so what is seen is what a screen reader or
      // voice control says (it was "Choose a photo" under the words "Choose photo").
      const input = /** @type {HTMLInputElement} */ (h("input", { type: "file", accept: "image/*", class: "visually-hidden",
        capture: camera ? "environment" : undefined }));
      input.addEventListener("change", () => { if (input.files?.[0]) this.attachPhoto(input.files[0]); input.value = ""; });
      return h("label", { class: "button secondary" }, camera ? "Take photo" : "Choose photo", input);
    };
    this.form = h("main", { class: "screen editor" },
      // Named for the status area as the screen opens (coming back from the back, too).
      h("h1", { class: "visually-hidden", id: "note-heading" }, note.title ? `Note “${note.title}”` : "New note"),
      h("div", { class: "toolbar" },
        h("a", { href: "#/notes", class: "button secondary", "aria-label": "Back to the notes" }, "‹ Notes"),
        h("a", { href: `#/notes/${encodeURIComponent(note.id)}/back`, class: "button primary" }, "Flip to draw")),
      ...field("title", "Title", /** @type {HTMLInputElement} */ (h("input", { autocomplete: "off", placeholder: "Title" }))),
      ...field("date", "Date", /** @type {HTMLInputElement} */ (h("input", { type: "date" }))),
      ...field("text", "Note", /** @type {HTMLTextAreaElement} */ (h("textarea", { rows: 6 }))),
      ...(has(context, "categories") ? this.categoryField(field, note) : []),
      has(context, "plugin:geo") ? this.placeLine(note) : null,
      photo,
      has(context, "photo-text") ? h("div", { class: "photo-text" }) : null,
      h("div", { class: "row" }, picker(true), picker(false)),
      has(context, "audio") ? this.voiceBlock() : null,
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
    showPhotoText(this.querySelector(".photo-text"), note);
    followed.restoreDraft([`${KIND}/${this.noteId}`]);
    // "Edit and send again" on words the server refused: back in the fields, with its message (kept-refused.js).
    giveBackRefused(context.sync, followed, [`${KIND}/${this.currentId()}`, `${KIND}/${this.noteId}`], this.form.querySelector(".toolbar"));
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
      notePhoto(context, note, "display").then((url) => photo.replaceChildren(
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
    geotagOf(api, `notes/${note.id}`)
      .then((tag) => (tag ? api.get(`/api/v1/geo/place?lat=${tag.latitude}&lon=${tag.longitude}`) : null))
      .then((place) => { if (place) line.textContent = `📍 Written near ${place.label}`; })
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

  /** The reminder block drawn again (a kept reminder was sent). */
  refreshReminder() {
    const note = this.note();
    const shown = this.querySelector("fieldset.reminder");
    if (note && shown) shown.replaceWith(this.reminderBlock(note));
  }

  /** When to be reminded of this note: the time, set or moved or cleared (the server keeps the
   * schedule; every device of the user hears when it comes). @param {any} note */
  reminderBlock(note) {
    const context = /** @type {Context} */ (this.context);
    const subject = `notes/${context.sync.resolve(note.id)}`;
    const kept = keptReminder(subject);
    const current = kept ? (kept.at ? { at: kept.at } : undefined)
      : context.sync.view("reminders.reminder").find((r) => r.subject === subject && r.state === "pending");
    const input = /** @type {HTMLInputElement} */ (h("input", { id: "note-reminder", type: "datetime-local",
      value: current ? localDateTime(current.at) : "", "aria-describedby": "note-reminder-status" }));
    const status = h("p", { id: "note-reminder-status", class: "hint" },
      kept ? `${kept.at ? `You will be reminded ${when(kept.at)}` : "No reminder"}: kept on this phone, sent once it is online.`
        : current ? `You will be reminded ${when(current.at)}.` : "No reminder.");
    // A reminder kept offline goes once the phone is online (this block then shows the server's).
    const refresh = async () => {
      await context.sync.pull().catch(() => {});
      if (block.isConnected) block.replaceWith(this.reminderBlock(note));
    };
    watchKeptReminders(context.api, async () => {
      await context.sync.pull().catch(() => {});
      for (const open of document.querySelectorAll("note-editor")) /** @type {NoteEditor} */ (open).refreshReminder();
    });
    if (kept && navigator.onLine) sendKeptReminders(context.api).then((sent) => { if (sent) refresh(); });
    const send = async (/** @type {boolean} */ clear) => {
      const at = clear ? null : reminderInstant(input.value, Date.now());
      if (!clear && !at) {
        status.textContent = "Pick a time in the future.";
        input.focus();
        return;
      }
      // The note as it is now: made on this phone, its server id may have come since this was drawn.
      const id = context.sync.resolve((this.note() ?? note).id);
      if (id.startsWith("local:")) {
        status.textContent = "This note is not on the server yet: set its reminder once this phone is online.";
        return;
      }
      const subject = `notes/${id}`;
      try {
        forgetReminder(subject);
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
        // Offline: kept on this phone (reminder-kept.js) and sent once it is online.
        if (error instanceof ApiError && error.offline) {
          keepReminder({ subject, at, title: note.title || "Title" });
          const fresh = this.reminderBlock(note);
          block.replaceWith(fresh);
          announce(fresh.querySelector(".hint")?.textContent ?? "");
          return;
        }
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

  /**
   * Keeps what is being typed: it is queued first, and only the photo is drawn again. "Photo added."
   * is said once the server took it, never when it is only queued (a photo too big or not a photo is
   * refused after that): a refusal is said with the server's words, and a photo waiting for the
   * network is said to wait. @param {File} file
   */
  async attachPhoto(file) {
    this.followed?.flush();
    const note = this.note();
    if (!note) return;
    const sync = /** @type {Context} */ (this.context).sync;
    const key = await sync.write({ method: "PUT", path: `${NOTES}/${note.id}/photo`, body: file,
      contentType: file.type || "image/jpeg", kind: KIND, id: note.id, local: { pendingPhoto: file } });
    const settled = (/** @type {Event} */ event) => {
      const told = /** @type {CustomEvent} */ (event).detail;
      if (told?.key !== key) return;
      sync.removeEventListener("settled", settled);
      announce(told.done ? "Photo added." : `The photo was not added. ${told.message}`.trim());
    };
    sync.addEventListener("settled", settled);
    const now = this.note();
    if (now) this.renderPhoto(now);
    if (!navigator.onLine) announce("Photo kept on this phone: it is sent when the phone is online.");
  }

  /** The original, full screen, pinch-zoomable. The phone's Back closes it (an entry of its own in
   * the history) rather than leaving the note. @param {any} note */
  async zoom(note) {
    const url = await notePhoto(/** @type {Context} */ (this.context), note, "original");
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
