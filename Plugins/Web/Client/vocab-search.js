// @ts-check
/**
 * Foreign Note's search: as you type, over everything or one collection, with tag filters (must have,
 * any of, must not have); the server's results and highlights online, the device's copy offline;
 * a page at a time over the server's keyset cursor; tags whose names match, above the words.
 */
import { ApiError } from "./api.js";
import { h } from "./ui.js";
import * as Vocab from "./vocab.js";
import { tip } from "./vocab-help.js";
import { ENTRY, PAGE, V, VocabElement, back, entryItem, entryList, list, searchBox, whenNearEnd } from "./vocab-parts.js";


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
      this.said, this.results, tip(this, ["search"])));
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
