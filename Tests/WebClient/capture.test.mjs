// Napkin's capture: a share from another app as a note, the text read in a photo (capture-rules.js), and the
// offline search finding a note by a word only in its photo (notes-filter.js). `node --test Tests/WebClient`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_SHARED_PHOTO, photoProblem, photoTextView, sharedNote } from "../../Plugins/Web/Client/capture-rules.js";
import { filterNotes } from "../../Plugins/Web/Client/notes-filter.js";

test("a share's title, text and link become the note's title and text, the link on its own line", () => {
  assert.deepEqual(sharedNote({ title: "Rhubarb  crumble", text: "Grandma's recipe", url: "https://example.org/crumble" }),
    { title: "Rhubarb crumble", text: "Grandma's recipe\nhttps://example.org/crumble" });
  // Apps that put the link in the text: not twice.
  assert.deepEqual(sharedNote({ text: "Look at this https://example.org/a", url: "https://example.org/a" }),
    { title: "Look at this https://example.org/a", text: "Look at this https://example.org/a" });
  assert.deepEqual(sharedNote({ url: "https://www.example.org/page" }), { title: "example.org", text: "https://www.example.org/page" });
  assert.deepEqual(sharedNote({ text: "first line\nsecond line" }), { title: "first line", text: "first line\nsecond line" });
  assert.equal(sharedNote({ photo: new Blob(["x"], { type: "image/png" }) }).title, "Shared photo");
  assert.equal(sharedNote({ title: "t".repeat(300) }).title.length, 200, "a note's title is at most 200 characters");
});

test("a shared file is a note's photo only when it is an image within the upload limit", () => {
  assert.equal(photoProblem(null), null);
  assert.equal(photoProblem(new Blob(["png"], { type: "image/png" })), null);
  assert.match(String(photoProblem(new Blob(["%PDF"], { type: "application/pdf" }))), /not a photo \(application\/pdf\)/);
  const big = { type: "image/jpeg", size: MAX_SHARED_PHOTO + 1 };
  assert.match(String(photoProblem(/** @type {any} */ (big))), /at most 25 MB/);
});

test("the box under the photo follows the reading of its text", () => {
  assert.equal(photoTextView({}).kind, "none");
  assert.equal(photoTextView({ photo: "abc" }).kind, "none", "an app without photo text says nothing");
  assert.equal(photoTextView({ photo: "abc", pendingPhoto: new Blob([]) }).kind, "waiting");
  assert.equal(photoTextView({ photo: "abc", photoTextState: "reading" }).kind, "reading");
  assert.deepEqual(photoTextView({ photo: "abc", photoTextState: "read", photoText: "Harbour Bakery" }), { kind: "read", text: "Harbour Bakery" });
  assert.equal(photoTextView({ photo: "abc", photoTextState: "read", photoText: null }).kind, "empty");
  assert.equal(photoTextView({ photo: "abc", photoTextState: "failed" }).kind, "failed");
});

test("offline search finds a note by a word only in its photo's text", () => {
  const notes = [{ title: "Shopping", text: "bread" }, { title: "Receipt", text: "", photoText: "Harbour Bakery\nRhubarb crumble 3.50" }];
  assert.deepEqual(filterNotes(notes, "rhubarb").map((n) => n.title), ["Receipt"]);
  assert.deepEqual(filterNotes(notes, "harb").map((n) => n.title), ["Receipt"]);
});
