import assert from "node:assert/strict";
import { test } from "node:test";
import { boxAt, byName, caption, inPhoto, nameProblem, photosOf, spoken } from "../../Plugins/Web/Client/people.js";

test("a person is said with their relationship, or by name alone", () => {
  assert.equal(caption({ id: "h1", name: "Emma", relationship: "your granddaughter" }), "Emma — your granddaughter");
  assert.equal(caption({ id: "h1", name: "Emma", relationship: " " }), "Emma");
  assert.equal(spoken({ id: "h1", name: "Tom", relationship: "your son" }), "Tom, your son.");
});

test("the people in a photo, left to right, once each, without removed people", () => {
  const people = [{ id: "a", name: "Emma" }, { id: "b", name: "Tom" }];
  const faces = [
    { id: "f1", photo: "p1", person: "b", box: { x: 0.6, y: 0.1, w: 0.2, h: 0.2 } },
    { id: "f2", photo: "p1", person: "a", box: { x: 0.1, y: 0.1, w: 0.2, h: 0.2 } },
    { id: "f3", photo: "p1", person: "gone", box: { x: 0.3, y: 0.1, w: 0.2, h: 0.2 } },
    { id: "f4", photo: "p2", person: "a", box: { x: 0.3, y: 0.1, w: 0.2, h: 0.2 } },
  ];
  assert.deepEqual(inPhoto(faces, people, ["p1"]).map((x) => x.person.name), ["Emma", "Tom"]);
  assert.deepEqual(inPhoto(faces, people, ["local:x", "p2"]).map((x) => x.face.id), ["f4"]);
});

test("a tap makes a face-sized box centred on it, inside the photo", () => {
  assert.deepEqual(boxAt(0.5, 0.5, 400, 300), { x: 0.425, y: 0.4, w: 0.15, h: 0.2 });
  const corner = boxAt(0.99, 0.01, 400, 300);
  assert.equal(corner.x + corner.w <= 1, true);
  assert.equal(corner.y, 0);
  const tall = boxAt(0, 1, 300, 900);
  assert.deepEqual(tall, { x: 0, y: 0.9333, w: 0.2, h: 0.0667 });
});

test("a person's photos, oldest first; names sorted as people read them", () => {
  const faces = [{ id: "f1", photo: "p2", person: "a", box: { x: 0, y: 0, w: 1, h: 1 } }, { id: "f2", photo: "p1", person: "a", box: { x: 0, y: 0, w: 1, h: 1 } }];
  const photos = [{ id: "p1", takenAt: "2024-05-01" }, { id: "p2", takenAt: "2023-01-01" }, { id: "p3", takenAt: "2020-01-01" }];
  assert.deepEqual(photosOf(faces, photos, "a").map((p) => p.id), ["p2", "p1"]);
  assert.deepEqual(byName([{ id: "1", name: "tom" }, { id: "2", name: "Emma" }]).map((p) => p.name), ["Emma", "tom"]);
  assert.equal(nameProblem("  "), "Type their name, such as Emma.");
  assert.equal(nameProblem("x".repeat(81)), "A name is at most 80 characters. Make it shorter.");
  assert.equal(nameProblem("Emma"), null);
});
