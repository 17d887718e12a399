// Foreign Note's local search and folding, as the screens use them offline (node --test).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";
import * as Vocab from "../../Plugins/Web/Client/vocab.js";

// The server's answers for the same cases: Tests/VocabularyTests/VocabularyFoldingTests.swift checks them against SearchText and a browse.
const cases = JSON.parse(readFileSync(new URL("./fold-cases.json", import.meta.url), "utf8"));

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

test("folding: case and accents aside, ß as ss, symbols and emoji dropped, tokens with where they are", () => {
  assert.equal(Vocab.fold("Crème BRÛLÉE"), "creme brulee");
  assert.equal(Vocab.fold("Straße"), "strasse");
  assert.equal(Vocab.fold("✨ blue"), "blue");
  assert.deepEqual(Vocab.words("Hello, good-day!"), ["hello", "good", "day"]);
  assert.deepEqual(Vocab.tokens("😀 aß 東京"), [
    { folded: "ass", start: 3, end: 5, ideographic: false },
    { folded: "東", start: 6, end: 7, ideographic: true },
    { folded: "京", start: 7, end: 8, ideographic: true },
  ]);
});

test("folding is the server's, case by case (emoji, symbols, accents, case, ligatures, full width, Han)", () => {
  for (const [text, folded] of cases.fold) assert.equal(Vocab.fold(text), folded, text);
});

test("a collection lists its words in the server's order: sort key by code point, then id", () => {
  const shuffled = [...cases.order].reverse().map((word, i) => entry(`e${i}`, word, ["x"]));
  assert.deepEqual(Vocab.byWord(shuffled).map((e) => e.word), cases.order);
  assert.deepEqual(Vocab.byWord([entry("3", "seven", []), entry("2", "✨ blue", []), entry("1", "apple", [])]).map((e) => e.word),
    ["apple", "✨ blue", "seven"]);
  // Same key: by id, as the server breaks ties.
  assert.deepEqual(Vocab.byWord([entry("b", "Apple", []), entry("a", "apple", [])]).map((e) => e.id), ["a", "b"]);
  assert.ok(Vocab.compareKeys("\uff76", "\u{1d518}") < 0, "U+FF76 before U+1D518, as UTF-8 bytes order them (UTF-16 units would not)");
  assert.deepEqual(Vocab.byName([{ id: "2", name: "Été" }, { id: "1", name: "✨ Zoo" }, { id: "3", name: "abc" }]).map((n) => n.id), ["3", "2", "1"]);
});

test("highlights are the server's, case by case", () => {
  for (const [text, query, ranges] of cases.highlights) assert.deepEqual(Vocab.ranges(text, query), ranges, `${text} / ${query}`);
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
  assert.deepEqual(Vocab.ranges("Straße", "strass"), [[0, 5]]);
});

test("definitions one a line, languages as codes", () => {
  assert.deepEqual(Vocab.definitionsOf(" cream \n\n custard\r\n"), ["cream", "custard"]);
  assert.deepEqual(Vocab.languagesOf("fr, en fr"), ["fr", "en"]);
});

test("the best 25 kept as found are the first 25 of every match fully sorted (tier, sort key, id)", () => {
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
      || Vocab.compareKeys(Vocab.fold(a.entry.word), Vocab.fold(b.entry.word)) || Vocab.compareKeys(a.entry.id, b.entry.id));
    assert.deepEqual(Vocab.search(many, query, none).map((h) => h.entry.id), reference.slice(0, 25).map((h) => h.entry.id), query);
  }
});

test("definitions are searched only when the words found fewer than asked for", () => {
  const list = [entry("w", "cat", ["a small animal"]), entry("d", "chat", ["cat, in French"])];
  assert.deepEqual(Vocab.search(list, "cat", none, 1).map((h) => [h.entry.id, h.match]), [["w", "exact"]]);
  assert.deepEqual(Vocab.search(list, "cat", none, 5).map((h) => [h.entry.id, h.match]), [["w", "exact"], ["d", "definition"]]);
});

test("offline search has the server's tiers: a space-ended query still prefixes whole words; each word may be in another field", () => {
  const list = [entry("a", "pain au chocolat", ["a pastry"]), entry("b", "pain", ["bread"]), entry("c", "croissant", ["a pastry, like pain au chocolat"]),
    entry("d", "東京都", ["Tokyo"]), entry("e", "✨ brioche", ["sweet bread"])];
  const hits = (query) => Vocab.search(list, query, none).map((h) => [h.entry.id, h.match]);
  assert.deepEqual(hits("pain "), [["b", "exact"], ["a", "prefix"], ["c", "definition"]]);
  assert.deepEqual(hits("croissant pastry"), [["c", "definition"]]);
  assert.deepEqual(hits("京都"), [["d", "word"]]);
  assert.deepEqual(hits("都京"), []);
  assert.deepEqual(hits("bri"), [["e", "prefix"]]);
  assert.deepEqual(Vocab.search(list, "bri", none)[0].highlights.word, [[2, 5]]);
});
