// node --test Tests/WebClient: Napkin Notes' offline search and categories.
import { test } from "node:test";
import assert from "node:assert/strict";
import { categoryCounts, filterNotes, fold, localDateTime, reminderInstant } from "../../Plugins/Web/Client/notes-filter.js";

const notes = [
  { id: "a", title: "Meeting", text: "bring the groceries list", category: "Work" },
  { id: "b", title: "Groceries", text: "milk, eggs", category: "Home" },
  { id: "c", title: "Café notes", text: "Crème brûlée", category: "Home" },
  { id: "d", title: "Loose", text: "", category: null },
];

test("every word must match, case and accents ignored; title matches before text matches, each in the user's order", () => {
  assert.deepEqual(filterNotes(notes, "grocer").map((n) => n.id), ["b", "a"]);
  assert.deepEqual(filterNotes(notes, "CREME brul").map((n) => n.id), ["c"]);
  assert.deepEqual(filterNotes(notes, "cafe").map((n) => n.id), ["c"]);
  assert.deepEqual(filterNotes(notes, "groceries milk").map((n) => n.id), ["b"]);
  assert.deepEqual(filterNotes(notes, "nothing like it"), []);
  assert.equal(fold("Ünïcödé"), "unicode");
});

test("a category narrows the list and the search; a blank query is the whole (narrowed) list", () => {
  assert.deepEqual(filterNotes(notes, "", "Home").map((n) => n.id), ["b", "c"]);
  assert.deepEqual(filterNotes(notes, "grocer", "Work").map((n) => n.id), ["a"]);
  assert.deepEqual(filterNotes(notes, "  ").map((n) => n.id), ["a", "b", "c", "d"]);
});

test("categories in use, by name, with counts", () => {
  assert.deepEqual(categoryCounts(notes), [{ name: "Home", count: 2 }, { name: "Work", count: 1 }]);
});

test("a reminder's time: in the future or refused; shown back in the device's time", () => {
  const now = Date.parse("2026-11-24T10:00:00Z");
  assert.equal(reminderInstant("", now), null);
  assert.equal(reminderInstant("2020-01-01T09:00", now), null);
  const at = /** @type {string} */ (reminderInstant("2030-01-02T09:30", now));
  assert.equal(localDateTime(at), "2030-01-02T09:30");
});
