// @ts-check
/**
 * AR Notebook, as its requirements describe: the welcome and instructions (FR3.2.2); opening gives
 * the last notebook or a new default one (FR3.2.14); a 3D notebook (CSS 3D transforms) whose pages
 * turn by swiping or by buttons, with a page-turn animation, and which turns all the way round (the
 * 360° view); over the camera image (each feature detected; none is required). New pages, blank or from a template, in a
 * palette colour; inserts typed, pasted (Clipboard API: the server's 140-character refusal shown as
 * its sentence) or from the gallery; drag to move and pinch to resize (what the server clamps to
 * is what stays); undo; delete a page or a notebook after confirming; share read-only (the
 * recipient sees no editing controls); pin where you stand, and a banner when you walk near a
 * pinned notebook (`watchPosition`); the battery (Battery Status API) feeding device-monitor, with
 * the blocking alert at 5 % and "I am charging"; a camera frame judged for light before placing.
 *
 * Offline first (UC-15): the screens read the phone's synced copy (`notebook-model.js`: the sync
 * feed's notebooks, pages and items with the outbox's changes on top), so a notebook opens without
 * a network and follows every sync: another device's change (the owner's other phone, or the owner
 * of a notebook shared with you) shows without a reload, keeping what is being typed. A change is
 * sent at once when the phone is online and nothing of the notebook waits before it (placement,
 * clamping and refusals are the server's answer); otherwise it waits in the outbox, drawn as
 * waiting, and is sent in order when the network returns. Opening a shared link, sharing, pins and
 * deletes (the server's confirmation) need the network and say so where they were asked for.
 *
 * This file is the router and the notebook itself (drawing it, turning its pages); the rest lives
 * beside it: `notebook-open.js` (opening it), `notebook-send.js` (sending its changes),
 * `notebook-element.js` (the screens' base on `ScreenElement`, the catalog, the dialogs),
 * `notebook-lists.js` (welcome, my notebooks, a shared link), `notebook-edits.js` (what is done to
 * a page), `notebook-room.js` (camera, WebXR, light), `notebook-pins.js`, `notebook-gestures.js`,
 * `notebook-drafts.js` and `notebook-model.js`.
 */
import { focusKey } from "./screen-element.js";
import { NotebookElement } from "./notebook-element.js";
import { addPage, blobURL, colour, deletePage, dismissToast, editCover, itemMenu, paste, picturePicker, share, undo, waitingLines, write } from "./notebook-edits.js";
import { movable, swipes } from "./notebook-gestures.js";
import { AcceptScreen, NotebooksScreen, WelcomeScreen } from "./notebook-lists.js";
import { freeSlots, localContent, waitingFor } from "./notebook-model.js";
import { openBook } from "./notebook-open.js";
import { goneScreen } from "./notebook-gone.js";
import { BOUNDS, pictureURL } from "./picture-cache.js";
import { pin } from "./notebook-pins.js";
import { tellOverwrites } from "./notebook-overwrites.js";
import { inRoom, leaveRoom, refreshRoom } from "./notebook-room.js";
import { queues, sendChange } from "./notebook-send.js";
import { watchSurroundings } from "./notebook-surroundings.js";
import { announce, h } from "./ui.js";

export { AcceptScreen, NotebooksScreen, WelcomeScreen };

/** @typedef {import("./screen-element.js").Context} Context */
/** @typedef {import("./notebook-model.js").Frame} Frame */
/** @typedef {import("./notebook-model.js").Item} Item */
/** @typedef {import("./notebook-model.js").Page} Page */
/** @typedef {import("./notebook-model.js").Notebook} Notebook */

// This screen's own styles, once (a stylesheet of our origin: the CSP allows no inline style).
if (!document.querySelector("link[data-notebook-css]")) {
  document.head.append(h("link", { rel: "stylesheet", href: new URL("./notebook.css", import.meta.url).href, "data-notebook-css": "" }));
}

/**
 * The screen for a route: `parts` is the path after `#/`.
 * @param {Context} context @param {string[]} parts @returns {HTMLElement}
 */
export function notebookScreen(context, parts) {
  const [first, id] = parts;
  watchSurroundings(context);
  if (first === "notebooks") return attach(new NotebooksScreen(), context, "");
  if (first === "accept" && id) return attach(new AcceptScreen(), context, id);
  if (!localStorage.getItem("quire.ar.welcomed") && first !== "n") return attach(new WelcomeScreen(), context, "");
  return attach(new BookScreen(), context, first === "n" ? id ?? "" : "");
}

/** @template {NotebookElement} T @param {T} screen @param {Context} context @param {string} id @returns {T} */
function attach(screen, context, id) {
  screen.id_ = id;
  screen.follow(context);
  screen.load();
  return screen;
}

// The notebook ------------------------------------------------------------------------------------

export class BookScreen extends NotebookElement {
  /** @type {{notebook: Notebook, pages: Page[]} | null} */
  content = null;
  /** The notebook's id as this screen was opened with it (a local id until the server names it). */
  notebookId = "";
  /**
   * The notebook as the server answered it, for the moments before the sync feed brings it (a
   * shared notebook just accepted): the feed's copy wins as soon as there is one.
   * @type {{notebook: Notebook, pages: Page[]} | null}
   */
  fallback = null;
  /** 0 is the cover. */
  index = 0;
  /** Where the turns asked for so far lead (taps during a turn's animation add up). */
  target = 0;
  /** Counts turns, so that only the latest turn under way may finish. */
  turns = 0;
  /** A page turn under way, or an item being dragged: a redraw waits for it to end. */
  turning = false;
  /** When the last turn ended (performance.now()): a finger down on the page just after is the next quick swipe. */
  turnedAt = -Infinity;
  dragging = 0;
  angle = 0;
  /**
   * The page showing (its id; null on the cover): another device's new page before it does not turn this one.
   * @type {string | null}
   */
  shownPage = null;
  /** What was last drawn, so that a sync that changed nothing here draws nothing. */
  shownAs = "";
  changeTimer = 0;
  /** How many of this notebook's changes waited in the outbox at the last redraw. */
  waitingCount = 0;
  /** @type {any} */
  catalog = null;
  /** The camera's image the notebook shows over, and what was said of its light (kept through a redraw). */
  /** @type {HTMLVideoElement | undefined} */
  camera;
  /** @type {HTMLElement | undefined} */
  lightSaid;
  /** @type {MediaStream | undefined} */
  stream;
  /** The WebXR room view while it runs. @type {import("./xr-room.js").RoomView | undefined} */
  room;
  /** @type {HTMLElement | undefined} */
  stage;
  /** @type {HTMLElement | undefined} */
  book;

  /** The notebook's id as the server knows it now. */
  get nid() {
    return this.ctx.sync.resolve(this.notebookId);
  }

  /** The notebook as this phone has it now (the feed's copy with what waits in the outbox on top). */
  current() {
    const local = localContent(this.ctx.sync, this.nid, this.catalog);
    if (local) this.fallback = null; // the feed has it: from now on, gone from the feed is gone
    return local ?? this.fallback;
  }

  /** Opens the notebook (notebook-open.js): the phone's copy, else the server's; said when neither. */
  load() {
    return openBook(this);
  }

  /**
   * The notebook as this phone has it now, drawn when it changed. `at` is the page to show (after
   * adding or deleting one); by default the page showing stays, wherever it moved to.
   * @param {number} [at]
   */
  reload(at) {
    const content = this.current();
    if (!content) {
      // Deleted on another device (or its share link revoked).
      this.content = null;
      this.replaceChildren(goneScreen(this, this.nid)); // with what was being written in it (notebook-gone.js)
      return;
    }
    if (this.turning && at === undefined) {
      // A page turn under way (a tap during a write's pull): it goes on to the page it leads to,
      // and the change is drawn once it has (redrawing now put the page it left back, tap lost).
      this.content = content;
      this.changed();
      return;
    }
    const found = content.pages.findIndex((page) => page.id === this.shownPage || page.id === this.ctx.sync.resolve(this.shownPage ?? ""));
    const index = at ?? (this.shownPage === null ? 0 : found >= 0 ? found + 1 : this.index);
    this.content = content;
    this.index = this.target = Math.max(0, Math.min(index, content.pages.length));
    this.render(at === undefined);
  }

  /** Another device changed something (or a write of this one was answered): shown within moments, without a reload. */
  changed() {
    clearTimeout(this.changeTimer);
    this.changeTimer = window.setTimeout(() => this.followChange(), 100);
  }

  async followChange() {
    if (!this.content || !this.isConnected) return;
    if (this.turning || this.dragging) return this.changed(); // once the gesture ends
    // A change of this phone the server took: its record comes with the feed (pulled now, so it
    // does not blink out between the outbox and the feed).
    const waiting = waitingFor(this.ctx.sync, this.nid).length;
    if (waiting < this.waitingCount && navigator.onLine) await this.ctx.sync.pull();
    if (!this.isConnected) return;
    this.reload();
    tellOverwrites(this); // a text of this phone's that another device replaced (issue 39)
  }

  /** This notebook's changes waiting in the outbox for the network. */
  waiting() {
    return waitingFor(this.ctx.sync, this.nid);
  }

  /**
   * A change of this notebook, sent now or kept in the outbox (notebook-send.js): answers the
   * server's answer, `null` when it waits, `undefined` when refused.
   * @param {Omit<import("./outbox.js").Write, "key" | "attempts">} write
   * @param {[string, () => void] | ((error: unknown) => [string, () => void])} [again] the way on after a refusal (or, given the error, which)
   * @param {() => void} [held] called the moment the change is safe, before the pull that shows it
   * @returns {Promise<any>}
   */
  change(write, again, held) {
    return sendChange(this, write, again, held);
  }

  /** Whether a change to `path` waits in the outbox rather than going now (notebook-send.js). @param {string} path */
  queues(path) {
    return queues(this, path);
  }

  /** The page's number now (pages before it may have come or gone since it was drawn). @param {Page} page */
  numberOf(page) {
    const found = this.content?.pages.findIndex((p) => p.id === page.id) ?? -1;
    return found >= 0 ? found + 1 : page.number;
  }

  get editable() {
    return this.content?.notebook.access !== "read";
  }

  /** @param {boolean} [onlyIfChanged] a sync's redraw: nothing when nothing shown here changed */
  render(onlyIfChanged = false) {
    const content = /** @type {{notebook: Notebook, pages: Page[]}} */ (this.content);
    const { notebook, pages } = content;
    const waiting = this.waiting();
    // "No network: … kept on this phone …" is stale once nothing of this notebook waits and the
    // phone is online: it was sent (walk11: the sentence stayed under the page after it was saved).
    if (this.said && !this.said.alert && this.said.text.startsWith("No network:") && !waiting.length && navigator.onLine
        && this.ctx.sync.state !== "offline") this.said = null;
    // What the screen shows and its buttons act on: not when the notebook was opened or its
    // version (POST /open bumps both), whose redraw replaced the buttons under a finger mid-tap.
    const { version: _version, openedAt: _openedAt, updatedAt: _updatedAt, ...shownNotebook } = /** @type {any} */ (notebook);
    const shownAs = JSON.stringify([shownNotebook, pages, this.index, this.said, waiting.map((write) => write.key)]);
    this.waitingCount = waiting.length;
    if (onlyIfChanged && shownAs === this.shownAs) return;
    this.shownAs = shownAs;
    sessionStorage.setItem(`quire.ar.page.${notebook.id}`, String(this.index));
    const page = this.index > 0 ? pages[this.index - 1] : null;
    this.shownPage = page?.id ?? null;
    const where = page ? `Page ${this.index} of ${pages.length}` : `Cover · ${pages.length} page${pages.length === 1 ? "" : "s"}`;
    this.stage = h("div", { class: "stage", role: "region", "aria-label": `${notebook.name}: ${where}. Swipe to turn the page.` });
    this.book = h("div", { class: "book" }, this.sheet(page, notebook), h("div", { class: "back-cover", "aria-hidden": "true" }));
    this.book.style.setProperty("--turn", `${this.angle}deg`);
    this.stage.append(this.book);
    // Over the camera: the camera and the light's verdict stay through a redraw.
    if (this.camera) {
      this.stage.prepend(this.camera);
      this.stage.classList.add("over-camera");
    }
    this.swipes(this.stage);
    const slider = /** @type {HTMLInputElement} */ (h("input", { type: "range", id: "turn", min: "0", max: "360", step: "5", value: String(this.angle),
      oninput: () => { this.angle = Number(slider.value); this.book?.style.setProperty("--turn", `${this.angle}deg`); } }));
    const readOnly = !this.editable;
    const before = this.querySelector(":scope > main.notebook");
    const main = h("main", { class: "screen notebook" },
      h("div", { class: "toolbar" }, h("a", { href: "#/notebooks", class: "button secondary back" }, "‹ Notebooks"),
        h("h1", {}, notebook.name)),
      readOnly ? h("p", { class: "warning" }, "Shared with you to read. You can turn its pages; only its owner can change it.") : null,
      this.stage,
      this.lightSaid ?? null,
      h("div", { class: "row turn-row" },
        h("button", { type: "button", class: "secondary", "aria-label": "Previous page", disabled: this.index === 0, onclick: () => this.turn(-1) }, "‹"),
        h("span", { class: "where", role: "status" }, where),
        h("button", { type: "button", class: "secondary", "aria-label": "Next page", disabled: this.index >= pages.length, onclick: () => this.turn(1) }, "›")),
      pages.length > 1 ? this.jumper(pages.length) : null,
      h("label", { for: "turn", class: "turn-label" }, "Turn the notebook round", slider),
      waiting.length ? h("section", { class: "nb-waiting", "aria-labelledby": "nb-waiting-title" },
        h("h2", { id: "nb-waiting-title" }, "Waiting for the network"),
        h("p", { class: "hint" }, "Kept on this phone; each goes on its page as soon as the phone is online."),
        h("ul", {}, ...waitingLines(this, waiting).map((line) => h("li", {}, line)))) : null,
      this.saidSlot(),
      h("div", { class: "actions nb-actions" },
        readOnly ? null : h("button", { type: "button", onclick: () => addPage(this) }, "New page"),
        readOnly || !page ? null : h("button", { type: "button", class: "secondary", onclick: () => write(this) }, "Write"),
        readOnly || !page ? null : h("button", { type: "button", class: "secondary", onclick: () => paste(this) }, "Paste"),
        readOnly || !page ? null : picturePicker(this),
        readOnly || !page ? null : h("button", { type: "button", class: "secondary", onclick: () => colour(this) }, "Page colour"),
        readOnly ? null : h("button", { type: "button", class: "secondary", disabled: !notebook.canUndo, onclick: () => undo(this) }, "Undo"),
        notebook.access === "owner" && !page ? h("button", { type: "button", class: "secondary", onclick: () => editCover(this) }, "Cover and name") : null,
        // A toggle that says which way it goes: over the camera, it takes the notebook back to the screen.
        h("button", { type: "button", class: "secondary", "aria-pressed": String(Boolean(this.camera)), onclick: async (/** @type {Event} */ event) => {
          const button = /** @type {HTMLButtonElement} */ (event.currentTarget);
          await inRoom(this);
          button.setAttribute("aria-pressed", String(Boolean(this.camera)));
          button.textContent = this.camera ? "Back to the screen" : "View in your room";
        } }, this.camera ? "Back to the screen" : "View in your room"),
        notebook.access === "owner" ? h("button", { type: "button", class: "secondary", onclick: () => share(this) }, "Share") : null,
        notebook.access === "owner" || (notebook.access === "edit" && notebook.pin)
          ? h("button", { type: "button", class: "secondary", onclick: () => pin(this) }, notebook.pin ? "Pinned here · move pin" : "Pin here") : null,
        // A page's delete cannot be undone: its owner's alone (someone near a pin changes texts, not pages).
        notebook.access !== "owner" || !page ? null : h("button", { type: "button", class: "danger", onclick: () => deletePage(this) }, "Delete page")));
    if (before && this.firstElementChild === before && this.childElementCount === 1) {
      // Drawn again in place: the rows of buttons stay in the page (see keepInPlace).
      const active = document.activeElement;
      const focused = active && this.contains(active) ? focusKey(active) : null;
      keepInPlace(before, main, (child) => {
        const row = [".turn-row", ".nb-actions"].find((selector) => child.matches(selector));
        const old = row ? before.querySelector(`:scope > ${row}`) : null;
        if (old) keepInPlace(old, child, (button) => sameButton(old, button));
        return old;
      });
      if (focused && !(document.activeElement && this.contains(document.activeElement))) {
        /** @type {HTMLElement | undefined} */ ([...this.querySelectorAll("button, a, input, select")].find((e) => focusKey(e) === focused))?.focus({ preventScroll: true });
      }
    } else {
      this.draw(main);
    }
    refreshRoom(this);
  }

  /**
   * One side of the notebook as seen now: the cover, or a page with its items at their frames.
   * @param {Page | null} page @param {Notebook} notebook
   */
  sheet(page, notebook) {
    const cat = this.catalog;
    const sheet = h("div", { class: page ? "sheet page" : `sheet cover cover-${notebook.cover}` });
    sheet.style.aspectRatio = `${cat.pageWidth} / ${cat.pageHeight}`;
    if (!page) {
      const colours = cat.covers.find((/** @type {any} */ c) => c.id === notebook.cover)?.colors ?? ["#8E2B2B", "#D9B382"];
      sheet.style.setProperty("--cover-a", colours[0]);
      sheet.style.setProperty("--cover-b", colours[1]);
      // The image cover: one of the notebook's pictures behind its title (FR3.2.3).
      const shown = notebook.cover === "image" && notebook.coverItem
        ? this.content?.pages.flatMap((p) => p.items).find((i) => i.id === notebook.coverItem && i.image) : undefined;
      if (shown?.image) {
        const img = h("img", { class: "cover-picture", alt: "" });
        pictureURL(this.ctx, shown.image, BOUNDS.ar).then((url) => img.setAttribute("src", url)).catch(() => img.remove());
        sheet.append(img);
      }
      sheet.append(h("span", { class: "cover-title" }, notebook.coverText || notebook.name));
      return sheet;
    }
    const swatch = cat.palette.find((/** @type {any} */ s) => s.id === page.background)?.hex ?? "#FFFFFF";
    sheet.style.setProperty("--paper", swatch);
    if (page.background === "night") sheet.classList.add("dark");
    // The layout's boxes no item holds yet, outlined: a "Two boxes" page shows where its text or picture goes.
    for (const index of freeSlots(page)) {
      const frame = page.slots[index];
      const slot = h("div", { class: "slot", "aria-hidden": "true" });
      slot.style.left = `${(frame.x / cat.pageWidth) * 100}%`;
      slot.style.top = `${(frame.y / cat.pageHeight) * 100}%`;
      slot.style.width = `${(frame.width / cat.pageWidth) * 100}%`;
      slot.style.height = `${(frame.height / cat.pageHeight) * 100}%`;
      sheet.append(slot);
    }
    for (const item of page.items) sheet.append(this.item(item));
    if (!page.items.length) sheet.append(h("p", { class: "page-empty" }, this.editable ? "An empty page: Write, Paste or add a Picture." : "An empty page."));
    return sheet;
  }

  /** @param {Item} item */
  item(item) {
    const cat = this.catalog;
    const box = h("div", { class: `item item-${item.kind}${item.pending ? " pending" : ""}`, tabindex: "0", role: "group", "data-item": item.id,
      "aria-label": `${item.kind === "image" ? "A picture" : `Text: ${item.text ?? ""}`}${item.pending ? " (waiting for the network)" : ""}` });
    /** @param {Frame} frame */
    const place = (frame) => {
      box.style.left = `${(frame.x / cat.pageWidth) * 100}%`;
      box.style.top = `${(frame.y / cat.pageHeight) * 100}%`;
      box.style.width = `${(frame.width / cat.pageWidth) * 100}%`;
      box.style.height = `${(frame.height / cat.pageHeight) * 100}%`;
    };
    place(item.frame);
    if (item.kind === "image" && item.blob) {
      box.append(h("img", { src: blobURL(item.blob), alt: "" }));
    } else if (item.kind === "image" && item.image) {
      pictureURL(this.ctx, item.image, BOUNDS.ar).then((url) => box.append(h("img", { src: url, alt: "" })))
        .catch(() => box.append(h("span", { class: "hint" }, "A picture: it shows when the phone is online.")));
    } else {
      box.append(h("span", {}, item.text ?? ""));
    }
    if (this.editable) {
      box.append(h("span", { class: "grip", "aria-hidden": "true" }));
      this.movable(box, item, place);
    }
    return box;
  }

  /** @param {HTMLElement} box @param {Item} item @param {(frame: Frame) => void} place */
  movable(box, item, place) {
    movable(this, box, item, place);
  }

  /** @param {HTMLElement} stage */
  swipes(stage) {
    swipes(this, stage);
  }

  /**
   * Turns a page with the animation, then shows the new side. Taps during a turn add up: two
   * quick taps turn two pages (the second is not lost to the first's animation).
   * @param {number} by
   */
  turn(by) {
    const count = this.content?.pages.length ?? 0;
    const next = Math.max(0, Math.min(count, this.target + by));
    if (next === this.target) return;
    this.target = next;
    dismissToast();
    const sheet = this.book?.querySelector(".sheet");
    // Each turn finishes once, at the end of its animation or after 700 ms, whichever comes first;
    // a turn overtaken by a later one never finishes (its timer must not undo the later turn).
    const turn = ++this.turns;
    this.turning = true;
    const finish = () => {
      if (turn !== this.turns) return;
      this.turns += 1;
      this.turning = false;
      this.turnedAt = performance.now();
      this.index = this.target = Math.min(this.target, this.content?.pages.length ?? 0);
      this.render();
      announce(this.index === 0 ? "The cover." : `Page ${this.index}.`);
    };
    this.showTurn(next, count);
    if (!sheet || matchMedia("(prefers-reduced-motion: reduce)").matches) return finish();
    sheet.classList.remove("turning-next", "turning-back");
    void (/** @type {HTMLElement} */ (sheet)).offsetWidth; // restarts the animation for a turn that overtakes one under way
    sheet.classList.add(next > this.index ? "turning-next" : "turning-back");
    sheet.addEventListener("animationend", finish, { once: true });
    window.setTimeout(finish, 700);
  }

  /**
   * While a turn animates, the label, “Go to page” and the arrows all name the page it leads to
   * (the redraw at its end draws them the same way), never some of them the page it left.
   * @param {number} next @param {number} count
   */
  showTurn(next, count) {
    const where = this.querySelector(".turn-row .where");
    if (where) where.textContent = next === 0 ? `Cover · ${count} page${count === 1 ? "" : "s"}` : `Page ${next} of ${count}`;
    const back = /** @type {HTMLButtonElement | null} */ (this.querySelector(".turn-row [aria-label='Previous page']"));
    const forward = /** @type {HTMLButtonElement | null} */ (this.querySelector(".turn-row [aria-label='Next page']"));
    if (back) back.disabled = next === 0;
    if (forward) forward.disabled = next >= count;
    const jump = /** @type {HTMLSelectElement | null} */ (this.querySelector("#nb-jump"));
    if (jump) jump.value = String(next);
  }

  /**
   * The page the person sees now (null on the cover). A turn still animating is finished first:
   * what is asked of the page goes to the page the turn leads to, which the screen already names.
   */
  currentPage() {
    if (this.turning) {
      this.turns += 1;
      this.turning = false;
      this.index = this.target = Math.min(this.target, this.content?.pages.length ?? 0);
      this.render();
    }
    return this.content?.pages[this.index - 1] ?? null;
  }

  /** A 50-page notebook: straight to a page. @param {number} count */
  jumper(count) {
    const select = /** @type {HTMLSelectElement} */ (h("select", { id: "nb-jump", onchange: () => {
      const to = Number(select.value);
      this.target = this.index;
      this.turn(to - this.index);
    } },
    h("option", { value: "0", selected: this.index === 0 }, "Cover"),
    ...Array.from({ length: count }, (_, n) => h("option", { value: String(n + 1), selected: this.index === n + 1 }, `Page ${n + 1}`))));
    return h("label", { for: "nb-jump", class: "jump-label" }, "Go to page", select);
  }

  /** Whose drafts these are (a phone may be shared by two accounts). */
  get account() {
    return this.ctx.api.session?.accountId ?? "";
  }

  /** UC-6: a tapped item's choices (the gestures ask for them). @param {Item} item */
  itemMenu(item) {
    return itemMenu(this, item);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    clearTimeout(this.changeTimer);
    leaveRoom(this);
    this.room?.end();
  }
}
/**
 * `parent`'s children made those of `drawn`, in order, without taking out of the page the ones
 * `keep` answers for a new child (an old node, brought up to date, kept where it is). A redraw that
 * replaced the page-turning and action buttons lost a tap whose finger went down on the old button
 * and up on the new (New page opened nothing; CI of 080a51b and 16eedf2); a button taken out of the
 * page and put back loses it too (Chromium), so the kept ones are never moved.
 * @param {Element} parent @param {Element} drawn @param {(child: Element) => Element | null | undefined} keep
 */
function keepInPlace(parent, drawn, keep) {
  const wanted = [...drawn.children].map((child) => keep(child) ?? child);
  for (const child of [...parent.children]) if (!wanted.includes(child)) child.remove();
  let cursor = parent.firstElementChild;
  for (const node of wanted) {
    if (node === cursor) cursor = cursor.nextElementSibling;
    else parent.insertBefore(node, cursor);
  }
}

/**
 * The button of `row` that `button` draws again (same row, label and look), brought up to date;
 * its handler reads the screen's state when tapped, so it does what the new one would.
 * @param {Element} row @param {Element} button
 */
function sameButton(row, button) {
  if (!(button instanceof HTMLButtonElement)) return null;
  const label = button.getAttribute("aria-label") ?? button.textContent;
  const old = [...row.children].find((b) => b instanceof HTMLButtonElement && (b.getAttribute("aria-label") ?? b.textContent) === label
    && b.className === button.className);
  if (!(old instanceof HTMLButtonElement)) return null;
  old.disabled = button.disabled;
  const pressed = button.getAttribute("aria-pressed");
  if (pressed !== null) old.setAttribute("aria-pressed", pressed);
  return old;
}

customElements.define("nb-book", BookScreen);
