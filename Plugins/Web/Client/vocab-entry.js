// @ts-check
/**
 * One word of Foreign Note: its screen (definitions, tags, related words and alternatives as chips that
 * open them), the "Deleted · Undo" bar (kept across a reload while the server still keeps the word), and
 * the form that adds or edits a word (typing kept as a draft, fields following other devices).
 */
import { FollowedForm } from "./follow.js";
import { rememberSaved } from "./vocab-overwrites.js";
import { localId } from "./outbox.js";
import { announce, confirmAction, h } from "./ui.js";
import { readAloud } from "./speak.js";
import { pronunciation } from "./vocab-voice.js";
import * as Vocab from "./vocab.js";
import { tip } from "./vocab-help.js";
import { COLLECTION, ENTRY, TAG, TAG_HINT, V, VocabElement, askName, back, highlighted, tagName } from "./vocab-parts.js";

/** @typedef {import("./vocab-parts.js").Context} Context */

// One entry -----------------------------------------------------------------------------------------

export class EntryScreen extends VocabElement {
  render() {
    const entry = this.one(ENTRY, this.id_ ?? "");
    if (!entry) {
      this.replaceChildren(h("main", { class: "screen" }, back("#/", "Collections"), h("h1", {}, "Word"),
        h("p", { class: "empty" }, "This word is not there any more.")));
      return;
    }
    const collection = this.one(COLLECTION, entry.collection);
    const tagNames = new Map(this.tags().map((t) => [t.id, t.name]));
    /** @param {"related" | "alternative"} kind */
    const related = (kind) => (entry.relations ?? []).filter((r) => r.kind === kind).map((r) => this.one(ENTRY, r.entry)).filter(Boolean);
    /** @param {"related" | "alternative"} kind @param {string} title */
    const relations = (kind, title) => {
      const others = related(kind);
      return h("section", { class: "relations", "aria-label": title }, h("h2", {}, title),
        others.length ? h("ul", { class: "chips" }, ...others.map((other) => h("li", { class: "chip-pair" },
          h("a", { href: `#/e/${encodeURIComponent(other.id)}`, class: "chip link-chip" }, other.word),
          h("button", { type: "button", class: "chip-remove", "aria-label": `Remove ${other.word} from ${title.toLowerCase()}`,
            onclick: () => this.unrelate(entry, other.id) }, "×")))) : h("p", { class: "hint" }, "None yet."),
        h("button", { type: "button", class: "secondary", onclick: () => this.relate(entry, kind) }, kind === "related" ? "Add a related word" : "Add an alternative"));
    };
    this.replaceChildren(h("main", { class: "screen vocab entry" },
      h("div", { class: "toolbar" }, back(collection ? `#/c/${encodeURIComponent(collection.id)}` : "#/", collection?.name ?? "Collections"),
        h("a", { href: `#/edit/${encodeURIComponent(entry.id)}`, class: "button" }, "Edit")),
      h("h1", { lang: entry.languages?.[0] || undefined }, entry.word),
      // The word and its example in the entry's language (its first); the page's when it has none.
      readAloud(this.ctx, entry.word, entry.languages?.[0] || document.documentElement.lang || "en", "the word"),
      pronunciation(this.ctx, entry.id, () => this.one(ENTRY, entry.id)),
      entry.languages?.length ? h("p", { class: "hint" }, entry.languages.join(" · ")) : null,
      h("ol", { class: "definitions" }, ...(entry.definitions ?? []).map((d) => h("li", {}, d))),
      entry.example ? h("p", { class: "example" }, h("strong", {}, "Example: "), h("span", { lang: entry.languages?.[0] || undefined }, entry.example)) : null,
      entry.example ? readAloud(this.ctx, entry.example, entry.languages?.[0] || document.documentElement.lang || "en", "the example") : null,
      entry.note ? h("p", { class: "note" }, h("strong", {}, "Note: "), entry.note) : null,
      (entry.tags ?? []).length ? h("ul", { class: "chips", "aria-label": "Tags" }, ...entry.tags.map((id) => h("li", {},
        h("a", { class: "chip", href: `#/search?all=${encodeURIComponent(id)}` }, `#${tagNames.get(id) ?? "…"}`)))) : null,
      relations("related", "Related"),
      relations("alternative", "Alternatives"),
      h("button", { type: "button", class: "danger", onclick: () => this.remove_(entry) }, "Delete word")));
  }

  /** @param {import("./vocab.js").Entry} entry @param {"related" | "alternative"} kind */
  async relate(entry, kind) {
    const other = await pickEntry(this.entries().filter((e) => e.id !== entry.id), kind === "related" ? "Add a related word" : "Add an alternative");
    if (!other) return;
    const relations = [...(entry.relations ?? []).filter((r) => r.entry !== other.id), { kind, entry: other.id }];
    await this.ctx.sync.write({ method: "POST", path: `${V}/entries/${entry.id}/relations`, body: { kind, entry: other.id }, kind: ENTRY,
      id: entry.id, local: { relations } });
    announce(`${other.word} added.`);
  }

  /** @param {import("./vocab.js").Entry} entry @param {string} other */
  async unrelate(entry, other) {
    const relations = (entry.relations ?? []).filter((r) => r.entry !== other);
    await this.ctx.sync.write({ method: "DELETE", path: `${V}/entries/${entry.id}/relations/${other}`, kind: ENTRY, id: entry.id, local: { relations } });
  }

  /** @param {import("./vocab.js").Entry} entry */
  async remove_(entry) {
    if (!(await confirmAction(`Delete “${entry.word}”? You can undo it for a few minutes.`, "Delete"))) return;
    await this.ctx.sync.write({ method: "DELETE", path: `${V}/entries/${entry.id}`, kind: ENTRY, id: entry.id });
    undoBar(this.ctx, entry);
    this.ctx.go(`#/c/${encodeURIComponent(entry.collection)}`);
  }
}
customElements.define("vocab-entry", EntryScreen);

/** How long a deleted word may be brought back (the server keeps it longer). */
const UNDO_MS = 300_000;
/** Where the offer to undo a delete is kept (by account), so that a reload does not take it away. @param {Context} context */
const undoKey = (context) => `quire.vocab.undo.${context.api.session?.accountId ?? ""}`;

/**
 * "Deleted · Undo": the entry comes back (with its relations to entries that still exist) while the
 * server still keeps it; the bar goes when used, dismissed or when the window has passed. The
 * offer is kept in localStorage until then: a reload shows the bar again.
 * @param {Context} context @param {import("./vocab.js").Entry} entry @param {number} [until] when the offer ends (ms)
 */
function undoBar(context, entry, until = Date.now() + UNDO_MS) {
  document.querySelector(".undo-bar")?.remove();
  try {
    localStorage.setItem(undoKey(context), JSON.stringify({ entry, until }));
  } catch {
    // Storage full or refused: the bar is still shown now.
  }
  const close = () => {
    clearTimeout(timer);
    bar.remove();
    try {
      if (JSON.parse(localStorage.getItem(undoKey(context)) ?? "null")?.entry?.id === entry.id) localStorage.removeItem(undoKey(context));
    } catch {
      localStorage.removeItem(undoKey(context));
    }
  };
  const bar = h("div", { class: "undo-bar", role: "status" },
    // The space before "deleted" is a no-break one: the flex line would drop an ordinary one.
    h("span", { class: "undo-text" }, h("span", { class: "undo-word" }, `“${entry.word}”`), h("span", { class: "undo-rest" }, "\u00a0deleted")),
    h("button", { type: "button", onclick: async () => {
      close();
      const { relations, ...shown } = entry;
      await context.sync.write({ method: "POST", path: `${V}/entries/${entry.id}/restore`, kind: ENTRY, id: entry.id, local: { ...shown, relations } });
      announce(`${entry.word} is back.`);
    } }, "Undo"),
    h("button", { type: "button", class: "link", "aria-label": "Dismiss", onclick: close }, "×"));
  document.body.append(bar);
  const timer = window.setTimeout(close, Math.max(0, until - Date.now()));
}

/** The undo offer kept across a reload, shown again while it lasts. @param {Context} context */
export function keptUndo(context) {
  if (document.querySelector(".undo-bar")) return;
  /** @type {{entry: import("./vocab.js").Entry, until: number} | null} */
  let kept = null;
  try {
    kept = JSON.parse(localStorage.getItem(undoKey(context)) ?? "null");
  } catch {
    kept = null;
  }
  if (!kept?.entry?.id || typeof kept.until !== "number") return;
  if (kept.until <= Date.now()) localStorage.removeItem(undoKey(context));
  else undoBar(context, kept.entry, kept.until);
}

/**
 * A word picked from a searchable list, in a dialog; resolves null when cancelled.
 * @param {readonly import("./vocab.js").Entry[]} entries @param {string} title
 * @returns {Promise<import("./vocab.js").Entry | null>}
 */
function pickEntry(entries, title) {
  return new Promise((resolve) => {
    /** @type {import("./vocab.js").Entry | null} */
    let picked = null;
    const results = h("ul", { class: "pick-list", "aria-label": "Words found" });
    const input = /** @type {HTMLInputElement} */ (h("input", { type: "search", id: "pick-search", placeholder: "Type a word", autocomplete: "off" }));
    const show = () => results.replaceChildren(...Vocab.search(entries, input.value, { all: [], any: [], none: [] }, 20).map(({ entry, highlights }) => h("li", {},
      h("button", { type: "button", class: "secondary pick", onclick: () => { picked = entry; dialog.close(); } }, ...highlighted(entry.word, highlights.word)))));
    input.addEventListener("input", show);
    const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "confirm pick", "aria-labelledby": "pick-title" },
      h("h2", { id: "pick-title" }, title), h("label", { for: "pick-search", class: "visually-hidden" }, "Search words"), input, results,
      h("button", { type: "button", class: "secondary", onclick: () => dialog.close() }, "Cancel")));
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(picked);
    });
    document.body.append(dialog);
    dialog.showModal();
    show();
  });
}

// New and edit ------------------------------------------------------------------------------------

export class EntryForm extends VocabElement {
  /**
   * Its text fields: typing kept as a draft until Save (across a reload or the phone's Back), an
   * entry's following other devices (see FollowedForm).
   * @type {FollowedForm | null}
   */
  followed = null;

  /** Whether the form was drawn for a word not there, from the changes typed for it (render). */
  drawnGone = false;

  /** The form is not drawn again while the person types; a new tag shows in the chips; the entry's
   * fields follow other devices except the one being typed in. */
  changed() {
    if (!this.querySelector("form")) return this.render();
    this.redrawTags?.();
    this.redrawCollections?.();
    if (this.route !== "edit") return;
    const entry = this.one(ENTRY, this.id_ ?? "");
    if (!entry) return this.gone?.();
    // Drawn from what this phone kept, the word not there (yet): drawn again from the word itself.
    if (this.drawnGone) return this.render();
    this.restored?.();
    this.followed?.follow(entry);
    this.followTags?.(entry);
    this.draftStale?.();
  }

  disconnectedCallback() {
    this.followed?.dispose();
    super.disconnectedCallback();
  }

  render() {
    const editing = this.route === "edit";
    const entry = editing ? this.one(ENTRY, this.id_ ?? "") : null;
    // Deleted on another device while changes typed here waited unsaved (the tab closed meanwhile):
    // the form again, with the word as this phone last showed it and what was typed, to add again.
    const keys = [`${ENTRY}/${this.id_}`, `${ENTRY}/${this.ctx.sync.resolve(this.id_ ?? "")}`];
    const typedFor = editing && !entry && keys.some((key) => localStorage.getItem(`quire.draft.${key}`));
    if (editing && !entry && !typedFor) {
      this.replaceChildren(h("main", { class: "screen" }, back("#/", "Collections"), h("p", { class: "empty" }, "This word is not there any more.")));
      return;
    }
    this.drawnGone = Boolean(typedFor);
    const seenKey = `quire.draft.${ENTRY}.seen/${this.ctx.sync.resolve(this.id_ ?? "")}`;
    /** @type {any} */
    let seen = null;
    try {
      seen = typedFor ? JSON.parse(localStorage.getItem(seenKey) ?? "null") : null;
    } catch {
      seen = null;
    }
    const collectionId = entry?.collection ?? (editing ? seen?.collection ?? this.collections()[0]?.id ?? "" : this.id_ ?? "");
    const error = h("p", { class: "error", role: "alert", id: "entry-error" });
    const field = (/** @type {string} */ id, /** @type {string} */ label, /** @type {HTMLElement} */ input, /** @type {string} */ hint = "") =>
      [h("label", { for: id }, label), hint ? h("p", { class: "hint", id: `${id}-hint` }, hint) : null, input];
    this.followed?.dispose();
    // An entry's draft by its id; a new word's by its collection (one new word a collection).
    const followed = new FollowedForm({ sync: this.ctx.sync, manual: true,
      record: () => (editing ? this.one(ENTRY, this.id_ ?? "") ?? seen ?? undefined : undefined),
      key: () => (editing ? `${ENTRY}/${this.ctx.sync.resolve(this.id_ ?? "")}` : `vocabulary.new/${this.ctx.sync.resolve(collectionId)}`) });
    this.followed = followed;
    const word = /** @type {HTMLInputElement} */ (h("input", { id: "entry-word", required: true, maxlength: "200",
      autocapitalize: "none", autocomplete: "off" }));
    const definitions = /** @type {HTMLTextAreaElement} */ (h("textarea", { id: "entry-definitions", rows: "3", required: true, "aria-describedby": "entry-definitions-hint" }));
    const languages = /** @type {HTMLInputElement} */ (h("input", { id: "entry-languages", placeholder: "fr, en", autocapitalize: "none",
      "aria-describedby": "entry-languages-hint" }));
    const example = /** @type {HTMLTextAreaElement} */ (h("textarea", { id: "entry-example", rows: "2" }));
    const note = /** @type {HTMLTextAreaElement} */ (h("textarea", { id: "entry-note", rows: "2" }));
    followed.field("word", word);
    followed.field("definitions", definitions, { value: (record) => (record.definitions ?? []).join("\n") });
    followed.field("languages", languages, { value: (record) => (record.languages ?? []).join(", ") });
    followed.field("example", example);
    followed.field("note", note);
    const chosen = new Set(entry?.tags ?? seen?.tags ?? []);
    // The word's tags as last seen: another device's additions and removals since are applied to
    // the chips (what this phone added or took off stays so), and again at Save against the
    // newest copy, so a tag added on each device is kept on both, never only the last save's.
    let seenTags = new Set(entry?.tags ?? []);
    /** @param {import("./vocab.js").Entry} now */
    const mergeTags = (now) => {
      current();
      const latest = new Set((now.tags ?? []).map((id) => this.ctx.sync.resolved.get(id) ?? id));
      const seen = new Set([...seenTags].map((id) => this.ctx.sync.resolved.get(id) ?? id));
      let moved = false;
      for (const id of latest) if (!seen.has(id) && !chosen.has(id)) { chosen.add(id); moved = true; }
      for (const id of seen) if (!latest.has(id) && chosen.has(id)) { chosen.delete(id); moved = true; }
      seenTags = latest;
      return moved;
    };
    this.followTags = (/** @type {import("./vocab.js").Entry} */ now) => { if (mergeTags(now)) drawChips(); };
    const tagArea = h("div", { class: "tag-picker" });
    let drawn = "";
    // A tag made here has a local id until the server answers: chosen by whichever id it has now.
    const current = () => {
      for (const id of [...chosen]) {
        const real = this.ctx.sync.resolved.get(id);
        if (real) { chosen.delete(id); chosen.add(real); }
      }
    };
    /** Drawn again when the tags change (one made here is answered, one made elsewhere arrives), not on every sync. */
    this.redrawTags = () => {
      current();
      if (this.tags().map((t) => `${t.id} ${t.name}`).join("\n") !== drawn) drawTags();
    };
    const drawTags = () => {
      current();
      drawn = this.tags().map((t) => `${t.id} ${t.name}`).join("\n");
      drawChips();
    };
    const drawChips = () => tagArea.replaceChildren(
      h("ul", { class: "chips", "aria-label": "Tags" }, ...this.tags().map((tag) => h("li", {},
        h("button", { type: "button", class: `chip${chosen.has(tag.id) ? " on" : ""}`, "aria-pressed": String(chosen.has(tag.id)),
          onclick: () => { chosen.has(tag.id) ? chosen.delete(tag.id) : chosen.add(tag.id); drawTags(); } }, `#${tag.name}`)))),
      h("button", { type: "button", class: "secondary", onclick: async () => {
        const typed = await askName("New tag", "Name", "", (name) => Vocab.fold(name) ? null : "A tag name needs at least one letter or digit.", TAG_HINT);
        if (!typed) return;
        const name = tagName(typed);
        // A tag of that name already: chosen, not made again (the server would refuse it, and the word's save with it).
        const existing = this.tags().find((tag) => Vocab.fold(tag.name) === Vocab.fold(name));
        if (existing) {
          chosen.add(existing.id);
        } else {
          // Chosen before the phone has kept it (IndexedDB can take a second on a busy phone): a Save
          // tapped meanwhile saved the word without its new tag. The write shows the tag at once.
          const id = localId();
          chosen.add(id);
          void this.ctx.sync.write({ method: "POST", path: `${V}/tags`, body: { name }, kind: TAG, id });
        }
        drawTags();
      } }, "New tag"));
    drawTags();
    const collection = /** @type {HTMLSelectElement} */ (h("select", { id: "entry-collection" }));
    // Drawn again when the collections change (the word's own may reach this phone after the word:
    // drawn without it, Save said "Choose a collection" for a word that had one), keeping the choice.
    let drawnCollections = "";
    this.redrawCollections = () => {
      const collections = this.collections();
      const now = collections.map((c) => `${c.id} ${c.name}`).join("\n");
      if (now === drawnCollections) return;
      const chosen = this.ctx.sync.resolve(drawnCollections ? collection.value : collectionId);
      drawnCollections = now;
      collection.replaceChildren(...collections.map((c) => h("option", { value: c.id, selected: this.ctx.sync.resolve(c.id) === chosen }, c.name)));
    };
    this.redrawCollections();
    const leave = entry ? `#/e/${encodeURIComponent(entry.id)}` : `#/c/${encodeURIComponent(collectionId)}`;
    const cancel = back(leave, "Cancel");
    // Cancel throws the typing away, once the person says so; the phone's Back keeps it for next time.
    const tagsAtStart = [...chosen].sort().join(" ");
    cancel.addEventListener("click", async (event) => {
      if (followed.dirty || [...chosen].sort().join(" ") !== tagsAtStart) {
        event.preventDefault();
        if (!(await confirmAction(editing ? "Discard your changes to this word?" : "Discard this word?", "Discard", "Keep editing"))) return;
        followed.discard();
        localStorage.removeItem(seenKey);
        this.ctx.go(leave);
        return;
      }
      followed.discard();
      localStorage.removeItem(seenKey);
    });
    const draftLine = h("div", { class: "replaced-line", id: "entry-draft", role: "status" },
      h("p", {}, editing ? "Your changes not saved yet are back." : "The word you were adding is back, not saved yet."),
      h("button", { type: "button", class: "secondary", onclick: () => {
        followed.discard();
        localStorage.removeItem(seenKey);
        this.render();
        announce(editing ? "Changes thrown away." : "Word thrown away.");
      } }, editing ? "Throw my changes away" : "Throw it away"));
    // The word deleted on another device while it is edited here: said at once, plainly, and what
    // was typed stays in the fields, to add again as a new word (Save does the same).
    let deleted = false;
    /** @type {HTMLFormElement} */
    let form;
    const goneLine = h("div", { class: "notice gone", role: "alert", id: "entry-gone" },
      h("p", {}, "This word was deleted on another device. What you typed is still here: add it again to keep it."),
      h("button", { type: "button", class: "secondary", onclick: () => form.requestSubmit() }, "Add it again as a new word"));
    this.gone = () => {
      if (deleted) return;
      clearTimeout(this.goneCheck);
      // A word's local id giving way to the server's is not a deletion: looked at again a moment later.
      this.goneCheck = setTimeout(() => {
        if (deleted || !this.isConnected || this.one(ENTRY, this.id_ ?? "")) return;
        deleted = true;
        this.ctx.sync.claimKept(`${ENTRY}/${this.id_ ?? ""}`);
        draftLine.remove();
        this.querySelector(".toolbar")?.after(goneLine);
        const save = /** @type {HTMLButtonElement | null} */ (this.querySelector("form button[type=submit]"));
        if (save) save.textContent = "Add it again as a new word";
        announce("This word was deleted on another device.");
      }, 300);
    };
    // The word back (its deletion undone on the other device): no longer "deleted", and Save puts
    // what was typed here on it again, not on a second copy.
    this.restored = () => {
      clearTimeout(this.goneCheck);
      if (!deleted) return;
      deleted = false;
      goneLine.remove();
      const save = /** @type {HTMLButtonElement | null} */ (this.querySelector("form button[type=submit]"));
      if (save) save.textContent = "Save";
      announce("This word is back: its deletion was undone on another device. Save keeps your changes on it.");
    };
    // "Your changes … are back" goes once none is left: another device changed every field it
    // brought back (each says so under it, with "Bring back mine").
    this.draftStale = () => { if (draftLine.isConnected && !Object.keys(followed.pending).length) draftLine.remove(); };
    this.replaceChildren(h("main", { class: "screen vocab" },
      h("div", { class: "toolbar" }, cancel, h("h1", {}, editing ? "Edit word" : "New word")),
      form = /** @type {HTMLFormElement} */ (h("form", { class: "stack", novalidate: true, "aria-describedby": "entry-error", onsubmit: async (/** @type {Event} */ event) => {
        event.preventDefault();
        const latest = entry ? this.one(ENTRY, entry.id) : undefined;
        if (entry && !latest && !deleted) {
          this.gone?.();
          return;
        }
        if (latest) mergeTags(latest);
        const body = {
          word: word.value.trim(), definitions: Vocab.definitionsOf(definitions.value), languages: Vocab.languagesOf(languages.value),
          example: example.value.trim() || null, note: note.value.trim() || null, tags: [...chosen].map((id) => this.ctx.sync.resolved.get(id) ?? id),
          collection: collection.value,
        };
        if (!body.word) return this.refuse(error, word, "The word is required: type the word or phrase.");
        if (!body.definitions.length) return this.refuse(error, definitions, "A definition is required: type at least one (one a line).");
        if (!body.collection) return this.refuse(error, collection, "Choose a collection, or make one first.");
        if (entry && !deleted) {
          // Based on the version each field showed: the server merges it into another device's
          // newer edit and answers what it replaced (said, with "Bring it back").
          const now = latest ?? entry;
          // What this saves is followed: another device replacing it later is said here too.
          rememberSaved(this.ctx.sync, now.id, now, body);
          await this.ctx.sync.write({ method: "PATCH", path: `${V}/entries/${now.id}`, body, kind: ENTRY, id: now.id, baseVersion: followed.baseVersion() });
          followed.discard();
          localStorage.removeItem(seenKey);
          this.ctx.go(`#/e/${encodeURIComponent(now.id)}`);
        } else {
          const id = localId();
          // A collection made just before: its create may have been answered since the form was
          // drawn, and its local id (the option's value) resolved to the server's.
          const chosen = this.ctx.sync.resolve(body.collection);
          if (!this.collections().some((c) => this.ctx.sync.resolve(c.id) === chosen)) {
            return this.refuse(error, collection, "That collection was deleted too: choose another one to add the word to.");
          }
          // Added again from this screen: what the sync layer kept of the edit goes (kept.js).
          if (deleted) await this.ctx.sync.answerKept(`${ENTRY}/${this.id_ ?? ""}`);
          await this.ctx.sync.write({ method: "POST", path: `${V}/entries`, body, kind: ENTRY, id });
          followed.discard();
          localStorage.removeItem(seenKey);
          announce(deleted ? `${body.word} added again.` : `${body.word} added.`);
          this.ctx.go(`#/e/${encodeURIComponent(id)}`);
        }
      } },
      ...field("entry-word", "Word or phrase", word),
      ...field("entry-definitions", "Definitions", definitions, "One a line."),
      ...field("entry-languages", "Languages", languages, "Codes such as fr, en, de-CH."),
      ...field("entry-example", "Example", example),
      ...field("entry-note", "Note", note),
      h("span", { class: "label" }, "Tags"), tagArea,
      ...field("entry-collection", "Collection", collection),
      error,
      h("button", { type: "submit" }, "Save"))), tip(this, ["tags"])));
    // Typing a reload or the phone's Back interrupted: back in the fields, said, with a way to throw it away.
    // Words the server refused, given back by "Edit and send again" as this form's draft, with why (kept-refused-kinds.js).
    let refused = null;
    try {
      refused = JSON.parse(localStorage.getItem(followed.draftKey()) ?? "null")?.refused ?? null;
    } catch {
      refused = null;
    }
    if (followed.restoreDraft(editing ? [`${ENTRY}/${this.id_}`] : [`vocabulary.new/${collectionId}`])) this.querySelector(".toolbar")?.after(draftLine);
    if (typeof refused === "string") {
      error.textContent = `Not saved: ${refused} Change it, then Save.`;
      // Said at the top too, where the form opens: the changes back are the ones refused.
      const said = draftLine.querySelector("p");
      if (said) said.textContent = `Not saved: ${refused} Your changes are back: change them, then Save.`;
    }
    if (!editing) requestAnimationFrame(() => word.focus());
    // The word as shown when typing began, for the case above (its fields not typed in are blank otherwise).
    if (entry) form.addEventListener("input", () => {
      try {
        if (!localStorage.getItem(seenKey)) localStorage.setItem(seenKey, JSON.stringify(entry));
      } catch {
        // Storage full: the typing itself is still kept.
      }
    });
    if (typedFor) this.gone?.();
  }

  /** @param {HTMLElement} error @param {HTMLElement} input @param {string} text */
  refuse(error, input, text) {
    error.textContent = text;
    input.setAttribute("aria-invalid", "true");
    input.focus();
  }
}
customElements.define("vocab-entry-form", EntryForm);
