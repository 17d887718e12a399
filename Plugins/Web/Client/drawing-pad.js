// @ts-check
/** The back of a note, or mark-up over a photo: draw with a finger, a mouse or a pen (its
 * pressure), erase, pick a colour and a width, write words onto it (with the `texts` attribute),
 * clear, undo. Emits `change` with the drawing after each stroke, word, Clear or Undo — and only
 * then: the native `change` of its own controls (the width slider, the words' field) stays inside.
 *
 * `follow(drawing)` shows a newer drawing from elsewhere (another phone drew): a stroke being
 * drawn is never dropped — the newer drawing waits until the finger lifts, and the stroke is added
 * to it. Undo takes back this pad's own last stroke, word or Clear, leaving what others drew.
 *
 * The drawing keeps the shape of the surface it was first drawn on (its `aspect`): on a canvas of
 * another shape (the phone turned) it is painted letterboxed in its frame on the same paper, and
 * new strokes are drawn in that frame. */
import { clamp, frame, inFrame, paint, paintDrawing, pointFrom, round, saved, simplified } from "./strokes.js";
import { h } from "./ui.js";

/** A stroke or word as compared across copies (the server may write numbers back in another form). @param {any} item */
function key(item) {
  const r = (/** @type {any} */ n) => (typeof n === "number" ? Math.round(n * 1e4) / 1e4 : n);
  if (Array.isArray(item?.points)) return JSON.stringify(["s", item.tool, item.color, r(item.width), item.points.map((/** @type {any} */ p) => [r(p.x), r(p.y)])]);
  return JSON.stringify(["t", item?.text, item?.color, r(item?.x), r(item?.y), r(item?.size)]);
}

const COLOURS = [["#1b1b1b", "Black"], ["#c62828", "Red"], ["#1565c0", "Blue"], ["#2e7d32", "Green"], ["#f9a825", "Yellow"]];

export class DrawingPad extends HTMLElement {
  constructor() {
    super();
    /** @type {import("./strokes.js").Drawing} */
    this.drawing = { strokes: [], texts: [] };
    this.tool = /** @type {"pen" | "eraser" | "text"} */ ("pen");
    this.colour = COLOURS[0][0];
    this.width = 0.012;
    /** What Undo takes back, newest last: marks this pad added, and what its Clear removed.
     * @type {Array<{added: any[], removed: {strokes: any[], texts: any[]}, aspect?: number}>} */
    this.undos = [];
    /** A newer drawing that came while a stroke was being drawn. @type {import("./strokes.js").Drawing | null} */
    this.waiting = null;
    // A control's own `change` (the width slider's, the words' field's) bubbles: it would reach
    // whoever listens for the pad's, with no drawing — a write without a body. Only ours leave.
    this.addEventListener("change", (event) => { if (event.target !== this) event.stopPropagation(); }, { capture: true });
  }

  connectedCallback() {
    if (this.canvas) return;
    // Over a photo, a colour that shows on most pictures.
    const colour = this.getAttribute("colour");
    if (colour && COLOURS.some(([value]) => value === colour)) this.colour = colour;
    this.canvas = /** @type {HTMLCanvasElement} */ (h("canvas", { class: "pad", role: "img",
      "aria-label": this.getAttribute("label") ?? "Drawing on the back of the note" }));
    this.words = /** @type {HTMLInputElement} */ (h("input", { type: "text", class: "words", "aria-label": "Words to write on the photo",
      placeholder: "Type, then tap the photo", enterkeyhint: "done" }));
    const writing = this.hasAttribute("texts");
    const tools = h("div", { class: "tools", role: "toolbar", "aria-label": "Drawing tools" },
      this.toolButton("pen", "Pen"), this.toolButton("eraser", "Eraser"), writing ? this.toolButton("text", "Write") : null,
      ...COLOURS.map(([value, name]) => {
        const swatch = h("button", { type: "button", class: "swatch", "aria-label": name, "aria-pressed": String(value === this.colour),
          onclick: (/** @type {Event} */ e) => this.pickColour(value, /** @type {HTMLElement} */ (e.currentTarget)) });
        swatch.style.setProperty("--swatch", value); // CSSOM, which the CSP allows (a style attribute it would not)
        return swatch;
      }),
      h("label", { class: "width" }, "Width", h("input", { type: "range", min: "0.004", max: "0.04", step: "0.002", value: String(this.width),
        oninput: (/** @type {Event} */ e) => { this.width = Number(/** @type {HTMLInputElement} */ (e.target).value); } })),
      h("button", { type: "button", class: "secondary undo", disabled: true, onclick: () => this.undo() }, "Undo"),
      h("button", { type: "button", class: "secondary", onclick: () => this.clear() }, "Clear"));
    this.stage = h("div", { class: "stage" }, this.canvas);
    this.append(tools, writing ? this.words : "", this.stage);
    this.words.hidden = true;
    this.canvas.addEventListener("pointerdown", this.down);
    this.canvas.addEventListener("pointermove", this.move);
    this.canvas.addEventListener("pointerup", this.up);
    this.canvas.addEventListener("pointercancel", this.up);
    new ResizeObserver(() => this.resize()).observe(this.canvas);
  }

  /** @param {"pen" | "eraser" | "text"} tool @param {string} label */
  toolButton(tool, label) {
    return h("button", { type: "button", class: "tool", "data-tool": tool, "aria-pressed": String(this.tool === tool),
      onclick: () => {
        this.tool = tool;
        this.querySelectorAll(".tool").forEach((b) => b.setAttribute("aria-pressed", String(/** @type {HTMLElement} */ (b).dataset.tool === tool)));
        const words = /** @type {HTMLInputElement} */ (this.words);
        words.hidden = tool !== "text";
        if (tool === "text") words.focus();
      } }, label);
  }

  /**
   * Draws over a picture rather than on white: the canvas takes the picture's proportions, so the
   * drawing's 0–1 coordinates are the picture's.
   * @param {string} url @param {number} width @param {number} height @param {string} label
   */
  background(url, width, height, label) {
    const stage = /** @type {HTMLElement} */ (this.stage);
    stage.querySelector("img")?.remove();
    stage.prepend(h("img", { src: url, alt: label }));
    // CSSOM, which the CSP allows: the picture's proportions, no taller than most of the screen.
    stage.style.aspectRatio = `${width} / ${height}`;
    stage.style.width = `min(100%, calc(60vh * ${(width / height).toFixed(4)}))`;
    this.classList.add("over-picture");
  }

  /** @param {string} colour @param {HTMLElement} button */
  pickColour(colour, button) {
    this.colour = colour;
    this.querySelectorAll(".swatch").forEach((b) => b.setAttribute("aria-pressed", String(b === button)));
  }

  /** @param {import("./strokes.js").Drawing} drawing */
  load(drawing) {
    this.drawing = { strokes: drawing.strokes ?? [], texts: drawing.texts ?? [] };
    if (drawing.aspect) this.drawing.aspect = drawing.aspect;
    this.redraw();
  }

  /** A newer drawing from elsewhere: shown at once, or, while a stroke is being drawn, as soon as
   * the finger lifts (with that stroke added). @param {import("./strokes.js").Drawing} drawing */
  follow(drawing) {
    if (this.current) this.waiting = drawing;
    else this.load(drawing);
  }

  /** Whether a stroke is being drawn now. */
  get drawingNow() {
    return Boolean(this.current);
  }

  /** Takes back this pad's last stroke, word or Clear; what others drew since stays. */
  undo() {
    const last = this.undos.pop();
    this.undoButton();
    if (!last) return;
    const gone = new Set(last.added.map(key));
    const strokes = this.drawing.strokes.filter((s) => !gone.has(key(s)));
    const texts = this.drawing.texts.filter((t) => !gone.has(key(t)));
    const have = new Set([...strokes, ...texts].map(key));
    strokes.push(...last.removed.strokes.filter((s) => !have.has(key(s))));
    texts.push(...last.removed.texts.filter((t) => !have.has(key(t))));
    this.drawing = { ...this.drawing, strokes, texts };
    if (!this.drawing.aspect && last.aspect) this.drawing.aspect = last.aspect;
    this.redraw();
    this.changed();
  }

  /** Undo is offered while there is something of this pad's to take back. */
  undoButton() {
    const button = /** @type {HTMLButtonElement | null} */ (this.querySelector("button.undo"));
    if (button) button.disabled = this.undos.length === 0;
  }

  /** @param {{added: any[], removed: {strokes: any[], texts: any[]}, aspect?: number}} step */
  remember(step) {
    this.undos.push(step);
    if (this.undos.length > 50) this.undos.shift();
    this.undoButton();
  }

  /** The drawing's frame on the canvas, in CSS pixels. */
  frame() {
    const canvas = /** @type {HTMLCanvasElement} */ (this.canvas);
    return frame(this.drawing.aspect, canvas.clientWidth, canvas.clientHeight);
  }

  /** Before the first mark on a drawing without a shape: it takes the canvas' as it is now (all
   * an old drawing's strokes are painted over the whole canvas, so it looks the same). */
  keepShape() {
    const canvas = /** @type {HTMLCanvasElement} */ (this.canvas);
    if (!this.drawing.aspect && canvas.clientWidth > 0 && canvas.clientHeight > 0) {
      this.drawing.aspect = round(canvas.clientWidth / canvas.clientHeight);
    }
  }

  /** The drawing after a stroke, a word or Clear, for whoever saves it. */
  changed() {
    this.dispatchEvent(new CustomEvent("change", { detail: saved(this.drawing) }));
  }

  resize() {
    const canvas = /** @type {HTMLCanvasElement} */ (this.canvas);
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(canvas.clientWidth * ratio);
    canvas.height = Math.round(canvas.clientHeight * ratio);
    this.redraw();
  }

  redraw() {
    const canvas = this.canvas;
    if (!canvas) return;
    const context = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
    const ratio = window.devicePixelRatio || 1;
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, canvas.clientWidth, canvas.clientHeight);
    // Outside the frame (a canvas of another shape than the one it was drawn on) is left unpainted:
    // the paper (or the photo under it) shows there, not grey bars; strokes still start in the frame.
    paintDrawing(context, this.drawing, canvas.clientWidth, canvas.clientHeight);
  }

  /** A pointer event's position on the drawing's frame. @param {PointerEvent} event @param {import("./strokes.js").Frame} f */
  static local(event, f) {
    return { offsetX: event.offsetX - f.x, offsetY: event.offsetY - f.y, pressure: event.pressure, pointerType: event.pointerType };
  }

  /** @param {PointerEvent} event */
  down = (event) => {
    const canvas = /** @type {HTMLCanvasElement} */ (this.canvas);
    // Outside the drawing's frame (the letterbox's margin) draws nothing.
    const f = this.frame();
    if (!inFrame(f, event.offsetX, event.offsetY)) return;
    if (this.tool === "text") {
      this.write((event.offsetX - f.x) / f.width, (event.offsetY - f.y) / f.height);
      return;
    }
    canvas.setPointerCapture(event.pointerId);
    this.keepShape();
    this.last = performance.now();
    this.current = { color: this.colour, width: this.width, tool: this.tool,
      points: [pointFrom(DrawingPad.local(event, f), f.width, f.height, undefined, 0)] };
    this.drawing.strokes.push(this.current);
    this.paintNewest();
  };

  /** @param {PointerEvent} event */
  move = (event) => {
    if (!this.current) return;
    const f = this.frame();
    // Coalesced events: every point the pen gave, not only one per frame.
    const events = typeof event.getCoalescedEvents === "function" ? event.getCoalescedEvents() : [event];
    for (const each of events.length ? events : [event]) {
      const now = performance.now();
      this.current.points.push(pointFrom(DrawingPad.local(each, f), f.width, f.height, this.current.points.at(-1), now - (this.last ?? now)));
      this.last = now;
    }
    this.paintNewest();
  };

  up = () => {
    if (!this.current) return;
    const f = this.frame();
    const index = this.drawing.strokes.indexOf(this.current);
    const stroke = simplified(this.current, Math.max(f.width, f.height));
    this.drawing.strokes[index] = stroke;
    this.current = undefined;
    // A newer drawing came meanwhile (another phone drew): it is shown now, with this stroke on it.
    if (this.waiting) {
      const newer = this.waiting;
      this.waiting = null;
      this.load({ ...newer, strokes: [...(newer.strokes ?? []), stroke], texts: newer.texts ?? [] });
    }
    this.remember({ added: [stroke], removed: { strokes: [], texts: [] } });
    this.changed();
  };

  paintNewest() {
    const canvas = /** @type {HTMLCanvasElement} */ (this.canvas);
    const context = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
    const stroke = /** @type {import("./strokes.js").Stroke} */ (this.current);
    const f = this.frame(), ratio = window.devicePixelRatio || 1;
    context.save();
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.beginPath();
    context.rect(f.x, f.y, f.width, f.height);
    context.clip();
    context.translate(f.x, f.y);
    paint(context, stroke, f.width, f.height, Math.max(1, stroke.points.length - 4));
    context.restore();
  }

  /** Puts the typed words where the photo was tapped. @param {number} x @param {number} y */
  write(x, y) {
    const words = /** @type {HTMLInputElement} */ (this.words);
    const text = words.value.trim();
    if (!text) {
      words.focus();
      return;
    }
    this.keepShape();
    const written = { text, x: round(clamp(x)), y: round(clamp(y)), size: 0.07, color: this.colour };
    this.drawing.texts.push(written);
    this.remember({ added: [written], removed: { strokes: [], texts: [] } });
    words.value = "";
    this.redraw();
    this.changed();
  }

  /** Nothing drawn, and no shape yet: the next stroke takes the canvas' as it is then. */
  clear() {
    if (this.drawing.strokes.length || this.drawing.texts.length) {
      this.remember({ added: [], removed: { strokes: this.drawing.strokes, texts: this.drawing.texts }, aspect: this.drawing.aspect });
    }
    this.drawing = { strokes: [], texts: [] };
    this.redraw();
    this.changed();
  }
}
customElements.define("drawing-pad", DrawingPad);
