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
 */
import { ApiError } from "./api.js";
import { freeSlots, ITEM, keepCatalog, keepFromServer, keepShared, keptCatalog, localContent, localNotebooks, N, NOTEBOOK, PAGE, placed, waitingFor, writeOf } from "./notebook-model.js";
import { isLocal, localId, newKey } from "./outbox.js";
import { shareLink } from "./share.js";
import { announce, askText, confirmAction, h, imageURL, whereAmI } from "./ui.js";
import { movable, swipes } from "./notebook-gestures.js";
import { coverPicture, pagePicture } from "./notebook-pictures.js";
import { draftsOf, dropDraft, keepDraft } from "./notebook-drafts.js";
import { watchSurroundings } from "./notebook-surroundings.js";
import { arSupported, RoomView } from "./xr-room.js";

const DM = "/api/v1/device-monitor";

/** @typedef {{api: import("./api.js").Api, sync: import("./sync.js").Sync, go: (hash: string) => void}} Context */
/** @typedef {import("./notebook-model.js").Frame} Frame */
/** @typedef {import("./notebook-model.js").Item} Item */
/** @typedef {import("./notebook-model.js").Page} Page */
/** @typedef {import("./notebook-model.js").Notebook} Notebook */

/** @type {Promise<any> | null} */
let catalog = null;

// This screen's own styles, once (a stylesheet of our origin: the CSP allows no inline style).
if (!document.querySelector("link[data-notebook-css]")) {
  document.head.append(h("link", { rel: "stylesheet", href: new URL("./notebook.css", import.meta.url).href, "data-notebook-css": "" }));
}

/**
 * The catalog (page size, templates, covers, palette): read once per session and kept for opening
 * offline; offline, the copy kept.
 * @param {Context} context
 */
function catalogOf(context) {
  catalog ??= context.api.get(`${N}/catalog`).then((answer) => { keepCatalog(answer); return answer; }).catch((error) => {
    catalog = null;
    const kept = keptCatalog();
    if (kept && error instanceof ApiError && error.offline) return kept;
    throw error;
  });
  return catalog;
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
  screen.context = context;
  screen.id_ = id;
  screen.onChange = () => screen.changed();
  context.sync.addEventListener("change", screen.onChange);
  screen.load();
  return screen;
}

/** What a focused control is, so that the same control has focus again after a redraw. @param {Element} element */
function focusKey(element) {
  if (element.id) return `#${element.id}`;
  if (element instanceof HTMLElement && element.dataset.item) return `item:${element.dataset.item}`;
  return `${element.tagName}:${element.getAttribute("aria-label") ?? element.textContent}`;
}

class NotebookElement extends HTMLElement {
  /** @type {Context | undefined} */
  context;
  /** @type {string | undefined} */
  id_;
  /** @type {(() => void) | undefined} */
  onChange;
  /**
   * What the screen says about the last thing asked of it (a refusal, or that it waits for the network).
   * @type {{text: string, alert: boolean, action?: [string, () => void]} | null}
   */
  said = null;

  get ctx() {
    return /** @type {Context} */ (this.context);
  }

  load() {}

  /** The synced records changed (another device's edit, or a write of this one answered). */
  changed() {}

  disconnectedCallback() {
    if (this.onChange) this.context?.sync.removeEventListener("change", this.onChange);
    this.stopWaiting();
  }

  /** Stops waiting for the network (see `whenOnline`). */
  stopWaiting() {}

  /**
   * Runs `again` once the network is back (the window's "online", or sync leaving "offline"): a
   * screen that could not be read offline reads itself again, without a reload.
   * @param {() => void} again
   */
  whenOnline(again) {
    this.stopWaiting();
    const sync = this.ctx.sync;
    let was = sync.state;
    const check = (/** @type {Event} */ event) => {
      const back = event.type === "online" || (was === "offline" && sync.state !== "offline");
      was = sync.state;
      if (!back) return;
      this.stopWaiting();
      if (this.isConnected) again();
    };
    window.addEventListener("online", check);
    sync.addEventListener("state", check);
    this.stopWaiting = () => {
      window.removeEventListener("online", check);
      sync.removeEventListener("state", check);
      this.stopWaiting = () => {};
    };
  }

  /**
   * Replaces the screen's content, keeping focus on the control that had it (a redraw when another
   * device changed something must not take the user's place away).
   * @param {...Node} children
   */
  draw(...children) {
    const active = document.activeElement;
    const focused = active && this.contains(active) ? focusKey(active) : null;
    this.replaceChildren(...children);
    if (!focused) return;
    const again = [...this.querySelectorAll("button, a, input, [data-item]")].find((element) => focusKey(element) === focused);
    /** @type {HTMLElement | undefined} */ (again)?.focus({ preventScroll: true });
  }

  /** Where the screen's sentence goes: next to its controls, redrawn with them (the same one kept, so it is not announced again). */
  saidSlot() {
    const kept = /** @type {HTMLElement | null} */ (this.querySelector(".nb-said"));
    if (kept && kept.dataset.said === JSON.stringify(this.said)) return kept;
    const slot = h("div", { class: "nb-said" });
    this.fillSaid(slot);
    return slot;
  }

  /** @param {HTMLElement} slot */
  fillSaid(slot) {
    const said = this.said;
    slot.dataset.said = JSON.stringify(said);
    slot.className = said ? `nb-said ${said.alert ? "alert" : "status"}` : "nb-said";
    slot.replaceChildren(...(said ? [h("p", { role: said.alert ? "alert" : "status" }, said.text), h("div", { class: "row" },
      said.action ? h("button", { type: "button", onclick: () => { this.say(null); said.action?.[1](); } }, said.action[0]) : null,
      h("button", { type: "button", class: "secondary", onclick: () => this.say(null) }, "OK"))] : []));
  }

  /**
   * Says something where the user is looking: beside the controls, scrolled into view; an alert for
   * a refusal, a status otherwise. `null` clears it.
   * @param {string | null} text @param {{alert?: boolean, action?: [string, () => void]}} [options]
   */
  say(text, options = {}) {
    const { alert = true, action } = options;
    this.said = text ? { text, alert, action } : null;
    const slot = /** @type {HTMLElement | null} */ (this.querySelector(".nb-said"));
    if (!slot) {
      if (text) window.dispatchEvent(new CustomEvent("quire:notice", { detail: text }));
      return;
    }
    this.fillSaid(slot);
    if (text) slot.scrollIntoView({ block: "nearest" });
  }

  /** Says the server's sentence for a refusal (or that the network is needed). @param {unknown} error @param {[string, () => void]} [action] */
  refused(error, action) {
    const text = error instanceof ApiError ? (error.offline ? "This needs the network; try again when you are online." : error.message)
      : "Something went wrong; try again.";
    this.say(text, { action });
  }
}

// Welcome -----------------------------------------------------------------------------------------

export class WelcomeScreen extends NotebookElement {
  load() {
    this.replaceChildren(h("main", { class: "screen welcome" },
      h("h1", {}, "Welcome to AR Notebook"),
      h("p", { class: "lead" }, "Your notebooks, in 3D, wherever you are."),
      h("ol", { class: "steps" },
        h("li", {}, "Swipe left or right on a page to turn it, or use the arrows."),
        h("li", {}, "Add a page, then write on it, paste what you copied, or add a picture."),
        h("li", {}, "Drag an item to move it; pinch it, or drag its corner, to resize it."),
        h("li", {}, "Turn the notebook round with the slider to see every side."),
        h("li", {}, "“View in your room” shows it over your camera, or on a table where your phone can."),
        h("li", {}, "Pin a notebook where you stand: people who come near it can open it.")),
      h("button", { type: "button", class: "hero", onclick: () => {
        localStorage.setItem("quire.ar.welcomed", "1");
        this.ctx.go("#/");
        announce("Opening your notebook.");
      } }, "Open my notebook")));
  }
}
customElements.define("nb-welcome", WelcomeScreen);

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

  async load() {
    this.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "Notebook"), h("p", { class: "hint", role: "status" }, "Opening…")));
    const sync = this.ctx.sync;
    try {
      this.catalog = await catalogOf(this.ctx);
      // A notebook made on this phone may be named by the id it had before the server gave it one.
      let id = this.id_ ? sync.resolve(this.id_) : "";
      if (!id) id = await this.openLast();
      this.notebookId = id;
      const local = this.current();
      if (!local || local.notebook.access === "read") {
        // Not here yet, or shared with this user: the server's copy, kept with the feed's (a shared
        // notebook's earlier pages never come through this user's feed).
        if (navigator.onLine) await sync.pull();
        if (!isLocal(this.nid)) {
          try {
            const content = await this.ctx.api.get(`${N}/notebooks/${encodeURIComponent(this.nid)}`);
            this.fallback = content;
            await keepFromServer(sync, content);
          } catch (error) {
            if (!local || !(error instanceof ApiError && error.offline)) throw error;
          }
        }
      }
      this.content = this.current();
      if (!this.content) throw new ApiError("This notebook is not on this phone, and the server does not know it.", 404);
      localStorage.setItem("quire.ar.last", this.content.notebook.id);
      const wanted = Number(sessionStorage.getItem(`quire.ar.page.${this.content.notebook.id}`) ?? "0");
      this.index = this.target = Math.min(wanted, this.content.pages.length);
      this.render();
      this.giveBackDraft();
    } catch (error) {
      // Not on the phone and no network: said as it is (nothing of the user's waits), and opened
      // as soon as the network is back.
      const offline = error instanceof ApiError && error.offline;
      if (offline) this.whenOnline(() => this.load());
      this.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "Notebook"),
        offline ? h("p", { class: "warning", role: "status" }, `${this.id_ ? "This notebook" : "Your notebook"} is not on this phone yet; it opens when the phone is online.`)
          : h("p", { class: "error", role: "alert" }, error instanceof ApiError ? error.message : "The notebook could not be opened; try again."),
        h("a", { href: "#/notebooks", class: "button secondary" }, "My notebooks")));
    }
  }

  /**
   * UC-3: the notebook opened last, or a new default one. Online the server says which (and keeps
   * when it was opened); offline, the one this phone opened last, or one made here and sent later.
   * @returns {Promise<string>}
   */
  async openLast() {
    const sync = this.ctx.sync;
    try {
      const answer = await this.ctx.api.request("POST", `${N}/open`, { body: {} });
      this.fallback = answer.body;
      return answer.body.notebook.id;
    } catch (error) {
      if (!(error instanceof ApiError && error.offline)) throw error;
    }
    const last = sync.resolve(localStorage.getItem("quire.ar.last") ?? "");
    const { mine, shared } = localNotebooks(sync);
    const found = [...mine, ...shared].find((n) => n.id === last) ?? mine[0];
    if (found) return found.id;
    if (!sync.db) throw new ApiError("offline", null);
    const id = localId();
    await sync.write({ method: "POST", path: `${N}/notebooks`, body: { name: "My notebook", cover: "colors" }, kind: NOTEBOOK, id });
    return id;
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
      this.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "Notebook"),
        h("p", { class: "warning", role: "status" }, "This notebook is no longer here: it was deleted, or its link was taken back."),
        h("a", { href: "#/notebooks", class: "button secondary" }, "My notebooks")));
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
    this.changeTimer = window.setTimeout(() => this.follow(), 100);
  }

  async follow() {
    if (!this.content || !this.isConnected) return;
    if (this.turning || this.dragging) return this.changed(); // once the gesture ends
    // A change of this phone the server took: its record comes with the feed (pulled now, so it
    // does not blink out between the outbox and the feed).
    const waiting = waitingFor(this.ctx.sync, this.nid).length;
    if (waiting < this.waitingCount && navigator.onLine) await this.ctx.sync.pull();
    if (!this.isConnected) return;
    this.reload();
  }

  /** This notebook's changes waiting in the outbox for the network. */
  waiting() {
    return waitingFor(this.ctx.sync, this.nid);
  }

  /**
   * A change of this notebook: sent now when the phone is online and nothing of this notebook
   * waits before it (a refusal said beside the controls, with `again`), else kept in the outbox
   * and sent in order when the network returns. Either way the screen shows it at once. Answers
   * the server's answer, `null` when it waits, `undefined` when refused.
   * @param {Omit<import("./outbox.js").Write, "key" | "attempts">} write @param {[string, () => void]} [again]
   * @returns {Promise<any>}
   */
  async change(write, again) {
    const sync = this.ctx.sync;
    const key = newKey();
    const queued = this.queues(write.path);
    this.say(null);
    if (!queued) {
      try {
        /** @type {Record<string, string>} */
        const headers = { "Idempotency-Key": key };
        if (write.baseVersion) headers["If-Match"] = `"${write.baseVersion}"`;
        const answer = await this.ctx.api.request(write.method, write.path, { body: write.body, contentType: write.contentType, headers });
        await sync.pull();
        return answer.body ?? {};
      } catch (error) {
        if (!(error instanceof ApiError && error.offline)) {
          this.refused(error, again);
          return undefined;
        }
      }
    }
    await sync.write({ ...write, key });
    this.waitingCount = this.waiting().length;
    return null;
  }

  /**
   * Whether a change to `path` waits in the outbox rather than going now: offline, or behind
   * another change of this notebook still waiting (it must not overtake it).
   * @param {string} path
   */
  queues(path) {
    return !navigator.onLine || this.ctx.sync.state === "offline" || this.waiting().length > 0 || isLocal(this.nid) || path.includes("local:");
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
    const shownAs = JSON.stringify([content, this.index, this.said, waiting.map((write) => write.key)]);
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
    this.draw(h("main", { class: "screen notebook" },
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
        h("ul", {}, ...waiting.map((write) => h("li", {}, this.waitingWhat(write))))) : null,
      this.saidSlot(),
      h("div", { class: "actions nb-actions" },
        readOnly ? null : h("button", { type: "button", onclick: () => this.addPage() }, "New page"),
        readOnly || !page ? null : h("button", { type: "button", class: "secondary", onclick: () => this.write() }, "Write"),
        readOnly || !page ? null : h("button", { type: "button", class: "secondary", onclick: () => this.paste() }, "Paste"),
        readOnly || !page ? null : this.picturePicker(),
        readOnly || !page ? null : h("button", { type: "button", class: "secondary", onclick: () => this.colour() }, "Page colour"),
        readOnly ? null : h("button", { type: "button", class: "secondary", disabled: !notebook.canUndo, onclick: () => this.undo() }, "Undo"),
        h("button", { type: "button", class: "secondary", onclick: () => this.inRoom() }, "View in your room"),
        notebook.access === "owner" ? h("button", { type: "button", class: "secondary", onclick: () => this.share() }, "Share") : null,
        notebook.access === "owner" ? h("button", { type: "button", class: "secondary", onclick: () => this.pin() }, notebook.pin ? "Pinned here · move pin" : "Pin here") : null,
        readOnly || !page ? null : h("button", { type: "button", class: "danger", onclick: () => this.deletePage() }, "Delete page"))));
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
      sheet.append(h("span", { class: "cover-title" }, notebook.coverText || notebook.name));
      return sheet;
    }
    const swatch = cat.palette.find((/** @type {any} */ s) => s.id === page.background)?.hex ?? "#FFFFFF";
    sheet.style.setProperty("--paper", swatch);
    if (page.background === "night") sheet.classList.add("dark");
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
      imageURL(this.ctx.api, item.image).then((url) => box.append(h("img", { src: url, alt: "" })))
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
      this.index = this.target;
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
      this.index = this.target;
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

  async addPage() {
    const cat = this.catalog;
    const choice = await chooseDialog("New page", [
      { name: "template", label: "Layout", options: cat.templates.map((/** @type {any} */ t) => [t.id, ({ blank: "Blank", "one-slot": "One picture", "two-slots": "Two pictures" })[/** @type {"blank"} */ (t.id)] ?? t.id]) },
      { name: "background", label: "Colour", options: cat.palette.map((/** @type {any} */ s) => [s.id, s.id[0].toUpperCase() + s.id.slice(1)]), swatches: cat.palette },
    ]);
    if (!choice) return;
    this.currentPage();
    const after = this.index;
    const answer = await this.change({ method: "POST", path: `${N}/notebooks/${this.nid}/pages`,
      body: { template: choice.template, background: choice.background, after }, kind: PAGE, id: localId(), recordAt: "page" });
    if (answer === undefined) return;
    this.reload(answer?.number ?? after + 1);
    announce(`Page ${this.index} added.`);
    if (answer === null) this.say(`No network: page ${this.index} is kept on this phone and made on the server when the phone is online.`, { alert: false });
  }

  async colour() {
    const page = this.currentPage();
    if (!page) return;
    const cat = this.catalog;
    const choice = await chooseDialog("Page colour", [
      { name: "background", label: "Colour", options: cat.palette.map((/** @type {any} */ s) => [s.id, s.id[0].toUpperCase() + s.id.slice(1)]), swatches: cat.palette, value: page.background },
    ]);
    if (!choice) return;
    const answer = await this.change({ method: "PATCH", path: `${N}/notebooks/${this.nid}/pages/${page.id}`, body: { background: choice.background }, kind: PAGE, id: page.id });
    if (answer !== undefined) this.reload();
  }

  /**
   * Where on the page an insert goes (FR3.2.6–7): a page from a template asks which free slot
   * when more than one is free; a full page says so (nothing is stacked over its slots). Answers
   * the slot, null for a blank page (centred), or undefined when there is nowhere (or cancelled).
   * @param {Page} page
   * @returns {Promise<number | null | undefined>}
   */
  async whereOnPage(page) {
    if (!page.slots.length) return null;
    const free = freeSlots(page);
    if (!free.length) {
      this.say(`Page ${this.numberOf(page)} is full: its ${page.slots.length === 1 ? "slot holds" : `${page.slots.length} slots hold`} an item each. `
        + "Add a page, or remove an item first (tap it).", { action: ["New page", () => this.addPage()] });
      return undefined;
    }
    if (free.length === 1) return free[0];
    const names = page.slots.length === 2 ? ["Top", "Bottom"] : page.slots.map((_, n) => `Slot ${n + 1}`);
    const choice = await chooseDialog("Where on the page", [{ name: "slot", label: "Slot", options: free.map((n) => [String(n), names[n]]) }]);
    return choice ? Number(choice.slot) : undefined;
  }

  /**
   * Puts text or a picture on the page showing, in `slot`. Offline, it waits in the outbox (drawn
   * on the page as waiting) and goes on that page when the network returns; nothing the user typed
   * is thrown away. A refusal is said beside the controls, with `again` to change what was typed.
   * Answers the server's answer, null when it waits in the outbox, undefined when nothing was added.
   * @param {any} body @param {number | null} slot @param {[string, () => void]} [again]
   * @returns {Promise<any>}
   */
  async insert(body, slot, again) {
    const page = this.currentPage();
    if (!page) return;
    const picture = body instanceof Blob;
    // Kept for later, it would be refused only then, out of sight: the server's rule, said now.
    if (!picture && body.kind === "clipboard" && [...body.text].length > (this.catalog.clipboardMaxCharacters ?? 140) && this.queues(`${N}/notebooks/${this.nid}`)) {
      const max = this.catalog.clipboardMaxCharacters ?? 140;
      this.say(`Clipboard text is at most ${max} characters; this is ${[...body.text].length}. Copy a shorter passage or type it as keyboard text.`, { action: again });
      return;
    }
    const aspect = picture ? await aspectOf(body) : undefined;
    const slots = page.slots;
    const frame = placed(this.catalog, slot === null ? undefined : slots[slot], aspect);
    const path = `${N}/notebooks/${this.nid}/pages/${page.id}/items${picture && slot !== null ? `?slot=${slot}` : ""}`;
    const sent = picture ? body : { ...body, ...(slot === null ? {} : { slot }) };
    const answer = await this.change({ method: "POST", path, body: sent, contentType: picture ? body.type : undefined, kind: ITEM, id: localId(),
      recordAt: "item", local: { kind: picture ? "image" : body.kind, text: picture ? undefined : body.text, slot, frame } }, again);
    if (answer === undefined) return undefined;
    this.reload();
    if (answer === null) {
      this.say(`No network: ${picture ? "the picture is" : "your text is"} kept on this phone and goes on page ${this.numberOf(page)} when the phone is online.`, { alert: false });
    } else {
      announce(picture ? "Picture added." : "Added.");
    }
    return answer;
  }

  /** A change waiting for the network, in words. @param {import("./outbox.js").Write} write */
  waitingWhat(write) {
    const what = writeOf(write);
    const pageOf = (/** @type {string | undefined} */ id) => {
      const found = this.content?.pages.findIndex((page) => page.id === id || page.id === this.ctx.sync.resolve(id ?? "")) ?? -1;
      return found >= 0 ? `page ${found + 1}` : "its page";
    };
    const item = (/** @type {string | undefined} */ id) => this.content?.pages.flatMap((p) => p.items).find((i) => i.id === id);
    const said = (/** @type {Item | undefined} */ it) => it?.kind === "image" ? "a picture" : `“${it?.text ?? ""}”`;
    switch (what?.what) {
      case "create": return `This notebook, “${write.body?.name ?? ""}”`;
      case "rename": return "Its new name";
      case "page": return "A new page";
      case "background": return `A colour for ${pageOf(what.target)}`;
      case "insert": return `${write.body instanceof Blob ? "A picture" : `“${write.body?.text ?? ""}”`} · ${pageOf(what.target)}`;
      case "item": return write.body?.text !== undefined ? `New text “${write.body.text}”` : `${said(item(what.target))} moved`;
      case "remove": return "An item removed";
      case "undo": return "Undo";
      default: return "A change";
    }
  }

  /** Whose drafts these are (a phone may be shared by two accounts). */
  get account() {
    return this.ctx.api.session?.accountId ?? "";
  }

  /**
   * Text typed on this notebook's page and not saved when the phone last showed it (a reload, the
   * browser closing the tab): the page turned to, and the dialog opened again with the text.
   */
  giveBackDraft() {
    const content = this.content;
    if (!content || !this.editable) return;
    const draft = draftsOf(this.account, [this.notebookId, this.nid, content.notebook.id])[0];
    if (!draft) return;
    const at = content.pages.findIndex((p) => p.id === draft.page || p.id === this.ctx.sync.resolve(draft.page));
    if (at < 0) return dropDraft(this.account, draft); // its page was deleted
    if (this.index !== at + 1) {
      this.index = this.target = at + 1;
      this.render();
    }
    const page = content.pages[at];
    announce("What you were writing is back.");
    if (draft.item) {
      const item = page.items.find((i) => i.id === draft.item || i.id === this.ctx.sync.resolve(draft.item ?? ""));
      if (!item) return dropDraft(this.account, draft);
      return void this.editItem(item, draft.text, draft);
    }
    void this.write(draft.text, draft.slot, draft);
  }

  /**
   * Asks where on the page (if it has slots), then the text, kept as a draft while it is typed.
   * @param {string} [typed] what was typed before (refused by the server, or a draft given back)
   * @param {number | null} [slotWas] the slot it was for, asked again only when no longer free
   * @param {import("./notebook-drafts.js").Draft} [was] the draft given back, forgotten once this one is kept
   */
  async write(typed = "", slotWas, was) {
    const page = this.currentPage();
    if (!page) return;
    const free = slotWas !== undefined && (slotWas === null ? !page.slots.length : freeSlots(page).includes(slotWas));
    const slot = free ? slotWas : await this.whereOnPage(page);
    if (slot === undefined) return;
    const where = { notebook: this.nid, page: page.id, slot };
    const asked = askText({ title: "Write on the page", label: "Your text", id: "nb-text", action: "Add", multiline: true,
      required: "Type something first, or tap Cancel.", value: typed });
    if (was) dropDraft(this.account, was);
    keepDraft(this.account, where, "nb-text");
    const text = await asked;
    if (!text) return dropDraft(this.account, where);
    const answer = await this.insert({ kind: "text", text }, slot, ["Change the text", () => this.write(text, slot)]);
    if (answer !== undefined) dropDraft(this.account, where);
  }

  /** What was copied goes on the page; the server refuses more than its clipboard limit, in words. */
  async paste() {
    const page = this.currentPage();
    if (!page) return;
    const slot = await this.whereOnPage(page);
    if (slot === undefined) return;
    let text = "";
    try {
      text = await navigator.clipboard.readText();
    } catch {
      const typed = await textDialog("Paste", "Paste here (the browser did not let the app read the clipboard)");
      if (!typed) return;
      text = typed;
    }
    await this.insert({ kind: "clipboard", text }, slot, ["Write it instead", () => this.write(text)]);
  }

  picturePicker() {
    /** @type {number | null} */
    let slot = null;
    const input = /** @type {HTMLInputElement} */ (h("input", { type: "file", accept: "image/*", hidden: true,
      onchange: () => { const file = input.files?.[0]; input.value = ""; if (file) this.insert(file, slot); } }));
    return h("span", { class: "picker" }, h("button", { type: "button", class: "secondary", onclick: async () => {
      const page = this.currentPage();
      if (!page) return;
      const where = await this.whereOnPage(page);
      if (where === undefined) return;
      slot = where;
      input.click();
    } }, "Picture"), input);
  }

  async undo() {
    this.currentPage();
    const answer = await this.change({ method: "POST", path: `${N}/notebooks/${this.nid}/undo`, kind: NOTEBOOK, id: this.nid });
    if (answer === undefined) return;
    this.reload();
    announce("Undone.");
  }

  /**
   * UC-6: an item's choices, on a tap (or Enter): change its text, or remove it after confirming.
   * @param {Item} item
   */
  async itemMenu(item) {
    if (!this.editable) return;
    const what = item.kind === "image" ? "this picture" : `“${(item.text ?? "").length > 40 ? `${(item.text ?? "").slice(0, 39)}…` : item.text}”`;
    const choice = await chooseDialog(item.kind === "image" ? "A picture" : "Text on the page", [{ name: "action", label: "What to do",
      options: [...(item.kind === "image" ? [] : [["edit", "Change the text"]]), ["remove", "Remove it"]].map((o) => /** @type {[string, string]} */ (o)) }]);
    if (!choice) return;
    if (choice.action === "edit") return this.editItem(item);
    if (!(await confirmAction(`Remove ${what} from page ${this.index}? Undo cannot bring it back.`, "Remove"))) return;
    const answer = await this.change({ method: "DELETE", path: `${N}/notebooks/${this.nid}/items/${item.id}`, kind: ITEM, id: item.id });
    if (answer === undefined) return;
    this.reload();
    announce("Removed.");
  }

  /** @param {Item} item @param {string} [typed] @param {import("./notebook-drafts.js").Draft} [was] a draft given back */
  async editItem(item, typed, was) {
    const page = this.currentPage();
    const where = { notebook: this.nid, page: page?.id ?? "", item: item.id };
    const asked = askText({ title: "Change the text", label: "Its text", id: "nb-text", action: "Save", multiline: true,
      required: "Type something first, or tap Cancel.", value: typed ?? item.text ?? "" });
    if (was) dropDraft(this.account, was);
    if (page) keepDraft(this.account, where, "nb-text");
    const text = await asked;
    if (!text || text === item.text) return dropDraft(this.account, where);
    const answer = await this.change({ method: "PATCH", path: `${N}/notebooks/${this.nid}/items/${item.id}`, body: { text }, kind: ITEM, id: item.id,
      baseVersion: item.version || undefined }, ["Change the text", () => this.editItem(item, text)]);
    if (answer === undefined) return;
    dropDraft(this.account, where);
    this.reload();
    announce("Changed.");
  }

  async deletePage() {
    const page = this.currentPage();
    if (!page) return;
    this.say(null);
    const number = this.numberOf(page);
    if (!(await confirmedDelete(this, `${N}/notebooks/${this.nid}/pages/${page.id}`))) return;
    await this.ctx.sync.pull();
    this.reload(number); // the page that took its place, or the new last page
    announce("Page deleted.");
  }

  share() {
    const notebook = /** @type {Notebook} */ (this.content?.notebook);
    // The link opens the app, which opens the notebook read-only for whoever signs in with it.
    return shareLink(this.ctx.api, `${N}/notebooks/${notebook.id}/share`, {}, notebook.name,
      (answer) => `${location.origin}/#/accept/${encodeURIComponent(answer.token)}`);
  }

  async pin() {
    const here = await whereAmI(60_000);
    if (!here) {
      this.say("Your location is needed to pin the notebook here; allow it, then try again.");
      return;
    }
    try {
      await this.ctx.api.request("PUT", `${N}/notebooks/${this.content?.notebook.id}/pin`,
        { body: { latitude: here.latitude, longitude: here.longitude, allowEdits: false } });
      await this.ctx.sync.pull();
      this.reload();
      announce("Pinned where you stand.");
    } catch (error) {
      this.refused(error);
    }
  }

  /**
   * The notebook in the room. Where the browser offers WebXR `immersive-ar`, it is placed on a
   * detected table or floor (`xr-room.js`); elsewhere it shows over the camera's image. Either way
   * a camera frame is judged for light first: too dark or too warm warns.
   */
  async inRoom() {
    const stage = /** @type {HTMLElement} */ (this.stage);
    if (stage.classList.contains("over-camera")) {
      // Back to the notebook on the screen: what was said of the camera's light goes with it.
      this.lightSaid?.remove();
      this.lightSaid = undefined;
      return this.leaveRoom();
    }
    if (this.room) return;
    if (await arSupported()) return this.placeInRoom();
    const video = await this.openCamera();
    if (!video) return;
    this.camera = video;
    this.stage?.prepend(video);
    this.stage?.classList.add("over-camera");
    await this.judgeLight(video);
  }

  /** The back camera, playing, or null (said why). @returns {Promise<HTMLVideoElement | null>} */
  async openCamera() {
    if (!navigator.mediaDevices?.getUserMedia) {
      this.say("This browser cannot show the camera; the notebook stays in 3D on the screen.");
      return null;
    }
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false });
    } catch {
      this.say("The camera is needed to show the notebook in your room; allow it, then try again.");
      return null;
    }
    const video = /** @type {HTMLVideoElement} */ (h("video", { class: "camera", autoplay: true, muted: true, playsinline: true, "aria-hidden": "true" }));
    video.srcObject = stream;
    this.stream = stream;
    await video.play().catch(() => {});
    await new Promise((resolve) => (video.readyState >= 2 ? resolve(null) : video.addEventListener("loadeddata", resolve, { once: true })));
    return video;
  }

  /** WebXR: the light judged from one camera frame, then the room session, with its hint and Done over it. */
  async placeInRoom() {
    const video = await this.openCamera();
    if (video) {
      await this.judgeLight(video);
      this.leaveRoom(); // the session needs the camera to itself
    }
    const hint = h("p", { class: "xr-hint", role: "status" });
    const done = h("button", { type: "button", onclick: () => room.end() }, "Done");
    const overlay = h("div", { class: "xr-overlay" }, hint, done);
    document.body.append(overlay);
    const room = new RoomView({ page: this.picture(), cover: this.coverPicture(), overlay,
      say: (text) => { hint.textContent = text; } });
    room.addEventListener("end", () => {
      overlay.remove();
      this.room = undefined;
      announce("Back to the notebook on the screen.");
    });
    try {
      await room.start();
      this.room = room;
    } catch {
      overlay.remove();
      this.say("The room view could not start on this phone; the notebook stays in 3D on the screen.");
    }
  }

  /** What the notebook shows in the room: the open page (its colour, words and pictures), or the cover. */
  picture() {
    const page = this.index > 0 ? this.content?.pages[this.index - 1] ?? null : null;
    return pagePicture(this.catalog, page, /** @type {Notebook} */ (this.content?.notebook), this);
  }

  coverPicture() {
    return coverPicture(this.catalog, /** @type {Notebook} */ (this.content?.notebook));
  }

  leaveRoom() {
    this.stream?.getTracks().forEach((track) => track.stop());
    this.stream = undefined;
    this.camera = undefined;
    this.stage?.querySelector("video.camera")?.remove();
    this.stage?.classList.remove("over-camera");
  }

  /** @param {HTMLVideoElement} video */
  async judgeLight(video) {
    const canvas = document.createElement("canvas");
    canvas.width = 160;
    canvas.height = Math.round((160 * (video.videoHeight || 120)) / (video.videoWidth || 160));
    /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d")).drawImage(video, 0, 0, canvas.width, canvas.height);
    const frame = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.8));
    if (!(frame instanceof Blob)) return;
    try {
      const verdict = (await this.ctx.api.request("POST", `${DM}/lighting`, { body: frame, contentType: "image/jpeg" })).body;
      const said = h("p", { class: verdict.warnings.length ? "warning light" : "hint light", role: "status" }, verdict.message);
      this.querySelector(".light")?.remove();
      this.lightSaid = said;
      this.stage?.after(said);
    } catch (error) {
      this.refused(error);
    }
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    clearTimeout(this.changeTimer);
    this.leaveRoom();
    this.room?.end();
  }
}
customElements.define("nb-book", BookScreen);

/** @type {WeakMap<Blob, string>} */
const blobURLs = new WeakMap();

/** An object URL for a picture waiting in the outbox (one per picture, however often it is drawn). @param {Blob} blob */
function blobURL(blob) {
  let url = blobURLs.get(blob);
  if (!url) {
    url = URL.createObjectURL(blob);
    blobURLs.set(blob, url);
  }
  return url;
}

/** A picture's width ÷ height, to draw it where the server will put it; undefined when it cannot be read. @param {Blob} blob */
async function aspectOf(blob) {
  try {
    const bitmap = await createImageBitmap(blob);
    const aspect = bitmap.width / Math.max(1, bitmap.height);
    bitmap.close();
    return aspect;
  } catch {
    return undefined;
  }
}

/**
 * A small dialog of choices (radio groups); resolves the chosen values, or null when cancelled.
 * @param {string} title
 * @param {Array<{name: string, label: string, options: Array<[string, string]>, swatches?: any[], value?: string}>} groups
 * @returns {Promise<Record<string, string> | null>}
 */
function chooseDialog(title, groups) {
  return new Promise((resolve) => {
    const form = /** @type {HTMLFormElement} */ (h("form", { method: "dialog", class: "stack" }, h("h2", { id: "choose-title" }, title),
      ...groups.map((group) => h("fieldset", { class: "choices" }, h("legend", {}, group.label),
        ...group.options.map(([value, label], index) => {
          const swatch = group.swatches?.find((s) => s.id === value)?.hex;
          const chip = h("span", { class: "swatch-dot", "aria-hidden": "true" });
          if (swatch) chip.style.setProperty("--swatch", swatch);
          return h("label", { class: "choice" }, h("input", { type: "radio", name: group.name, value,
            checked: group.value ? group.value === value : index === 0 }), swatch ? chip : null, label);
        }))),
      h("div", { class: "row" }, h("button", { type: "submit", value: "cancel", class: "secondary" }, "Cancel"),
        h("button", { type: "submit", value: "ok" }, "OK"))));
    const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "confirm", "aria-labelledby": "choose-title" }, form));
    dialog.addEventListener("close", () => {
      dialog.remove();
      if (dialog.returnValue !== "ok") return resolve(null);
      const data = new FormData(form);
      resolve(Object.fromEntries(groups.map((g) => [g.name, String(data.get(g.name) ?? "")])));
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/**
 * A delete the server confirms first: its 428 names what would go and the token that confirms
 * it; the person is asked in those words. Resolves whether it was deleted.
 * @param {NotebookElement} screen @param {string} path @returns {Promise<boolean>}
 */
async function confirmedDelete(screen, path) {
  try {
    await screen.ctx.api.request("DELETE", path);
    return true;
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 428) {
      screen.refused(error);
      return false;
    }
    if (!(await confirmAction(error.problem?.detail?.split(" Repeat the request")[0] ?? error.message, "Delete"))) return false;
    try {
      await screen.ctx.api.request("DELETE", `${path}?confirm=${encodeURIComponent(error.problem?.confirm ?? "")}`);
      return true;
    } catch (failure) {
      screen.refused(failure);
      return false;
    }
  }
}

/** Text for the page, or a notebook's name. @param {string} title @param {string} label */
function textDialog(title, label) {
  return askText({ title, label, id: "nb-text", action: "Add", multiline: true, required: "Type something first, or tap Cancel." });
}

// My notebooks -------------------------------------------------------------------------------------

export class NotebooksScreen extends NotebookElement {
  /** @type {{mine: Notebook[], shared: Notebook[]} | undefined} */
  lists;
  askedShared = false;
  shownAs = "";
  changeTimer = 0;

  /** Another device made, renamed or deleted a notebook: the list follows. */
  changed() {
    clearTimeout(this.changeTimer);
    this.changeTimer = window.setTimeout(() => { if (this.isConnected) this.load(); }, 150);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    clearTimeout(this.changeTimer);
  }

  /** The notebooks this phone has (from the sync feed, with what waits in the outbox): online and offline alike. */
  load() {
    this.lists = localNotebooks(this.ctx.sync);
    this.render();
    // Online, the shared ones as the server lists them (one shared before this phone's feed
    // began has not come through it; one whose link was taken back goes).
    if (navigator.onLine && !this.askedShared) {
      this.askedShared = true;
      this.ctx.api.get(`${N}/shared`).then((answer) => keepShared(this.ctx.sync, answer.items)).catch(() => {});
    }
  }

  render() {
    const lists = /** @type {{mine: Notebook[], shared: Notebook[]}} */ (this.lists);
    const { mine, shared } = lists;
    const shownAs = JSON.stringify([mine, shared, this.said]);
    if (shownAs === this.shownAs) return;
    this.shownAs = shownAs;
    /** @param {Notebook} notebook @param {string} note */
    const row = (notebook, note) => h("li", {}, h("a", { href: `#/n/${encodeURIComponent(notebook.id)}`, class: `big-link cover-${notebook.cover}` },
      h("span", {}, notebook.name), h("span", { class: "count" }, note)));
    this.draw(h("main", { class: "screen" },
      h("div", { class: "toolbar" }, h("h1", {}, "My notebooks"), h("button", { type: "button", onclick: () => this.create() }, "New notebook")),
      this.saidSlot(),
      h("ul", { class: "big-list", "aria-label": "My notebooks" }, ...mine.map((n) =>
        row(n, `${n.pageCount} page${n.pageCount === 1 ? "" : "s"}${n.pending ? " · waiting for the network" : ""}`))),
      shared.length ? h("h2", {}, "Shared with me") : null,
      shared.length ? h("ul", { class: "big-list", "aria-label": "Shared with me" }, ...shared.map((n) => row(n, "read only"))) : null,
      mine.length ? h("h2", {}, "Delete a notebook") : null,
      mine.length ? h("ul", { class: "chips" }, ...mine.map((n) => h("li", {},
        h("button", { type: "button", class: "danger", "aria-label": `Delete ${n.name}`, onclick: () => this.remove_(n) }, `Delete “${n.name}”`)))) : null));
  }

  /** A new notebook: its name, then its cover. Refused or offline, the name typed is kept to try again. @param {string} [typed] */
  async create(typed = "") {
    const name = await askText({ title: "New notebook", label: "Its name", id: "nb-text", action: "Add", multiline: true,
      required: "Type something first, or tap Cancel.", value: typed });
    if (!name) return;
    this.say(null);
    /** @type {[string, () => void]} */
    const again = ["Try again", () => this.create(name)];
    let catalogue;
    try {
      catalogue = await catalogOf(this.ctx);
    } catch (error) {
      return this.refused(error, again);
    }
    const choice = await chooseDialog("Its cover", [{ name: "cover", label: "Cover",
      options: catalogue.covers.map((/** @type {any} */ c) => [c.id, c.summary]) }]);
    if (!choice) return;
    const body = { name: name.trim(), cover: choice.cover };
    if (navigator.onLine && this.ctx.sync.state !== "offline") {
      try {
        const made = await this.ctx.api.request("POST", `${N}/notebooks`, { body, headers: { "Idempotency-Key": newKey() } });
        await this.ctx.api.request("POST", `${N}/open`, { body: { id: made.body.id } });
        await this.ctx.sync.pull();
        this.ctx.go(`#/n/${encodeURIComponent(made.body.id)}`);
        return;
      } catch (error) {
        if (!(error instanceof ApiError && error.offline)) return this.refused(error, again);
      }
    }
    // Offline: made on this phone now, on the server when the network returns.
    const id = localId();
    await this.ctx.sync.write({ method: "POST", path: `${N}/notebooks`, body, kind: NOTEBOOK, id });
    localStorage.setItem("quire.ar.last", id);
    this.ctx.go(`#/n/${encodeURIComponent(id)}`);
  }

  /** @param {Notebook} notebook */
  async remove_(notebook) {
    this.say(null);
    if (!(await confirmedDelete(this, `${N}/notebooks/${notebook.id}`))) return;
    await this.ctx.sync.pull();
    announce(`${notebook.name} deleted.`);
    this.load();
  }
}
customElements.define("nb-notebooks", NotebooksScreen);

/** A shared link opened in the app: the notebook becomes readable, then opens. */
export class AcceptScreen extends NotebookElement {
  async load() {
    this.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "Opening a shared notebook…")));
    try {
      const answer = await this.ctx.api.request("POST", `${N}/shared`, { body: { token: this.id_ } });
      this.ctx.go(`#/n/${encodeURIComponent(answer.body.notebook.id)}`);
    } catch (error) {
      // Offline: the link is the server's to open; it opens by itself once the network is back.
      const offline = error instanceof ApiError && error.offline;
      if (offline) this.whenOnline(() => this.load());
      this.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "A shared notebook"),
        offline ? h("p", { class: "warning", role: "status" }, "Opening a shared link needs the network; it opens when the phone is online.")
          : h("p", { class: "error", role: "alert" }, error instanceof ApiError ? error.message : "The link could not be opened."),
        h("a", { href: "#/", class: "button" }, "My notebook")));
    }
  }
}
customElements.define("nb-accept", AcceptScreen);
