import { test } from "node:test";
import assert from "node:assert/strict";
import { mergeTags } from "../../Plugins/Web/Client/merge-tags.js";

test("a tag another phone added meanwhile stays; this phone's added and taken off go", () => {
  assert.deepEqual(mergeTags(["family"], ["family", "picnic"], ["family", "summer"]), ["family", "summer", "picnic"]);
  assert.deepEqual(mergeTags(["family", "picnic"], ["picnic"], ["family", "summer", "picnic"]), ["summer", "picnic"]);
});

test("nothing twice, and a tag taken off on both stays off", () => {
  assert.deepEqual(mergeTags([], ["beach"], ["beach"]), ["beach"]);
  assert.deepEqual(mergeTags(["a", "b"], ["a"], ["a"]), ["a"]);
  assert.deepEqual(mergeTags(["a"], ["a"], []), []);
});
