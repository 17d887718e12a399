// iRemember's album rules, as the screens use them offline (node --test).
import assert from "node:assert/strict";
import test from "node:test";
import * as Album from "../../Plugins/Web/Client/album.js";
import { overlay, recordIn } from "../../Plugins/Web/Client/outbox.js";

const photo = (id, takenAt, tags, place = null) => ({ id, version: 1, takenAt, tags, place });
const photos = [
  photo("a", "2024-07-15T09:00:00+02:00", ["beach", "dog"], { key: "fr/paris", label: "Paris" }),
  photo("b", "2024-07-16T18:45:00+02:00", ["beach"], { key: "fr/paris", label: "Paris" }),
  photo("c", "2024-08-01T12:00:00+01:00", ["dog"], { key: "gb/london", label: "London" }),
  photo("d", "2024-08-01T08:00:00+01:00", []),
];
const ids = (list) => list.map((p) => p.id);

test("+ tags add photos (any of them), − tags take photos away", () => {
  assert.deepEqual(ids(Album.inTimeOrder(photos, { plus: ["beach"], minus: [] })), ["b", "a"]);
  assert.deepEqual(ids(Album.inTimeOrder(photos, { plus: ["beach", "dog"], minus: [] })), ["c", "b", "a"]);
  assert.deepEqual(ids(Album.inTimeOrder(photos, { plus: ["beach"], minus: ["dog"] })), ["b"]);
  assert.deepEqual(ids(Album.inTimeOrder(photos, { plus: [], minus: ["beach"] })), ["c", "d"]);
});

test("a time range includes both its days; day, month and place folders", () => {
  assert.deepEqual(ids(Album.inTimeOrder(photos, { plus: [], minus: [], from: "2024-07-16", to: "2024-08-01" })), ["c", "d", "b"]);
  assert.deepEqual(ids(Album.inTimeOrder(photos, { plus: [], minus: [], day: "2024-08-01" })), ["c", "d"]);
  assert.deepEqual(ids(Album.inTimeOrder(photos, { plus: [], minus: [], month: "2024-07" })), ["b", "a"]);
  assert.deepEqual(ids(Album.inTimeOrder(photos, { plus: [], minus: [], place: "gb/london" })), ["c"]);
});

test("days, months, places and tags are counted, in the order the screens show them", () => {
  assert.deepEqual(Album.byDay(Album.inTimeOrder(photos)).map((d) => [d.day, ids(d.photos)]),
    [["2024-08-01", ["c", "d"]], ["2024-07-16", ["b"]], ["2024-07-15", ["a"]]]);
  assert.deepEqual(Album.recentDays(photos, 2), [{ day: "2024-08-01", count: 2 }, { day: "2024-07-16", count: 1 }]);
  assert.deepEqual(Album.months(photos), [{ month: "2024-08", count: 2 }, { month: "2024-07", count: 2 }]);
  assert.deepEqual(Album.places(photos), [{ key: "fr/paris", label: "Paris", count: 2 }, { key: "gb/london", label: "London", count: 1 }]);
  assert.deepEqual(Album.tagCounts(photos), [{ tag: "beach", count: 2 }, { tag: "dog", count: 2 }]);
});

test("a tag cycles through +, − and out; a search survives the address bar", () => {
  let search = Album.withTag(Album.emptySearch(), "beach", "+");
  search = Album.withTag(search, "dog", "-");
  assert.deepEqual(search, { plus: ["beach"], minus: ["dog"] });
  assert.deepEqual(Album.withTag(search, "dog", "+"), { plus: ["beach", "dog"], minus: [] });
  assert.deepEqual(Album.withTag(search, "beach", "x"), { plus: [], minus: ["dog"] });
  const full = { plus: ["a b", "c"], minus: ["d"], from: "2024-01-01", to: "2024-02-01", place: "fr/paris" };
  assert.deepEqual(Album.parseSearch(Album.searchQuery(full)), full);
  assert.equal(Album.isEmpty(Album.parseSearch("")), true);
});

test("a search is shared as the server's search: tags with −, days as times", () => {
  assert.deepEqual(Album.shareBody({ plus: ["beach"], minus: ["dog"], from: "2024-07-01" }),
    { match: "any", tags: "beach -dog", from: "2024-07-01T00:00" });
  assert.deepEqual(Album.shareBody({ plus: [], minus: [], month: "2024-02" }), { match: "any", from: "2024-02-01T00:00", to: "2024-02-29T23:59" });
});

test("typed tags become words, as the server keeps them", () => {
  // As typed (names keep their capitals), each once whatever its case.
  assert.deepEqual(Album.typedTags("Tom, London #trip  tom"), ["Tom", "London", "trip"]);
  assert.deepEqual(Album.typedTags(" , # "), []);
});

test("the move code carries the account and nothing else; anything else is not a code", () => {
  const account = { accountId: "acct_1", deviceSecret: "s3cr€t/+=" };
  const code = Album.moveCode(account);
  assert.match(code, /^IR1-[A-Za-z0-9_-]+$/);
  assert.deepEqual(Album.readMoveCode(code), account);
  assert.deepEqual(Album.readMoveCode(`https://example.org/#/move/${code}\n`), account);
  assert.equal(Album.readMoveCode("IR1-bm90IGpzb24"), null);
  assert.equal(Album.readMoveCode("hello"), null);
});

test("the slideshow shows every photo once", () => {
  let seed = 7;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const order = Album.shuffled(ids(photos), random);
  assert.deepEqual([...order].sort(), ["a", "b", "c", "d"]);
});

test("the phone's clock carries its offset; days read as words", () => {
  assert.match(Album.localTime(new Date(2026, 10, 23, 9, 5, 7)), /^2026-11-23T09:05:07[+-]\d\d:\d\d$/);
  const now = new Date(2026, 10, 23, 12);
  assert.equal(Album.dayLabel("2026-11-23", now), "Today");
  assert.equal(Album.dayLabel("2026-11-22", now), "Yesterday");
  assert.equal(Album.dayLabel("", now), "No date");
});

test("a photo picked offline shows at once; the server's answer holds the record under `photo`", () => {
  const file = new Blob(["jpeg"], { type: "image/jpeg" });
  const post = { key: "k", method: "POST", path: "/api/v1/album/photos?source=camera", body: file, contentType: "image/jpeg",
    kind: "album.photo", id: "local:1", attempts: 0, recordAt: "photo", local: { tags: [], pendingImage: file } };
  const tag = { key: "t", method: "PATCH", path: "/api/v1/album/photos/local:1", body: { tags: ["train"] }, kind: "album.photo", id: "local:1", attempts: 0 };
  const view = overlay(new Map(), [post, tag]);
  const shown = view.get("album.photo/local:1");
  assert.equal(shown.pendingImage, file);
  assert.deepEqual(shown.tags, ["train"]);
  assert.equal(shown.pending, true);
  assert.deepEqual(recordIn(post, { photo: { id: "p1", version: 1 }, suggestedTags: [] }), { id: "p1", version: 1 });
  assert.deepEqual(recordIn(tag, { id: "p1", version: 2 }), { id: "p1", version: 2 });
});

/** A JPEG's first bytes with an EXIF block: IFD0 (DateTime, the EXIF pointer) and the EXIF IFD. */
function exifJpeg({ little = false, original = "2025:07:14 10:30:00", digitized = null, modified = "2026:01:02 03:04:05" } = {}) {
  const tiff = [];
  const u16 = (n) => (little ? [n & 255, n >> 8] : [n >> 8, n & 255]);
  const u32 = (n) => (little ? [n & 255, (n >> 8) & 255, (n >> 16) & 255, n >>> 24] : [n >>> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255]);
  const ascii = (text) => [...text].map((c) => c.charCodeAt(0)).concat(0);
  const exifTags = [[0x9003, original], [0x9004, digitized]].filter(([, v]) => v);
  // Layout: header (8), IFD0 (2 + 2×12 + 4 = 30) at 8, EXIF IFD at 38 (2 + n×12 + 4), then the strings.
  const exifAt = 38;
  const stringsAt = exifAt + 2 + exifTags.length * 12 + 4;
  const strings = [];
  const place = (text) => { const at = stringsAt + strings.length; strings.push(...ascii(text)); return at; };
  const modifiedAt = place(modified);
  const exifEntries = exifTags.map(([tag, text]) => [tag, place(text)]);
  tiff.push(...(little ? [0x49, 0x49] : [0x4d, 0x4d]), ...u16(42), ...u32(8));
  tiff.push(...u16(2), ...u16(0x0132), ...u16(2), ...u32(20), ...u32(modifiedAt), ...u16(0x8769), ...u16(4), ...u32(1), ...u32(exifAt), ...u32(0));
  tiff.push(...u16(exifEntries.length));
  for (const [tag, at] of exifEntries) tiff.push(...u16(tag), ...u16(2), ...u32(20), ...u32(at));
  tiff.push(...u32(0), ...strings);
  const app1 = [...ascii("Exif"), 0, ...tiff];
  const length = app1.length + 2;
  // A JFIF APP0 first, as cameras and vips write it, then APP1, then the start of scan.
  const app0 = [0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0];
  return new Uint8Array([0xff, 0xd8, ...app0, 0xff, 0xe1, length >> 8, length & 255, ...app1, 0xff, 0xda, 0, 2]);
}

test("a JPEG's EXIF time taken is read on the phone, as the server reads it", () => {
  assert.equal(Album.exifTakenAt(exifJpeg()), "2025-07-14T10:30:00");
  assert.equal(Album.exifTakenAt(exifJpeg({ little: true })), "2025-07-14T10:30:00");
  assert.equal(Album.exifTakenAt(exifJpeg({ original: null, digitized: "2024:12:31 23:59:58" })), "2024-12-31T23:59:58");
  assert.equal(Album.exifTakenAt(exifJpeg({ original: null })), "2026-01-02T03:04:05");
  assert.equal(Album.exifTakenAt(exifJpeg({ original: "0000:00:00 00:00:00", modified: "    :  :     :  :  " })), null);
  assert.equal(Album.exifTakenAt(new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0, 2])), null, "no EXIF");
  assert.equal(Album.exifTakenAt(new Uint8Array([0x89, 0x50, 0x4e, 0x47])), null, "not a JPEG");
  assert.equal(Album.exifTakenAt(exifJpeg().slice(0, 40)), null, "cut short");
});

test("Search by Time to the minute: a time of day narrows a day; a day alone is the whole day", async () => {
  const { matches, shareBody } = await import("../../Plugins/Web/Client/album.js");
  const at = (takenAt) => ({ id: takenAt, version: 1, takenAt, tags: [] });
  const morning = { plus: [], minus: [], from: "2025-07-14T09:00", to: "2025-07-14T12:00" };
  assert.equal(matches(at("2025-07-14T08:59:59"), morning), false);
  assert.equal(matches(at("2025-07-14T09:00:00"), morning), true);
  assert.equal(matches(at("2025-07-14T12:00:59"), morning), true, "to the minute, that minute included");
  assert.equal(matches(at("2025-07-14T12:01:00"), morning), false);
  assert.equal(matches(at("2025-07-14T23:30:00"), { plus: [], minus: [], from: "2025-07-14", to: "2025-07-14" }), true);
  assert.deepEqual(shareBody(morning), { match: "any", from: "2025-07-14T09:00", to: "2025-07-14T12:00" });
  assert.deepEqual(shareBody({ plus: [], minus: [], from: "2025-07-14" }), { match: "any", from: "2025-07-14T00:00" });
});

test("recent tags: the newest photos' tags first, each once", async () => {
  const { recentTags } = await import("../../Plugins/Web/Client/album.js");
  const photos = [
    { id: "a", version: 1, takenAt: "2024-01-01T10:00:00", tags: ["old", "beach"] },
    { id: "b", version: 1, takenAt: "2025-07-14T10:00:00", tags: ["tom", "picnic"] },
    { id: "c", version: 1, takenAt: "2025-07-13T10:00:00", tags: ["tom", "beach"] },
  ];
  assert.deepEqual(recentTags(photos), ["tom", "picnic", "beach", "old"]);
  assert.deepEqual(recentTags(photos, 2), ["tom", "picnic"]);
  assert.deepEqual(recentTags([]), []);
});

test("a tag keeps its case and is matched and counted case-folded: tom finds Tom, Tom and tom count once", () => {
  const photos = [{ id: "a", takenAt: "2024-05-01T10:00:00Z", tags: ["Tom"] }, { id: "b", takenAt: "2024-05-02T10:00:00Z", tags: ["tom", "picnic"] }];
  assert.deepEqual(Album.tagCounts(/** @type {any} */ (photos)), [{ tag: "Tom", count: 2 }, { tag: "picnic", count: 1 }]);
  assert.equal(Album.matches(/** @type {any} */ (photos[0]), { plus: ["tom"], minus: [] }), true);
  assert.equal(Album.matches(/** @type {any} */ (photos[1]), { plus: [], minus: ["TOM"] }), false);
});
