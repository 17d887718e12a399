// @ts-check
/**
 * Asking the browser to keep iRemember's copy on the phone (`navigator.storage.persist()`): without
 * it a browser may clear the site's storage when the phone runs short of space, and with it the
 * photos not yet uploaded and the pictures kept for offline. Asked once, when it matters: after the
 * first photo is saved (not at the first visit, when the person has nothing to lose yet). Settings
 * says whether the browser agreed, and offers to ask again.
 */
import { announce, h } from "./ui.js";

/** Kept on this phone: "granted", "denied" or absent (not asked yet). */
export const PERSIST_ASKED = "iremember.persistAsked";

/** @returns {StorageManager | undefined} */
function storage() {
  return typeof navigator !== "undefined" && navigator.storage && typeof navigator.storage.persist === "function" ? navigator.storage : undefined;
}

/** After a photo is saved: the first time, asks the browser to keep the album (never again after). */
export async function askToKeepOnce() {
  const manager = storage();
  if (!manager || localStorage.getItem(PERSIST_ASKED)) return;
  try {
    const granted = (await manager.persisted()) || (await manager.persist());
    localStorage.setItem(PERSIST_ASKED, granted ? "granted" : "denied");
  } catch {
    localStorage.setItem(PERSIST_ASKED, "denied");
  }
}

/** Settings' part: whether the browser keeps the album for good, in words; a button to ask again. */
export function keepingSection() {
  const status = h("p", { class: "hint", id: "keeping-status", role: "status" }, "Asking the browser…");
  const again = h("button", { type: "button", class: "secondary", hidden: true, onclick: async () => {
    const manager = storage();
    const granted = manager ? await manager.persist().catch(() => false) : false;
    localStorage.setItem(PERSIST_ASKED, granted ? "granted" : "denied");
    await show();
    announce(granted ? "The browser will keep your album on this phone." : "The browser did not agree this time.");
  } }, "Ask the browser to keep it");
  const show = async () => {
    const manager = storage();
    if (!manager) {
      status.textContent = "This browser cannot promise to keep the album on this phone. Your photos are safe on the server once uploaded.";
      again.hidden = true;
      return;
    }
    const kept = await manager.persisted().catch(() => false);
    status.textContent = kept
      ? "The browser keeps your album on this phone for good: it will not clear it to make space."
      : "The browser may clear what this phone keeps when space runs low. Photos already uploaded are safe on the server; "
        + "photos waiting to upload are not. Tap below to ask the browser to keep them.";
    again.hidden = kept;
  };
  show();
  return h("div", { class: "stack keeping" }, h("h2", {}, "Keeping your album on this phone"), status, again);
}
