// @ts-check
/**
 * A form over one synced record that never loses or hides what a person did, shared by every
 * screen that edits a record's text fields (a note, a photo's notes, a word).
 *
 * - Typing is queued after a pause (or at once on `flush()`), and kept meanwhile as a draft in
 *   `localStorage`, queued on `pagehide`: a reload in the middle of a word keeps it.
 * - The form follows the record as other devices change it, except the fields being typed in.
 * - An edit is sent with the version each of its fields showed (If-Match), so the server merges
 *   it into newer changes and answers what it `replaced` (the app says so, with "Bring it back").
 * - A field this phone typed in that another device then changed says so under the field,
 *   quoting what this phone had, with "Bring back mine"; also after the form was left and opened
 *   again, or the app reloaded (what this phone sent is remembered for a while: wrote.js).
 * - `manual`: a form with a Save button (a word's edit, a new word) keeps its typing as a draft
 *   only, across a reload or the phone's Back, and sends nothing itself: Save sends the form with
 *   `baseVersion()`, then `discard()`s the draft. A field typed in and not saved follows another
 *   device's change once it is not being typed in (focused), saying so, with "Bring back mine".
 */
import { announce, h, PHONE } from "./ui.js";
import { forgetOldWrote, forgetWrote, rememberWrote, wroteText } from "./wrote.js";

/**
 * @typedef {object} FieldOptions
 * @property {(record: any) => string} [value]   the field's text as its input shows it (default: `record[name]` as a string)
 * @property {(text: string) => any} [parse]      what to send for the input's text (default: the text; undefined: not
 *   sent, as a time half cleared)
 */

/**
 * @typedef {object} FollowOptions
 * @property {import("./sync.js").Sync} sync
 * @property {() => any} record   the record as the device shows it now (undefined when gone, or not made yet)
 * @property {() => string} key   `kind/id` of the record, as the server knows it once it does (a new one's form: any name)
 * @property {(body: Record<string, any>, baseVersion: number | undefined) => Promise<unknown>} [send]  queues the edit (not with `manual`)
 * @property {number} [pause]    milliseconds of no typing before an edit is queued (500)
 * @property {boolean} [manual]  typing is kept as a draft only; the screen's Save sends it
 */

export class FollowedForm {
  /** @param {FollowOptions} options */
  constructor(options) {
    this.options = options;
    /** @type {Map<string, {input: HTMLInputElement | HTMLTextAreaElement, value: (record: any) => string, parse: (text: string) => any}>} */
    this.fields = new Map();
    /** What was typed and not yet queued, by field. @type {Record<string, any>} */
    this.pending = {};
    /** The record's version each field's text came from. @type {Record<string, number>} */
    this.base = {};
    /** Fields this phone typed in since they last followed another device. @type {Set<string>} */
    this.typed = new Set();
    /** The record's text each field last showed (a change of it is another device's). @type {Record<string, string>} */
    this.shown = {};
    this.timer = 0;
    /** The key "still typing" was said under. @type {string | null} */
    this.openDraft = null;
    /** Fields given back words the server refused (kept-refused.js): shown, not followed, not sent until typed in. @type {Set<string>} */
    this.refilled = new Set();
    this.onHide = () => this.flush();
    forgetOldWrote();
    window.addEventListener("pagehide", this.onHide);
    // Asked by the app before signing out: what is typed goes to the outbox now.
    window.addEventListener("quire:flush", this.onHide);
  }

  /** Stops listening; what is typed is queued first. */
  dispose() {
    this.flush();
    window.removeEventListener("pagehide", this.onHide);
    window.removeEventListener("quire:flush", this.onHide);
  }

  /**
   * Takes an input as the editor of one field of the record, filled from it.
   * @param {string} name @param {HTMLInputElement | HTMLTextAreaElement} input @param {FieldOptions} [options]
   */
  field(name, input, options = {}) {
    const value = options.value ?? ((/** @type {any} */ record) => String(record?.[name] ?? ""));
    const parse = options.parse ?? ((/** @type {string} */ text) => text);
    this.fields.set(name, { input, value, parse });
    const record = this.options.record();
    if (record) {
      input.value = value(record);
      this.shown[name] = input.value;
      this.base[name] = record.version;
    }
    input.addEventListener("input", () => this.edit(name));
    return input;
  }

  /** Where typing not yet queued is kept. */
  draftKey() {
    return `quire.draft.${this.options.key()}`;
  }

  /** Whether anything typed waits for the pause. */
  get dirty() {
    return Object.keys(this.pending).length > 0;
  }

  /** Words the server refused, back in field `name`: held there, sent once typed in. @param {string} name @param {string} text */
  refill(name, text) {
    const field = this.fields.get(name);
    if (!field) return;
    field.input.value = text;
    this.refilled.add(name);
  }

  /** The words given back are let go: the fields show the record again. */
  unfill() {
    this.refilled.clear();
    this.follow(this.options.record());
  }

  /** A field was typed in. @param {string} name */
  edit(name) {
    const field = this.fields.get(name);
    if (!field) return;
    this.refilled.delete(name);
    localStorage.removeItem(this.mineKey(name));
    const parsed = field.parse(field.input.value);
    if (parsed === undefined) delete this.pending[name];
    else this.pending[name] = parsed;
    this.typed.add(name);
    field.input.parentElement?.querySelector(`[data-replaced="${name}"]`)?.remove();
    this.keepDraft();
    if (this.options.manual) return;
    if (this.openDraft === null) {
      this.openDraft = this.options.key();
      this.options.sync.draft(this.openDraft, true);
    }
    clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.flush(), this.options.pause ?? 500);
  }

  /** What is typed and not yet queued (or saved), kept where a reload finds it. */
  keepDraft() {
    try {
      if (this.options.manual && !this.dirty) localStorage.removeItem(this.draftKey());
      else localStorage.setItem(this.draftKey(), JSON.stringify(this.texts()));
    } catch {
      // Storage full or refused: the edit is still queued after the pause.
    }
  }

  /** The typed texts waiting, by field (what a draft keeps). */
  texts() {
    /** @type {Record<string, string>} */
    const texts = {};
    for (const name of Object.keys(this.pending)) {
      const field = this.fields.get(name);
      if (field) texts[name] = field.input.value;
    }
    return texts;
  }

  /** Queues what was typed, based on the version each field showed; the draft goes once the
   * outbox holds it. */
  flush() {
    if (this.options.manual) return; // kept as a draft until the screen's Save
    clearTimeout(this.timer);
    const body = this.pending;
    this.pending = {};
    const record = this.options.record();
    const draftKey = this.draftKey();
    if (Object.keys(body).length && record) {
      for (const name of Object.keys(body)) {
        const field = this.fields.get(name);
        if (field) rememberWrote(this.options.key(), name, field.input.value);
      }
      const sent = this.options.send?.(body, this.baseVersion(Object.keys(body))) ?? Promise.resolve();
      sent.then(() => { if (!this.dirty) localStorage.removeItem(draftKey); }, () => {});
    } else if (!Object.keys(body).length) {
      localStorage.removeItem(draftKey);
    }
    this.closeDraft();
  }

  /** Ends "still typing", under the key it was said with: the record may have been given its
   * server id meanwhile (created offline, answered within the pause). */
  closeDraft() {
    if (this.openDraft !== null) this.options.sync.draft(this.openDraft, false);
    this.openDraft = null;
  }

  /**
   * The version an edit of these fields is based on: the oldest any of them showed (the server
   * merges the edit into what changed since, and answers what it replaced).
   * @param {string[]} [names] the fields sent (default: all)
   */
  baseVersion(names = [...this.fields.keys()]) {
    const record = this.options.record();
    if (!record) return undefined;
    const bases = names.map((name) => this.base[name] ?? record.version);
    return Math.min(record.version, ...bases) || undefined;
  }

  /** Typing a reload interrupted before it was queued: back in the fields, and queued now (with
   * `manual`, kept for the screen's Save). Answers whether there was any.
   * @param {string[]} [otherKeys] drafts kept under other names for this record (its local id) */
  restoreDraft(otherKeys = []) {
    for (const key of new Set([...otherKeys.map((k) => `quire.draft.${k}`), this.draftKey()])) {
      /** @type {Record<string, string> | null} */
      let draft = null;
      try {
        draft = JSON.parse(localStorage.getItem(key) ?? "null");
      } catch {
        draft = null;
      }
      localStorage.removeItem(key);
      if (!draft || typeof draft !== "object") continue;
      for (const [name, text] of Object.entries(draft)) {
        const field = this.fields.get(name);
        if (!field || typeof text !== "string") continue;
        field.input.value = text;
        this.edit(name);
      }
    }
    const restored = this.dirty;
    if (restored) this.flush();
    // "Yours was …" offers not yet answered, kept across reloads like the typing itself.
    for (const [name, field] of this.fields) {
      const mine = localStorage.getItem(this.mineKey(name));
      if (mine !== null && mine !== field.input.value) this.sayReplaced(name, mine);
      else if (mine !== null) localStorage.removeItem(this.mineKey(name));
      // Sent from here, then replaced on another device while this form was not open.
      const wrote = mine === null && !(name in this.pending) ? this.wrote(name) : null;
      if (wrote !== null && !keeps(field.input.value, wrote)) this.sayReplaced(name, wrote);
    }
    return restored;
  }

  /** The text this phone last sent of field `name`, if it remembers it (wrote.js). @param {string} name */
  wrote(name) {
    return wroteText(this.options.key(), name);
  }

  /** Where a field's replaced text is kept until the user brings it back or types on (forgotten at sign-out, as every PHONE key). @param {string} name */
  mineKey(name) {
    return `${PHONE}mine.${this.options.key()}.${name}`;
  }

  /** Forgets what is typed (the record is being deleted). */
  discard() {
    clearTimeout(this.timer);
    this.pending = {};
    localStorage.removeItem(this.draftKey());
    this.closeDraft();
  }

  /**
   * Shows the record as it is now: every field but those being typed in. A field this phone had
   * typed in that another device changed says so.
   * @param {any} record
   */
  follow(record) {
    if (!record) return;
    for (const [name, field] of this.fields) {
      const { input } = field;
      const value = field.value(record);
      // Kept as typed: a field whose typing waits for the pause (with `manual`: while focused, or
      // while no other device changed it).
      const held = this.refilled.has(name) || (name in this.pending
        && (!this.options.manual || document.activeElement === input || value === this.shown[name]));
      if (input.value === value) {
        this.base[name] = record.version;
        this.shown[name] = value;
      } else if (!held) {
        this.shown[name] = value;
        const mine = input.value;
        const caret = document.activeElement === input && input.type !== "date" ? input.selectionStart : null;
        input.value = value;
        if (caret !== null) input.setSelectionRange(Math.min(caret, value.length), Math.min(caret, value.length));
        this.base[name] = record.version;
        if (name in this.pending) {
          // `manual`: typed and not saved; what was typed is quoted below, with the way back.
          delete this.pending[name];
          this.keepDraft();
        }
        // Said only when something of this phone's was replaced: another device's text that keeps
        // this phone's (its lines, in order, as last saved here) replaced nothing of it. What this
        // phone sent before the form was opened again counts too (walk9: not told after leaving).
        const wrote = this.typed.delete(name) ? mine : this.wrote(name);
        if (wrote !== null && !keeps(value, wrote)) this.sayReplaced(name, wrote);
      }
    }
  }

  /** @param {string} name @param {string} mine */
  sayReplaced(name, mine) {
    const field = this.fields.get(name);
    if (!field) return;
    const { input } = field;
    input.parentElement?.querySelector(`[data-replaced="${name}"]`)?.remove();
    forgetWrote(this.options.key(), name);
    try {
      localStorage.setItem(this.mineKey(name), mine);
    } catch {
      // Storage full or refused: the offer is still shown now.
    }
    const shown = mine.length > 120 ? `${mine.slice(0, 119)}…` : mine;
    const line = h("div", { id: `${input.id || name}-replaced`, "data-replaced": name, class: "replaced-line", role: "status" },
      h("p", {}, `Changed on another device. Yours was “${shown || "(empty)"}”.`),
      h("button", { type: "button", class: "secondary", onclick: () => {
        line.remove();
        input.value = mine;
        this.edit(name);
        this.flush();
        announce("Your text is back.");
      } }, "Bring back mine"),
      // Or theirs is fine: the offer goes, here and after a reload (walk10: it stayed for good).
      h("button", { type: "button", class: "secondary", onclick: () => {
        line.remove();
        localStorage.removeItem(this.mineKey(name));
        announce("Kept as it is.");
      } }, "Keep theirs"));
    input.after(line);
  }
}

/**
 * Whether `now` still holds all of `mine`: the whole of it, or its lines in their order (another
 * device added words or lines around them). An emptied field is not kept by a filled one.
 * @param {string} now @param {string} mine
 */
export function keeps(now, mine) {
  if (mine === "") return now === "";
  if (now.includes(mine)) return true;
  const lines = now.split("\n");
  let at = 0;
  for (const line of mine.split("\n")) {
    const found = lines.indexOf(line, at);
    if (found < 0) return false;
    at = found + 1;
  }
  return true;
}

