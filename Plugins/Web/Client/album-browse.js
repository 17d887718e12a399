// @ts-check
/**
 * Finding photos: the album by day, Search by Tags (+ adds, − takes away) and by Time, Recent days
 * and tags, month and place folders, and the full-screen slideshow.
 */
import * as Album from "./album.js";
import { AlbumElement, back, describe, grid, picture, shareSearch } from "./album-base.js";
import { announce, h } from "./ui.js";
import { readAloud, userLanguage } from "./speak.js";
import { slidePeople } from "./album-people.js";
import { slideVoice } from "./album-voice.js";

/** @typedef {import("./album-base.js").Context} Context */
/** @typedef {import("./album-base.js").Photo} Photo */

// The album ---------------------------------------------------------------------------------------

/** Words for a search, for its heading. @param {import("./album.js").Search} search */
function searchWords(search) {
  const parts = [];
  if (search.day) parts.push(Album.dayLabel(search.day));
  if (search.month) parts.push(Album.monthLabel(search.month));
  if (search.place) parts.push("one place");
  if (search.plus.length) parts.push(`with ${search.plus.join(" or ")}`);
  if (search.minus.length) parts.push(`without ${search.minus.join(" or ")}`);
  /** @param {string} at a day, or a day and a time */
  const when = (at) => Album.dayLabel(at.slice(0, 10)) + (at.length > 10 ? `, ${at.slice(11, 16)}` : "");
  if (search.from || search.to) parts.push(`${search.from ? when(search.from) : "the start"} to ${search.to ? when(search.to) : "today"}`);
  return parts.join(", ");
}

export class AlbumScreen extends AlbumElement {
  render() {
    this.releaseCells();
    const search = /** @type {import("./album.js").Search} */ (this.search);
    const all = this.photos();
    const found = Album.inTimeOrder(all, search);
    const place = search.place ? Album.places(all).find((p) => p.key === search.place)?.label ?? "A place" : "";
    const filtered = !Album.isEmpty(search);
    const query = Album.searchQuery(search);
    const heading = filtered ? (search.place ? place : "Search") : "Album";
    this.replaceChildren(h("main", { class: "screen album" },
      h("div", { class: "toolbar" }, back("#/", "Home"), h("h1", {}, heading)),
      h("nav", { class: "row options", "aria-label": "Find photos" },
        // Only the tags go along: the tag screen shows them as chips, while a time, day, month or
        // place it does not show would silently narrow its counts and its search.
        h("a", { href: `#/album/tags?${Album.searchQuery({ plus: search.plus, minus: search.minus })}`, class: "button secondary" }, "Search by Tags"),
        h("a", { href: `#/album/time?${query}`, class: "button secondary" }, "Search by Time"),
        h("a", { href: "#/folders", class: "button secondary" }, "Folders")),
      filtered ? h("p", { class: "lead" }, `${found.length} photo${found.length === 1 ? "" : "s"}: ${searchWords(search)}. `,
        h("a", { href: "#/album" }, "Show all photos")) : null,
      found.length ? h("div", { class: "row" },
        h("a", { href: `#/slideshow?${query}`, class: "button" }, "Slideshow"),
        filtered ? h("button", { type: "button", class: "secondary", onclick: () => shareSearch(this.ctx, search) }, "Share these photos") : null) : null,
      found.length ? null : h("p", { class: "empty" }, all.length ? "No photo matches this search." : "No photos yet. Go Home and take one."),
      ...Album.byDay(found).map(({ day, photos }) => h("section", { class: "day", "aria-label": Album.dayLabel(day) },
        h("h2", {}, Album.dayLabel(day)), grid(this.ctx, photos, `Photos from ${Album.dayLabel(day)}`)))));
  }
}
customElements.define("album-browse", AlbumScreen);

export class TagSearchScreen extends AlbumElement {
  render() {
    this.releaseCells();
    const search = /** @type {import("./album.js").Search} */ (this.search);
    const all = this.photos();
    const found = Album.inTimeOrder(all, search);
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.focusKey : undefined;
    /** @param {string} tag @param {"+" | "-" | "x"} how */
    const set = (tag, how) => {
      this.search = Album.withTag(search, tag, how);
      history.replaceState(null, "", `#/album/tags?${Album.searchQuery(this.search)}`);
      this.render();
      const count = Album.inTimeOrder(this.photos(), this.search).length;
      announce(`${count} photo${count === 1 ? "" : "s"} found.`);
    };
    const selected = [...search.plus.map((t) => ["+", t]), ...search.minus.map((t) => ["−", t])];
    this.replaceChildren(h("main", { class: "screen tag-search" },
      h("div", { class: "toolbar" }, back(`#/album?${Album.searchQuery(search)}`, "Album"), h("h1", {}, "Search by Tags")),
      h("p", { class: "hint" }, "Tap + to show the photos with a tag, − to hide them."),
      selected.length ? h("ul", { class: "chips", "aria-label": "Selected tags" }, ...selected.map(([how, tag]) => h("li", {},
        h("button", { type: "button", class: `chip on ${how === "+" ? "plus" : "minus"}`, "data-focus-key": `x-${tag}`,
          "aria-label": `${how === "+" ? "With" : "Without"} ${tag}: remove from the search`, onclick: () => set(tag, "x") },
        `${how} ${tag}`, h("span", { "aria-hidden": "true" }, " ×"))))) : null,
      h("ul", { class: "tag-list", "aria-label": "Your tags, most used first" }, ...Album.tagCounts(all).map(({ tag, count }) => h("li", {},
        h("span", { class: "tag-name" }, tag, h("span", { class: "count" }, ` (${count})`)),
        h("button", { type: "button", class: "round", "data-focus-key": `plus-${tag}`, "aria-label": `Show photos tagged ${tag}`,
          "aria-pressed": String(search.plus.includes(tag)), onclick: () => set(tag, search.plus.includes(tag) ? "x" : "+") }, "+"),
        h("button", { type: "button", class: "round", "data-focus-key": `minus-${tag}`, "aria-label": `Hide photos tagged ${tag}`,
          "aria-pressed": String(search.minus.includes(tag)), onclick: () => set(tag, search.minus.includes(tag) ? "x" : "-") }, "−")))),
      all.length ? null : h("p", { class: "empty" }, "No tags yet: add tags when you mark up a photo."),
      h("p", { class: "lead", role: "status" }, `${found.length} photo${found.length === 1 ? "" : "s"}`),
      h("div", { class: "row" },
        h("a", { href: `#/album?${Album.searchQuery(search)}`, class: "button" }, "Show these photos"),
        found.length && !Album.isEmpty(search) ? h("button", { type: "button", class: "secondary", onclick: () => shareSearch(this.ctx, search) }, "Share these photos") : null),
      grid(this.ctx, found.slice(0, 60), "Photos found")));
    if (focused) /** @type {HTMLElement | null} */ (this.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`))?.focus();
  }
}
customElements.define("album-tag-search", TagSearchScreen);

export class TimeSearchScreen extends AlbumElement {
  changed() {}

  render() {
    const search = /** @type {import("./album.js").Search} */ (this.search);
    // A day, and a time of day if wanted (9:00 to 12:00 that morning): both optional.
    /** @param {string} id @param {string | undefined} at */
    const pair = (id, at) => [
      /** @type {HTMLInputElement} */ (h("input", { id: `${id}`, type: "date", value: (at ?? "").slice(0, 10) })),
      /** @type {HTMLInputElement} */ (h("input", { id: `${id}-time`, type: "time", value: (at ?? "").slice(11, 16) }))];
    const [from, fromTime] = pair("time-from", search.from);
    const [to, toTime] = pair("time-to", search.to);
    const error = h("p", { class: "error", role: "alert" });
    /** @param {HTMLInputElement} day @param {HTMLInputElement} time */
    const at = (day, time) => (day.value ? (time.value ? `${day.value}T${time.value}` : day.value) : undefined);
    this.replaceChildren(h("main", { class: "screen" },
      h("div", { class: "toolbar" }, back(`#/album?${Album.searchQuery(search)}`, "Album"), h("h1", {}, "Search by Time")),
      h("form", { class: "stack", onsubmit: (/** @type {Event} */ event) => {
        event.preventDefault();
        if ((fromTime.value && !from.value) || (toTime.value && !to.value)) {
          error.textContent = "A time needs its day too. Choose the day, or clear the time.";
          return;
        }
        const start = at(from, fromTime), end = at(to, toTime);
        // A day alone runs to its end: compared as days; with a time, to the minute.
        const startKey = start ? (start.length > 10 ? start : `${start}T00:00`) : "";
        const endKey = end ? (end.length > 10 ? end : `${end}T23:59`) : "";
        if (start && end && startKey > endKey) {
          error.textContent = "“From” is after “To”. Choose an earlier “From”.";
          return;
        }
        const next = { ...search, from: start, to: end, day: undefined, month: undefined };
        this.ctx.go(`#/album?${Album.searchQuery(next)}`);
      } },
      h("fieldset", { class: "stack" }, h("legend", {}, "From"),
        h("label", { for: "time-from" }, "From day"), from,
        h("label", { for: "time-from-time" }, "From time (if you want)"), fromTime),
      h("fieldset", { class: "stack" }, h("legend", {}, "To"),
        h("label", { for: "time-to" }, "To day"), to,
        h("label", { for: "time-to-time" }, "To time (if you want)"), toTime),
      error,
      h("button", { type: "submit" }, "Confirm"))));
  }
}
customElements.define("album-time-search", TimeSearchScreen);

export class RecentScreen extends AlbumElement {
  render() {
    const days = Album.recentDays(this.photos(), 7);
    const tags = Album.recentTags(this.photos(), 8);
    this.replaceChildren(h("main", { class: "screen" },
      h("div", { class: "toolbar" }, back("#/", "Home"), h("h1", {}, "Recent")),
      days.length ? h("p", { class: "hint" }, "Your most recent days with photos.") : h("p", { class: "empty" }, "No photos yet. Go Home and take one."),
      h("ul", { class: "big-list", "aria-label": "Recent days" }, ...days.map(({ day, count }) => h("li", {},
        h("a", { href: `#/album?${Album.searchQuery({ plus: [], minus: [], day })}`, class: "big-link" },
          h("span", {}, Album.dayLabel(day)), h("span", { class: "count" }, `${count} photo${count === 1 ? "" : "s"}`))))),
      tags.length ? h("h2", { id: "recent-tags-heading" }, "Recent tags") : null,
      tags.length ? h("ul", { class: "chips", "aria-labelledby": "recent-tags-heading" }, ...tags.map((tag) => h("li", {},
        h("a", { href: `#/album?${Album.searchQuery({ plus: [tag], minus: [] })}`, class: "chip", "aria-label": `Photos tagged ${tag}` }, tag))))
        : null));
  }
}
customElements.define("album-recent", RecentScreen);

export class FoldersScreen extends AlbumElement {
  render() {
    const photos = this.photos();
    const months = Album.months(photos);
    const places = Album.places(photos);
    /** @param {string} hash @param {string} label @param {number} count */
    const folder = (hash, label, count) => h("li", {}, h("a", { href: hash, class: "big-link" },
      h("span", {}, label), h("span", { class: "count" }, `${count} photo${count === 1 ? "" : "s"}`)));
    this.replaceChildren(h("main", { class: "screen" },
      h("div", { class: "toolbar" }, back("#/album", "Album"), h("h1", {}, "Folders")),
      h("h2", { id: "months-heading" }, "Months"),
      months.length ? h("ul", { class: "big-list", "aria-labelledby": "months-heading" },
        ...months.map(({ month, count }) => folder(`#/album?month=${month}`, Album.monthLabel(month), count))) : h("p", { class: "empty" }, "No photos yet."),
      h("h2", { id: "places-heading" }, "Places"),
      places.length ? h("ul", { class: "big-list", "aria-labelledby": "places-heading" },
        ...places.map(({ key, label, count }) => folder(`#/album?place=${encodeURIComponent(key)}`, label, count)))
        : h("p", { class: "empty" }, "No places yet: photos taken with the location on go here.")));
  }
}
customElements.define("album-folders", FoldersScreen);

// Slideshow ---------------------------------------------------------------------------------------

const SLIDE_SECONDS = 5;

/**
 * A slideshow control's face: its symbol and, under it, its word (a symbol alone is one more thing
 * to remember).
 * @param {string} symbol @param {string} word
 */
function face(symbol, word) {
  return [h("span", { class: "symbol", "aria-hidden": "true" }, symbol), h("span", { class: "word" }, word)];
}

export class SlideshowScreen extends AlbumElement {
  /** New photos do not reshuffle a running show. */
  changed() {}

  render() {
    const search = /** @type {import("./album.js").Search} */ (this.search);
    this.order = Album.shuffled(Album.inTimeOrder(this.photos(), search));
    this.index = 0;
    this.playing = true;
    const leave = `#/album?${Album.searchQuery(search)}`;
    this.img = /** @type {HTMLImageElement} */ (h("img", { alt: "" }));
    this.caption = h("p", { class: "caption", "aria-live": "polite" });
    this.playButton = h("button", { type: "button", class: "big", "aria-label": "Pause", onclick: () => this.toggle() }, ...face("❚❚", "Pause"));
    this.replaceChildren(h("main", { class: "slideshow" },
      h("h1", { class: "visually-hidden" }, "Slideshow"),
      h("div", { class: "top" }, h("a", { href: leave, class: "button big close", "aria-label": "Close the slideshow" }, ...face("✕", "Close"))),
      h("div", { class: "slide" }, this.img),
      this.peopleSlot = h("div", { class: "slide-people-slot" }),
      this.caption,
      readAloud(this.ctx, () => this.spoken ?? "", userLanguage, "the caption"),
      this.voiceSlot = h("div", { class: "slide-voice" }),
      h("div", { class: "controls", role: "toolbar", "aria-label": "Slideshow controls" },
        h("button", { type: "button", class: "big", "aria-label": "Previous photo", onclick: () => this.step(-1) }, ...face("‹", "Previous")),
        this.playButton,
        h("button", { type: "button", class: "big", "aria-label": "Next photo", onclick: () => this.step(1) }, ...face("›", "Next")))));
    this.keys = (/** @type {KeyboardEvent} */ event) => {
      if (event.key === "ArrowRight") this.step(1);
      else if (event.key === "ArrowLeft") this.step(-1);
      else if (event.key === "Escape") this.ctx.go(leave);
    };
    document.addEventListener("keydown", this.keys);
    if (!this.order.length) {
      this.caption.textContent = "No photos to show.";
      return;
    }
    this.show();
  }

  show() {
    const order = /** @type {Photo[]} */ (this.order);
    const photo = order[/** @type {number} */ (this.index)];
    const img = /** @type {HTMLImageElement} */ (this.img);
    picture(this.ctx, photo, "display").then((url) => {
      img.src = url;
      img.alt = describe(photo);
    }).catch(() => { img.alt = "This photo shows when the phone is online."; });
    const next = order[(/** @type {number} */ (this.index) + 1) % order.length];
    if (next) picture(this.ctx, next, "display").catch(() => {});
    /** @type {HTMLElement} */ (this.caption).textContent = `${Album.dayLabel(Album.dayOf(photo))}${photo.notes ? " · " + photo.notes : ""} (${(this.index ?? 0) + 1} of ${order.length})`;
    this.spoken = `${Album.dayLabel(Album.dayOf(photo))}.${photo.notes ? " " + photo.notes : ""}`;
    const named = slidePeople(this.ctx, /** @type {HTMLElement} */ (this.peopleSlot), photo);
    if (named) this.spoken += ` ${named}.`;
    // Its recorded caption: playing it holds the show on this photo.
    slideVoice(this.ctx, /** @type {HTMLElement} */ (this.voiceSlot), photo, () => { if (this.playing) this.toggle(); });
    clearTimeout(this.timer);
    if (this.playing) this.timer = window.setTimeout(() => this.step(1), SLIDE_SECONDS * 1000);
  }

  /** @param {number} by */
  step(by) {
    const count = this.order?.length ?? 0;
    if (!count) return;
    this.index = ((this.index ?? 0) + by + count) % count;
    this.show();
  }

  toggle() {
    this.playing = !this.playing;
    const button = /** @type {HTMLElement} */ (this.playButton);
    button.replaceChildren(...(this.playing ? face("❚❚", "Pause") : face("▶", "Play")));
    button.setAttribute("aria-label", this.playing ? "Pause" : "Play");
    announce(this.playing ? "Playing." : "Paused.");
    this.show();
  }

  disconnectedCallback() {
    clearTimeout(this.timer);
    if (this.keys) document.removeEventListener("keydown", this.keys);
    super.disconnectedCallback();
  }
}
customElements.define("album-slideshow", SlideshowScreen);
