// @ts-check
/** The back of a note: draw with a finger, a mouse or a pen (its pressure), erase, pick a colour
 * and a width, clear. Emits `change` with the drawing after each stroke. */
import { paint, pointFrom, simplified } from "./strokes.js";
import { h } from "./ui.js";

const COLOURS = [["#1b1b1b", "Black"], ["#c62828", "Red"], ["#1565c0", "Blue"], ["#2e7d32", "Green"], ["#f9a825", "Yellow"]];

export class DrawingPad extends HTMLElement {
  constructor() {
    super();
    /** @type {import("./strokes.js").Drawing} */
    this.drawing = { strokes: [], texts: [] };
    this.tool = /** @type {"pen" | "eraser"} */ ("pen");
    this.colour = COLOURS[0][0];
    this.width = 0.012;
  }

  connectedCallback() {
    if (this.canvas) return;
    this.canvas = /** @type {HTMLCanvasElement} */ (h("canvas", { class: "pad", role: "img", "aria-label": "Drawing on the back of the note" }));
    const tools = h("div", { class: "tools", role: "toolbar", "aria-label": "Drawing tools" },
      this.toolButton("pen", "Pen"), this.toolButton("eraser", "Eraser"),
      ...COLOURS.map(([value, name]) => {
        const swatch = h("button", { type: "button", class: "swatch", "aria-label": name, "aria-pressed": String(value === this.colour),
          onclick: (/** @type {Event} */ e) => this.pickColour(value, /** @type {HTMLElement} */ (e.currentTarget)) });
        swatch.style.setProperty("--swatch", value); // CSSOM, which the CSP allows (a style attribute it would not)
        return swatch;
      }),
      h("label", { class: "width" }, "Width", h("input", { type: "range", min: "0.004", max: "0.04", step: "0.002", value: String(this.width),
        oninput: (/** @type {Event} */ e) => { this.width = Number(/** @type {HTMLInputElement} */ (e.target).value); } })),
      h("button", { type: "button", class: "secondary", onclick: () => this.clear() }, "Clear"));
    this.append(tools, this.canvas);
    this.canvas.addEventListener("pointerdown", this.down);
    this.canvas.addEventListener("pointermove", this.move);
    this.canvas.addEventListener("pointerup", this.up);
    this.canvas.addEventListener("pointercancel", this.up);
    new ResizeObserver(() => this.resize()).observe(this.canvas);
  }

  /** @param {"pen" | "eraser"} tool @param {string} label */
  toolButton(tool, label) {
    return h("button", { type: "button", class: "tool", "data-tool": tool, "aria-pressed": String(this.tool === tool),
      onclick: () => {
        this.tool = tool;
        this.querySelectorAll(".tool").forEach((b) => b.setAttribute("aria-pressed", String(/** @type {HTMLElement} */ (b).dataset.tool === tool)));
      } }, label);
  }

  /** @param {string} colour @param {HTMLElement} button */
  pickColour(colour, button) {
    this.colour = colour;
    this.querySelectorAll(".swatch").forEach((b) => b.setAttribute("aria-pressed", String(b === button)));
  }

  /** @param {import("./strokes.js").Drawing} drawing */
  load(drawing) {
    this.drawing = { strokes: drawing.strokes ?? [], texts: drawing.texts ?? [] };
    this.redraw();
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
    for (const stroke of this.drawing.strokes) paint(context, stroke, canvas.clientWidth, canvas.clientHeight);
  }

  /** @param {PointerEvent} event */
  down = (event) => {
    const canvas = /** @type {HTMLCanvasElement} */ (this.canvas);
    canvas.setPointerCapture(event.pointerId);
    this.last = performance.now();
    this.current = { color: this.colour, width: this.width, tool: this.tool,
      points: [pointFrom(event, canvas.clientWidth, canvas.clientHeight, undefined, 0)] };
    this.drawing.strokes.push(this.current);
    this.paintNewest();
  };

  /** @param {PointerEvent} event */
  move = (event) => {
    if (!this.current) return;
    const canvas = /** @type {HTMLCanvasElement} */ (this.canvas);
    // Coalesced events: every point the pen gave, not only one per frame.
    const events = typeof event.getCoalescedEvents === "function" ? event.getCoalescedEvents() : [event];
    for (const each of events.length ? events : [event]) {
      const now = performance.now();
      this.current.points.push(pointFrom(each, canvas.clientWidth, canvas.clientHeight, this.current.points.at(-1), now - (this.last ?? now)));
      this.last = now;
    }
    this.paintNewest();
  };

  up = () => {
    if (!this.current) return;
    const canvas = /** @type {HTMLCanvasElement} */ (this.canvas);
    const index = this.drawing.strokes.indexOf(this.current);
    this.drawing.strokes[index] = simplified(this.current, Math.max(canvas.clientWidth, canvas.clientHeight));
    this.current = undefined;
    this.dispatchEvent(new CustomEvent("change", { detail: this.drawing }));
  };

  paintNewest() {
    const canvas = /** @type {HTMLCanvasElement} */ (this.canvas);
    const context = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
    const stroke = /** @type {import("./strokes.js").Stroke} */ (this.current);
    paint(context, stroke, canvas.clientWidth, canvas.clientHeight, Math.max(1, stroke.points.length - 4));
  }

  clear() {
    this.drawing = { strokes: [], texts: [] };
    this.redraw();
    this.dispatchEvent(new CustomEvent("change", { detail: this.drawing }));
  }
}
customElements.define("drawing-pad", DrawingPad);
