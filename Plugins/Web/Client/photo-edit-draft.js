// @ts-check
/**
 * iRemember's Edit picture, not saved yet, kept on the phone by photo (album-photo-edit.js): every
 * move of the frame, turn and straightening until Save or Cancel, and an edit the server refused
 * given back to be sent again (kept-refused-kinds.js). Tied to the picture's size it was made on:
 * one made before another edit changed the picture no longer fits it. No imports: the app's
 * start loads it for the refused-edit hook.
 */

const PREFIX = "iremember.editDraft.";

/**
 * Keeps `edit` (the editor's state, or a request's body) for photo `id`, made on a `picture` of
 * `width`×`height`; `why`, when given, is said above the editor instead of "Your changes from before".
 * @param {string} id @param {Record<string, any>} edit @param {{width?: number, height?: number}} picture @param {string} [why]
 */
export function keepEditDraft(id, edit, picture, why) {
  localStorage.setItem(`${PREFIX}${id}`, JSON.stringify({ ...edit, picture: `${picture.width}x${picture.height}`, ...(why ? { why } : {}) }));
}

/**
 * What is kept for photo `id` if it was made on the picture as it is now (its size), else null.
 * @param {string} id @param {{width?: number, height?: number}} picture @returns {Record<string, any> | null}
 */
export function keptEditDraft(id, picture) {
  let kept;
  try {
    kept = JSON.parse(localStorage.getItem(`${PREFIX}${id}`) ?? "null");
  } catch {
    return null;
  }
  return kept && typeof kept === "object" && kept.picture === `${picture.width}x${picture.height}` ? kept : null;
}

/** @param {string} id */
export function forgetEditDraft(id) {
  localStorage.removeItem(`${PREFIX}${id}`);
}
