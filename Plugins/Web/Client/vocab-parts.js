// @ts-check
/**
 * What Foreign Note's screens share: the record kinds and the API's address, `VocabElement` (the
 * app's screen base, a `ScreenElement` that knows the route and reads collections, tags and
 * entries from the synced copy), the name dialog and its checks, the search box, the entry list
 * and the "more as the end comes near" pager.
 */
import { ScreenElement } from "./screen-element.js";
import { cancelButton, h } from "./ui.js";
import * as Vocab from "./vocab.js";

export const V = "/api/v1/vocabulary";
export const COLLECTION = "vocabulary.collection";
export const ENTRY = "vocabulary.entry";
export const TAG = "vocabulary.tag";
export const CARD = "vocabulary.card";
export const REVIEW = "vocabulary.review";

/** @typedef {import("./screen-element.js").Context} Context */
/** @typedef {{id: string, name: string, version: number, pending?: boolean}} Named */

/** The base of Foreign Note's screens: the route it was opened with, and the synced records it reads. */
export class VocabElement extends ScreenElement {
  /** @type {string | undefined} */
  route;
  /** @type {string | undefined} */
  id_;
  /** @type {URLSearchParams | undefined} */
  query;

  /** @param {Context} context @param {string} route @param {string} id @param {URLSearchParams} query */
  attach(context, route, id, query) {
    this.route = route;
    this.id_ = id;
    this.query = query;
    this.follow(context);
    this.render();
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
export function back(hash, label) {
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
export function askName(title, label, value = "", check = () => null, hint = "") {
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
        cancelButton(),
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
export function nameProblem(name, others, what) {
  const key = Vocab.fold(name);
  if (!key) return `A ${what} name needs at least one letter or digit.`;
  const clash = others.find((other) => Vocab.fold(other.name) === key);
  return clash ? `You already have a ${what} named “${clash.name}”; choose another name.` : null;
}

/** A tag is one word, as in Anki: "formal greeting" becomes "formal_greeting". @param {string} name */
export function tagName(name) {
  return name.trim().split(/\s+/u).join("_");
}

export const TAG_HINT = "One word: spaces become _ (formal greeting → formal_greeting).";

/** @param {string} text @param {Array<[number, number]>} [marked] */
export function highlighted(text, marked) {
  return Vocab.pieces(text, marked).map(([piece, on]) => (on ? h("mark", {}, piece) : piece));
}

/**
 * The search box every list screen starts with; typing opens the search screen. On a
 * collection's screen it searches that collection (`within`).
 * @param {string} [value] @param {Named} [within]
 */
export function searchBox(value = "", within) {
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
export const PAGE = 25;

/**
 * Calls `more` whenever `sentinel` (after a list) comes within a screen of the viewport, until
 * `more` resolves false (nothing left).
 * @param {HTMLElement} sentinel @param {() => Promise<boolean>} more
 */
export function whenNearEnd(sentinel, more) {
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


/**
 * Entries as a list of links: the word and its first definition, highlighted where they matched,
 * and the tags.
 * @param {import("./vocab.js").Hit[]} hits @param {Map<string, string>} tagNames @param {string} label
 */
export function entryList(hits, tagNames, label) {
  return h("ul", { class: "entries", "aria-label": label }, ...hits.map((hit) => entryItem(hit, tagNames)));
}

/** One entry of a list. @param {import("./vocab.js").Hit} hit @param {Map<string, string>} tagNames */
export function entryItem(hit, tagNames) {
  const { entry, highlights } = hit;
  const first = (entry.definitions ?? [])[0] ?? "";
  const tags = (entry.tags ?? []).map((id) => tagNames.get(id)).filter(Boolean);
  return h("li", {}, h("a", { href: `#/e/${encodeURIComponent(entry.id)}`, class: "entry-link" },
    h("span", { class: "word" }, ...highlighted(entry.word, highlights.word)),
    first ? h("span", { class: "definition" }, ...highlighted(first, highlights["definitions.0"])) : null,
    tags.length ? h("span", { class: "tag-line" }, tags.map((t) => `#${t}`).join(" ")) : null));
}

/** @param {string | null} text */
export function list(text) {
  return (text ?? "").split(",").filter(Boolean);
}
