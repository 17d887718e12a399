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

test("the best 25 kept as found are the first 25 of every match fully sorted (tier, folded word, word)", () => {
  let seed = 3;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const syllables = ["ka", "ko", "ma", "mé", "ra", "ri", "sa", "so", "ta", "to"];
  const word = () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => syllables[Math.floor(random() * syllables.length)]).join("");
  const many = Array.from({ length: 600 }, (_, i) => entry(`e${i}`, random() < 0.3 ? `${word()} ${word()}` : word(), [`${word()} ${word()}`]));
  const tiers = ["exact", "prefix", "word", "definition"];
  for (const query of ["k", "ka", "ma ", "ra s", "me", "zz", "so ta"]) {
    // The reference: every entry's tier from a search without a limit, sorted in full.
    const all = Vocab.search(many, query, none, many.length);
    const reference = all.slice().sort((a, b) => tiers.indexOf(a.match) - tiers.indexOf(b.match)
      || (Vocab.fold(a.entry.word) < Vocab.fold(b.entry.word) ? -1 : Vocab.fold(a.entry.word) > Vocab.fold(b.entry.word) ? 1 : 0)
      || (a.entry.word < b.entry.word ? -1 : a.entry.word > b.entry.word ? 1 : 0));
    assert.deepEqual(Vocab.search(many, query, none).map((h) => h.entry.id), reference.slice(0, 25).map((h) => h.entry.id), query);
  }
});

test("definitions are searched only when the words found fewer than asked for", () => {
  const list = [entry("w", "cat", ["a small animal"]), entry("d", "chat", ["cat, in French"])];
  assert.deepEqual(Vocab.search(list, "cat", none, 1).map((h) => [h.entry.id, h.match]), [["w", "exact"]]);
  assert.deepEqual(Vocab.search(list, "cat", none, 5).map((h) => [h.entry.id, h.match]), [["w", "exact"], ["d", "definition"]]);
});
