// @ts-check
/**
 * iRemember's "Edit picture" (features 7 and 8): crop with a frame, straighten with a slider, turn
 * a quarter left or right, and go back to the picture as it was added. What the screen shows is
 * what the server will make: the picture straightened (turned about its centre and trimmed to the
 * largest rectangle of its own shape, so no empty corners), then turned, then cropped to the frame
 * — the order the media plugin applies an edit in, on libvips. The mark-up is shown moving with
 * the picture; the server moves it the same way when it saves (and back on a revert).
 *
 * The edit is one write of the outbox: sent at once when online, kept and sent in order after the
 * phone's other changes when offline. The original is kept on the server, so "Back to the
 * original" is exact however many edits were made.
 *
 This module is the pure part (the frame's moves, the straightening's scale, the request, the
 * preview's painting), unit-tested in Tests/WebClient/photo-edit.test.mjs; the element is
 * photo-editor.js.
 */
import { paintDrawing } from "./strokes.js";

/** @typedef {{x: number, y: number, width: number, height: number}} Crop */
/** @typedef {{straighten: number, rotate: 0 | 90 | 180 | 270, crop: Crop}} EditState */
/** @typedef {"top-left" | "top-right" | "bottom-left" | "bottom-right" | "move"} Grip */

/** The smallest frame, in fractions of the picture: a tenth of each side. */
export const MIN_CROP = 0.1;
export const FULL = Object.freeze({ x: 0, y: 0, width: 1, height: 1 });

/** @returns {EditState} */
export function unedited() {
  return { straighten: 0, rotate: 0, crop: { ...FULL } };
}

/**
 * As the server's: the scale of the largest rectangle of a `width`×`height` picture's shape inside
 * it turned by `degrees`.
 * @param {number} width @param {number} height @param {number} degrees
 */
export function straightenScale(width, height, degrees) {
  const angle = Math.abs(degrees) * Math.PI / 180;
  const cos = Math.cos(angle), sin = Math.sin(angle);
  return Math.min(width / (width * cos + height * sin), height / (width * sin + height * cos));
}

/** @param {number} value @param {number} low @param {number} high */
function within(value, low, high) {
  return Math.min(high, Math.max(low, value));
}

/** Four decimals, as the drawing's fractions. @param {number} v */
function round(v) {
  return Math.round(v * 10000) / 10000;
}

/**
 * The frame after one of its grips moved by `dx`, `dy` (fractions of the picture): a corner moves
 * its two sides, "move" slides the frame; it stays on the picture and at least MIN_CROP wide and high.
 * @param {Crop} crop @param {Grip} grip @param {number} dx @param {number} dy @returns {Crop}
 */
export function moveGrip(crop, grip, dx, dy) {
  let left = crop.x, top = crop.y, right = crop.x + crop.width, bottom = crop.y + crop.height;
  if (grip === "move") {
    const x = within(left + dx, 0, 1 - crop.width), y = within(top + dy, 0, 1 - crop.height);
    return { x: round(x), y: round(y), width: crop.width, height: crop.height };
  }
  if (grip.endsWith("left")) left = within(left + dx, 0, right - MIN_CROP);
  else right = within(right + dx, left + MIN_CROP, 1);
  if (grip.startsWith("top")) top = within(top + dy, 0, bottom - MIN_CROP);
  else bottom = within(bottom + dy, top + MIN_CROP, 1);
  return { x: round(left), y: round(top), width: round(right - left), height: round(bottom - top) };
}

/** @param {Crop} crop */
export function isFull(crop) {
  return crop.x <= 0.0005 && crop.y <= 0.0005 && crop.width >= 0.9995 && crop.height >= 0.9995;
}

/**
 * The body of `POST …/edit` for an editor's state; null when nothing changed.
 * @param {EditState} state @returns {{straighten?: number, rotate?: number, crop?: Crop} | null}
 */
export function editBody(state) {
  /** @type {{straighten?: number, rotate?: number, crop?: Crop}} */
  const body = {};
  if (Math.abs(state.straighten) >= 0.05) body.straighten = Math.round(state.straighten * 10) / 10;
  if (state.rotate) body.rotate = state.rotate;
  if (!isFull(state.crop)) body.crop = { ...state.crop };
  return Object.keys(body).length ? body : null;
}

/**
 * Turned a quarter: right is 90° clockwise, left 270°. The frame turns with the picture (it keeps
 * the same part of it, its sides now the other way round), so a turn never loses a crop and a turn
 * back gives it back as it was.
 * @param {EditState} state @param {"left" | "right"} way @returns {EditState}
 */
export function turned(state, way) {
  const rotate = /** @type {EditState["rotate"]} */ ((state.rotate + (way === "right" ? 90 : 270)) % 360);
  const { x, y, width, height } = state.crop;
  // As turnMap's quarter turns: right takes (x, y) to (1 − y, x), left to (y, 1 − x).
  const crop = way === "right"
    ? { x: round(1 - y - height), y: round(x), width: height, height: width }
    : { x: round(y), y: round(1 - x - width), width: height, height: width };
  return { ...state, rotate, crop };
}

/** Words for the state, for the screen reader and the hint under the picture. @param {EditState} state */
export function describeEdit(state) {
  const parts = [];
  if (Math.abs(state.straighten) >= 0.05) parts.push(`straightened ${Math.round(state.straighten * 10) / 10}°`);
  if (state.rotate === 90) parts.push("turned right");
  if (state.rotate === 180) parts.push("turned upside down");
  if (state.rotate === 270) parts.push("turned left");
  if (!isFull(state.crop)) parts.push(`cropped to ${Math.round(state.crop.width * 100)}% × ${Math.round(state.crop.height * 100)}%`);
  return parts.length ? `Changed: ${parts.join(", ")}.` : "No changes yet.";
}

/**
 * Where a point of the drawing (fractions of the picture) lands once the picture is straightened
 * and turned, before the crop: the server's MarkupFollow map, so the preview's drawing is where
 * the saved one will be. Answers the map and the picture's size after.
 * @param {EditState} state @param {number} width @param {number} height
 * @returns {{map: (x: number, y: number) => [number, number], width: number, height: number}}
 */
export function turnMap(state, width, height) {
  const angle = state.straighten * Math.PI / 180, scale = straightenScale(width, height, state.straighten);
  const cos = Math.cos(angle), sin = Math.sin(angle);
  /** @param {number} x @param {number} y @returns {[number, number]} */
  const straight = (x, y) => [cos / scale * (x - 0.5) - sin * height / (width * scale) * (y - 0.5) + 0.5,
    sin * width / (height * scale) * (x - 0.5) + cos / scale * (y - 0.5) + 0.5];
  /** @type {(x: number, y: number) => [number, number]} */
  const turn = state.rotate === 90 ? (x, y) => [1 - y, x] : state.rotate === 180 ? (x, y) => [1 - x, 1 - y]
    : state.rotate === 270 ? (x, y) => [y, 1 - x] : (x, y) => [x, y];
  const quarter = state.rotate === 90 || state.rotate === 270;
  const w = width * scale, hgt = height * scale;
  return { map: (x, y) => turn(...straight(x, y)), width: quarter ? hgt : w, height: quarter ? w : hgt };
}

/**
 * The drawing as it will be on the straightened, turned picture: points moved, stroke widths and
 * text sizes kept on the picture, texts upright (as the server keeps them).
 * @param {import("./strokes.js").Drawing} drawing @param {EditState} state @param {number} width @param {number} height
 * @returns {import("./strokes.js").Drawing}
 */
export function turnedDrawing(drawing, state, width, height) {
  const { map, width: w, height: hgt } = turnMap(state, width, height);
  const shorter = Math.min(width, height) / Math.min(w, hgt), taller = height / hgt;
  return {
    strokes: (drawing.strokes ?? []).map((stroke) => ({ ...stroke, width: stroke.width * shorter,
      points: stroke.points.map((p) => { const [x, y] = map(p.x, p.y); return { ...p, x, y }; }) })),
    texts: (drawing.texts ?? []).map((text) => { const [x, y] = map(text.x, text.y); return { ...text, x, y, size: (text.size ?? 0.05) * taller }; }),
    aspect: w / hgt,
  };
}

/**
 * Draws the picture and its mark-up as the edit will make them, into `canvas`: straightened, then
 * turned (the frame is drawn over it by the page). The mark-up is painted on a layer of its own
 * (an eraser stroke takes out drawing, not picture).
 * @param {HTMLCanvasElement} canvas @param {CanvasImageSource} picture @param {number} width @param {number} height
 * @param {EditState} state @param {import("./strokes.js").Drawing | null} [drawing] @param {number} [longest] the longer side, at most
 */
export function paintPreview(canvas, picture, width, height, state, drawing = null, longest = 900) {
  const quarter = state.rotate === 90 || state.rotate === 270;
  const fit = Math.min(1, longest / Math.max(width, height));
  const w = Math.round(width * fit), hgt = Math.round(height * fit);
  canvas.width = quarter ? hgt : w;
  canvas.height = quarter ? w : hgt;
  const context = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
  context.save();
  context.fillStyle = "#000";
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.translate(canvas.width / 2, canvas.height / 2);
  context.rotate(state.rotate * Math.PI / 180);
  context.rotate(state.straighten * Math.PI / 180);
  const scale = 1 / straightenScale(w, hgt, state.straighten);
  context.scale(scale, scale);
  context.drawImage(picture, -w / 2, -hgt / 2, w, hgt);
  context.restore();
  if (drawing && ((drawing.strokes ?? []).length || (drawing.texts ?? []).length)) {
    const layer = document.createElement("canvas");
    layer.width = canvas.width;
    layer.height = canvas.height;
    paintDrawing(/** @type {CanvasRenderingContext2D} */ (layer.getContext("2d")), turnedDrawing(drawing, state, width, height), layer.width, layer.height);
    context.drawImage(layer, 0, 0);
  }
}

/**
 * An edit kept on the phone before it was saved (see the edit screen), read back safely: a state
 * the editor can show, or null for anything else.
 * @param {any} kept @returns {EditState | null}
 */
export function keptState(kept) {
  if (!kept || typeof kept !== "object") return null;
  const straighten = Number(kept.straighten), rotate = Number(kept.rotate), crop = kept.crop;
  if (!Number.isFinite(straighten) || Math.abs(straighten) > 45 || ![0, 90, 180, 270].includes(rotate)) return null;
  if (!crop || typeof crop !== "object") return null;
  const { x, y, width, height } = crop;
  if (![x, y, width, height].every((v) => typeof v === "number" && Number.isFinite(v))) return null;
  if (x < 0 || y < 0 || width < MIN_CROP - 0.0005 || height < MIN_CROP - 0.0005 || x + width > 1.0005 || y + height > 1.0005) return null;
  return { straighten, rotate: /** @type {EditState["rotate"]} */ (rotate), crop: { x, y, width, height } };
}

/** The editor's state for a request's body. @param {{straighten?: number, rotate?: number, crop?: Crop}} body @returns {EditState} */
export function stateOf(body) {
  return { straighten: body.straighten ?? 0, rotate: /** @type {EditState["rotate"]} */ (body.rotate ?? 0), crop: body.crop ?? { ...FULL } };
}

/**
 * The whole edit's map of fractions — straightened, turned, then cropped — and the picture's size
 * after: the server's MarkupFollow.map, so the phone moves the mark-up as the server will.
 * @param {{straighten?: number, rotate?: number, crop?: Crop}} body @param {number} width @param {number} height
 * @returns {{map: (x: number, y: number) => [number, number], width: number, height: number}}
 */
export function editMap(body, width, height) {
  const state = stateOf(body);
  const turnedOnce = turnMap(state, width, height);
  const { x: cx, y: cy, width: cw, height: ch } = state.crop;
  if (!(cw > 0 && ch > 0)) return turnedOnce;
  return {
    map: (x, y) => { const [tx, ty] = turnedOnce.map(x, y); return [(tx - cx) / cw, (ty - cy) / ch]; },
    width: turnedOnce.width * cw, height: turnedOnce.height * ch,
  };
}

/**
 * The mark-up moved by an edit, as the server moves it (MarkupFollow.move): each stroke and text
 * goes with the part of the picture it was on; a stroke with no point left on the picture goes,
 * and so does a text whose start is off it; widths stay as wide on the picture, texts as tall.
 * @param {import("./strokes.js").Drawing} drawing @param {{straighten?: number, rotate?: number, crop?: Crop}} body
 * @param {number} width @param {number} height @returns {import("./strokes.js").Drawing}
 */
export function followEdit(drawing, body, width, height) {
  const { map, width: w, height: hgt } = editMap(body, width, height);
  const shorter = Math.min(width, height) / Math.max(Math.min(w, hgt), 1), taller = height / Math.max(hgt, 1);
  const bound = (/** @type {number} */ v) => Math.min(2, Math.max(-1, v));
  const on = (/** @type {[number, number]} */ [x, y]) => x >= 0 && x <= 1 && y >= 0 && y <= 1;
  const strokes = [];
  for (const stroke of drawing.strokes ?? []) {
    const moved = stroke.points.map((p) => /** @type {const} */ ([p, map(p.x, p.y)]));
    if (!moved.some(([, at]) => on(at))) continue;
    strokes.push({ ...stroke, width: Math.min(0.5, Math.max(0.0005, stroke.width * shorter)),
      points: moved.map(([p, [x, y]]) => ({ ...p, x: bound(x), y: bound(y) })) });
  }
  const texts = [];
  for (const text of drawing.texts ?? []) {
    const at = map(text.x, text.y);
    if (!on(at)) continue;
    texts.push({ ...text, x: at[0], y: at[1], size: Math.min(1, Math.max(0.005, (text.size ?? 0.05) * taller)) });
  }
  return { strokes, texts, aspect: hgt > 0 ? Math.min(100, Math.max(0.01, w / hgt)) : drawing.aspect };
}

/**
 * The picture as the edit will make it (straightened, turned, cropped), for the phone to show
 * while the edit waits to reach the server: a JPEG at most 1,200 px on its longer side.
 * @param {CanvasImageSource} picture @param {number} width @param {number} height
 * @param {{straighten?: number, rotate?: number, crop?: Crop}} body @returns {Promise<Blob | null>}
 */
export async function editedPicture(picture, width, height, body) {
  const state = stateOf(body);
  const whole = document.createElement("canvas");
  paintPreview(whole, picture, width, height, state, null, 1200);
  const { x, y, width: cw, height: ch } = state.crop;
  const out = document.createElement("canvas");
  out.width = Math.max(1, Math.round(whole.width * cw));
  out.height = Math.max(1, Math.round(whole.height * ch));
  /** @type {CanvasRenderingContext2D} */ (out.getContext("2d")).drawImage(whole, whole.width * x, whole.height * y, out.width, out.height, 0, 0, out.width, out.height);
  return new Promise((resolve) => out.toBlob(resolve, "image/jpeg", 0.9));
}
