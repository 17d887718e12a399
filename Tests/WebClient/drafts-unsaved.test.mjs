// What is typed and kept only as a draft is said before a sign-out deletes it (Plugins/Web/Client/
// drafts-unsaved.js, app.js's signOut). Run by `node --test Tests/WebClient`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { draftsSentence, unsavedDrafts } from "../../Plugins/Web/Client/drafts-unsaved.js";

/** A Storage-like map. @param {Record<string, string>} items */
const storage = (items) => {
  const keys = Object.keys(items);
  return { length: keys.length, key: (i) => keys[i] ?? null, getItem: (k) => (k in items ? items[k] : null) };
};

test("each draft's words: AR's text, a word's form, a reminder's note; not a word's remembered copy, not other keys", () => {
  const found = unsavedDrafts(storage({
    "quire.draft.ar.acc1.nb1.pg1": JSON.stringify({ notebook: "nb1", page: "pg1", text: "typing when the battery dies" }),
    "quire.draft.vocabulary.new/c1": JSON.stringify({ word: "la leche", definitions: "the milk" }),
    "quire.draft.vocabulary.entry.seen/e1": JSON.stringify({ word: "as shown" }),
    "quire.draft.reminder.n1": JSON.stringify({ subject: "n1", at: null, title: "Groceries" }),
    "quire.draft.notes.note/n2": JSON.stringify({ text: "   " }),
    "quire.mine.notes.note/n3.text": "not a draft",
    "quire.session": "{}",
  }));
  assert.deepEqual(found, ["typing when the battery dies", "la leche", "Groceries"]);
});

test("the sentence quotes two at most, shortened, and says how many more; none says nothing", () => {
  assert.equal(draftsSentence([]), "");
  const said = draftsSentence(["a".repeat(80), "two", "three", "four"]);
  assert.match(said, /^What you were writing and have not saved \(“a{59}…”, “two” and 2 more\) is only on this phone: signing out deletes it\.$/);
});
