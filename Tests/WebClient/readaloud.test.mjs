// Read aloud (speak.js) against a fake speechSynthesis, and iRemember's "On this day" (on-this-day.js) (node --test).
import assert from "node:assert/strict";
import test from "node:test";
import { Speaker } from "../../Plugins/Web/Client/speak.js";
import { onThisDay, yearsAgoLabel } from "../../Plugins/Web/Client/on-this-day.js";

/** A speechSynthesis that records what it is asked to say; `finish()` ends the current utterance. */
function fakeSynth() {
  const spoken = [];
  let current = null;
  return {
    spoken, cancels: 0,
    speak(u) { spoken.push({ text: u.text, lang: u.lang }); current = u; },
    cancel() { this.cancels += 1; const u = current; current = null; u?.onerror?.({ error: "interrupted" }); },
    finish() { const u = current; current = null; u?.onend?.({}); },
  };
}
class Utterance { constructor(text) { this.text = text; this.lang = ""; } }

test("speaks the text in the given language, and a second tap stops it", () => {
  const synth = fakeSynth();
  const speaker = new Speaker(synth, Utterance);
  const button = {};
  assert.equal(speaker.toggle(button, "  Emma at  the picnic ", "en-GB"), true);
  assert.deepEqual(synth.spoken, [{ text: "Emma at the picnic", lang: "en-GB" }]);
  assert.equal(speaker.speaking(button), true);
  const cancelsBefore = synth.cancels;
  assert.equal(speaker.toggle(button, "Emma at the picnic", "en-GB"), false);
  assert.equal(synth.cancels, cancelsBefore + 1);
  assert.equal(speaker.speaking(button), false);
  assert.equal(synth.spoken.length, 1);
});

test("another button stops the first and speaks its own text and language; the end of speech resets it", () => {
  const synth = fakeSynth();
  const speaker = new Speaker(synth, Utterance);
  const word = {}, example = {};
  let changes = 0;
  speaker.listen(() => { changes += 1; });
  speaker.toggle(word, "la pomme", "fr");
  speaker.toggle(example, "Je mange une pomme.", "fr-CA");
  assert.equal(speaker.speaking(word), false);
  assert.equal(speaker.speaking(example), true);
  assert.deepEqual(synth.spoken.map((s) => s.lang), ["fr", "fr-CA"]);
  synth.finish();
  assert.equal(speaker.speaking(example), false);
  assert.ok(changes >= 3);
  // Tapping the word again speaks it again (it was not left "speaking").
  assert.equal(speaker.toggle(word, "la pomme", "fr"), true);
});

test("without speechSynthesis nothing is available and nothing is spoken", () => {
  assert.equal(new Speaker(undefined, Utterance).available, false);
  assert.equal(new Speaker(fakeSynth(), undefined).available, false);
  assert.equal(new Speaker(null, null).toggle({}, "hello", "en"), false);
  assert.equal(new Speaker(fakeSynth(), Utterance).available, true);
});

test("an empty text is not spoken", () => {
  const synth = fakeSynth();
  assert.equal(new Speaker(synth, Utterance).toggle({}, "   ", "en"), false);
  assert.equal(synth.spoken.length, 0);
});

const photo = (id, takenAt, notes = "") => ({ id, takenAt, notes });

test("on this day: photos of this month and day in earlier years, nearest year first, by taken date", () => {
  const photos = [
    photo("picnic", "2023-06-14T12:00:00+01:00", "The picnic with Tom"),
    photo("old", "2016-06-14T09:00:00"),
    photo("old2", "2016-06-14T08:00:00"),
    photo("today", "2026-06-14T08:00:00"),
    photo("other", "2023-06-15T00:00:00"),
    photo("future", "2027-06-14T00:00:00"),
  ];
  const days = onThisDay(photos, "2026-06-14");
  assert.deepEqual(days.map((d) => [d.years, d.label, d.photos.map((p) => p.id)]),
    [[3, "3 years ago today", ["picnic"]], [10, "10 years ago today", ["old2", "old"]]]);
  assert.equal(yearsAgoLabel(1), "1 year ago today");
});

test("on this day: none is an empty list", () => {
  assert.deepEqual(onThisDay([photo("a", "2020-01-01T00:00:00")], "2026-06-14"), []);
  assert.deepEqual(onThisDay([], "2026-06-14"), []);
});

test("on this day: a 29 February photo shows on 28 February in years without a 29th, and on the 29th in leap years", () => {
  const photos = [photo("leap", "2024-02-29T10:00:00"), photo("28th", "2024-02-28T10:00:00")];
  assert.deepEqual(onThisDay(photos, "2025-02-28").map((d) => d.photos.map((p) => p.id)), [["28th", "leap"]]);
  assert.deepEqual(onThisDay(photos, "2028-02-28").map((d) => d.photos.map((p) => p.id)), [["28th"]]);
  assert.deepEqual(onThisDay(photos, "2028-02-29").map((d) => [d.years, d.photos.map((p) => p.id)]), [[4, ["leap"]]]);
  assert.deepEqual(onThisDay(photos, "2025-03-01"), []);
});
