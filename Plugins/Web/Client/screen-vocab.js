// @ts-check
/**
 * Foreign Note, as its use cases describe: collections (a required name, rename, delete with
 * confirmation), entries (word, definitions, languages, note, example, tags, related and
 * alternative entries as chips that open them), tags; a deleted entry comes back from the
 * "Deleted · Undo" bar within the server's window; search as you type over everything, with the
 * server's highlights online and the device's copy offline (`vocab.js`); import a CSV or an Anki
 * package with progress; export either as a download; review the words that are due (FSRS-6 on
 * the server; offline, the device's copy of the cards, the ratings queued like any write).
 */
import { ApiError } from "./api.js";
import { FollowedForm } from "./follow.js";
import { localId } from "./outbox.js";
import { announce, confirmAction, h } from "./ui.js";
import * as Vocab from "./vocab.js";

const V = "/api/v1/vocabulary";
const COLLECTION = "vocabulary.collection";
const ENTRY = "vocabulary.entry";
const TAG = "vocabulary.tag";
const CARD = "vocabulary.card";
const REVIEW = "vocabulary.review";

/** @typedef {{api: import("./api.js").Api, sync: import("./sync.js").Sync, go: (hash: string) => void}} Context */
/** @typedef {{id: string, name: string, version: number, pending?: boolean}} Named */

/**
 * The screen for a route: `parts` is the path after `#/`, `query` what follows `?`.
 * @param {Context} context @param {string[]} parts @param {string} query @returns {HTMLElement}
 */
export function vocabScreen(context, parts, query) {
  const [first, id] = parts;
  /** @type {VocabElement} */
  let screen;
  if (first === "c" && id) screen = new CollectionScreen();
  else if (first === "e" && id) screen = new EntryScreen();
  else if (first === "new" && id) screen = new EntryForm();
  else if (first === "edit" && id) screen = new EntryForm();
  else if (first === "search") screen = new SearchScreen();
  else if (first === "tags") screen = new TagsScreen();
  else if (first === "files") screen = new FilesScreen();
  else if (first === "review") screen = new ReviewScreen();
  else screen = new CollectionsScreen();
  screen.attach(context, first ?? "", id ?? "", new URLSearchParams(query));
  keptUndo(context);
  return screen;
}

class VocabElement extends HTMLElement {
  /** @param {Context} context @param {string} route @param {string} id @param {URLSearchParams} query */
  attach(context, route, id, query) {
    this.context = context;
    this.route = route;
    this.id_ = id;
    this.query = query;
    this.rerender = () => this.changed();
    context.sync.addEventListener("change", this.rerender);
    this.render();
  }

  disconnectedCallback() {
    if (this.rerender) this.context?.sync.removeEventListener("change", this.rerender);
  }

  changed() {
    this.render();
  }

  render() {}

  get ctx() {
    return /** @type {Context} */ (this.context);
  }

  /** Collections in the server's order (folded name, then id). @returns {Named[]} */
  collections() {
    return Vocab.byName(this.ctx.sync.view(COLLECTION));
  }

  /** Tags in the server's order (folded name, then id). @returns {Named[]} */
  tags() {
    return Vocab.byName(this.ctx.sync.view(TAG));
  }

  /** @returns {readonly import("./vocab.js").Entry[]} */
  entries() {
    return this.ctx.sync.view(ENTRY);
  }

  /** A record by id, following a local id to the server's once it has one. @param {string} kind @param {string} id */
  one(kind, id) {
    return this.ctx.sync.one(kind, this.ctx.sync.resolved.get(id) ?? id);
  }
}

/** A link back; a long name is cut short with an ellipsis (the page never gets wider than the phone). @param {string} hash @param {string} label */
function back(hash, label) {
  return h("a", { href: hash, class: "button secondary back" }, "‹ ", h("span", { class: "back-label" }, label));
}

/**
 * A collection's or a tag's name, in a dialog that stays open, the reason beside the field, while
 * `check` finds something wrong with the name (a duplicate, no letter); resolves the trimmed
 * name, or null when cancelled.
 * @param {string} title @param {string} label @param {string} [value] @param {(name: string) => string | null} [check]
 * @param {string} [hint]
 * @returns {Promise<string | null>}
 */
function askName(title, label, value = "", check = () => null, hint = "") {
  return new Promise((resolve) => {
    const id = "name-input";
    const input = /** @type {HTMLInputElement} */ (h("input", { id, value, maxlength: "100", autocomplete: "off", autocapitalize: "none",
      "aria-describedby": hint ? `${id}-hint ${id}-error` : `${id}-error` }));
    const error = h("p", { class: "error", role: "alert", id: `${id}-error` });
    input.addEventListener("input", () => { input.removeAttribute("aria-invalid"); error.textContent = ""; });
    const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "confirm name-dialog", "aria-labelledby": `${id}-title` },
      h("form", { class: "stack", method: "dialog", novalidate: true, onsubmit: (/** @type {SubmitEvent} */ event) => {
        if (event.submitter?.getAttribute("value") === "cancel") return;
        const name = input.value.trim();
        const problem = name ? check(name) : "A name is required: type one, or tap Cancel.";
        if (!problem) return;
        event.preventDefault();
        error.textContent = problem;
        input.setAttribute("aria-invalid", "true");
        input.focus();
        error.scrollIntoView({ block: "nearest" });
      } },
      h("h2", { id: `${id}-title` }, title),
      h("label", { for: id }, label), hint ? h("p", { class: "hint", id: `${id}-hint` }, hint) : null, input, error,
      h("div", { class: "row" },
        h("button", { type: "submit", value: "cancel", class: "secondary" }, "Cancel"),
        h("button", { type: "submit", value: "ok" }, "Save")))));
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue === "ok" ? input.value.trim() : null);
    });
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
  });
}

/**
 * Why a name cannot be a collection's or tag's, as the server would refuse it: no letter or digit,
 * or one of `others` has it already (names compared folded: *Frénch* = *FRENCH*).
 * @param {string} name @param {readonly Named[]} others @param {string} what "collection" or "tag"
 */
function nameProblem(name, others, what) {
  const key = Vocab.fold(name);
  if (!key) return `A ${what} name needs at least one letter or digit.`;
  const clash = others.find((other) => Vocab.fold(other.name) === key);
  return clash ? `You already have a ${what} named “${clash.name}”; choose another name.` : null;
}

/** A tag is one word, as in Anki: "formal greeting" becomes "formal_greeting". @param {string} name */
function tagName(name) {
  return name.trim().split(/\s+/u).join("_");
}

const TAG_HINT = "One word: spaces become _ (formal greeting → formal_greeting).";

/** @param {string} text @param {Array<[number, number]>} [marked] */
function highlighted(text, marked) {
  return Vocab.pieces(text, marked).map(([piece, on]) => (on ? h("mark", {}, piece) : piece));
}

/**
 * The search box every list screen starts with; typing opens the search screen. On a
 * collection's screen it searches that collection (`within`).
 * @param {string} [value] @param {Named} [within]
 */
function searchBox(value = "", within) {
  // Typing goes on while the search screen opens: what the box holds now beats the address.
  const typing = document.activeElement instanceof HTMLInputElement && document.activeElement.id === "search" ? document.activeElement.value : null;
  const input = /** @type {HTMLInputElement} */ (h("input", { type: "search", id: "search", value: typing ?? value,
    placeholder: within ? `Search in ${within.name}` : "Search every word",
    autocomplete: "off", autocapitalize: "none", spellcheck: "false", enterkeyhint: "search" }));
  input.addEventListener("input", () => {
    if (location.hash.startsWith("#/search")) return;
    location.hash = `#/search?q=${encodeURIComponent(input.value)}${within ? `&collection=${encodeURIComponent(within.id)}` : ""}`;
  });
  return h("div", { class: "search-box", role: "search" },
    h("label", { for: "search", class: "visually-hidden" }, within ? `Search the words of ${within.name}` : "Search"), input);
}

/** Words shown at a time; more as the list's end comes near (a collection of 20,000 scrolls). */
const PAGE = 25;

/**
 * Calls `more` whenever `sentinel` (after a list) comes within a screen of the viewport, until
 * `more` resolves false (nothing left).
 * @param {HTMLElement} sentinel @param {() => Promise<boolean>} more
 */
function whenNearEnd(sentinel, more) {
  let busy = false;
  const observer = new IntersectionObserver(async (found) => {
    if (busy || !found.some((f) => f.isIntersecting)) return;
    busy = true;
    try {
      const left = await more();
      if (!left) return observer.disconnect();
    } finally {
      busy = false;
    }
    // Still in view after the page came (a tall phone): the next one.
    const box = sentinel.getBoundingClientRect();
    if (sentinel.isConnected && box.top < window.innerHeight * 2) {
      observer.unobserve(sentinel);
      observer.observe(sentinel);
    }
  }, { rootMargin: "0px 0px 100% 0px" });
  observer.observe(sentinel);
  return observer;
}

// Collections --------------------------------------------------------------------------------------

export class CollectionsScreen extends VocabElement {
  render() {
    const counts = new Map();
    for (const entry of this.entries()) counts.set(entry.collection, (counts.get(entry.collection) ?? 0) + 1);
    const collections = this.collections();
    this.replaceChildren(h("main", { class: "screen vocab" },
      h("div", { class: "toolbar" }, h("h1", {}, "Collections"),
        h("button", { type: "button", onclick: () => this.create() }, "New collection")),
      searchBox(),
      collections.length ? h("ul", { class: "big-list", "aria-label": "Your collections" }, ...collections.map((c) => h("li", {},
        h("a", { href: `#/c/${encodeURIComponent(c.id)}`, class: "big-link" }, h("span", {}, c.name),
          h("span", { class: "count" }, `${counts.get(c.id) ?? 0} word${counts.get(c.id) === 1 ? "" : "s"}`)))))
        : h("p", { class: "empty" }, "No collections yet. Tap “New collection” to start one (French, Verbs, Trip to Rome…)."),
      h("nav", { class: "row", "aria-label": "More" },
        collections.length ? h("a", { href: "#/review", class: "button" }, "Review") : null,
        h("a", { href: "#/tags", class: "button secondary" }, "Tags"),
        h("a", { href: "#/files", class: "button secondary" }, "Import and export"))));
  }

  async create() {
    const name = await askName("New collection", "Name", "", (typed) => nameProblem(typed, this.collections(), "collection"));
    if (!name) return;
    const id = localId();
    await this.ctx.sync.write({ method: "POST", path: `${V}/collections`, body: { name }, kind: COLLECTION, id });
    this.ctx.go(`#/c/${encodeURIComponent(id)}`);
  }
}
customElements.define("vocab-collections", CollectionsScreen);

export class CollectionScreen extends VocabElement {
  render() {
    const collection = this.one(COLLECTION, this.id_ ?? "");
    if (!collection) {
      this.replaceChildren(h("main", { class: "screen" }, back("#/", "Collections"), h("h1", {}, "Collection"),
        h("p", { class: "empty" }, "This collection is not there any more.")));
      return;
    }
    // Sorted once per synced copy (kept), then the collection's: no sort of 20,000 words per change.
    const entries = Vocab.byWord(this.entries()).filter((e) => e.collection === collection.id);
    // As many as were shown before a change (a sync, a rename), and a page more as the end comes near.
    this.shown = Math.max(this.shown ?? 0, PAGE * 2);
    const tagNames = this.tagNames();
    const sentinel = h("div", { class: "list-end", "aria-hidden": "true" });
    const listed = entries.length ? entryList(entries.slice(0, this.shown).map((entry) => ({ entry, match: "listed", highlights: {} })), tagNames,
      `Words in ${collection.name}`) : null;
    this.observer?.disconnect();
    if (listed && entries.length > this.shown) {
      this.observer = whenNearEnd(sentinel, async () => {
        const from = this.shown ?? 0;
        this.shown = from + PAGE * 2;
        listed.append(...entries.slice(from, this.shown).map((entry) => entryItem({ entry, match: "listed", highlights: {} }, tagNames)));
        return this.shown < entries.length;
      });
    }
    this.replaceChildren(h("main", { class: "screen vocab" },
      h("div", { class: "toolbar" }, back("#/", "Collections"), h("h1", {}, collection.name)),
      searchBox("", collection),
      h("p", { class: "hint" }, `${entries.length} word${entries.length === 1 ? "" : "s"}`),
      h("div", { class: "row" },
        h("a", { href: `#/new/${encodeURIComponent(collection.id)}`, class: "button" }, "Add word"),
        entries.length ? h("a", { href: `#/review/${encodeURIComponent(collection.id)}`, class: "button secondary" }, "Review") : null,
        h("button", { type: "button", class: "secondary", onclick: () => this.rename(collection) }, "Rename"),
        h("button", { type: "button", class: "danger", onclick: () => this.remove_(collection, entries.length) }, "Delete")),
      listed ?? h("p", { class: "empty" }, "No words yet. Tap “Add word”."), sentinel));
  }

  disconnectedCallback() {
    this.observer?.disconnect();
    super.disconnectedCallback();
  }

  tagNames() {
    return new Map(this.tags().map((t) => [t.id, t.name]));
  }

  /** @param {Named} collection */
  async rename(collection) {
    const name = await askName("Rename collection", "Name", collection.name,
      (typed) => nameProblem(typed, this.collections().filter((c) => c.id !== collection.id), "collection"));
    if (!name || name === collection.name) return;
    await this.ctx.sync.write({ method: "PATCH", path: `${V}/collections/${collection.id}`, body: { name }, kind: COLLECTION, id: collection.id,
      baseVersion: collection.version || undefined });
    announce(`Renamed to ${name}.`);
  }

  /** @param {Named} collection @param {number} count */
  async remove_(collection, count) {
    const what = count ? ` and its ${count} word${count === 1 ? "" : "s"}` : "";
    if (!(await confirmAction(`Delete “${collection.name}”${what}? This cannot be undone.`, "Delete"))) return;
    await this.ctx.sync.write({ method: "DELETE", path: `${V}/collections/${collection.id}`, kind: COLLECTION, id: collection.id });
    announce(`${collection.name} deleted.`);
    this.ctx.go("#/");
  }
}
customElements.define("vocab-collection", CollectionScreen);

/**
 * Entries as a list of links: the word and its first definition, highlighted where they matched,
 * and the tags.
 * @param {import("./vocab.js").Hit[]} hits @param {Map<string, string>} tagNames @param {string} label
 */
function entryList(hits, tagNames, label) {
  return h("ul", { class: "entries", "aria-label": label }, ...hits.map((hit) => entryItem(hit, tagNames)));
}

/** One entry of a list. @param {import("./vocab.js").Hit} hit @param {Map<string, string>} tagNames */
function entryItem(hit, tagNames) {
  const { entry, highlights } = hit;
  const first = (entry.definitions ?? [])[0] ?? "";
  const tags = (entry.tags ?? []).map((id) => tagNames.get(id)).filter(Boolean);
  return h("li", {}, h("a", { href: `#/e/${encodeURIComponent(entry.id)}`, class: "entry-link" },
    h("span", { class: "word" }, ...highlighted(entry.word, highlights.word)),
    first ? h("span", { class: "definition" }, ...highlighted(first, highlights["definitions.0"])) : null,
    tags.length ? h("span", { class: "tag-line" }, tags.map((t) => `#${t}`).join(" ")) : null));
}

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
      entry.languages?.length ? h("p", { class: "hint" }, entry.languages.join(" · ")) : null,
      h("ol", { class: "definitions" }, ...(entry.definitions ?? []).map((d) => h("li", {}, d))),
      entry.example ? h("p", { class: "example" }, h("strong", {}, "Example: "), entry.example) : null,
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
function keptUndo(context) {
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

  /** The form is not drawn again while the person types; a new tag shows in the chips; the entry's
   * fields follow other devices except the one being typed in. */
  changed() {
    if (!this.querySelector("form")) return this.render();
    this.redrawTags?.();
    if (this.route === "edit") this.followed?.follow(this.one(ENTRY, this.id_ ?? ""));
  }

  disconnectedCallback() {
    this.followed?.dispose();
    super.disconnectedCallback();
  }

  render() {
    const editing = this.route === "edit";
    const entry = editing ? this.one(ENTRY, this.id_ ?? "") : null;
    if (editing && !entry) {
      this.replaceChildren(h("main", { class: "screen" }, back("#/", "Collections"), h("p", { class: "empty" }, "This word is not there any more.")));
      return;
    }
    const collectionId = entry?.collection ?? this.id_ ?? "";
    const error = h("p", { class: "error", role: "alert", id: "entry-error" });
    const field = (/** @type {string} */ id, /** @type {string} */ label, /** @type {HTMLElement} */ input, /** @type {string} */ hint = "") =>
      [h("label", { for: id }, label), hint ? h("p", { class: "hint", id: `${id}-hint` }, hint) : null, input];
    this.followed?.dispose();
    // An entry's draft by its id; a new word's by its collection (one new word a collection).
    const followed = new FollowedForm({ sync: this.ctx.sync, manual: true,
      record: () => (editing ? this.one(ENTRY, this.id_ ?? "") : undefined),
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
    const chosen = new Set(entry?.tags ?? []);
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
          const id = localId();
          await this.ctx.sync.write({ method: "POST", path: `${V}/tags`, body: { name }, kind: TAG, id });
          chosen.add(id);
        }
        drawTags();
      } }, "New tag"));
    drawTags();
    const collections = this.collections();
    const collection = /** @type {HTMLSelectElement} */ (h("select", { id: "entry-collection" },
      ...collections.map((c) => h("option", { value: c.id, selected: c.id === collectionId }, c.name))));
    const leave = entry ? `#/e/${encodeURIComponent(entry.id)}` : `#/c/${encodeURIComponent(collectionId)}`;
    const cancel = back(leave, "Cancel");
    // Cancel throws the typing away; the phone's Back keeps it for next time.
    cancel.addEventListener("click", () => followed.discard());
    const draftLine = h("div", { class: "replaced-line", id: "entry-draft", role: "status" },
      h("p", {}, editing ? "Your changes not saved yet are back." : "The word you were adding is back, not saved yet."),
      h("button", { type: "button", class: "secondary", onclick: () => {
        followed.discard();
        this.render();
        announce(editing ? "Changes thrown away." : "Word thrown away.");
      } }, editing ? "Throw my changes away" : "Throw it away"));
    this.replaceChildren(h("main", { class: "screen vocab" },
      h("div", { class: "toolbar" }, cancel, h("h1", {}, editing ? "Edit word" : "New word")),
      h("form", { class: "stack", novalidate: true, "aria-describedby": "entry-error", onsubmit: async (/** @type {Event} */ event) => {
        event.preventDefault();
        const body = {
          word: word.value.trim(), definitions: Vocab.definitionsOf(definitions.value), languages: Vocab.languagesOf(languages.value),
          example: example.value.trim() || null, note: note.value.trim() || null, tags: [...chosen].map((id) => this.ctx.sync.resolved.get(id) ?? id),
          collection: collection.value,
        };
        if (!body.word) return this.refuse(error, word, "The word is required: type the word or phrase.");
        if (!body.definitions.length) return this.refuse(error, definitions, "A definition is required: type at least one (one a line).");
        if (!body.collection) return this.refuse(error, collection, "Choose a collection, or make one first.");
        if (entry) {
          // Based on the version each field showed: the server merges it into another device's
          // newer edit and answers what it replaced (said, with "Bring it back").
          const now = this.one(ENTRY, entry.id) ?? entry;
          await this.ctx.sync.write({ method: "PATCH", path: `${V}/entries/${now.id}`, body, kind: ENTRY, id: now.id, baseVersion: followed.baseVersion() });
          followed.discard();
          this.ctx.go(`#/e/${encodeURIComponent(now.id)}`);
        } else {
          const id = localId();
          await this.ctx.sync.write({ method: "POST", path: `${V}/entries`, body, kind: ENTRY, id });
          followed.discard();
          announce(`${body.word} added.`);
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
      h("button", { type: "submit" }, "Save"))));
    // Typing a reload or the phone's Back interrupted: back in the fields, said, with a way to throw it away.
    if (followed.restoreDraft(editing ? [`${ENTRY}/${this.id_}`] : [`vocabulary.new/${collectionId}`])) this.querySelector(".toolbar")?.after(draftLine);
    if (!editing) requestAnimationFrame(() => word.focus());
  }

  /** @param {HTMLElement} error @param {HTMLElement} input @param {string} text */
  refuse(error, input, text) {
    error.textContent = text;
    input.setAttribute("aria-invalid", "true");
    input.focus();
  }
}
customElements.define("vocab-entry-form", EntryForm);

// Search ------------------------------------------------------------------------------------------

export class SearchScreen extends VocabElement {
  /** @type {import("./vocab.js").Hit[]} what the list shows */
  hits = [];
  /** Whether more come after them. */
  more = false;
  /** @type {string | null} the server's cursor to the next page */
  cursor = null;
  /** @type {URLSearchParams} the search asked for */
  params = new URLSearchParams();
  text = "";
  /** @type {Map<string, string>} */
  tagNames = new Map();
  /** Results follow the synced copy only when searching it (offline); the box keeps its text. */
  changed() {
    if (this.local) this.search(true);
  }

  render() {
    const query = /** @type {URLSearchParams} */ (this.query);
    const input = searchBox(query.get("q") ?? "");
    this.box = /** @type {HTMLInputElement} */ (input.querySelector("input"));
    /** @type {Record<"all" | "any" | "none", Set<string>>} */
    this.filters = { all: new Set(list(query.get("all"))), any: new Set(list(query.get("any"))), none: new Set(list(query.get("none"))) };
    this.collection = query.get("collection") ?? "";
    this.results = h("div", { class: "results", "aria-live": "polite" });
    this.said = h("p", { class: "hint", role: "status" });
    this.box.addEventListener("input", () => this.search());
    const collections = /** @type {HTMLSelectElement} */ (h("select", { id: "search-collection", onchange: () => { this.collection = collections.value; this.search(); } },
      h("option", { value: "" }, "Every collection"),
      ...this.collections().map((c) => h("option", { value: c.id, selected: c.id === this.collection }, c.name))));
    this.replaceChildren(h("main", { class: "screen vocab search" },
      h("div", { class: "toolbar" }, back("#/", "Collections"), h("h1", {}, "Search")),
      input,
      h("details", { class: "filters", open: this.filtered() || undefined }, h("summary", {}, "Filters"),
        h("label", { for: "search-collection" }, "Collection"), collections,
        this.tagFilters()),
      this.said, this.results));
    this.search();
  }

  /** Focus as soon as the screen is on the page (in the same task: no keystroke is lost). */
  connectedCallback() {
    const box = this.box;
    if (!box) return;
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
  }

  filtered() {
    const f = /** @type {Record<string, Set<string>>} */ (this.filters);
    return Boolean(this.collection || f.all.size || f.any.size || f.none.size);
  }

  /** Tag filters: each tag is in none of the three, or in all / any / none. */
  tagFilters() {
    const filters = /** @type {Record<"all" | "any" | "none", Set<string>>} */ (this.filters);
    const area = h("div", { class: "tag-filters" });
    const draw = () => area.replaceChildren(
      h("p", { class: "hint" }, "Tap a tag to cycle: must have · any of · must not have · off."),
      h("ul", { class: "chips", "aria-label": "Tag filters" }, ...this.tags().map((tag) => {
        const state = filters.all.has(tag.id) ? "all" : filters.any.has(tag.id) ? "any" : filters.none.has(tag.id) ? "none" : "off";
        const words = { all: "must have", any: "any of", none: "must not have", off: "off" };
        return h("li", {}, h("button", { type: "button", class: `chip filter-${state}${state === "off" ? "" : " on"}`,
          "aria-label": `${tag.name}: ${words[state]}`, onclick: () => {
            const next = /** @type {const} */ ({ off: "all", all: "any", any: "none", none: "off" })[state];
            for (const set of Object.values(filters)) set.delete(tag.id);
            if (next !== "off") filters[next].add(tag.id);
            draw();
            this.search();
          } }, state === "off" ? `#${tag.name}` : `${{ all: "+", any: "~", none: "−" }[state]} #${tag.name}`));
      })));
    draw();
    return area;
  }

  /**
   * Results for what is typed now: the server's (with its highlights) online, the device's
   * offline; a page at a time, the next as the list's end comes near (the server's keyset cursor
   * online, the device's copy offline). `keep`: drawn again after a sync, as many as were shown.
   * @param {boolean} [keep]
   */
  async search(keep = false) {
    const text = /** @type {HTMLInputElement} */ (this.box).value;
    const filters = /** @type {Record<"all" | "any" | "none", Set<string>>} */ (this.filters);
    const seq = (this.seq = (this.seq ?? 0) + 1);
    const params = new URLSearchParams();
    if (text) params.set("q", text);
    for (const key of /** @type {const} */ (["all", "any", "none"])) if (filters[key].size) params.set(key, [...filters[key]].join(","));
    if (this.collection) params.set("collection", this.collection);
    history.replaceState(null, "", `#/search?${params}`);
    const tagNames = new Map(this.tags().map((t) => [t.id, t.name]));
    const wanted = keep ? Math.max(PAGE, this.hits?.length ?? 0) : PAGE;
    /** @type {import("./vocab.js").Hit[]} */
    let hits = [];
    let more = false;
    /** @type {string | null} */
    let cursor = null;
    this.local = this.ctx.sync.state === "offline" || this.ctx.sync.writes.some((w) => w.kind === ENTRY);
    if (!this.local) {
      try {
        params.set("limit", String(wanted));
        const page = await this.ctx.api.get(`${V}/search?${params}`);
        hits = page.items.map((/** @type {any} */ item) => ({ entry: item, match: item.match, highlights: item.highlights ?? {} }));
        cursor = page.nextCursor ?? null;
        more = Boolean(cursor);
      } catch (error) {
        if (!(error instanceof ApiError) || !error.offline) {
          if (seq === this.seq && error instanceof ApiError) /** @type {HTMLElement} */ (this.said).textContent = error.message;
          return;
        }
        this.local = true;
      }
    }
    if (this.local) {
      hits = this.localHits(text, wanted + 1);
      more = hits.length > wanted;
      hits = hits.slice(0, wanted);
    }
    if (seq !== this.seq) return; // a newer keystroke's answer wins
    params.delete("limit");
    Object.assign(this, { hits, more, cursor, params, text, tagNames });
    const list = entryList(hits, tagNames, "Words found");
    this.list = list;
    const sentinel = h("div", { class: "list-end", "aria-hidden": "true" });
    this.observer?.disconnect();
    if (more) this.observer = whenNearEnd(sentinel, () => this.more_(seq));
    /** @type {HTMLElement} */ (this.results).replaceChildren(this.tagHits(text, hits.length > 0), list, sentinel);
    this.say();
    this.dataset.painted = String(seq);
  }

  /** The device's copy searched, best first, at most `limit`. @param {string} text @param {number} limit */
  localHits(text, limit) {
    const filters = /** @type {Record<"all" | "any" | "none", Set<string>>} */ (this.filters);
    return Vocab.search(this.entries(), text, { collection: this.collection || undefined, all: [...filters.all], any: [...filters.any], none: [...filters.none] },
      limit);
  }

  /** The next page, added to the list; resolves whether there is more. @param {number} seq */
  async more_(seq) {
    if (seq !== this.seq || !this.more) return false;
    const shown = /** @type {import("./vocab.js").Hit[]} */ (this.hits);
    /** @type {import("./vocab.js").Hit[]} */
    let next = [];
    if (!this.local && this.cursor) {
      const params = new URLSearchParams(this.params);
      params.set("limit", String(PAGE));
      params.set("cursor", this.cursor);
      try {
        const page = await this.ctx.api.get(`${V}/search?${params}`);
        next = page.items.map((/** @type {any} */ item) => ({ entry: item, match: item.match, highlights: item.highlights ?? {} }));
        this.cursor = page.nextCursor ?? null;
        this.more = Boolean(this.cursor);
      } catch (error) {
        if (!(error instanceof ApiError) || !error.offline) {
          if (error instanceof ApiError) /** @type {HTMLElement} */ (this.said).textContent = error.message;
          return false;
        }
        this.local = true; // gone offline mid-list: the rest from the device's copy
      }
    }
    if (this.local) {
      const found = this.localHits(this.text ?? "", shown.length + PAGE + 1);
      const seen = new Set(shown.map((hit) => hit.entry.id));
      next = found.slice(shown.length, shown.length + PAGE).filter((hit) => !seen.has(hit.entry.id));
      this.more = found.length > shown.length + PAGE;
    }
    if (seq !== this.seq) return false;
    shown.push(...next);
    /** @type {HTMLElement} */ (this.list).append(...next.map((hit) => entryItem(hit, /** @type {Map<string, string>} */ (this.tagNames))));
    this.say();
    return Boolean(this.more);
  }

  /** How many are shown, and whether more come. */
  say() {
    const count = this.hits?.length ?? 0;
    /** @type {HTMLElement} */ (this.said).textContent = count
      ? `${count}${this.more ? "+" : ""} word${count === 1 ? "" : "s"}${this.local ? " (on this device)" : ""}${this.more ? ": scroll for more" : ""}`
      : this.text || this.filtered() ? "No words match. Try fewer letters, or other filters." : "";
  }

  /**
   * Tags whose names match what is typed, each a link to its words (tag names are searchable).
   * @param {string} text @param {boolean} words  whether words follow (then headed "Words")
   */
  tagHits(text, words) {
    const key = Vocab.fold(text.replace(/^#/, ""));
    if (!key) return "";
    const found = this.tags().filter((tag) => Vocab.fold(tag.name).includes(key)).slice(0, 12);
    if (!found.length) return "";
    const ids = new Set(found.map((tag) => tag.id));
    const counts = new Map();
    for (const entry of this.entries()) for (const tag of entry.tags ?? []) if (ids.has(tag)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    return h("div", { class: "tag-hits" },
      h("h2", { id: "tag-hits-heading" }, "Tags"),
      h("ul", { class: "chips", "aria-labelledby": "tag-hits-heading" }, ...found.map((tag) => h("li", {},
        h("a", { class: "chip", href: `#/search?all=${encodeURIComponent(tag.id)}`, "aria-label": `Words tagged ${tag.name} (${counts.get(tag.id) ?? 0})` },
          `#${tag.name} (${counts.get(tag.id) ?? 0})`)))),
      words ? h("h2", {}, "Words") : null);
  }

  disconnectedCallback() {
    this.observer?.disconnect();
    super.disconnectedCallback();
  }
}
customElements.define("vocab-search", SearchScreen);

/** @param {string | null} text */
function list(text) {
  return (text ?? "").split(",").filter(Boolean);
}

// Tags --------------------------------------------------------------------------------------------

export class TagsScreen extends VocabElement {
  render() {
    const counts = new Map();
    for (const entry of this.entries()) for (const tag of entry.tags ?? []) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    const tags = this.tags();
    this.replaceChildren(h("main", { class: "screen vocab" },
      h("div", { class: "toolbar" }, back("#/", "Collections"), h("h1", {}, "Tags")),
      h("button", { type: "button", onclick: () => this.create() }, "New tag"),
      tags.length ? h("ul", { class: "tag-list", "aria-label": "Your tags" }, ...tags.map((tag) => h("li", {},
        h("a", { href: `#/search?all=${encodeURIComponent(tag.id)}`, class: "tag-name" }, `#${tag.name}`, h("span", { class: "count" }, ` (${counts.get(tag.id) ?? 0})`)),
        h("button", { type: "button", class: "secondary", "aria-label": `Rename ${tag.name}`, onclick: () => this.rename(tag) }, "Rename"),
        h("button", { type: "button", class: "danger", "aria-label": `Delete ${tag.name}`, onclick: () => this.remove_(tag) }, "Delete"))))
        : h("p", { class: "empty" }, "No tags yet. Tags group words across collections: food, verbs, trip.")));
  }

  async create() {
    const typed = await askName("New tag", "Name", "", (name) => nameProblem(tagName(name), this.tags(), "tag"), TAG_HINT);
    if (typed) await this.ctx.sync.write({ method: "POST", path: `${V}/tags`, body: { name: tagName(typed) }, kind: TAG, id: localId() });
  }

  /** @param {Named} tag */
  async rename(tag) {
    const typed = await askName("Rename tag", "Name", tag.name, (name) => nameProblem(tagName(name), this.tags().filter((t) => t.id !== tag.id), "tag"),
      TAG_HINT);
    const name = typed && tagName(typed);
    if (name && name !== tag.name) await this.ctx.sync.write({ method: "PATCH", path: `${V}/tags/${tag.id}`, body: { name }, kind: TAG, id: tag.id });
  }

  /** @param {Named} tag */
  async remove_(tag) {
    if (!(await confirmAction(`Delete the tag “${tag.name}”? Its words stay, without it.`, "Delete"))) return;
    await this.ctx.sync.write({ method: "DELETE", path: `${V}/tags/${tag.id}`, kind: TAG, id: tag.id });
  }
}
customElements.define("vocab-tags", TagsScreen);

// Review -------------------------------------------------------------------------------------------

/** @typedef {{entry: import("./vocab.js").Entry, state: string, intervals?: Record<string, number>}} DueCard */

const RATINGS = /** @type {const} */ (["again", "hard", "good", "easy"]);

/** 45 s, 10 min, 5 h, 8 days, 3 mo, 1.5 yr. @param {number} seconds */
export function spoken(seconds) {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3_600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.round(seconds / 3_600)} h`;
  if (seconds < 30 * 86_400) return `${Math.round(seconds / 86_400)} day${Math.round(seconds / 86_400) === 1 ? "" : "s"}`;
  if (seconds < 365 * 86_400) return `${Math.round(seconds / (30 * 86_400))} mo`;
  return `${(seconds / (365 * 86_400)).toFixed(1)} yr`;
}

/**
 * One card at a time: the word, then (on "Show answer") its definitions and four ratings, each
 * with when the word comes back. Online the server says what is due; offline the device's copy of
 * the cards does (due ones, then words never reviewed), and each rating waits in the outbox with
 * the time it was given.
 */
export class ReviewScreen extends VocabElement {
  render() {
    if (!this.queue) {
      this.queue = /** @type {DueCard[] | null} */ (null);
      this.showing = false;
      this.done = 0;
      this.replaceChildren(h("main", { class: "screen vocab review" }, this.toolbar(), h("p", { class: "empty" }, "Finding the words that are due…")));
      this.load();
      return;
    }
    const card = this.queue[0];
    if (!card) {
      this.replaceChildren(h("main", { class: "screen vocab review" }, this.toolbar(),
        h("div", { class: "review-done", role: "status" },
          h("p", { class: "big" }, this.done ? `Well done: ${this.done} word${this.done === 1 ? "" : "s"} reviewed.` : "Nothing to review right now."),
          h("p", {}, "Words come back just before you would forget them. Add words or come back later."),
          this.stats ? h("p", { class: "muted" }, `Today: ${this.stats.reviewedToday + (this.done ?? 0)} reviewed`) : null,
          h("a", { href: this.home(), class: "button" }, "Done"))));
      return;
    }
    const answer = this.showing
      ? h("div", { class: "answer" },
        h("ul", { class: "definitions" }, ...card.entry.definitions.map((d) => h("li", {}, d))),
        card.entry.example ? h("p", { class: "example" }, `“${card.entry.example}”`) : null,
        h("div", { class: "ratings", role: "group", "aria-label": "How well did you remember it?" },
          ...RATINGS.map((rating) => h("button", { type: "button", class: `rate ${rating}`, onclick: () => this.rate(card, rating) },
            h("span", { class: "label" }, rating[0].toUpperCase() + rating.slice(1)),
            card.intervals ? h("span", { class: "when" }, spoken(card.intervals[rating] ?? 0)) : null))))
      : h("button", { type: "button", class: "hero", id: "show-answer", onclick: () => { this.showing = true; this.render(); /** @type {HTMLElement | null} */ (this.querySelector(".rate.good"))?.focus(); } },
        "Show answer");
    this.replaceChildren(h("main", { class: "screen vocab review" }, this.toolbar(),
      h("p", { class: "muted", "aria-live": "polite" }, `${this.queue.length} to go${card.state === "new" ? " · new word" : ""}`),
      h("section", { class: "flashcard", "aria-label": "Card" }, h("p", { class: "word", lang: card.entry.languages?.[0] ?? "" }, card.entry.word)),
      answer));
  }

  changed() {} // the queue is this screen's own; a sync change must not move the card under the reader

  toolbar() {
    const collection = this.id_ ? this.one(COLLECTION, this.id_) : null;
    return h("div", { class: "toolbar" }, back(this.home(), collection?.name ?? "Collections"), h("h1", {}, "Review"));
  }

  home() {
    return this.id_ ? `#/c/${encodeURIComponent(this.id_)}` : "#/";
  }

  async load() {
    const query = `limit=50&tzOffset=${-new Date().getTimezoneOffset()}${this.id_ ? `&collection=${encodeURIComponent(this.id_)}` : ""}`;
    try {
      const { body } = await this.ctx.api.request("GET", `${V}/review/next?${query}`);
      this.queue = body.items.map((/** @type {any} */ item) => ({ entry: item.entry, state: item.card.state, intervals: item.intervals }));
      this.stats = (await this.ctx.api.request("GET", `${V}/review/stats?tzOffset=${-new Date().getTimezoneOffset()}`)).body;
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== null) throw error;
      this.queue = this.offlineQueue();
    }
    this.render();
  }

  /** Due cards from the device's copy, then words never reviewed. @returns {DueCard[]} */
  offlineQueue() {
    const now = Date.now();
    const cards = new Map(this.ctx.sync.view(CARD).map((card) => [card.entry, card]));
    const queued = new Set(this.ctx.sync.view(REVIEW).map((review) => review.entry));
    const entries = this.entries().filter((e) => (!this.id_ || e.collection === this.id_) && !queued.has(e.id));
    const due = entries.filter((e) => cards.has(e.id) && Date.parse(cards.get(e.id).due) <= now)
      .sort((a, b) => Date.parse(cards.get(a.id).due) - Date.parse(cards.get(b.id).due));
    const fresh = Vocab.byWord(entries.filter((e) => !cards.has(e.id))).slice(0, 20);
    return [...due.map((entry) => ({ entry, state: cards.get(entry.id).state })), ...fresh.map((entry) => ({ entry, state: "new" }))];
  }

  /** @param {DueCard} card @param {string} rating */
  async rate(card, rating) {
    const id = `r_${crypto.randomUUID().replaceAll("-", "")}`;
    this.queue?.shift();
    this.showing = false;
    this.done = (this.done ?? 0) + 1;
    this.render();
    announce(`${card.entry.word}: ${rating}.`);
    await this.ctx.sync.write({ method: "POST", path: `${V}/review`, kind: REVIEW, id, recordAt: "review",
      body: { id, entry: card.entry.id, rating, reviewedAt: new Date().toISOString() } });
    // Again and hard within the session: the word comes back before the end.
    if (rating === "again" && this.queue) this.queue.splice(Math.min(3, this.queue.length), 0, { ...card, state: "learning", intervals: undefined });
  }
}
customElements.define("vocab-review", ReviewScreen);

// Import and export --------------------------------------------------------------------------------

export class FilesScreen extends VocabElement {
  changed() {}

  render() {
    const progress = /** @type {HTMLProgressElement} */ (h("progress", { id: "import-progress", max: "1", value: "0", hidden: true }));
    const said = h("p", { role: "status", id: "import-status" });
    const errors = h("ul", { class: "import-errors", "aria-label": "Rows not imported" });
    const file = /** @type {HTMLInputElement} */ (h("input", { type: "file", id: "import-file", accept: ".csv,.apkg,text/csv,application/zip",
      onchange: () => { const chosen = file.files?.[0]; if (chosen) this.import(chosen, progress, said, errors); } }));
    /** @param {"apkg" | "csv"} format @param {string} label */
    const exporter = (format, label) => h("button", { type: "button", class: "secondary", onclick: () => this.export(format, said) }, label);
    this.replaceChildren(h("main", { class: "screen vocab" },
      h("div", { class: "toolbar" }, back("#/", "Collections"), h("h1", {}, "Import and export")),
      h("h2", {}, "Import"),
      h("p", { class: "hint" }, "A CSV (word, definition, tags, collection…) or an Anki package (.apkg)."),
      h("label", { for: "import-file", class: "button" }, "Choose a file to import"), file,
      progress, said, errors,
      h("h2", {}, "Export"),
      h("p", { class: "hint" }, "Everything, as an Anki package or a CSV you can open in a spreadsheet."),
      h("div", { class: "row" }, exporter("apkg", "Export for Anki (.apkg)"), exporter("csv", "Export as CSV"))));
    file.classList.add("visually-hidden");
  }

  /**
   * Sends the file, then follows the job until it ends, showing its progress.
   * @param {File} file @param {HTMLProgressElement} progress @param {HTMLElement} said @param {HTMLElement} errors
   */
  async import(file, progress, said, errors) {
    const apkg = /\.apkg$/i.test(file.name);
    errors.replaceChildren();
    progress.hidden = false;
    progress.removeAttribute("value");
    said.textContent = `Sending ${file.name}…`;
    try {
      const answer = await this.ctx.api.request("POST", `${V}/imports?format=${apkg ? "apkg" : "csv"}`, { body: file,
        contentType: apkg ? "application/zip" : "text/csv", headers: { "Idempotency-Key": localId().slice(6) } });
      let job = answer.body;
      while (job.state === "running") {
        if (job.rowsTotal) {
          progress.max = job.rowsTotal;
          progress.value = job.rowsRead;
        }
        said.textContent = job.rowsTotal ? `Importing: ${job.rowsRead} of ${job.rowsTotal} rows…` : `Importing: ${job.rowsRead} rows…`;
        await new Promise((resolve) => window.setTimeout(resolve, 400));
        job = await this.ctx.api.get(`${V}/imports/${job.id}`);
      }
      progress.max = 1;
      progress.value = job.state === "succeeded" ? 1 : 0;
      const updated = job.updated ? `, ${job.updated} updated (already here)` : "";
      said.textContent = job.state === "succeeded"
        ? `Imported ${job.imported} word${job.imported === 1 ? "" : "s"}${updated}${job.errorCount ? `; ${job.errorCount} row${job.errorCount === 1 ? "" : "s"} could not be` : ""}.`
        : `Nothing was imported: ${job.failure ?? "the file could not be read"}`;
      errors.replaceChildren(...(job.errors ?? []).slice(0, 20).map((/** @type {any} */ e) => h("li", {}, `Row ${e.row}: ${e.message}`)));
      await this.ctx.sync.pull();
    } catch (error) {
      progress.hidden = true;
      said.textContent = error instanceof ApiError ? (error.offline ? "Importing needs the network. Try again when you are online." : error.message)
        : "Something went wrong; try again.";
    }
  }

  /** A download of the whole vocabulary. @param {"apkg" | "csv"} format @param {HTMLElement} said */
  async export(format, said) {
    said.textContent = "Preparing the file…";
    try {
      const answer = await this.ctx.api.request("GET", `${V}/export?format=${format}`);
      const url = URL.createObjectURL(answer.body);
      const link = h("a", { href: url, download: `foreign-note.${format}` });
      document.body.append(link);
      link.click();
      link.remove();
      window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
      said.textContent = `Saved foreign-note.${format}.`;
    } catch (error) {
      said.textContent = error instanceof ApiError ? (error.offline ? "Exporting needs the network. Try again when you are online." : error.message)
        : "Something went wrong; try again.";
    }
  }
}
customElements.define("vocab-files", FilesScreen);
