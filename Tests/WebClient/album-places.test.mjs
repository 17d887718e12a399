// iRemember's map: photos with a location gathered into places (album-places.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mapPlaces, placeKey } from "../../Plugins/Web/Client/album-places.js";

const paris = { key: "fr-paris", label: "Paris" };

test("photos without a location are not on the map; bad coordinates neither", () => {
  const places = mapPlaces([
    { id: "a", takenAt: "2024-01-01T10:00:00" },
    { id: "b", takenAt: "2024-01-01T10:00:00", location: { latitude: 91, longitude: 0 } },
    { id: "c", takenAt: "2024-01-01T10:00:00", location: { latitude: Number.NaN, longitude: 0 } },
    { id: "d", takenAt: "2024-01-01T10:00:00", location: null },
  ]);
  assert.deepEqual(places, []);
});

test("photos of one place folder are one marker, in the middle of them, newest first; most photos first", () => {
  const places = mapPlaces([
    { id: "p1", takenAt: "2023-05-01T10:00:00", place: paris, location: { latitude: 48.85, longitude: 2.29 } },
    { id: "p2", takenAt: "2024-05-01T10:00:00", place: paris, location: { latitude: 48.87, longitude: 2.31 } },
    { id: "x", takenAt: "2024-06-01T10:00:00", location: { latitude: -33.8567, longitude: 151.2153 } },
  ]);
  assert.equal(places.length, 2);
  assert.equal(places[0].key, "fr-paris");
  assert.equal(places[0].label, "Paris");
  assert.deepEqual(places[0].photos.map((p) => p.id), ["p2", "p1"]);
  assert.ok(Math.abs(places[0].latitude - 48.86) < 1e-9 && Math.abs(places[0].longitude - 2.30) < 1e-9);
  assert.equal(places[1].key, "at:-33.86,151.22");
  assert.equal(places[1].label, "Near -33.86, 151.22");
});

test("a photo's place key is its folder's, else its spot, else none", () => {
  assert.equal(placeKey({ place: paris, location: { latitude: 1, longitude: 2 } }), "fr-paris");
  assert.equal(placeKey({ location: { latitude: 1.234, longitude: 2.345 } }), "at:1.23,2.35");
  assert.equal(placeKey({ place: paris }), null);
});
