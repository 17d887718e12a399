// @ts-check
/**
 * Foreign Note's lists: the collections (the home screen), one collection's words (a page at a time
 * as the end comes near) and the tags, each with create, rename and delete.
 */
import { localId } from "./outbox.js";
import { announce, confirmAction, h } from "./ui.js";
import * as Vocab from "./vocab.js";
import { tip } from "./vocab-help.js";
import { KIND_TEXT, cardKindsOn, chooseCardKinds, kindsOf } from "./vocab-cards.js";
import { COLLECTION, ENTRY, PAGE, TAG, TAG_HINT, V, VocabElement, askName, back, entryItem, entryList, nameProblem, searchBox, tagName, whenNearEnd } from "./vocab-parts.js";

/** @typedef {import("./vocab-parts.js").Named} Named */

// Collections --------------------------------------------------------------------------------------

export class CollectionsScreen extends VocabElement {
  render() {
    const counts = new Map();
    for (const entry of this.entries()) counts.set(entry.collection, (counts.get(entry.collection) ?? 0) + 1);
    const collections = this.collections();
    this.replaceChildren(h("main", { class: "screen vocab" },
      h("div", { class: "toolbar" }, h("h1", {}, "Collections"),
        h("button", { type: "button", onclick: () => this.create() }, "New collection")),
      ...this.unsavedOfDeleted(),
      searchBox(),
      collections.length ? h("ul", { class: "big-list", "aria-label": "Your collections" }, ...collections.map((c) => h("li", {},
        h("a", { href: `#/c/${encodeURIComponent(c.id)}`, class: "big-link" }, h("span", {}, c.name),
          h("span", { class: "count" }, `${counts.get(c.id) ?? 0} word${counts.get(c.id) === 1 ? "" : "s"}`)))))
        : h("p", { class: "empty" }, "No collections yet. Tap “New collection” to start one (French, Verbs, Trip to Rome…)."),
      h("nav", { class: "row", "aria-label": "More" },
        collections.length ? h("a", { href: "#/review", class: "button" }, "Review") : null,
        h("a", { href: "#/tags", class: "button secondary" }, "Tags"),
        h("a", { href: "#/files", class: "button secondary" }, "Import and export"),
        h("a", { href: "#/stats", class: "button secondary" }, "Statistics"),
        h("a", { href: "#/help", class: "button secondary" }, "Help")),
      tip(this, ["collections", "sync"])));
  }

  /**
   * Changes typed into Edit word and not saved (the tab closed), for a word deleted on another
   * device since: said here, the screen the app opens on, with the way to them (the form shows
   * them again, to add the word again), rather than kept out of sight.
   */
  unsavedOfDeleted() {
    const prefix = `quire.draft.${ENTRY}/`;
    return Object.keys(localStorage).filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length))
      .filter((id) => !this.one(ENTRY, id)).map((id) => {
        /** @type {any} */
        let seen = null;
        try {
          seen = JSON.parse(localStorage.getItem(`quire.draft.${ENTRY}.seen/${id}`) ?? "null") ?? JSON.parse(localStorage.getItem(prefix + id) ?? "null");
        } catch {
          seen = null;
        }
        const word = typeof seen?.word === "string" && seen.word ? `“${seen.word}”` : "a word";
        return h("div", { class: "notice gone", role: "status" },
          h("p", {}, `Changes you typed for ${word} were not saved, and the word was deleted on another device. They are kept on this phone.`),
          h("a", { href: `#/edit/${encodeURIComponent(id)}`, class: "button secondary" }, "See my changes"));
      });
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
      h("p", { class: "hint" }, `${entries.length} word${entries.length === 1 ? "" : "s"} · cards: ${kindsOf(collection).map((k) => KIND_TEXT[k].label).join(", ")}`),
      h("div", { class: "row" },
        h("a", { href: `#/new/${encodeURIComponent(collection.id)}`, class: "button" }, "Add word"),
        entries.length ? h("a", { href: `#/review/${encodeURIComponent(collection.id)}`, class: "button secondary" }, "Review") : null,
        cardKindsOn(this.ctx) ? h("button", { type: "button", class: "secondary", onclick: () => chooseCardKinds(this.ctx, collection) }, "Card kinds") : null,
        h("button", { type: "button", class: "secondary", onclick: () => this.rename(collection) }, "Rename"),
        h("button", { type: "button", class: "danger", onclick: () => this.remove_(collection, entries.length) }, "Delete")),
      listed ?? h("p", { class: "empty" }, "No words yet. Tap “Add word”."), sentinel, tip(this, ["words"])));
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
        : h("p", { class: "empty" }, "No tags yet. Tags group words across collections: food, verbs, trip."),
      tip(this, ["tags"])));
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
