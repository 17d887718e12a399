// @ts-check
/** Napkin Notes' back of a note: the drawing pad, following another phone's strokes. */
import { ApiError } from "./api.js";
import { ScreenElement } from "./screen-element.js";
import { h } from "./ui.js";
import { KIND, NOTES } from "./notes-parts.js";
import "./drawing-pad.js";

/** @typedef {import("./notes-parts.js").Context} Context */

/** Whether two drawings hold the same strokes and words (numbers as the server writes them back).
 * @param {any} a @param {any} b */
function sameDrawing(a, b) {
  const r = (/** @type {any} */ n) => (typeof n === "number" ? Math.round(n * 1e4) / 1e4 : n);
  const keys = (/** @type {any} */ d) => JSON.stringify([
    (d?.strokes ?? []).map((/** @type {any} */ s) => [s.tool, s.color, r(s.width), (s.points ?? []).map((/** @type {any} */ p) => [r(p.x), r(p.y)])]),
    (d?.texts ?? []).map((/** @type {any} */ t) => [t.text, t.color, r(t.x), r(t.y), r(t.size)]), r(d?.aspect)]);
  return keys(a) === keys(b);
}

export class NoteBack extends ScreenElement {
  /** @param {Context} context @param {string} id */
  async attach(context, id) {
    this.context = context;
    const pad = /** @type {import("./drawing-pad.js").DrawingPad} */ (h("drawing-pad"));
    this.replaceChildren(h("main", { class: "screen back" },
      h("div", { class: "toolbar" },
        h("a", { href: `#/notes/${encodeURIComponent(id)}`, class: "button secondary" }, "Flip back"),
        h("h1", {}, "The back")),
      pad));
    this.fit = () => this.fitCanvas(pad);
    window.addEventListener("resize", this.fit);
    requestAnimationFrame(() => this.fit?.());
    const db = /** @type {import("./db.js").Database} */ (context.sync.db);
    // The newest drawing this phone knows: one it drew that still waits to be sent; else the
    // server's (another phone may have drawn since this one last looked); else, offline, the copy
    // kept when this phone last saw or drew it.
    const real = context.sync.resolve(id);
    const waiting = context.sync.writes.filter((w) => w.kind === KIND && w.method === "PUT" && w.path.endsWith("/drawing")
      && (w.id === real || w.id === id)).at(-1);
    let drawing = waiting?.body ?? null;
    if (!drawing && !real.startsWith("local:")) {
      try {
        drawing = await context.api.get(`${NOTES}/${real}/drawing`);
      } catch (error) {
        // Offline: the copy kept here. Answered (none on the server): none.
        drawing = error instanceof ApiError && error.offline ? await db.meta(`drawing:${id}`) : null;
      }
      if (drawing) await db.setMeta(`drawing:${id}`, drawing);
    } else {
      drawing ??= await db.meta(`drawing:${id}`);
    }
    if (drawing) pad.load(drawing);
    // Each put carries the drawing it was drawn on, so it is merged into the server's at send
    // time: another phone's strokes drawn meanwhile stay (see mergeDrawing).
    // Copies: the pad draws into the arrays it was given.
    let base = drawing ? structuredClone(drawing) : null;
    this.followDrawing(context, id, pad, (/** @type {any} */ now) => { base = structuredClone(now); });
    pad.addEventListener("change", async (event) => {
      const value = /** @type {CustomEvent} */ (event).detail;
      const drawnOn = base;
      base = structuredClone(value);
      // Queued first: the indicator says "Saving" from the stroke on, never "Saved" while the
      // stroke is still only on the canvas (seen by a fresh-clone walk).
      const queued = context.sync.write({ method: "PUT", path: `${NOTES}/${id}/drawing`, body: value, kind: KIND, id,
        rebase: { kind: "drawing", base: drawnOn } });
      await db.setMeta(`drawing:${id}`, value);
      await queued;
    });
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    if (this.fit) window.removeEventListener("resize", this.fit);
  }

  /** The synced records changed: the drawing is checked (see followDrawing), not drawn again. */
  changed() {
    this.checkDrawing?.();
  }

  /** The canvas takes the height the screen has left under the tools, upright or turned: the
   * whole back in view, never past the screen's foot (the drawing keeps its shape inside it,
   * letterboxed; see strokes.js). @param {import("./drawing-pad.js").DrawingPad} pad */
  fitCanvas(pad) {
    const canvas = /** @type {HTMLCanvasElement | undefined} */ (pad.canvas);
    if (!canvas || !this.isConnected) return;
    const box = canvas.getBoundingClientRect();
    const main = /** @type {HTMLElement} */ (this.querySelector("main"));
    const top = box.top + window.scrollY;
    const below = Math.max(0, main.getBoundingClientRect().bottom - box.bottom) + parseFloat(getComputedStyle(main).marginBottom || "0");
    const room = Math.floor(window.innerHeight - top - below - 4);
    // Turned (a low screen): the tools take most of it, so the canvas takes the screen's height
    // and is scrolled into view, the tools just above it.
    const low = room < 200;
    // The app's bar stays at the top as the page scrolls: the canvas fits under it.
    const bar = document.querySelector("header.bar");
    const covered = bar && /sticky|fixed/.test(getComputedStyle(bar).position) ? bar.getBoundingClientRect().height : 0;
    // CSSOM, which the CSP allows.
    canvas.style.height = `${low ? Math.max(120, Math.floor(window.innerHeight - covered - 8)) : room}px`;
    if (low) requestAnimationFrame(() => canvas.scrollIntoView({ block: "end" }));
  }

  connectedCallback() {
    // Measured once laid out.
    requestAnimationFrame(() => this.fit?.());
  }

  /**
   * The open back follows the other phone as the front's text does: when the note's drawing
   * changed on the server and this phone has nothing of its own still to send for it, the
   * server's drawing is shown (a stroke being drawn here waits for the finger to lift, then is
   * added to it; see DrawingPad.follow). While this phone's strokes wait in the outbox they are
   * merged into the server's when sent, and the answer brings the merged drawing back.
   * @param {Context} context @param {string} id @param {import("./drawing-pad.js").DrawingPad} pad
   * @param {(drawing: any) => void} seen  the drawing the next stroke is drawn on
   */
  followDrawing(context, id, pad, seen) {
    const waiting = () => {
      const real = context.sync.resolve(id);
      return context.sync.writes.some((w) => w.kind === KIND && w.path.endsWith("/drawing") && (w.id === real || w.id === id));
    };
    let shown = context.sync.one(KIND, context.sync.resolve(id))?.drawing ?? null;
    let fetching = false;
    const check = async () => {
      const real = context.sync.resolve(id);
      const note = context.sync.one(KIND, real);
      if (!note || fetching || real.startsWith("local:") || waiting()) return;
      const now = note.drawing ?? null;
      if (now === shown) return;
      fetching = true;
      try {
        const drawing = await context.api.get(`${NOTES}/${real}/drawing`);
        // A stroke finished meanwhile is on its way: its answer brings the drawing again.
        if (waiting() || !this.isConnected) return;
        shown = now;
        seen(drawing);
        // This phone's own write answered: the same drawing, nothing to draw again.
        if (!sameDrawing(drawing, pad.drawing)) pad.follow(drawing);
        await /** @type {import("./db.js").Database} */ (context.sync.db).setMeta(`drawing:${id}`, drawing);
      } catch {
        // Offline or refused: the drawing shown stays; the next change tries again.
      } finally {
        fetching = false;
      }
      if (this.isConnected && (context.sync.one(KIND, context.sync.resolve(id))?.drawing ?? null) !== shown) check();
    };
    /** @type {(() => void) | undefined} */
    this.checkDrawing = () => { check(); };
    this.follow(context);
  }
}
customElements.define("note-back", NoteBack);
