// @ts-check
/**
 * Card kinds: each word of a collection can be asked three ways, each its own card with its own
 * schedule (FSRS-6 on the server): word → definition (`forward`, the only one unless the
 * collection turns others on), definition → word (`reverse`), and a sentence with a blank made
 * from the word's example (`cloze`: the word blanked, or the `{{c1::…}}` parts the user marked).
 */
import { announce, cancelButton, h, showDialog } from "./ui.js";
import { readAloud } from "./speak.js";
import { COLLECTION, V } from "./vocab-parts.js";

/** @typedef {"forward" | "reverse" | "cloze"} CardKind */
/** @typedef {{question: string, answer: string, full: string}} Cloze */
/** @typedef {{entry: import("./vocab.js").Entry, state: string, intervals?: Record<string, number>, kind?: CardKind, cloze?: Cloze | null}} DueCard */

/** @type {readonly CardKind[]} */
export const KINDS = ["forward", "reverse", "cloze"];

/** @type {Record<CardKind, {label: string, hint: string}>} */
export const KIND_TEXT = {
  forward: { label: "Word → definition", hint: "See the word, remember what it means." },
  reverse: { label: "Definition → word", hint: "See the meaning, remember the word." },
  cloze: { label: "Fill in the blank", hint: "The word's example with the word left out (words with an example only)." },
};

/** Whether the server lets collections choose card kinds (`review_card_kinds`). @param {import("./vocab-parts.js").Context} ctx */
export function cardKindsOn(ctx) {
  return Boolean(/** @type {any} */ (ctx).features?.has("review:card-kinds"));
}

/** A collection's kinds (forward alone when it says none). @param {{cardKinds?: string[]} | null | undefined} collection */
export function kindsOf(collection) {
  const kinds = /** @type {CardKind[]} */ ((collection?.cardKinds ?? []).filter((k) => KINDS.includes(/** @type {CardKind} */ (k))));
  return kinds.length ? kinds : /** @type {CardKind[]} */ (["forward"]);
}

/** The card's record id, as the server keys it. @param {string} entry @param {CardKind} kind */
export function cardId(entry, kind) {
  return kind === "forward" ? entry : `${entry}-${kind}`;
}

/**
 * The cloze of an example, as the server makes it: `{{cN::text}}` marks blanked (a hint as
 * "[hint]"), else the word found ignoring case and accents; null when neither.
 * @param {string | null | undefined} example @param {string} word @returns {Cloze | null}
 */
export function clozeOf(example, word) {
  const text = example?.trim();
  if (!text) return null;
  const marks = [...text.matchAll(/\{\{c\d+::(.*?)(?:::(.*?))?\}\}/g)].filter((m) => m[1]);
  if (marks.length) {
    return {
      question: text.replace(/\{\{c\d+::(.*?)(?:::(.*?))?\}\}/g, (_, _answer, hint) => (hint ? `[${hint}]` : BLANK)),
      answer: marks.map((m) => m[1]).join(", "),
      full: text.replace(/\{\{c\d+::(.*?)(?:::(.*?))?\}\}/g, (_, answer) => answer),
    };
  }
  const fold = (/** @type {string} */ s) => s.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
  const needle = fold(word.trim());
  if (!needle) return null;
  // Folding keeps lengths here for letters with one combining mark; the match is found on the folded text.
  const folded = fold(text);
  const at = folded.indexOf(needle);
  if (at < 0 || folded.length !== text.normalize("NFD").length) return null;
  const decomposed = text.normalize("NFD");
  const found = decomposed.slice(at, at + needle.length).normalize("NFC");
  return { question: (decomposed.slice(0, at) + BLANK + decomposed.slice(at + needle.length)).normalize("NFC"), answer: found, full: text };
}

const BLANK = "_____";

/** The prompt above "Show answer" for each kind of card. @param {import("./vocab-parts.js").Context} ctx @param {DueCard} card */
export function cardFront(ctx, card) {
  const lang = card.entry.languages?.[0] || document.documentElement.lang || "en";
  const kind = card.kind ?? "forward";
  if (kind === "reverse") {
    return h("section", { class: "flashcard reverse", "aria-label": "Card: definition to word" },
      h("p", { class: "prompt" }, "What is the word for …?"),
      h("ul", { class: "definitions" }, ...card.entry.definitions.map((d) => h("li", {}, d))));
  }
  if (kind === "cloze" && card.cloze) {
    return h("section", { class: "flashcard cloze", "aria-label": "Card: fill in the blank" },
      h("p", { class: "prompt" }, "Fill in the blank"),
      h("p", { class: "sentence", lang }, ...blanked(card.cloze.question)));
  }
  return h("section", { class: "flashcard", "aria-label": "Card" }, h("p", { class: "word", lang: card.entry.languages?.[0] ?? "" }, card.entry.word),
    readAloud(ctx, card.entry.word, lang, "the word"));
}

/** The sentence with its blanks drawn as blanks (read as "blank"). @param {string} question */
function blanked(question) {
  return question.split(BLANK).flatMap((part, i) => (i === 0 ? [part] : [h("span", { class: "blank", role: "img", "aria-label": "blank" }, "＿＿＿"), part]));
}

/** What "Show answer" reveals above the ratings, by kind. @param {import("./vocab-parts.js").Context} ctx @param {DueCard} card */
export function cardBack(ctx, card) {
  const lang = card.entry.languages?.[0] || document.documentElement.lang || "en";
  const kind = card.kind ?? "forward";
  const definitions = h("ul", { class: "definitions" }, ...card.entry.definitions.map((d) => h("li", {}, d)));
  if (kind === "reverse") {
    return [h("p", { class: "word", lang }, card.entry.word), readAloud(ctx, card.entry.word, lang, "the word")];
  }
  if (kind === "cloze" && card.cloze) {
    return [h("p", { class: "word", lang }, card.cloze.answer), h("p", { class: "example", lang }, `“${card.cloze.full}”`),
      readAloud(ctx, card.cloze.full, lang, "the sentence"), definitions];
  }
  return [definitions,
    card.entry.example ? h("p", { class: "example" }, `“${clozeOf(card.entry.example, "")?.full ?? card.entry.example}”`) : null,
    card.entry.example ? readAloud(ctx, card.entry.example, lang, "the example") : null];
}

/**
 * The dialog choosing a collection's card kinds; saved through the outbox (works offline).
 * @param {import("./vocab-parts.js").Context} ctx @param {{id: string, name: string, version?: number, cardKinds?: string[]}} collection
 */
export function chooseCardKinds(ctx, collection) {
  const on = new Set(kindsOf(collection));
  const boxes = KINDS.map((kind) => /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", id: `kind-${kind}`, name: "kind", value: kind,
    "aria-describedby": `kind-${kind}-hint` })));
  boxes.forEach((box) => { box.checked = on.has(/** @type {CardKind} */ (box.value)); });
  const error = h("p", { class: "error", role: "alert", id: "kinds-error" });
  const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "confirm kinds-dialog", "aria-labelledby": "kinds-title" },
    h("form", { class: "stack", method: "dialog", novalidate: true, onsubmit: (/** @type {SubmitEvent} */ event) => {
      if (event.submitter?.getAttribute("value") === "cancel" || boxes.some((b) => b.checked)) return;
      event.preventDefault();
      error.textContent = "Choose at least one kind of card, or tap Cancel.";
    } },
    h("h2", { id: "kinds-title" }, "Cards for each word"),
    h("p", { class: "hint" }, `Each kind is its own card with its own schedule, for every word in ${collection.name}.`),
    h("fieldset", { class: "kinds" }, h("legend", { class: "visually-hidden" }, "Kinds of card"),
      ...KINDS.map((kind, i) => h("div", { class: "kind-choice" }, boxes[i],
        h("label", { for: `kind-${kind}` }, KIND_TEXT[kind].label),
        h("p", { class: "hint", id: `kind-${kind}-hint` }, KIND_TEXT[kind].hint)))),
    error,
    h("div", { class: "row" },
      cancelButton(),
      h("button", { type: "submit", value: "ok" }, "Save")))));
  dialog.addEventListener("close", async () => {
    dialog.remove();
    if (dialog.returnValue !== "ok") return;
    const cardKinds = KINDS.filter((_, i) => boxes[i].checked);
    await ctx.sync.write({ method: "PUT", path: `${V}/collections/${collection.id}/cards`, body: { cardKinds }, kind: COLLECTION, id: collection.id,
      local: { cardKinds } });
    announce(`${collection.name}: ${cardKinds.map((k) => KIND_TEXT[k].label).join(", ")}.`);
  });
  showDialog(dialog);
  boxes[0].focus();
}
