// The drawing pad's pure steps (strokes.js): a drawing keeps the shape of the surface it was drawn
// on, and what the pad sends is always a whole drawing. Run by `node --test Tests/WebClient`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { frame, inFrame, paintDrawing, pointFrom, saved } from "../../Plugins/Web/Client/strokes.js";

test("the frame: the whole canvas without an aspect, else the largest rectangle of the aspect, centred", () => {
  assert.deepEqual(frame(undefined, 800, 400), { x: 0, y: 0, width: 800, height: 400 }, "an old drawing fills the canvas, as before");
  assert.deepEqual(frame(0.5, 800, 400), { x: 300, y: 0, width: 200, height: 400 }, "upright on a wide canvas: bars left and right");
  assert.deepEqual(frame(4, 800, 400), { x: 0, y: 100, width: 800, height: 200 }, "wide on a squarer canvas: bars above and below");
  assert.deepEqual(frame(2, 800, 400), { x: 0, y: 0, width: 800, height: 400 }, "the same shape: all of it");
  assert.deepEqual(frame(Number.NaN, 800, 400), { x: 0, y: 0, width: 800, height: 400 });
  assert.deepEqual(frame(0.5, 0, 0), { x: 0, y: 0, width: 0, height: 0 }, "a canvas not laid out yet");
  const f = frame(0.5, 800, 400);
  assert.ok(inFrame(f, 400, 200) && inFrame(f, 300, 0) && inFrame(f, 500, 400));
  assert.ok(!inFrame(f, 100, 200) && !inFrame(f, 700, 200), "the margins are not the drawing");
});

test("what the pad sends is a whole drawing: its own lists, the aspect kept, none on an empty drawing", () => {
  const stroke = { color: "#000000", width: 0.01, points: [{ x: 0.5, y: 0.5 }] };
  const drawing = { strokes: [stroke], texts: [], aspect: 0.7075 };
  const sent = saved(drawing);
  assert.deepEqual(sent, { strokes: [stroke], texts: [], aspect: 0.7075 });
  drawing.strokes.push(stroke);
  assert.equal(sent.strokes.length, 1, "a later stroke does not change what was sent");
  assert.deepEqual(saved({ strokes: [], texts: [], aspect: 0.7 }), { strokes: [], texts: [] }, "Clear is the empty drawing");
  assert.deepEqual(saved({ strokes: [stroke], texts: [] }), { strokes: [stroke], texts: [] }, "an old drawing without a shape stays so");
  assert.ok(!("aspect" in JSON.parse(JSON.stringify(saved({ strokes: [stroke], texts: [], aspect: undefined })))));
});

/** A 2D context that records where lines and dots land on the canvas (translation applied). */
function recorder() {
  let tx = 0, ty = 0;
  /** @type {Array<[number, number]>} */
  const stack = [];
  /** @type {Array<[number, number]>} */
  const points = [];
  const clips = [];
  return {
    points, clips,
    save() { stack.push([tx, ty]); },
    restore() { [tx, ty] = stack.pop() ?? [0, 0]; },
    translate(x, y) { tx += x; ty += y; },
    rect(x, y, w, h) { clips.push([x + tx, y + ty, w, h]); },
    moveTo(x, y) { points.push([x + tx, y + ty]); },
    lineTo(x, y) { points.push([x + tx, y + ty]); },
    arc(x, y) { points.push([x + tx, y + ty]); },
    beginPath() {}, clip() {}, stroke() {}, fill() {}, fillText() {},
  };
}

test("a circle drawn upright is painted round on the phone turned to landscape, centred in its frame", () => {
  // Drawn on a 358×506 canvas: a circle of 100 px, through pointFrom as the pad records it.
  const surface = { width: 358, height: 506 };
  const points = [];
  for (let step = 0; step <= 60; step++) {
    const angle = (step / 60) * 2 * Math.PI;
    const event = { offsetX: 179 + 100 * Math.cos(angle), offsetY: 253 + 100 * Math.sin(angle), pressure: 0.5, pointerType: "mouse" };
    points.push(pointFrom(event, surface.width, surface.height, points.at(-1), 16));
  }
  const drawing = { strokes: [{ color: "#000000", width: 0.01, points }], texts: [], aspect: surface.width / surface.height };
  for (const [width, height] of [[820, 234], [358, 506], [1024, 768]]) {
    const context = recorder();
    paintDrawing(/** @type {any} */ (context), drawing, width, height);
    const xs = context.points.map(([x]) => x), ys = context.points.map(([, y]) => y);
    const across = Math.max(...xs) - Math.min(...xs), high = Math.max(...ys) - Math.min(...ys);
    assert.ok(Math.abs(across - high) < 0.5, `round on ${width}×${height}: ${across.toFixed(2)} × ${high.toFixed(2)}`);
    assert.ok(Math.abs((Math.max(...xs) + Math.min(...xs)) / 2 - width / 2) < 0.5, "centred across");
    assert.ok(Math.abs((Math.max(...ys) + Math.min(...ys)) / 2 - height / 2) < 0.5, "centred up and down");
  }
  const old = recorder();
  paintDrawing(/** @type {any} */ (old), { ...drawing, aspect: undefined }, 820, 234);
  const xs = old.points.map(([x]) => x), ys = old.points.map(([, y]) => y);
  assert.ok(Math.max(...xs) - Math.min(...xs) > 3 * (Math.max(...ys) - Math.min(...ys)), "without an aspect, stretched as before");
  assert.equal(old.clips.length, 0, "and not clipped: it fills the canvas");
});
