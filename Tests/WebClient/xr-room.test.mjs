// Placing the notebook in the room (WebXR hit-test): where it goes and which way it faces (node --test).
import assert from "node:assert/strict";
import test from "node:test";
import { placement, quad } from "../../Plugins/Web/Client/xr-room.js";

const translation = (x, y, z) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1];
/** The model matrix applied to a point. */
const apply = (m, [x, y, z]) => [0, 1, 2].map((row) => m[row] * x + m[4 + row] * y + m[8 + row] * z + m[12 + row]);
const near = (a, b) => a.every((value, i) => Math.abs(value - b[i]) < 1e-6);

test("on a floor: at the hit's point, its bottom edge (+z) towards the viewer", () => {
  const model = placement(translation(1, 0, -2), { x: 1, y: 1.5, z: 0 });
  assert.ok(model);
  assert.ok(near(apply(model, [0, 0, 0]), [1, 0, -2]));
  // The viewer is straight ahead along +z: the bottom edge's middle is nearer the viewer than the top's.
  assert.ok(near(apply(model, [0, 0, 1]), [1, 0, -1]));
});

test("the notebook turns to face a viewer standing to one side", () => {
  const model = placement(translation(0, 0.7, 0), { x: 2, y: 1.6, z: 0 });
  assert.ok(model);
  assert.ok(near(apply(model, [0, 0, 1]), [1, 0.7, 0]), "its +z points along +x, at the viewer");
  assert.ok(near(apply(model, [0, 1, 0]), [0, 1.7, 0]), "and stays level");
});

test("a wall or a steep slope is refused; a gentle slope is taken", () => {
  const wall = [1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, -1, 1];
  assert.equal(placement(wall, { x: 0, y: 1, z: 0 }), null);
  const angle = (degrees) => { const r = (degrees * Math.PI) / 180; return [1, 0, 0, 0, 0, Math.cos(r), Math.sin(r), 0, 0, -Math.sin(r), Math.cos(r), 0, 0, 0, 0, 1]; };
  assert.equal(placement(angle(60), { x: 0, y: 1, z: 1 }), null);
  assert.ok(placement(angle(20), { x: 0, y: 1, z: 1 }));
});

test("a quad is two triangles covering its rectangle, textured top-left at −z", () => {
  const q = quad(0.2, 0.3, 0.01);
  assert.equal(q.length, 6 * 5);
  const corners = [];
  for (let i = 0; i < q.length; i += 5) corners.push([q[i], q[i + 1], q[i + 2], q[i + 3], q[i + 4]]);
  assert.ok(corners.every(([, y]) => Math.abs(y - 0.01) < 1e-7));
  assert.ok(corners.some(([x, , z, u, v]) => Math.abs(x + 0.1) < 1e-7 && Math.abs(z + 0.15) < 1e-7 && u === 0 && v === 0));
  assert.ok(corners.some(([x, , z, u, v]) => Math.abs(x - 0.1) < 1e-7 && Math.abs(z - 0.15) < 1e-7 && u === 1 && v === 1));
});
