// Foreign Note's local search and folding, as the screens use them offline (node --test).
import assert from "node:assert/strict";
import test from "node:test";
import * as Vocab from "../../Plugins/Web/Client/vocab.js";

const entry = (id, word, definitions, tags = [], collection = "c1") => ({ id, version: 1, word, definitions, tags, collection });
const entries = [
  entry("1", "crème brûlée", ["custard dessert"], ["food"]),
  entry("2", "crème", ["cream"], ["food"]),
  entry("3", "Straße", ["street"], ["places"], "c2"),
  entry("4", "bonjour", ["hello, good day"], []),
  entry("5", "crémerie", ["dairy shop"], ["food", "places"]),
];
const none = { all: [], any: [], none: [] };
const found = (query, filters = none) => Vocab.search(entries, query, filters).map((h) => [h.entry.id, h.match]);

test("folding: case and accents aside, ß as ss, and where each folded letter came from", () => {
  assert.equal(Vocab.fold("Crème BRÛLÉE"), "creme brulee");
  assert.equal(Vocab.fold("Straße"), "strasse");
  assert.deepEqual(Vocab.words("Hello, good-day!"), ["hello", "good", "day"]);
  const { folded, from } = Vocab.folding("aß");
  assert.equal(folded, "ass");
  assert.deepEqual(from, [0, 1, 1, 2]);
});

test("search tiers: exact, prefix, every word, definitions; the last word is a prefix unless a space ends it", () => {
  assert.deepEqual(found("creme"), [["2", "exact"], ["1", "prefix"], ["5", "prefix"]]);
  assert.deepEqual(found("cre"), [["2", "prefix"], ["1", "prefix"], ["5", "prefix"]]);
  assert.deepEqual(found("brulee"), [["1", "word"]]);
  assert.deepEqual(found("custard"), [["1", "definition"]]);
  assert.deepEqual(found("strasse"), [["3", "exact"]]);
  assert.deepEqual(found("good "), [["4", "definition"]]);
  assert.deepEqual(found("goo "), []);
});

test("tag filters all/any/none and a collection; no words browses by word", () => {
  assert.deepEqual(found("", { all: ["food"], any: [], none: [] }).map(([id]) => id), ["2", "1", "5"]);
  assert.deepEqual(found("cr", { all: ["food"], any: [], none: ["places"] }).map(([id]) => id), ["2", "1"]);
  assert.deepEqual(found("", { all: [], any: ["places"], none: [] }).map(([id]) => id), ["5", "3"]);
  assert.deepEqual(found("", { collection: "c2", all: [], any: [], none: [] }), [["3", "listed"]]);
});

test("highlights are ranges of the original text, accents and all", () => {
  const [hit] = Vocab.search(entries, "creme bru", none);
  assert.deepEqual(hit.highlights.word, [[0, 5], [6, 9]]);
  assert.deepEqual(Vocab.pieces("crème brûlée", hit.highlights.word), [["crème", true], [" ", false], ["brû", true], ["lée", false]]);
  assert.deepEqual(Vocab.pieces("abc", [[5, 9]]), [["abc", false]]);
  assert.deepEqual(Vocab.ranges("Straße", ["strass"]), [[0, 5]]);
});

test("definitions one a line, languages as codes", () => {
  assert.deepEqual(Vocab.definitionsOf(" cream \n\n custard\r\n"), ["cream", "custard"]);
  assert.deepEqual(Vocab.languagesOf("fr, en fr"), ["fr", "en"]);
});
