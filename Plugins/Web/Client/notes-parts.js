// @ts-check
/** What Napkin Notes' screens share (the list, notes-list.js; the front, note-editor.js; the back,
 * note-back.js): the note's kind and path, the notes made on this page, the app's switches, the
 * note's photo (kept on the phone: picture-cache.js) and the photo's pinch-zoom. */
import { BOUNDS, pictureURL } from "./picture-cache.js";
import { PHONE, storedJSON } from "./ui.js";

export const KIND = "notes.note";
export const NOTES = "/api/v1/notes";
/** Where `madeHere` is kept across reloads (signing out forgets it). */
const MADE = `${PHONE}notes.madeHere`;

/** A set kept on the phone: a reload on a new note left untouched still drops it when it is left
 * (held in memory only, it stayed in the list as "Title" after a reload; walk8). @extends {Set<string>} */
class KeptSet extends Set {
  /** @param {string} value */
  add(value) {
    super.add(value);
    this.keep();
    return this;
  }

  /** @param {string} value */
  delete(value) {
    const had = super.delete(value);
    this.keep();
    return had;
  }

  keep() {
    try {
      if (this.size) localStorage.setItem(MADE, JSON.stringify([...this].slice(-20)));
      else localStorage.removeItem(MADE);
    } catch {
      // Storage full or off: kept for this page only.
    }
  }
}

/** @returns {string[]} */
function madeBefore() {
  const kept = storedJSON(MADE, []);
  return Array.isArray(kept) ? kept.filter((id) => typeof id === "string") : [];
}

/** Notes this phone made with "New note" and not touched yet: one left untouched is not kept. */
export const madeHere = new KeptSet(madeBefore());

/** @typedef {{api: import("./api.js").Api, sync: import("./sync.js").Sync, go: (hash: string, options?: {top?: boolean}) => void, features?: Set<string>}} Context */

/**
 * Whether a note is still as "New note" made it: no title, text, photo, drawing, voice or category,
 * and no drawing or voice of it waiting to be sent. @param {import("./sync.js").Sync} sync @param {any} note @param {string} made its local id
 */
export function untouched(sync, note, made) {
  if (note.title || note.text || note.photo || note.pendingPhoto || note.drawing || note.category || note.voice || note.pendingVoice) return false;
  return !sync.writes.some((w) => w.kind === KIND && (w.id === note.id || w.id === made) && /\/(drawing|voice)$/.test(w.path));
}

/**
 * The notes made here with "New note" that the editor never saw left (the tab closed on one, the
 * phone's app swiped away): when the list first shows after the app opens, the one left as it came
 * is not kept, as leaving its editor would have dropped it; one written in is a note, followed no longer. @param {import("./sync.js").Sync} sync
 */
export function dropLeftUntouched(sync) {
  // Once, as the app opens: later, the list shows as an editor is left, before that editor has
  // saved what was typed in its last pause (a note typed offline and left at once was dropped).
  if (swept) return;
  swept = true;
  for (const made of [...madeHere]) {
    const note = sync.one(KIND, sync.resolve(made));
    madeHere.delete(made);
    // Typed in a pause the tab closed on: its words wait as a draft, given back when it is opened.
    const drafted = note && [made, note.id].some((id) => localStorage.getItem(`quire.draft.${KIND}/${id}`) !== null);
    if (note && !drafted && untouched(sync, note, made)) void sync.write({ method: "DELETE", path: `${NOTES}/${note.id}`, kind: KIND, id: note.id });
  }
}

/** Whether this page swept already (dropLeftUntouched). */
let swept = false;

/** Whether the app switched a feature on (`search`, `categories`, `plugin:reminders`…). @param {Context | undefined} context @param {string} feature */
export function has(context, feature) {
  return Boolean(context?.features?.has(feature));
}

/**
 * An object URL for a note's photo, as the list (`list`), the note (`display`) or full screen
 * (`original`) shows it: kept on the phone once seen, so it shows offline too; kept by the photo's
 * id, as a new photo replaces the old one behind the same path.
 * @param {Context} context @param {{id: string, photo: string}} note @param {"list" | "display" | "original"} rendition
 */
export function notePhoto(context, note, rendition) {
  const path = `${NOTES}/${note.id}/photo${rendition === "original" ? "" : `/${rendition}`}`;
  return pictureURL(context, path, BOUNDS.napkin, `${path}@${note.photo}`);
}

/** An instant as a person reads it (ui.js readableTime). */
export { readableTime as when } from "./ui.js";

/**
 * Pinch (two fingers) or double-tap to zoom a picture inside its frame, one finger to move it once
 * zoomed; the frame does not scroll the page. `data-scale` says how far it is zoomed.
 * @param {HTMLElement} frame @param {HTMLImageElement} img
 */
export function pinchZoom(frame, img) {
  frame.style.touchAction = "none"; // CSSOM, which the CSP allows: the gestures are ours
  img.style.transformOrigin = "0 0";
  let scale = 1, x = 0, y = 0;
  /** @type {Map<number, {x: number, y: number}>} */
  const fingers = new Map();
  /** @type {{distance: number, scale: number, x: number, y: number, mid: {x: number, y: number}} | null} */
  let pinch = null;
  const apply = () => {
    scale = Math.min(6, Math.max(1, scale));
    if (scale === 1) x = y = 0;
    img.style.transform = `translate(${x}px, ${y}px) scale(${scale})`;
    img.dataset.scale = scale.toFixed(2);
  };
  /** A point on the screen, from where the picture's untransformed corner is. @param {number} cx @param {number} cy */
  const local = (cx, cy) => {
    const box = img.getBoundingClientRect();
    return { x: cx - (box.left - x), y: cy - (box.top - y) };
  };
  const spread = () => {
    const [a, b] = [...fingers.values()];
    return { distance: Math.hypot(a.x - b.x, a.y - b.y), mid: local((a.x + b.x) / 2, (a.y + b.y) / 2) };
  };
  frame.addEventListener("pointerdown", (event) => {
    frame.setPointerCapture(event.pointerId);
    fingers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (fingers.size === 2) pinch = { ...spread(), scale, x, y };
  });
  frame.addEventListener("pointermove", (event) => {
    const last = fingers.get(event.pointerId);
    if (!last) return;
    const now = { x: event.clientX, y: event.clientY };
    fingers.set(event.pointerId, now);
    if (pinch && fingers.size === 2) {
      const { distance, mid } = spread();
      const next = Math.min(6, Math.max(1, pinch.scale * (distance / Math.max(1, pinch.distance))));
      // The point between the fingers stays under them.
      x = mid.x - ((pinch.mid.x - pinch.x) * next) / pinch.scale;
      y = mid.y - ((pinch.mid.y - pinch.y) * next) / pinch.scale;
      scale = next;
      apply();
    } else if (fingers.size === 1 && scale > 1) {
      x += now.x - last.x;
      y += now.y - last.y;
      apply();
    }
  });
  const up = (/** @type {PointerEvent} */ event) => {
    fingers.delete(event.pointerId);
    if (fingers.size < 2) pinch = null;
  };
  frame.addEventListener("pointerup", up);
  frame.addEventListener("pointercancel", up);
  frame.addEventListener("dblclick", (event) => {
    const to = scale > 1 ? 1 : 2.5;
    const at = local(event.clientX, event.clientY);
    x = at.x - ((at.x - x) * to) / scale;
    y = at.y - ((at.y - y) * to) / scale;
    scale = to;
    apply();
  });
  apply();
}
