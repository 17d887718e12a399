// @ts-check
/**
 * A caregiver's captions not yet sent to the album they help with: the one thing of someone
 * else's album this phone keeps. The helper's screens otherwise need the network (the album is not
 * copied here), but a caption written offline is the helper's own words: "Save caption" keeps it
 * here (localStorage, per account, so a reload or leaving the screen loses nothing) and it is sent
 * as soon as the phone is online again, with the version it was written on (If-Match: the server
 * merges it into newer changes field by field, as the user's own outbox does). The sync indicator
 * counts it among the changes waiting (ui.js `countWaiting`).
 */
import { HELPING, said } from "./album-caregivers.js";
import { ApiError } from "./api.js";
import { outcome } from "./outbox.js";
import { announce, countWaiting } from "./ui.js";

/** @typedef {import("./album-base.js").Context} Context */
/** @typedef {{owner: string, id: string, notes: string, baseVersion: number}} Caption */

/** Fired on `window` when a kept caption reached the album: detail {owner, id, photo}. */
export const CAPTION_SENT = "quire:helping-caption-sent";

/** @param {Context} context */
function storageKey(context) {
  return `quire.helping.captions.${context.api.session?.accountId ?? ""}`;
}

/** @param {Context} context @returns {Caption[]} */
export function keptCaptions(context) {
  try {
    const kept = JSON.parse(localStorage.getItem(storageKey(context)) ?? "[]");
    return Array.isArray(kept) ? kept : [];
  } catch {
    return [];
  }
}

/** @param {Context} context @param {Caption[]} captions */
function store(context, captions) {
  if (captions.length) localStorage.setItem(storageKey(context), JSON.stringify(captions));
  else localStorage.removeItem(storageKey(context));
  window.dispatchEvent(new Event("quire:waiting"));
}

/** The caption kept for a photo, if one waits. @param {Context} context @param {string} owner @param {string} id */
export function keptCaption(context, owner, id) {
  return keptCaptions(context).find((caption) => caption.owner === owner && caption.id === id);
}

/** @param {Context} context @param {string} owner @param {string} id */
function drop(context, owner, id) {
  store(context, keptCaptions(context).filter((caption) => caption.owner !== owner || caption.id !== id));
}

/** @param {Context} context @param {Caption} caption */
function keep(context, caption) {
  store(context, [...keptCaptions(context).filter((c) => c.owner !== caption.owner || c.id !== caption.id), caption]);
}

/**
 * "Save caption": kept first, then sent. Answers the photo as saved, or null when the phone is
 * offline (the caption stays kept and goes when it is back); a refusal is thrown (nothing kept:
 * resending would be refused again) and the screen says it, the words still in its field.
 * @param {Context} context @param {Caption} caption @returns {Promise<any | null>}
 */
export async function saveCaption(context, caption) {
  keep(context, caption);
  return send(context, caption);
}

/** @param {Context} context @param {Caption} caption @returns {Promise<any | null>} */
async function send(context, caption) {
  const path = `${HELPING}/${encodeURIComponent(caption.owner)}/photos/${encodeURIComponent(caption.id)}`;
  try {
    const photo = (await context.api.request("PATCH", path, { body: { notes: caption.notes }, headers: { "If-Match": `"${caption.baseVersion}"` } })).body;
    // Only this very caption leaves (the helper may have saved newer words meanwhile).
    if (keptCaption(context, caption.owner, caption.id)?.notes === caption.notes) drop(context, caption.owner, caption.id);
    window.dispatchEvent(new CustomEvent(CAPTION_SENT, { detail: { owner: caption.owner, id: caption.id, photo } }));
    tellReplaced(context, path, caption, photo);
    return photo;
  } catch (failure) {
    if (!(failure instanceof ApiError) || outcome(failure.status) === "retry") return null;
    drop(context, caption.owner, caption.id);
    throw failure;
  }
}

/**
 * The caption was written on an older version and someone (the album's owner, another helper) had
 * changed it since: the server merged it and says what it replaced. Said whole, with "Bring it
 * back" (their words saved again on the caption as it is now), as the owner's own phone says it.
 * @param {Context} context @param {string} path @param {Caption} caption @param {any} photo
 */
function tellReplaced(context, path, caption, photo) {
  const theirs = photo?.replaced?.notes;
  if (typeof theirs !== "string" || theirs === caption.notes) return;
  // Named when another helper wrote it (the server's replacedBy); the owner's own words: "Someone".
  const who = typeof photo?.replacedBy === "string" && photo.replacedBy ? photo.replacedBy : "Someone";
  const text = theirs
    ? `${who} had changed this photo's caption meanwhile; yours replaced “${theirs}”.`
    : `${who} had cleared this photo's caption meanwhile; yours replaced the empty caption.`;
  window.dispatchEvent(new CustomEvent("quire:notice", { detail: { text, kind: "replaced", action: { label: "Bring it back", run: async () => {
    try {
      const now = (await context.api.request("PATCH", path, { body: { notes: theirs }, headers: { "If-Match": `"${photo.version}"` } })).body;
      window.dispatchEvent(new CustomEvent(CAPTION_SENT, { detail: { owner: caption.owner, id: caption.id, photo: now, broughtBack: true } }));
      announce("Brought back.");
    } catch (failure) {
      window.dispatchEvent(new CustomEvent("quire:notice", { detail: `The caption “${theirs}” was not brought back: ${said(failure)}` }));
    }
  } } } }));
}

/**
 * A kept caption refused (the photo deleted, helping stopped) is no longer kept: its words are said
 * whole, in view, with "Copy my words" (said again if the phone does not let the app copy).
 * @param {string} text @param {string} words
 */
function refused(text, words) {
  window.dispatchEvent(new CustomEvent("quire:notice", { detail: { text, kind: "refused", action: { label: "Copy my words", run: async () => {
    try {
      await navigator.clipboard.writeText(words);
      announce("Copied.");
    } catch {
      refused(`${text} (This phone did not let the app copy them: select them here.)`, words);
    }
  } } } }));
}

let sending = false;

/** Sends every kept caption, in order; stops at the first the network cannot take now. @param {Context} context */
export async function sendKeptCaptions(context) {
  if (sending || !navigator.onLine) return;
  sending = true;
  try {
    for (const caption of keptCaptions(context)) {
      try {
        if ((await send(context, caption)) === null) break;
      } catch (failure) {
        refused(`A caption you wrote offline was not saved: ${said(failure)} Your words: “${caption.notes}”`, caption.notes);
      }
    }
  } finally {
    sending = false;
  }
}

/** @type {Context | null} */
let watched = null;

/**
 * Once per page: kept captions go when the phone comes online (and now, if it is), and the sync
 * indicator counts them while they wait.
 * @param {Context} context
 */
export function watchKeptCaptions(context) {
  if (!watched) {
    window.addEventListener("online", () => { if (watched) sendKeptCaptions(watched); });
    // A server that answered "later" (busy, signed out meanwhile) is asked again now and then.
    window.setInterval(() => { if (watched && keptCaptions(watched).length) sendKeptCaptions(watched); }, 30_000);
    countWaiting(() => (watched ? keptCaptions(watched).length : 0));
  }
  watched = context;
  sendKeptCaptions(context);
}
