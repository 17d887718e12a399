// @ts-check
/** Sharing a read-only link: the phone's share sheet (Web Share API) where there is one, else the
 * link shown to copy. Every app's screens share this way. */
import { ApiError } from "./api.js";
import { announce, h } from "./ui.js";

/**
 * Asks the server for a link (`POST path` with `body` and `title`), then shares it.
 * @param {import("./api.js").Api} api @param {string} path @param {any} body @param {string} title
 * @param {(answer: any) => string} [linkOf] the address to share, from the server's answer
 *   (by default the public page at its `path`)
 */
export async function shareLink(api, path, body, title, linkOf) {
  const { link, error } = await linkFor(api, path, body, title, linkOf);
  if (!link) {
    showLink(null, error ?? "");
    return;
  }
  if (typeof navigator.share === "function") {
    try {
      await navigator.share({ title, text: title, url: link });
      announce("Shared.");
      return;
    } catch (failure) {
      if (failure instanceof DOMException && failure.name === "AbortError") return; // the person closed the sheet
    }
  }
  showLink(link, "Anyone with this link can see it, but not change it.");
}

/**
 * Asks the server for a link, as `shareLink` does: `{link}`, or `{error}` said in words.
 * @param {import("./api.js").Api} api @param {string} path @param {any} body @param {string} title
 * @param {(answer: any) => string} [linkOf]
 * @returns {Promise<{link?: string, error?: string}>}
 */
export async function linkFor(api, path, body, title, linkOf = (answer) => new URL(answer.path, location.origin).toString()) {
  try {
    const answer = await api.request("POST", path, { body: { ...body, title } });
    return { link: linkOf(answer.body) };
  } catch (failure) {
    return { error: failure instanceof ApiError && !failure.offline ? failure.message : "Sharing needs the internet. Try again when this phone is online." };
  }
}

/** The link to copy (or, with no link, why there is none). @param {string | null} link @param {string} text */
export function showLink(link, text) {
  const field = /** @type {HTMLInputElement} */ (h("input", { id: "share-link", readonly: true, value: link ?? "" }));
  const copied = h("p", { class: "hint", role: "status" });
  const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "confirm share", "aria-labelledby": "share-title" },
    h("h2", { id: "share-title" }, link ? "Share this link" : "Not shared"),
    h("p", {}, text),
    link ? h("label", { for: "share-link", class: "visually-hidden" }, "The link") : null,
    link ? field : null,
    copied,
    h("div", { class: "row" },
      link ? copyButton(link, field, copied) : null,
      h("button", { type: "button", class: "secondary", onclick: () => dialog.close() }, "Close"))));
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}

/**
 * “Copy link”: `link` on the clipboard, `field` (showing it) selected, and what happened said in `said`.
 * @param {string} link @param {HTMLInputElement} field @param {HTMLElement} said
 */
export function copyButton(link, field, said) {
  return h("button", { type: "button", onclick: async () => {
    field.select();
    try {
      await navigator.clipboard.writeText(link);
      said.textContent = "Copied. Paste it in a message or an email.";
    } catch {
      said.textContent = "Select the link above and copy it.";
    }
  } }, "Copy link");
}
