// @ts-check
/**
 * What this phone last sent of a record's text field, remembered for a while (localStorage, under
 * PHONE: signing out forgets it), so that a form opened again can say "Changed on another device.
 * Yours was …" when another device replaced it meanwhile (follow.js). A form starts remembering a
 * field when it sends it; every later write of this phone to that field (its "Bring it back", a
 * merge's answer) moves what is remembered along, so the phone's own choices are never told as
 * another device's.
 */
import { PHONE } from "./ui.js";

/** How long this phone remembers a text it sent. */
const DAYS = 30;

/** @param {string} record `kind/id` @param {string} name */
function keyOf(record, name) {
  return `${PHONE}wrote.${record}.${name}`;
}

/** The text this phone last sent of `record`'s field `name`, if remembered. @param {string} record @param {string} name @returns {string | null} */
export function wroteText(record, name) {
  try {
    const kept = JSON.parse(localStorage.getItem(keyOf(record, name)) ?? "null");
    return kept && typeof kept.text === "string" ? kept.text : null;
  } catch {
    return null;
  }
}

/** `text` is what this phone sent of `record`'s field `name`. @param {string} record @param {string} name @param {string} text */
export function rememberWrote(record, name, text) {
  try {
    localStorage.setItem(keyOf(record, name), JSON.stringify({ text, at: Date.now() }));
  } catch {
    // Storage full or refused: a replacement while the form is open is still said.
  }
}

/** Told (or typed over): forgotten. @param {string} record @param {string} name */
export function forgetWrote(record, name) {
  localStorage.removeItem(keyOf(record, name));
}

/**
 * A write of this phone: each text field it sends that a form remembers is remembered as sent now.
 * @param {{method: string, kind: string, id: string, body?: any}} write
 */
export function followWrite(write) {
  const body = write.body;
  if (write.method !== "PATCH" || !body || typeof body !== "object" || (typeof Blob !== "undefined" && body instanceof Blob)) return;
  const record = `${write.kind}/${write.id}`;
  for (const [name, value] of Object.entries(body)) {
    if (typeof value === "string" && localStorage.getItem(keyOf(record, name)) !== null) rememberWrote(record, name, value);
  }
}

/** Remembered past `DAYS`: forgotten (localStorage stays small). */
export function forgetOldWrote() {
  const oldest = Date.now() - DAYS * 86_400_000;
  for (const key of Object.keys(localStorage)) {
    if (!key.startsWith(`${PHONE}wrote.`)) continue;
    try {
      if (!(JSON.parse(localStorage.getItem(key) ?? "null")?.at >= oldest)) localStorage.removeItem(key);
    } catch {
      localStorage.removeItem(key);
    }
  }
}
