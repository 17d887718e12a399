// @ts-check
/**
 * The picture editor's element (`<photo-editor>`): the picture with its crop frame (four corner
 * grips to drag, or to move with the arrow keys; the frame itself slides), the straighten slider,
 * Turn left / Turn right, Save, Start over, Cancel and, for a photo edited before, "Back to the
 * original picture". What it computes is in photo-edit.js.
 */
import { describeEdit, editBody, moveGrip, paintPreview, turned, unedited } from "./photo-edit.js";
import { h } from "./ui.js";

/** @typedef {import("./photo-edit.js").EditState} EditState */
/** @typedef {import("./photo-edit.js").Crop} Crop */
/** @typedef {import("./photo-edit.js").Grip} Grip */

/**
 * The editor: the picture with its crop frame, the straighten slider, the turn buttons; `save`
 * is given the request's body, `revert` asked for when the photo was edited before.
 */
export class PhotoEditor extends HTMLElement {
  /** @type {EditState} */
  state = unedited();
  /** @type {CanvasImageSource | null} */
  source = null;
  sourceWidth = 4;
  sourceHeight = 3;

  /**
   * @param {{label: string, edited: boolean, onSave: (body: NonNullable<ReturnType<typeof editBody>>) => void,
   *   onRevert: () => void, onCancel: () => void, onChange?: (state: EditState) => void}} options
   */
  setup(options) {
    this.options = options;
    this.canvas = /** @type {HTMLCanvasElement} */ (h("canvas", { class: "preview", role: "img", "aria-label": options.label }));
    this.frame = h("div", { class: "crop-frame" },
      h("div", { class: "crop-move", "data-grip": "move", "aria-hidden": "true" }),
      ...[["top-left", "top left"], ["top-right", "top right"], ["bottom-left", "bottom left"], ["bottom-right", "bottom right"]].map(([grip, words]) =>
        h("button", { type: "button", class: `grip ${grip}`, "data-grip": grip,
          "aria-label": `Crop: the ${words} corner (arrow keys move it)` })));
    this.stage = h("div", { class: "edit-stage" }, this.canvas, this.frame);
    this.slider = /** @type {HTMLInputElement} */ (h("input", { id: "straighten", type: "range", min: "-45", max: "45", step: "0.5", value: "0" }));
    this.degrees = h("output", { for: "straighten", id: "straighten-degrees" }, "0°");
    this.summary = h("p", { class: "hint", role: "status" }, describeEdit(this.state));
    this.saveButton = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "primary", disabled: true, onclick: () => this.save() }, "Save"));
    this.replaceChildren(
      this.stage,
      this.summary,
      h("div", { class: "straighten" },
        h("label", { for: "straighten" }, "Straighten"), this.slider, this.degrees),
      h("div", { class: "row" },
        h("button", { type: "button", class: "secondary", onclick: () => this.turn("left") }, "↺ Turn left"),
        h("button", { type: "button", class: "secondary", onclick: () => this.turn("right") }, "Turn right ↻")),
      h("div", { class: "row" },
        this.saveButton,
        h("button", { type: "button", class: "secondary", onclick: () => this.startOver() }, "Start over"),
        h("button", { type: "button", class: "secondary", onclick: () => options.onCancel() }, "Cancel")),
      ...(options.edited ? [h("button", { type: "button", class: "secondary revert", onclick: () => options.onRevert() }, "Back to the original picture")] : []));
    this.slider.addEventListener("input", () => {
      this.state = { ...this.state, straighten: Number(/** @type {HTMLInputElement} */ (this.slider).value) };
      this.update();
    });
    this.listen();
    this.update();
  }

  /** @type {import("./strokes.js").Drawing | null} */
  drawing = null;

  /**
   * The picture to edit, and its mark-up (moved with it in the preview).
   * @param {CanvasImageSource} source @param {number} width @param {number} height @param {import("./strokes.js").Drawing | null} [drawing]
   */
  show(source, width, height, drawing = null) {
    this.source = source;
    this.drawing = drawing;
    this.sourceWidth = width;
    this.sourceHeight = height;
    this.update();
  }

  /** Dragging a grip (pointer) or moving it with the arrow keys (2% a press). */
  listen() {
    const stage = /** @type {HTMLElement} */ (this.stage);
    /** @type {{grip: Grip, x: number, y: number, crop: Crop} | null} */
    let dragging = null;
    stage.addEventListener("pointerdown", (event) => {
      const target = /** @type {HTMLElement} */ (event.target);
      const grip = /** @type {Grip | undefined} */ (target.closest("[data-grip]")?.getAttribute("data-grip") ?? undefined);
      if (!grip) return;
      event.preventDefault();
      target.setPointerCapture?.(event.pointerId);
      dragging = { grip, x: event.clientX, y: event.clientY, crop: this.state.crop };
    });
    stage.addEventListener("pointermove", (event) => {
      if (!dragging) return;
      const box = /** @type {HTMLCanvasElement} */ (this.canvas).getBoundingClientRect();
      const dx = (event.clientX - dragging.x) / Math.max(1, box.width), dy = (event.clientY - dragging.y) / Math.max(1, box.height);
      this.state = { ...this.state, crop: moveGrip(dragging.crop, dragging.grip, dx, dy) };
      this.update();
    });
    const stop = () => { dragging = null; };
    stage.addEventListener("pointerup", stop);
    stage.addEventListener("pointercancel", stop);
    stage.addEventListener("keydown", (event) => {
      const grip = /** @type {Grip | undefined} */ (/** @type {HTMLElement} */ (event.target).getAttribute("data-grip") ?? undefined);
      const step = { ArrowLeft: [-0.02, 0], ArrowRight: [0.02, 0], ArrowUp: [0, -0.02], ArrowDown: [0, 0.02] }[event.key];
      if (!grip || !step) return;
      event.preventDefault();
      this.state = { ...this.state, crop: moveGrip(this.state.crop, grip, step[0], step[1]) };
      this.update();
    });
  }

  /**
   * Puts back an edit not saved yet (kept on the phone while it was made): the frame, the turn and
   * the straightening as they were. @param {EditState} state
   */
  restore(state) {
    this.state = { straighten: Number(state.straighten) || 0, rotate: state.rotate, crop: { ...state.crop } };
    /** @type {HTMLInputElement} */ (this.slider).value = String(this.state.straighten);
    this.update();
  }

  /** @param {"left" | "right"} way */
  turn(way) {
    this.state = turned(this.state, way);
    this.update();
  }

  startOver() {
    this.state = unedited();
    /** @type {HTMLInputElement} */ (this.slider).value = "0";
    this.update();
  }

  save() {
    const body = editBody(this.state);
    if (body) this.options?.onSave(body);
  }

  update() {
    const canvas = /** @type {HTMLCanvasElement} */ (this.canvas);
    if (this.source) paintPreview(canvas, this.source, this.sourceWidth, this.sourceHeight, this.state, this.drawing);
    const quarter = this.state.rotate === 90 || this.state.rotate === 270;
    const aspect = quarter ? this.sourceHeight / this.sourceWidth : this.sourceWidth / this.sourceHeight;
    /** @type {HTMLElement} */ (this.stage).style.aspectRatio = String(aspect);
    /** @type {HTMLElement} */ (this.stage).style.setProperty("--aspect", String(aspect));
    const crop = this.state.crop, frame = /** @type {HTMLElement} */ (this.frame);
    frame.style.left = `${crop.x * 100}%`;
    frame.style.top = `${crop.y * 100}%`;
    frame.style.width = `${crop.width * 100}%`;
    frame.style.height = `${crop.height * 100}%`;
    /** @type {HTMLElement} */ (this.degrees).textContent = `${Math.round(this.state.straighten * 10) / 10}°`;
    /** @type {HTMLElement} */ (this.summary).textContent = describeEdit(this.state);
    /** @type {HTMLButtonElement} */ (this.saveButton).disabled = editBody(this.state) === null;
    this.options?.onChange?.(this.state);
  }
}
customElements.define("photo-editor", PhotoEditor);
