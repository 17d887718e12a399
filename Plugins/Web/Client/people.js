// @ts-check
/**
 * iRemember's people, the rules that need no page: who is in a photo (left to right), how a person
 * is said ("Emma — your granddaughter"), the box a tap makes, and every photo of a person. The
 * records are the synced `album.person` ({id, name, relationship, note}) and `album.face`
 * ({id, photo, person, box: {x, y, w, h}} in fractions 0…1 of the photo as seen).
 */

export const PERSON = "album.person";
export const FACE = "album.face";
export const PEOPLE = "/api/v1/album/people";

/** @typedef {{id: string, version?: number, name: string, relationship?: string, note?: string, pending?: boolean}} Person */
/** @typedef {{x: number, y: number, w: number, h: number}} Box */
/** @typedef {{id: string, version?: number, photo: string, person: string, box: Box, pending?: boolean}} Face */

/** "Emma — your granddaughter", or the name alone. @param {Person} person */
export function caption(person) {
  const relationship = (person.relationship ?? "").trim();
  return relationship ? `${person.name} — ${relationship}` : person.name;
}

/** A sentence to read aloud: "Emma, your granddaughter." @param {Person} person */
export function spoken(person) {
  const relationship = (person.relationship ?? "").trim();
  return relationship ? `${person.name}, ${relationship}.` : `${person.name}.`;
}

/**
 * The people named in a photo, left to right (then top to bottom), each once; faces of people
 * removed meanwhile are left out.
 * @param {readonly Face[]} faces @param {readonly Person[]} people @param {string[]} photoIds  the photo's id (and its local id)
 * @returns {{face: Face, person: Person}[]}
 */
export function inPhoto(faces, people, photoIds) {
  const byId = new Map(people.map((p) => [p.id, p]));
  /** @type {Map<string, {face: Face, person: Person}>} */
  const found = new Map();
  for (const face of faces) {
    if (!photoIds.includes(face.photo)) continue;
    const person = byId.get(face.person);
    if (person) found.set(person.id, { face, person });
  }
  return [...found.values()].sort((a, b) => a.face.box.x - b.face.box.x || a.face.box.y - b.face.box.y);
}

/**
 * The box a tap at (`x`, `y`) (fractions of the photo) makes: a face-sized square on the photo
 * (a fifth of its shorter side), centred on the tap and kept inside the photo.
 * @param {number} x @param {number} y @param {number} width @param {number} height  the photo's proportions
 * @returns {Box}
 */
export function boxAt(x, y, width, height) {
  const side = Math.min(width, height) / 5;
  const w = Math.min(1, side / width);
  const h = Math.min(1, side / height);
  const clamp = (/** @type {number} */ v, /** @type {number} */ size) => Math.min(Math.max(v - size / 2, 0), 1 - size);
  const round = (/** @type {number} */ v) => Math.round(v * 10000) / 10000;
  return { x: round(clamp(x, w)), y: round(clamp(y, h)), w: round(w), h: round(h) };
}

/**
 * The photos a person is named in, oldest first.
 * @template {{id: string, takenAt?: string}} P
 * @param {readonly Face[]} faces @param {readonly P[]} photos @param {string} personId
 * @returns {P[]}
 */
export function photosOf(faces, photos, personId) {
  const ids = new Set(faces.filter((f) => f.person === personId).map((f) => f.photo));
  return photos.filter((p) => ids.has(p.id)).sort((a, b) => String(a.takenAt ?? "").localeCompare(String(b.takenAt ?? "")));
}

/** People by name, as a list shows them. @param {readonly Person[]} people */
export function byName(people) {
  return [...people].sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: "base" }));
}

/** A name as the server takes it: trimmed, 1 to 80 characters; else the sentence to show. @param {string} name */
export function nameProblem(name) {
  const trimmed = name.trim();
  if (!trimmed) return "Type their name, such as Emma.";
  if (trimmed.length > 80) return "A name is at most 80 characters. Make it shorter.";
  return null;
}
