// iRemember on the phone: a saved photo's file name (album.js) and the mark-up moved by an edit as
// the server moves it (photo-edit.js). The picture cache's rules: picture-cache.test.mjs.
// Run by `node --test Tests/WebClient`.
import assert from "node:assert/strict";
import test from "node:test";
import { distinctLabels, photoFileName } from "../../Plugins/Web/Client/album.js";
import { editMap, followEdit, keptState } from "../../Plugins/Web/Client/photo-edit.js";

test("a photo saved to the phone is named by its day, time and first tags", () => {
  const photo = { id: "p1", version: 1, takenAt: "2024-07-20T10:00:00", tags: ["picnic", "tom", "paris", "more"] };
  assert.equal(photoFileName(photo, "image/jpeg"), "iRemember 2024-07-20 10.00 picnic tom paris.jpg");
  assert.equal(photoFileName({ ...photo, tags: ["a/b"] }, "image/png"), "iRemember 2024-07-20 10.00 ab.png");
  assert.equal(photoFileName({ ...photo, takenAt: "", tags: [] }, "image/heic"), "iRemember.heic");
});

test("an edit moves the mark-up as the server does: turned right and cropped, a stroke cropped away goes", () => {
  const body = { rotate: 90, crop: { x: 0, y: 0, width: 0.5, height: 1 } };
  const { map, width, height } = editMap(body, 400, 300);
  assert.deepEqual([width, height], [150, 400]);
  assert.deepEqual(map(0.25, 0.75), [0.5, 0.25]);
  const drawing = {
    strokes: [{ color: "#f00", width: 0.01, points: [{ x: 0.25, y: 0.75 }, { x: 0.3, y: 0.9 }] },
      { color: "#f00", width: 0.01, points: [{ x: 0.5, y: 0.1 }, { x: 0.6, y: 0.2 }] }],
    texts: [{ text: "Tom", x: 0.2, y: 0.8, size: 0.05, color: "#f00" }],
  };
  const moved = followEdit(drawing, body, 400, 300);
  assert.equal(moved.strokes.length, 1, "the stroke on the cropped-away half goes");
  assert.deepEqual(moved.strokes[0].points[0], { x: 0.5, y: 0.25 });
  assert.equal(moved.texts.length, 1);
  assert.ok(Math.abs(moved.aspect - 150 / 400) < 1e-9);
});

test("an edit kept on the phone is read back only when it is one the editor can show", () => {
  const good = { straighten: 5, rotate: 90, crop: { x: 0.1, y: 0.1, width: 0.5, height: 0.5 } };
  assert.deepEqual(keptState(good), good);
  assert.equal(keptState({ ...good, rotate: 45 }), null);
  assert.equal(keptState({ ...good, crop: { x: 0.8, y: 0, width: 0.5, height: 0.5 } }), null);
  assert.equal(keptState("nonsense"), null);
});

test("distinctLabels tells alike labels apart, in order, and leaves the rest", () => {
  assert.deepEqual(distinctLabels(["Share: Today", "Share: Today, 09:00", "Share: Today", "Share: Today"]),
    ["Share: Today", "Share: Today, 09:00", "Share: Today (2)", "Share: Today (3)"]);
  assert.deepEqual(distinctLabels([]), []);
});
