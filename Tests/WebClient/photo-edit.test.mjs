// The picture editor's pure parts (Plugins/Web/Client/photo-edit.js), run by `node --test Tests/WebClient`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { editBody, describeEdit, isFull, MIN_CROP, moveGrip, straightenScale, turned, unedited } from "../../Plugins/Web/Client/photo-edit.js";

const full = { x: 0, y: 0, width: 1, height: 1 };

test("a corner moves its two sides; the frame stays on the picture and at least a tenth of it", () => {
  assert.deepEqual(moveGrip(full, "top-left", 0.1, 0.2), { x: 0.1, y: 0.2, width: 0.9, height: 0.8 });
  assert.deepEqual(moveGrip(full, "bottom-right", -0.25, -0.5), { x: 0, y: 0, width: 0.75, height: 0.5 });
  assert.deepEqual(moveGrip(full, "top-left", -0.3, -0.3), full, "not off the picture");
  const tiny = moveGrip(full, "bottom-right", -2, -2);
  assert.equal(tiny.width, MIN_CROP);
  assert.equal(tiny.height, MIN_CROP);
  const smaller = { x: 0.2, y: 0.2, width: 0.5, height: 0.5 };
  assert.deepEqual(moveGrip(smaller, "move", 0.5, -0.5), { x: 0.5, y: 0, width: 0.5, height: 0.5 }, "slid, not shrunk, at the edge");
});

test("the request says only what changed; nothing changed is no request", () => {
  assert.equal(editBody(unedited()), null);
  assert.deepEqual(editBody({ straighten: 4.26, rotate: 90, crop: { x: 0.1, y: 0, width: 0.8, height: 1 } }),
    { straighten: 4.3, rotate: 90, crop: { x: 0.1, y: 0, width: 0.8, height: 1 } });
  assert.deepEqual(editBody({ straighten: 0.01, rotate: 0, crop: full }), null, "a slider barely touched is no change");
  assert.ok(isFull({ x: 0, y: 0, width: 0.9999, height: 1 }));
});

test("turning goes round in quarters and the frame turns with the picture (a crop is kept)", () => {
  const cropped = { straighten: 2, rotate: /** @type {0} */ (0), crop: { x: 0.1, y: 0.2, width: 0.5, height: 0.3 } };
  // Right: (x, y) → (1 − y, x); the frame's top-left corner was its bottom-left.
  assert.deepEqual(turned(cropped, "right"), { straighten: 2, rotate: 90, crop: { x: 0.5, y: 0.1, width: 0.3, height: 0.5 } });
  // Left: (x, y) → (y, 1 − x).
  assert.deepEqual(turned(cropped, "left"), { straighten: 2, rotate: 270, crop: { x: 0.2, y: 0.4, width: 0.3, height: 0.5 } });
  assert.equal(turned(turned(cropped, "left"), "left").rotate, 180);
  assert.deepEqual(turned(turned(cropped, "left"), "left").crop, { x: 0.4, y: 0.5, width: 0.5, height: 0.3 });
  assert.deepEqual(turned(turned(cropped, "right"), "left"), cropped, "a turn back gives the crop back");
  assert.deepEqual(turned(turned(turned(turned(cropped, "right"), "right"), "right"), "right"), cropped);
  assert.equal(describeEdit(turned(cropped, "left")), "Changed: straightened 2°, turned left, cropped to 30% × 50%.");
  assert.deepEqual(turned(unedited(), "right").crop, full, "the whole picture stays whole");
});

test("straightening keeps the largest rectangle of the picture's shape, as the server does", () => {
  assert.equal(straightenScale(400, 300, 0), 1);
  // 10° on 4:3: min(4 / (4 cos + 3 sin), 3 / (4 sin + 3 cos)) = 3 / (0.6946 + 2.9544).
  assert.ok(Math.abs(straightenScale(400, 300, 10) - 3 / (4 * Math.sin(Math.PI / 18) + 3 * Math.cos(Math.PI / 18))) < 1e-12);
  assert.equal(straightenScale(400, 300, -10), straightenScale(400, 300, 10));
});

test("the preview moves the drawing as the server will (straightened, then turned), texts upright", async () => {
  const { turnMap, turnedDrawing } = await import("../../Plugins/Web/Client/photo-edit.js");
  const close = (a, b) => Math.abs(a - b) < 1e-9;
  // As AlbumPictureEditTests: 10° on 320×240 moves (0.7, 0.5) to (0.5 + 0.2 cos/s, 0.5 + 0.2·(4/3)·sin/s).
  const angle = Math.PI / 18, scale = 3 / (4 * Math.sin(angle) + 3 * Math.cos(angle));
  const [x, y] = turnMap({ straighten: 10, rotate: 0, crop: full }, 320, 240).map(0.7, 0.5);
  assert.ok(close(x, 0.5 + 0.2 * Math.cos(angle) / scale) && close(y, 0.5 + 0.2 * (320 / 240) * Math.sin(angle) / scale), `${x}, ${y}`);
  // A quarter turn right: (x, y) → (1 − y, x), and the picture stands up.
  const right = turnMap({ straighten: 0, rotate: 90, crop: full }, 320, 240);
  assert.ok(right.map(0.75, 0.25).every((v) => close(v, 0.75)));
  assert.deepEqual([right.width, right.height], [240, 320]);
  const moved = turnedDrawing({ strokes: [{ color: "#f00", width: 0.02, points: [{ x: 0.75, y: 0.25 }] }], texts: [{ text: "Tom", x: 0.1, y: 0.9, size: 0.05 }] },
    { straighten: 0, rotate: 90, crop: full }, 320, 240);
  assert.ok(close(moved.strokes[0].points[0].x, 0.75) && close(moved.strokes[0].points[0].y, 0.75));
  assert.equal(moved.strokes[0].width, 0.02, "as wide on the picture (its shorter side is the same)");
  assert.ok(close(moved.texts[0].x, 0.1) && close(moved.texts[0].y, 0.1), "the text's start moved, the text itself upright");
  assert.ok(close(moved.texts[0].size, 0.05 * 240 / 320), "as tall on the picture");
  assert.equal(moved.aspect, 0.75);
});
