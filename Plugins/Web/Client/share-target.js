// @ts-check
/**
 * "Share to Napkin": what another app shares (a title, a text, a link, a photo) becomes a new note.
 * The PWA manifest's `share_target` posts the share as a multipart form to /share-target; the
 * service worker (sw.js) keeps it in IndexedDB (`quire-share`) and opens `#/share`, where this
 * module makes the note through the outbox, so it works offline too: the note, then its photo,
 * wait there like any other and are sent when the network is back.
 */
import { ordered } from "./merge.js";
import { localId } from "./outbox.js";
import { announce, today } from "./ui.js";
import { KIND, NOTES, madeHere } from "./notes-parts.js";
import { photoProblem, sharedNote } from "./capture-rules.js";
/** @typedef {import("./notes-parts.js").Context} Context */
/** @typedef {import("./capture-rules.js").Shared} Shared */

/** The database the service worker keeps shares in (sw.js opens it the same way). */
export const SHARE_DB = "quire-share";
/** Opens the shares' database. @returns {Promise<IDBDatabase>} */
function openShares() {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(SHARE_DB, 1);
    open.onupgradeneeded = () => { open.result.createObjectStore("shared", { autoIncrement: true }); };
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}

/** Every share waiting, oldest first; they are taken (deleted) in the same transaction. @returns {Promise<Shared[]>} */
export async function takeShared() {
  const db = await openShares();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction("shared", "readwrite");
      const store = tx.objectStore("shared");
      const all = store.getAll();
      all.onsuccess = () => store.clear();
      tx.oncomplete = () => resolve(/** @type {Shared[]} */ (all.result ?? []));
      tx.onerror = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/**
 * Makes a note of each share waiting (through the outbox: offline too) and opens the last.
 * @param {Context} context
 * @returns {Promise<{id: string | null, problems: string[]}>}
 */
export async function notesFromShares(context) {
  const shares = await takeShared();
  /** @type {string | null} */ let id = null;
  /** @type {string[]} */ const problems = [];
  for (const shared of shares) {
    const { title, text } = sharedNote(shared);
    id = localId();
    madeHere.add(id);
    // First in the list, as a new note is (notes-list.js).
    const first = ordered(context.sync.view(KIND), context.sync.moves(KIND))[0];
    await context.sync.write({ method: "POST", path: NOTES, body: { title, text, date: today() }, kind: KIND, id });
    if (first) await context.sync.write({ method: "POST", path: `${NOTES}/${id}/move`, body: { before: first.id }, kind: KIND, id });
    const problem = photoProblem(shared.photo);
    if (problem) problems.push(problem);
    else if (shared.photo) {
      await context.sync.write({ method: "PUT", path: `${NOTES}/${id}/photo`, body: shared.photo, contentType: shared.photo.type,
        kind: KIND, id, local: { pendingPhoto: shared.photo } });
    }
  }
  if (id) announce(shares.length > 1 ? `${shares.length} shared items kept as new notes.` : "Shared into a new note.");
  return { id, problems };
}

/**
 * `#/share`: makes the waiting shares notes and opens the last one (its editor replaces this
 * address, so Back leaves to the list); `?missed=1`, the share came when no service worker ran.
 * @param {Context} context
 * @param {string} query
 */
export async function openShared(context, query) {
  const missed = new URLSearchParams(query).has("missed");
  const { id, problems } = await notesFromShares(context).catch(() => ({ id: null, problems: ["What was shared could not be kept on this phone; share it again."] }));
  if (missed && !id) problems.push("What was shared did not reach the app: open Napkin once, then share again.");
  for (const problem of problems) window.dispatchEvent(new CustomEvent("quire:notice", { detail: problem }));
  history.replaceState(null, "", id ? `#/notes/${encodeURIComponent(id)}` : "#/notes");
  context.go(id ? `#/notes/${encodeURIComponent(id)}` : "#/notes");
}
