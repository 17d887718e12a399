// @ts-check
/**
 * Help for Foreign Note (NFR 6.4.1): a help screen that explains each task, and a first-use tip on
 * the screen of each task. A tip is shown once (on the first visit of its screen, until dismissed
 * or the screen is left; never again for this account: the server keeps which tips it has seen, so
 * a second phone of the account does not show them again), and "Got it" dismisses it.
 * The document measures success by the use of help and tips, so each tip shown and each dismissed is
 * counted on the server (`POST …/vocabulary/tips/{tip}/viewed|dismissed`, which the operator reads
 * on `/metrics` as `quire_vocab_tips{tip, event}`): counts only, nothing about who.
 */
import { announce, h } from "./ui.js";
import { V, VocabElement, back } from "./vocab-parts.js";

/** @typedef {"collections" | "words" | "tags" | "search" | "review" | "files" | "sync"} TipName */

/** Each task: the tip's sentence, and the help screen's title and steps. */
export const TASKS = /** @type {const} */ ([
  { tip: "collections", title: "Create a collection",
    says: "Keep a collection for each thing you learn: Italian, Idioms, Trip to Rome. Tap “New collection” to start one.",
    steps: ["On Collections, tap “New collection”.", "Type its name (French, Verbs…) and tap Save.",
      "Rename or delete it from its screen; deleting a collection deletes its words."] },
  { tip: "words", title: "Add a word",
    says: "Tap “Add word” for a word or phrase with its definitions, languages, an example and tags.",
    steps: ["Open a collection and tap “Add word”.", "Type the word or phrase and its definitions, one a line.",
      "Add languages (fr, en), an example or a note if you like, and tap Save.",
      "On the word's screen, link related words and alternatives; Delete can be undone for five minutes."] },
  { tip: "tags", title: "Tag words",
    says: "Tags group words across collections (food, verbs). Tap a tag to put it on the word, or “New tag” to make one.",
    steps: ["When adding or editing a word, tap its tags, or “New tag”.", "A tag is one word: spaces become _.",
      "Tags lists them all; tap one to see its words."] },
  { tip: "search", title: "Search",
    says: "Type any part of a word or a definition; accents and capitals do not matter. Filters narrow it to a collection or to tags.",
    steps: ["Type in the search box on Collections, or in a collection's own box.",
      "Open Filters for a collection, and tap tags to cycle: must have, any of, must not have.",
      "Offline, the words kept on this device are searched."] },
  { tip: "review", title: "Review",
    says: "Show the answer, then say how well you remembered: each word comes back just before you would forget it.",
    steps: ["Tap Review on Collections (every word) or on a collection.", "Recall the word, then tap “Show answer”.",
      "Tap Again, Hard, Good or Easy; under each is when the word comes back.", "Reviews made offline are sent when you are back online."] },
  { tip: "files", title: "Import and export",
    says: "Bring words in from a CSV or an Anki deck (.apkg), and take them all out the same way.",
    steps: ["Tap “Import and export” on Collections.", "Choose a CSV (word, definition, tags, collection) or an .apkg; rows it cannot read are listed.",
      "Export for Anki or as a CSV: everything, ready to import again."] },
  { tip: "sync", title: "Your words on every device",
    says: "Your words are on every phone and computer you sign in on, and work offline: what you change offline is sent when you are back.",
    steps: ["Sign in with the same account on each device.", "Changes show on the others within a second or two.",
      "Offline, keep adding and reviewing: the bar says what waits to be sent."] },
]);

/** Where the tips already shown are kept, by account. @param {VocabElement} screen */
const shownKey = (screen) => `quire.vocab.tips.${screen.ctx.api.session?.accountId ?? ""}`;

/** @param {VocabElement} screen @returns {string[]} */
function shown(screen) {
  try {
    const kept = JSON.parse(localStorage.getItem(shownKey(screen)) ?? "[]");
    return Array.isArray(kept) ? kept : [];
  } catch {
    return [];
  }
}

/** Counts a tip's use on the server; a count lost offline is only a count. @param {VocabElement} screen @param {string} tip @param {string} event */
function count(screen, tip, event) {
  screen.ctx.api.request("POST", `${V}/tips/${tip}/${event}`).catch(() => {});
}

/** @type {WeakMap<VocabElement, {name: string, element: HTMLElement | null}>} the tip a screen shows (it stays through its redraws) */
const showing = new WeakMap();

/** The tips the account has seen on any of its devices, as the server keeps them (asked once a page
 * per account; nothing when it cannot be asked, offline: then this device's list alone). @type {Map<string, Promise<string[]>>} */
const onServer = new Map();

/** @param {VocabElement} screen @returns {Promise<string[]>} */
function seenOnServer(screen) {
  const key = shownKey(screen);
  let seen = onServer.get(key);
  if (!seen) {
    seen = screen.ctx.api.get(`${V}/tips`).then((/** @type {any} */ kept) => (Array.isArray(kept?.seen) ? kept.seen.map(String) : []))
      .catch(() => /** @type {string[]} */ ([]));
    onServer.set(key, seen);
  }
  return seen;
}

/**
 * The first-use tip for this screen: the first of `names` this account has not seen yet (on this
 * device or, as the server keeps it, on another), or nothing. The same element on every redraw of
 * the screen until dismissed; it stays hidden and empty until the server's list is known.
 * @param {VocabElement} screen @param {TipName[]} names
 * @returns {HTMLElement | null}
 */
export function tip(screen, names) {
  const current = showing.get(screen);
  if (current) return current.element;
  if (!TASKS.some((t) => names.includes(t.tip) && !shown(screen).includes(t.tip))) {
    showing.set(screen, { name: "", element: null });
    return null;
  }
  const element = h("div", { hidden: "" });
  showing.set(screen, { name: "", element });
  seenOnServer(screen).then((elsewhere) => {
    const seen = [...new Set([...shown(screen), ...elsewhere])];
    const task = TASKS.find((t) => names.includes(t.tip) && !seen.includes(t.tip));
    if (!task || !screen.isConnected) return; // nothing to show, or the screen was left meanwhile
    try {
      localStorage.setItem(shownKey(screen), JSON.stringify([...seen, task.tip]));
    } catch {
      // Storage refused: the server keeps it (when online); it is still counted once here.
    }
    const id = `tip-${task.tip}`;
    element.className = "notice info tip";
    element.setAttribute("role", "note");
    element.setAttribute("aria-labelledby", id);
    element.replaceChildren(h("p", { id }, h("strong", {}, "Tip: "), task.says),
      h("div", { class: "row" },
        h("a", { href: `#/help?task=${task.tip}`, class: "button secondary" }, "More help"),
        h("button", { type: "button", onclick: () => {
          element.remove();
          showing.set(screen, { name: task.tip, element: null });
          count(screen, task.tip, "dismissed");
          announce("Tip dismissed.");
        } }, "Got it")));
    element.hidden = false;
    showing.set(screen, { name: task.tip, element });
    count(screen, task.tip, "viewed");
  });
  return element;
}

/** The help screen: each task's steps, and a way to see the tips again. */
export class HelpScreen extends VocabElement {
  changed() {}

  render() {
    const focus = (this.query?.get("task") ?? "");
    this.replaceChildren(h("main", { class: "screen vocab help" },
      h("div", { class: "toolbar" }, back("#/", "Collections"), h("h1", {}, "Help")),
      h("p", { class: "lead" }, "Foreign Note keeps the words you learn, in collections, with tags; finds them as you type; and brings each back for review just before you would forget it."),
      h("nav", { "aria-label": "Help topics" }, h("ul", { class: "chips" }, ...TASKS.map((task) => h("li", {},
        h("a", { class: "chip", href: `#/help?task=${task.tip}` }, task.title))))),
      ...TASKS.map((task) => h("section", { id: `help-${task.tip}`, "aria-labelledby": `help-${task.tip}-title` },
        h("h2", { id: `help-${task.tip}-title` }, task.title),
        h("ol", {}, ...task.steps.map((step) => h("li", {}, step))))),
      h("h2", {}, "Tips"),
      h("p", {}, "Each screen shows a tip the first time you open it."),
      h("button", { type: "button", class: "secondary", onclick: () => {
        localStorage.removeItem(shownKey(this));
        // On every device of the account: the server forgets them too.
        onServer.set(shownKey(this), Promise.resolve([]));
        this.ctx.api.request("DELETE", `${V}/tips`).catch(() => {});
        announce("The tips will show again.");
      } }, "Show the tips again")));
    if (focus) requestAnimationFrame(() => this.querySelector(`#help-${CSS.escape(focus)}`)?.scrollIntoView({ block: "start" }));
  }
}
customElements.define("vocab-help", HelpScreen);
