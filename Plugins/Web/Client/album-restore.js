// @ts-check
/**
 * A restore link opened on the user's new or wiped phone (#/restore/TOKEN, made by a caregiver in
 * album-helping.js): one tap signs this phone in as the user again — a new session of their own
 * account, with its device secret for a device account — and opens their album. The link works
 * once: a link preview or a second phone finds it used, and is told to ask for a new one.
 */
import { ApiError } from "./api.js";
import { h } from "./ui.js";

/** The token of a restore link, if the address is one. @param {string} hash @returns {string | null} */
export function restoreToken(hash) {
  const match = /^#\/restore\/([A-Za-z0-9_-]{20,100})$/.exec(hash);
  return match ? match[1] : null;
}

export class RestoreScreen extends HTMLElement {
  /** @param {import("./api.js").Api} api @param {string} token @param {string} name the app's name */
  show(api, token, name) {
    const error = h("p", { class: "error", role: "alert", id: "restore-error" });
    const open = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "hero", "aria-describedby": "restore-error", onclick: async () => {
      open.setAttribute("aria-busy", "true");
      error.textContent = "";
      try {
        const answer = (await api.request("POST", "/api/v1/album/restore", { body: { token }, auth: false })).body;
        history.replaceState(null, "", "#/");
        api.keep({ ...api.sessionFrom(answer), ...(answer.deviceSecret ? { deviceSecret: answer.deviceSecret } : {}) });
      } catch (failure) {
        error.textContent = failure instanceof ApiError && !failure.offline ? failure.message : "This needs the internet. Try again when this phone is online.";
      } finally {
        open.removeAttribute("aria-busy");
      }
    } }, "Open my album"));
    this.replaceChildren(h("main", { class: "screen signin restore" },
      h("h1", {}, name),
      h("p", { class: "lead" }, "Someone who helps you made this link to open your album on this phone."),
      open, error));
  }
}
customElements.define("album-restore", RestoreScreen);
