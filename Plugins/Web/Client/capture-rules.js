// @ts-check
/** Napkin's capture, its rules without the page: a share from another app as a note (share-target.js)
 * and what the box under a photo says of its text (note-photo-text.js). No DOM: node tests them. */

/** The largest photo a share brings: Napkin's `media: max_upload_bytes` (25 MB, a newer phone camera's photo; the server checks again). */
export const MAX_SHARED_PHOTO = 25 * 1024 * 1024;

/** @typedef {{title?: string, text?: string, url?: string, photo?: Blob | null, at?: number}} Shared */

/**
 * A share as a note's title and text: the title the other app gave, else the text's first line,
 * else the link's site; the text, with the link on a line of its own unless the text holds it.
 * @param {Shared} shared
 * @returns {{title: string, text: string}}
 */
export function sharedNote(shared) {
  const text = (shared.text ?? "").trim();
  const url = (shared.url ?? "").trim();
  let title = (shared.title ?? "").trim().replace(/\s+/g, " ");
  if (!title) title = text.split("\n")[0]?.trim() ?? "";
  if (!title && url) {
    try { title = new URL(url).hostname.replace(/^www\./, ""); } catch { title = url; }
  }
  if (!title && shared.photo) title = "Shared photo";
  const body = url && !text.includes(url) ? [text, url].filter(Boolean).join("\n") : text;
  return { title: title.slice(0, 200), text: body };
}

/**
 * Whether a shared file can be a note's photo: an image, not over the upload limit.
 * @param {Blob | null | undefined} photo
 * @returns {string | null} what is wrong, or null when it can go
 */
export function photoProblem(photo) {
  if (!photo) return null;
  if (!photo.type.startsWith("image/")) return `The shared file is not a photo (${photo.type || "unknown type"}), so it was left out.`;
  if (photo.size > MAX_SHARED_PHOTO) {
    return `The shared photo is ${(photo.size / 1048576).toFixed(1)} MB; a note's photo is at most ${MAX_SHARED_PHOTO / 1048576} MB, so it was left out.`;
  }
  return null;
}

/**
 * What the box under the photo says for this note.
 * @param {{photo?: string | null, pendingPhoto?: Blob, photoText?: string | null, photoTextState?: string | null}} note
 * @returns {{kind: "none" | "waiting" | "reading" | "read" | "empty" | "failed", text?: string}}
 */
export function photoTextView(note) {
  if (note.pendingPhoto) return { kind: "waiting" };
  if (!note.photo) return { kind: "none" };
  switch (note.photoTextState) {
    case "reading": return { kind: "reading" };
    case "read": return note.photoText ? { kind: "read", text: note.photoText } : { kind: "empty" };
    case "failed": return { kind: "failed" };
    default: return { kind: "none" };
  }
}

