// @ts-check
/**
 * Strokes as the drawing plugin stores them — points in fractions of the canvas (0–1), with the
 * pen's pressure — and the pure steps between pointer events and paint. Pressure is simulated from
 * speed when the device reports none (a mouse or finger says 0.5 or 0): fast is thin, slow is full.
 * A drawing records the aspect (width ÷ height) of the surface it was drawn on, and is painted into
 * the largest rectangle of that shape on any other (its frame), as the server renders it: a circle
 * drawn upright stays round on a phone turned to landscape.
 */

/** @typedef {{x: number, y: number, pressure?: number}} Point */
/** @typedef {{color: string, width: number, tool?: "pen" | "eraser", points: Point[]}} Stroke */
/** @typedef {{text: string, x: number, y: number, size?: number, color?: string}} Text */
/** @typedef {{strokes: Stroke[], texts: Text[], aspect?: number}} Drawing */
/** @typedef {{x: number, y: number, width: number, height: number}} Frame */

/**
 * Where a drawing goes on a canvas of `width`×`height`: all of it when the drawing has no aspect
 * (drawings saved before it was recorded fill any canvas, as they always did), else the largest
 * rectangle of its aspect, centred — letterboxed, never stretched.
 * @param {number | undefined} aspect  width ÷ height of the surface it was drawn on
 * @param {number} width @param {number} height
 * @returns {Frame}
 */
export function frame(aspect, width, height) {
  if (!aspect || !Number.isFinite(aspect) || aspect <= 0 || !(width > 0) || !(height > 0)) return { x: 0, y: 0, width, height };
  if (width / height > aspect) {
    const fitted = height * aspect;
    return { x: (width - fitted) / 2, y: 0, width: fitted, height };
  }
  const fitted = width / aspect;
  return { x: 0, y: (height - fitted) / 2, width, height: fitted };
}

/** Whether a point of the canvas (CSS pixels) is on the drawing's frame. @param {Frame} f @param {number} x @param {number} y */
export function inFrame(f, x, y) {
  return x >= f.x - 0.5 && x <= f.x + f.width + 0.5 && y >= f.y - 0.5 && y <= f.y + f.height + 0.5;
}

/**
 * The drawing as it is saved and sent: its own lists (later strokes do not change what was sent)
 * and its aspect — none for an empty drawing, which is "clear" whatever surface it was cleared on.
 * @param {Drawing} drawing @returns {Drawing}
 */
export function saved(drawing) {
  const copy = { strokes: [...drawing.strokes], texts: [...drawing.texts] };
  const aspect = drawing.aspect;
  if ((copy.strokes.length || copy.texts.length) && aspect && Number.isFinite(aspect) && aspect > 0) return { ...copy, aspect };
  return copy;
}

/**
 * A point from a pointer event on a canvas of `width`×`height` CSS pixels.
 * @param {{offsetX: number, offsetY: number, pressure: number, pointerType: string}} event
 * @param {number} width
 * @param {number} height
 * @param {Point | undefined} previous
 * @param {number} elapsed  ms since the previous point
 * @returns {Point}
 */
export function pointFrom(event, width, height, previous, elapsed) {
  const x = clamp(event.offsetX / width), y = clamp(event.offsetY / height);
  const real = event.pointerType === "pen" && event.pressure > 0;
  let pressure = real ? event.pressure : 0.5;
  if (!real && previous) {
    const speed = Math.hypot((x - previous.x) * width, (y - previous.y) * height) / Math.max(elapsed, 1); // px per ms
    const target = Math.max(0.25, Math.min(1, 1 - speed / 4));
    pressure = (previous.pressure ?? 0.5) * 0.7 + target * 0.3;
  }
  return { x: round(x), y: round(y), pressure: round(pressure) };
}

/** @param {number} v */
export function clamp(v) {
  return Math.max(0, Math.min(1, v));
}

/** Four decimals: a tenth of a pixel on a 1000-pixel canvas, and small JSON. @param {number} v */
export function round(v) {
  return Math.round(v * 10000) / 10000;
}

/**
 * Paints one stroke, or its newest segment (`from` = the index to start at), on a 2D context.
 * @param {CanvasRenderingContext2D} context
 * @param {Stroke} stroke
 * @param {number} width  canvas CSS width
 * @param {number} height
 * @param {number} [from]
 */
export function paint(context, stroke, width, height, from = 0) {
  const points = stroke.points;
  context.globalCompositeOperation = stroke.tool === "eraser" ? "destination-out" : "source-over";
  context.strokeStyle = stroke.color;
  context.fillStyle = stroke.color;
  context.lineCap = "round";
  context.lineJoin = "round";
  const base = stroke.width * Math.min(width, height);
  if (points.length === 1) {
    const [p] = points;
    context.beginPath();
    context.arc(p.x * width, p.y * height, (base * (p.pressure ?? 1)) / 2, 0, Math.PI * 2);
    context.fill();
    return;
  }
  for (let i = Math.max(1, from); i < points.length; i++) {
    const a = points[i - 1], b = points[i];
    context.lineWidth = base * (((a.pressure ?? 1) + (b.pressure ?? 1)) / 2);
    context.beginPath();
    context.moveTo(a.x * width, a.y * height);
    context.lineTo(b.x * width, b.y * height);
    context.stroke();
  }
  context.globalCompositeOperation = "source-over";
}

/**
 * Paints words where the drawing plugin renders them: baseline at (x, y), `size` a fraction of the
 * canvas height (as the server draws them on the shared picture).
 * @param {CanvasRenderingContext2D} context @param {Text} text @param {number} width @param {number} height
 */
export function paintText(context, text, width, height) {
  context.globalCompositeOperation = "source-over";
  context.font = `${Math.max(8, (text.size ?? 0.05) * height)}px system-ui, sans-serif`;
  context.fillStyle = text.color ?? "#000000";
  context.fillText(text.text, text.x * width, text.y * height);
}

/**
 * A whole drawing on a canvas of `width`×`height` CSS pixels, in its frame: clipped to it and with
 * widths and sizes of the frame, so it looks as the server renders it at that size.
 * @param {CanvasRenderingContext2D} context @param {Drawing} drawing @param {number} width @param {number} height
 */
export function paintDrawing(context, drawing, width, height) {
  const f = frame(drawing.aspect, width, height);
  context.save();
  if (f.width < width - 0.5 || f.height < height - 0.5) {
    context.beginPath();
    context.rect(f.x, f.y, f.width, f.height);
    context.clip();
  }
  context.translate(f.x, f.y);
  for (const stroke of drawing.strokes ?? []) paint(context, stroke, f.width, f.height);
  for (const text of drawing.texts ?? []) paintText(context, text, f.width, f.height);
  context.restore();
}

/** The drawing's JSON without points closer than a quarter pixel: smaller, the same to the eye.
 * @param {Stroke} stroke @param {number} size @returns {Stroke} */
export function simplified(stroke, size) {
  const minimum = 0.25 / size;
  /** @type {Point[]} */
  const kept = [];
  for (const point of stroke.points) {
    const last = kept[kept.length - 1];
    if (!last || Math.hypot(point.x - last.x, point.y - last.y) >= minimum) kept.push(point);
  }
  return { ...stroke, points: kept };
}
