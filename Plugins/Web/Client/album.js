// @ts-check
/**
 * iRemember's album, worked out on the device from the synced photos: by time, recent days, tags
 * (+ adds, − takes away), a time range, month and place folders, a slideshow's order, and the code
 * that moves a device account to a new phone. Pure, so every screen works offline and the rules are
 * unit-tested (`Tests/WebClient`). The server's browse routes answer the same questions for
 * clients that keep no copy.
 */

/**
 * @typedef {object} Photo
 * @property {string} id
 * @property {number} version
 * @property {string} takenAt        local wall-clock time, `2024-07-15T09:00:00`
 * @property {string[]} tags
 * @property {string} [notes]
 * @property {{key: string, label: string} | null} [place]
 * @property {boolean} [hasMarkup]
 * @property {Blob} [pendingImage]   picked offline, not uploaded yet
 */

/**
 * A search: photos with any `plus` tag (all photos when none), without every `minus` tag, taken
 * between `from` and `to` (days, both included, or times of day to the minute, `2024-07-15T09:00`);
 * or one day, month or place folder.
 * @typedef {{plus: string[], minus: string[], from?: string, to?: string, day?: string, month?: string, place?: string}} Search
 */

/** @returns {Search} */
export function emptySearch() {
  return { plus: [], minus: [] };
}

/** @param {Search} search */
export function isEmpty(search) {
  return !search.plus.length && !search.minus.length && !search.from && !search.to && !search.day && !search.month && !search.place;
}

/** @param {Photo} photo @param {Search} search */
export function matches(photo, search) {
  const tags = new Set((photo.tags ?? []).map(tagKey));
  if (search.plus.length && !search.plus.some((tag) => tags.has(tagKey(tag)))) return false;
  if (search.minus.some((tag) => tags.has(tagKey(tag)))) return false;
  const day = dayOf(photo);
  const minute = (photo.takenAt ?? "").slice(0, 16);
  if (search.from && (search.from.length > 10 ? minute < search.from : day < search.from)) return false;
  if (search.to && (search.to.length > 10 ? minute > search.to : day > search.to)) return false;
  if (search.day && day !== search.day) return false;
  if (search.month && day.slice(0, 7) !== search.month) return false;
  if (search.place && photo.place?.key !== search.place) return false;
  return true;
}

/** @param {Photo} photo */
export function dayOf(photo) {
  return (photo.takenAt ?? "").slice(0, 10);
}

/**
 * The album in time order, newest first (what was just added is at the top), matching a search.
 * @param {readonly Photo[]} photos @param {Search} [search] @returns {Photo[]}
 */
export function inTimeOrder(photos, search = emptySearch()) {
  return photos.filter((photo) => matches(photo, search))
    .sort((a, b) => (a.takenAt < b.takenAt ? 1 : a.takenAt > b.takenAt ? -1 : a.id < b.id ? 1 : -1));
}

/**
 * Photos grouped by the day they were taken, in the order given.
 * @param {readonly Photo[]} photos @returns {Array<{day: string, photos: Photo[]}>}
 */
export function byDay(photos) {
  /** @type {Array<{day: string, photos: Photo[]}>} */
  const days = [];
  for (const photo of photos) {
    const day = dayOf(photo);
    if (days.at(-1)?.day !== day) days.push({ day, photos: [] });
    /** @type {{day: string, photos: Photo[]}} */ (days.at(-1)).photos.push(photo);
  }
  return days;
}

/**
 * Tags with how many photos have each, most used first (ties alphabetical).
 * @param {readonly Photo[]} photos @returns {Array<{tag: string, count: number}>}
 */
export function tagCounts(photos) {
  // Counted by key ("Tom" and "tom" are one tag), shown as first met.
  /** @type {Map<string, {tag: string, count: number}>} */
  const counts = new Map();
  for (const photo of photos) {
    for (const tag of new Set(photo.tags ?? [])) {
      const counted = counts.get(tagKey(tag)) ?? { tag, count: 0 };
      counted.count += 1;
      counts.set(tagKey(tag), counted);
    }
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : 1));
}

/**
 * The most recent days that have photos, newest first.
 * @param {readonly Photo[]} photos @param {number} [days] @returns {Array<{day: string, count: number}>}
 */
export function recentDays(photos, days = 7) {
  return counted(photos.map(dayOf)).sort((a, b) => (a.key < b.key ? 1 : -1)).slice(0, days).map(({ key, count }) => ({ day: key, count }));
}

/**
 * Recent tags: the tags of the newest photos, the most recent first, each once.
 * @param {readonly Photo[]} photos @param {number} [count] @returns {string[]}
 */
export function recentTags(photos, count = 8) {
  const newest = [...photos].sort((a, b) => (a.takenAt < b.takenAt ? 1 : a.takenAt > b.takenAt ? -1 : 0));
  /** @type {string[]} */
  const tags = [];
  for (const photo of newest) {
    for (const tag of photo.tags ?? []) if (!tags.some((t) => tagKey(t) === tagKey(tag))) tags.push(tag);
    if (tags.length >= count) break;
  }
  return tags.slice(0, count);
}

/** Month folders (`2024-07`), newest first. @param {readonly Photo[]} photos @returns {Array<{month: string, count: number}>} */
export function months(photos) {
  return counted(photos.map((p) => dayOf(p).slice(0, 7))).sort((a, b) => (a.key < b.key ? 1 : -1)).map(({ key, count }) => ({ month: key, count }));
}

/**
 * Place folders, most photos first; photos with no place are in none.
 * @param {readonly Photo[]} photos @returns {Array<{key: string, label: string, count: number}>}
 */
export function places(photos) {
  /** @type {Map<string, {key: string, label: string, count: number}>} */
  const found = new Map();
  for (const photo of photos) {
    if (!photo.place?.key) continue;
    const folder = found.get(photo.place.key) ?? { key: photo.place.key, label: photo.place.label, count: 0 };
    folder.count += 1;
    found.set(photo.place.key, folder);
  }
  return [...found.values()].sort((a, b) => b.count - a.count || (a.label < b.label ? -1 : 1));
}

/** @param {string[]} keys */
function counted(keys) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const key of keys) if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
  return [...counts].map(([key, count]) => ({ key, count }));
}

/**
 * Cycles a tag in a search the way the manual's buttons do: `+` puts it among the tags that add
 * photos, `−` among those that take photos away, `×` takes it out of the search.
 * @param {Search} search @param {string} tag @param {"+" | "-" | "x"} how @returns {Search}
 */
export function withTag(search, tag, how) {
  const plus = search.plus.filter((t) => t !== tag);
  const minus = search.minus.filter((t) => t !== tag);
  if (how === "+") plus.push(tag);
  if (how === "-") minus.push(tag);
  return { ...search, plus, minus };
}

/**
 * A search as the part of the address after `?`, so it survives a reload and the back button.
 * @param {Search} search
 */
export function searchQuery(search) {
  const query = new URLSearchParams();
  if (search.plus.length) query.set("plus", search.plus.join(","));
  if (search.minus.length) query.set("minus", search.minus.join(","));
  for (const key of /** @type {const} */ (["from", "to", "day", "month", "place"])) if (search[key]) query.set(key, /** @type {string} */ (search[key]));
  return query.toString();
}

/** @param {string} text @returns {Search} */
export function parseSearch(text) {
  const query = new URLSearchParams(text);
  const list = (/** @type {string} */ key) => (query.get(key) ?? "").split(",").filter(Boolean);
  /** @type {Search} */
  const search = { plus: list("plus"), minus: list("minus") };
  for (const key of /** @type {const} */ (["from", "to", "day", "month", "place"])) {
    const value = query.get(key);
    if (value) search[key] = value;
  }
  return search;
}

/**
 * The search as the album plugin's share route takes it: tags `beach -work`, days as times.
 * @param {Search} search
 */
export function shareBody(search) {
  /** @type {Record<string, string>} */
  const body = { match: "any" };
  const tags = [...search.plus, ...search.minus.map((t) => `-${t}`)].join(" ");
  if (tags) body.tags = tags;
  const from = search.from ?? search.day ?? (search.month ? `${search.month}-01` : undefined);
  const to = search.to ?? search.day ?? (search.month ? lastDay(search.month) : undefined);
  if (from) body.from = from.length > 10 ? from : `${from}T00:00`;
  if (to) body.to = to.length > 10 ? to : `${to}T23:59`;
  return body;
}

/** @param {string} month `2024-02` */
function lastDay(month) {
  const [y, m] = month.split("-").map(Number);
  return `${month}-${String(new Date(y, m, 0).getDate()).padStart(2, "0")}`;
}

/**
 * "Today", "Yesterday", or the date in the reader's words.
 * @param {string} day `YYYY-MM-DD` @param {Date} [now]
 */
export function dayLabel(day, now = new Date()) {
  const [y, m, d] = day.split("-").map(Number);
  if (!y || !m || !d) return day || "No date";
  const date = new Date(y, m - 1, d);
  const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const days = Math.round((midnight.getTime() - date.getTime()) / 86_400_000);
  if (days === 0) return "Today";
  if (days === 1) return "Yesterday";
  return date.toLocaleDateString(undefined, { weekday: "long", day: "numeric", month: "long", year: "numeric" });
}

/** "July 2024" for `2024-07`. @param {string} month */
export function monthLabel(month) {
  const [y, m] = month.split("-").map(Number);
  if (!y || !m) return month;
  return new Date(y, m - 1, 1).toLocaleDateString(undefined, { month: "long", year: "numeric" });
}

/**
 * The photos in a random order, each once (Fisher–Yates).
 * @template T @param {T[]} items @param {() => number} [random] @returns {T[]}
 */
export function shuffled(items, random = Math.random) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Tags as a person types them ("Tom, London #trip"): words as typed (names keep their capitals),
 * no `#`, each once whatever its case. The server keeps them the same way; the chips show what it
 * will keep.
 * @param {string} text @returns {string[]}
 */
export function typedTags(text) {
  const words = text.split(/[\s,;#]+/).map((w) => w.trim()).filter(Boolean);
  return words.filter((word, index) => words.findIndex((w) => tagKey(w) === tagKey(word)) === index);
}

/** What a tag is matched and counted by, as the server does: case-folded ("tom" finds "Tom"). @param {string} tag */
export function tagKey(tag) {
  return tag.toLowerCase().normalize("NFC");
}

const MOVE_PREFIX = "IR1-";

/**
 * The code that moves a device account to another phone: its id and secret, nothing else. Whoever
 * has it can open the album, so the screen says to keep it to oneself.
 * @param {{accountId: string, deviceSecret: string}} account
 */
export function moveCode(account) {
  const json = JSON.stringify({ a: account.accountId, s: account.deviceSecret });
  const base64 = btoa(String.fromCharCode(...new TextEncoder().encode(json)));
  return MOVE_PREFIX + base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The account in a move code, or in a link that carries one; null when the text is not one.
 * @param {string} text @returns {{accountId: string, deviceSecret: string} | null}
 */
export function readMoveCode(text) {
  const found = text.replace(/\s+/g, "").match(/IR1-([A-Za-z0-9_-]+)/);
  if (!found) return null;
  try {
    const base64 = found[1].replace(/-/g, "+").replace(/_/g, "/");
    const bytes = Uint8Array.from(atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4)), (c) => c.charCodeAt(0));
    const value = JSON.parse(new TextDecoder().decode(bytes));
    return typeof value?.a === "string" && typeof value?.s === "string" && value.a && value.s
      ? { accountId: value.a, deviceSecret: value.s } : null;
  } catch {
    return null;
  }
}

/**
 * The phone's clock as the album takes it for a photo with no EXIF time, with the phone's offset
 * so the day is the user's own: `2026-11-23T19:25:00+01:00`.
 * @param {Date} [now]
 */
export function localTime(now = new Date()) {
  const two = (/** @type {number} */ n) => String(n).padStart(2, "0");
  const offset = -now.getTimezoneOffset();
  const zone = `${offset < 0 ? "-" : "+"}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
  return `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}T${two(now.getHours())}:${two(now.getMinutes())}:${two(now.getSeconds())}${zone}`;
}

/**
 * When a JPEG says it was taken (EXIF DateTimeOriginal, else DateTimeDigitized, else DateTime), as
 * the album keeps times: the wall clock, `2025-07-14T10:30:00`. The server reads the same tags, so
 * a photo shows its own day at once, before it uploads. Null when the bytes say nothing usable.
 * @param {ArrayBuffer | Uint8Array} buffer  the file's first bytes (EXIF sits in its first 64 KB)
 * @returns {string | null}
 */
export function exifTakenAt(buffer) {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 4 || view.getUint16(0) !== 0xffd8) return null;
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1];
    if (marker === 0xff) { at += 1; continue; } // fill bytes
    if (marker === 0xda || marker === 0xd9) return null; // the picture itself: no EXIF before it
    const length = view.getUint16(at + 2);
    if (length < 2) return null;
    if (marker === 0xe1 && at + 10 <= bytes.length && String.fromCharCode(...bytes.subarray(at + 4, at + 10)) === "Exif\0\0") {
      const found = tiffTakenAt(view, at + 10, Math.min(bytes.length, at + 2 + length));
      if (found) return found;
    }
    at += 2 + length;
  }
  return null;
}

/** @param {DataView} view @param {number} start the TIFF header @param {number} end */
function tiffTakenAt(view, start, end) {
  if (start + 8 > end) return null;
  const order = view.getUint16(start);
  if (order !== 0x4949 && order !== 0x4d4d) return null;
  const little = order === 0x4949;
  const u16 = (/** @type {number} */ at) => (at + 2 <= end ? view.getUint16(at, little) : -1);
  const u32 = (/** @type {number} */ at) => (at + 4 <= end ? view.getUint32(at, little) : -1);
  if (u16(start + 2) !== 42) return null;
  /** The entries of the IFD at `offset` (from the TIFF header) as tag → where its value is. @param {number} offset */
  const entries = (offset) => {
    /** @type {Map<number, {type: number, count: number, at: number}>} */
    const found = new Map();
    const base = start + offset;
    const count = u16(base);
    if (offset <= 0 || count < 0) return found;
    for (let n = 0; n < count; n++) {
      const entry = base + 2 + n * 12;
      if (entry + 12 > end) break;
      found.set(u16(entry), { type: u16(entry + 2), count: u32(entry + 4), at: entry + 8 });
    }
    return found;
  };
  /** @param {{type: number, count: number, at: number} | undefined} entry */
  const time = (entry) => {
    if (!entry || entry.type !== 2 || entry.count < 19) return null;
    const at = entry.count > 4 ? start + u32(entry.at) : entry.at;
    if (at < start || at + 19 > end) return null;
    let text = "";
    for (let n = 0; n < 19; n++) text += String.fromCharCode(view.getUint8(at + n));
    const match = text.match(/^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/);
    if (!match) return null;
    const [, y, mo, d, hh, mm, ss] = match;
    if (y === "0000" || mo === "00" || d === "00" || Number(mo) > 12 || Number(d) > 31 || Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 60) return null;
    return `${y}-${mo}-${d}T${hh}:${mm}:${ss}`;
  };
  const first = entries(u32(start + 4));
  const pointer = first.get(0x8769);
  const exif = pointer && pointer.type === 4 ? entries(u32(pointer.at)) : new Map();
  return time(exif.get(0x9003)) ?? time(exif.get(0x9004)) ?? time(first.get(0x0132));
}

/** File name endings of the picture types a phone keeps. */
const ENDINGS = /** @type {Record<string, string>} */ ({ "image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/heic": "heic",
  "image/heif": "heif", "image/gif": "gif", "image/avif": "avif" });

/**
 * A name for a photo saved to the phone's gallery or downloads that says what it is and sorts by
 * time: "iRemember 2024-07-20 10.00 picnic tom.jpg" (its day and time taken, its first tags).
 * @param {Photo} photo @param {string} [type] the picture's MIME type
 */
export function photoFileName(photo, type = "image/jpeg") {
  const taken = String(photo.takenAt ?? "");
  const day = /^\d{4}-\d{2}-\d{2}/.test(taken) ? taken.slice(0, 10) : "";
  const time = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(taken) ? taken.slice(11, 16).replace(":", ".") : "";
  const tags = (photo.tags ?? []).slice(0, 3).map((tag) => tag.replace(/[^\p{L}\p{N}_-]+/gu, "")).filter(Boolean);
  const words = ["iRemember", day, time, ...tags].filter(Boolean).join(" ").slice(0, 120);
  return `${words}.${ENDINGS[type.split(";")[0].trim().toLowerCase()] ?? "jpg"}`;
}

/**
 * Labels told apart: a label already given gets "(2)", "(3)"… after it, so a screen reader hears
 * each control as its own (photos of one day, uncaptioned, would all read alike).
 * @param {string[]} labels @returns {string[]}
 */
export function distinctLabels(labels) {
  /** @type {Map<string, number>} */
  const seen = new Map();
  return labels.map((label) => {
    const count = (seen.get(label) ?? 0) + 1;
    seen.set(label, count);
    return count === 1 ? label : `${label} (${count})`;
  });
}
