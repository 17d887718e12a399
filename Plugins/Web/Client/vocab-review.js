// @ts-check
/**
 * Reviewing the words that are due (FSRS-6 on the server; offline, the device's copy of the cards,
 * the ratings queued like any write), one card at a time.
 */
import { ApiError } from "./api.js";
import { announce, h } from "./ui.js";
import * as Vocab from "./vocab.js";
import { tip } from "./vocab-help.js";
import { CARD, COLLECTION, REVIEW, V, VocabElement, back } from "./vocab-parts.js";
import { KIND_TEXT, cardBack, cardFront, clozeOf, kindsOf } from "./vocab-cards.js";


// Review -------------------------------------------------------------------------------------------

/** @typedef {import("./vocab-cards.js").DueCard} DueCard */

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
          h("a", { href: this.home(), class: "button" }, "Done")), tip(this, ["review"])));
      return;
    }
    const answer = this.showing
      ? h("div", { class: "answer" }, ...cardBack(this.ctx, card),
        h("div", { class: "ratings", role: "group", "aria-label": "How well did you remember it?" },
          ...RATINGS.map((rating) => h("button", { type: "button", class: `rate ${rating}`, onclick: () => this.rate(card, rating) },
            h("span", { class: "label" }, rating[0].toUpperCase() + rating.slice(1)),
            card.intervals ? h("span", { class: "when" }, spoken(card.intervals[rating] ?? 0)) : null))))
      : h("button", { type: "button", class: "hero", id: "show-answer", onclick: () => { this.showing = true; this.render(); /** @type {HTMLElement | null} */ (this.querySelector(".rate.good"))?.focus(); } },
        "Show answer");
    this.replaceChildren(h("main", { class: "screen vocab review" }, this.toolbar(),
      h("p", { class: "muted", "aria-live": "polite" },
        `${this.queue.length} to go${card.state === "new" ? " · new word" : ""}${card.kind && card.kind !== "forward" ? ` · ${KIND_TEXT[card.kind].label}` : ""}`),
      cardFront(this.ctx, card),
      answer, tip(this, ["review"])));
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
      this.queue = body.items.map((/** @type {any} */ item) => ({ entry: item.entry, state: item.card.state, intervals: item.intervals,
        kind: item.kind ?? "forward", cloze: item.cloze ?? null }));
      this.stats = (await this.ctx.api.request("GET", `${V}/review/stats?tzOffset=${-new Date().getTimezoneOffset()}`)).body;
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== null) throw error;
      this.queue = this.offlineQueue();
    }
    this.render();
  }

  /**
   * Due cards from the device's copy (of the kinds their collection has on), then words never
   * reviewed (word → definition); one card of a word at a time, as online.
   * @returns {DueCard[]}
   */
  offlineQueue() {
    const now = Date.now();
    const cards = this.ctx.sync.view(CARD);
    const carded = new Set(cards.map((card) => card.entry));
    const queued = new Set(this.ctx.sync.view(REVIEW).map((review) => review.entry));
    const entries = new Map(this.entries().filter((e) => (!this.id_ || e.collection === this.id_) && !queued.has(e.id)).map((e) => [e.id, e]));
    const kinds = new Map(this.collections().map((c) => [c.id, kindsOf(c)]));
    /** @type {DueCard[]} */
    const due = [];
    const shown = new Set();
    for (const card of [...cards].sort((a, b) => Date.parse(a.due) - Date.parse(b.due))) {
      const entry = entries.get(card.entry);
      const kind = card.kind ?? "forward";
      if (!entry || shown.has(entry.id) || Date.parse(card.due) > now || !(kinds.get(entry.collection) ?? ["forward"]).includes(kind)) continue;
      const cloze = kind === "cloze" ? clozeOf(entry.example, entry.word) : null;
      if (kind === "cloze" && !cloze) continue;
      shown.add(entry.id);
      due.push({ entry, state: card.state, kind, cloze });
    }
    const fresh = Vocab.byWord([...entries.values()].filter((e) => !carded.has(e.id))).slice(0, 20);
    return [...due, ...fresh.map((entry) => ({ entry, state: "new", kind: /** @type {const} */ ("forward") }))];
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
      body: { id, entry: card.entry.id, rating, reviewedAt: new Date().toISOString(), ...(card.kind && card.kind !== "forward" ? { kind: card.kind } : {}) } });
    // Again and hard within the session: the word comes back before the end.
    if (rating === "again" && this.queue) this.queue.splice(Math.min(3, this.queue.length), 0, { ...card, state: "learning", intervals: undefined });
  }
}
customElements.define("vocab-review", ReviewScreen);
