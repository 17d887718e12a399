// @ts-check
/**
 * iRemember's caregivers (`album: {caregivers: true}`), the user's side and the family member's
 * first step: "Family helping you" (#/family: invite with a link or QR code, the helpers, "Stop
 * helping"), the invitation opened (#/help/TOKEN: accept it with one's own account), the home
 * screen's links, and "Added by Anna" on a photo. The caregiver's own screens of the album they
 * help with are album-helping.js; a restore link opened on a new phone is album-restore.js.
 * Everything here needs the network (the links and the list live on the server), and says so.
 */
import { ApiError } from "./api.js";
import { back } from "./album-base.js";
import { copyButton } from "./share.js";
import { switchedOn } from "./speak.js";
import { announce, confirmAction, h, readableDate, readableTime } from "./ui.js";

/** @typedef {import("./album-base.js").Context} Context */
/** @typedef {{token: string, path: string, expiresAt: string, qrSVG?: string}} Link */

export const CAREGIVERS = "/api/v1/album/caregivers";
export const HELPING = "/api/v1/album/helping";

/** Whether this app has caregivers (the YAML's `album: {caregivers: true}`): the manifest says. @param {Context} context */
export function hasCaregivers(context) {
  return switchedOn(context, "caregivers");
}

/** What went wrong, in words: the server's sentence, or that the phone is offline. @param {unknown} failure */
export function said(failure) {
  if (failure instanceof ApiError && !failure.offline) return failure.message;
  return "This needs the internet. Try again when this phone is online.";
}

/** The home screen's link to "Family helping you", for the user. @param {Context} context @returns {HTMLElement | null} */
export function caregiverLinks(context) {
  if (!hasCaregivers(context)) return null;
  return h("div", { class: "stack caregiver-links" }, h("a", { href: "#/family", class: "button secondary" }, "Family helping you"));
}

/**
 * "Albums you help with", at the top of Home once the server says this account helps with one
 * (whose albums, under it): a helper opens the app for that first. Empty otherwise.
 * @param {Context} context @returns {HTMLElement | null}
 */
export function helpingLink(context) {
  if (!hasCaregivers(context)) return null;
  const helping = h("div", { class: "helping-link" });
  context.api.get(HELPING).then((page) => {
    /** @type {{ownerName?: string}[]} */
    const albums = page?.items ?? [];
    if (!albums.length) return;
    const names = albums.map((album) => (album.ownerName ? `${album.ownerName}'s album` : "an album"));
    helping.replaceChildren(h("a", { href: "#/helping", class: "button" }, "Albums you help with"),
      h("p", { class: "hint" }, `You help with ${names.slice(0, 3).join(", ")}${names.length > 3 ? ` and ${names.length - 3} more` : ""}.`));
  }).catch(() => {});
  return helping;
}

/** "Added by Anna" among a photo's facts, when a caregiver added it. @param {{addedBy?: string}} photo */
export function addedByFacts(photo) {
  return photo.addedBy ? [h("dt", {}, "Added by"), h("dd", { class: "added-by" }, photo.addedBy)] : [];
}

/** "Caption by Anna" under a caption a caregiver wrote. @param {{notes?: string, captionBy?: string | null}} photo */
export function captionByLine(photo) {
  return photo.notes && photo.captionBy ? h("p", { class: "caption-by hint" }, `Caption by ${photo.captionBy}`) : null;
}

/**
 * A link to give (an invitation or a restore link): the address, its QR code, Copy and Share.
 * @param {Link} link @param {string} title @param {string} text what the link does, said above it
 * @param {string} id unique id prefix
 */
export function linkPanel(link, title, text, id) {
  const address = new URL(link.path, location.origin).toString();
  const field = /** @type {HTMLInputElement} */ (h("input", { id: `${id}-link`, readonly: true, value: address }));
  const status = h("p", { class: "hint", role: "status" });
  const share = typeof navigator.share === "function"
    ? h("button", { type: "button", class: "secondary", onclick: () => navigator.share({ title, text: title, url: address }).catch(() => {}) }, "Share link")
    : null;
  const qr = link.qrSVG
    ? h("img", { class: "qr", src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(link.qrSVG)}`, alt: `QR code for the link: ${title}` })
    : null;
  return h("section", { class: "card link-panel", "aria-labelledby": `${id}-title` },
    h("h2", { id: `${id}-title` }, title),
    h("p", {}, text),
    qr,
    h("label", { for: `${id}-link` }, "The link"), field,
    h("p", { class: "hint" }, `It works once, until ${readableTime(link.expiresAt)}.`),
    h("div", { class: "row" }, copyButton(address, field, status), share),
    status);
}

// Family helping you (the user) -------------------------------------------------------------------

export class FamilyScreen extends HTMLElement {
  /** @type {Context | undefined} */
  ctx = undefined;
  invitation = h("div", { class: "invitation" });
  list = h("div", { class: "caregivers" }, h("p", { class: "hint" }, "Looking for your helpers…"));

  /** @param {Context} context */
  attach(context) {
    this.ctx = context;
    const name = /** @type {HTMLInputElement} */ (h("input", { id: "family-name", autocomplete: "off", maxlength: "60", value: localStorage.getItem("iremember.familyName") ?? "" }));
    const invite = /** @type {HTMLButtonElement} */ (h("button", { type: "submit" }, "Invite a family member"));
    const error = h("p", { class: "error", role: "alert" });
    const form = h("form", { class: "stack", onsubmit: async (/** @type {Event} */ event) => {
      event.preventDefault();
      error.textContent = "";
      invite.setAttribute("aria-busy", "true");
      localStorage.setItem("iremember.familyName", name.value.trim());
      try {
        const link = /** @type {Link} */ ((await context.api.request("POST", `${CAREGIVERS}/invitations`,
          { body: { name: name.value.trim(), origin: location.origin } })).body);
        this.invitation.replaceChildren(linkPanel(link, "Your invitation",
          "Send this link to the person who will help, or let them scan the code. They open it on their own phone and sign in with their own account.",
          "invite"));
        this.invitation.scrollIntoView({ block: "start" });
        announce("Your invitation is ready. Copy the link or show the code.");
      } catch (failure) {
        error.textContent = said(failure);
      } finally {
        invite.removeAttribute("aria-busy");
      }
    } },
    h("label", { for: "family-name" }, "Your name, as your family knows you (for example Mum)"), name, invite, error);
    this.replaceChildren(h("main", { class: "screen family" },
      h("div", { class: "toolbar" }, back("#/", "Home"), h("h1", {}, "Family helping you")),
      h("p", { class: "lead" }, "Someone in your family can add photos and captions to your album from their own phone, and help you if this phone is lost. They see only this album."),
      form, this.invitation,
      h("h2", {}, "Who helps you"), this.list));
    this.load();
  }

  async load() {
    const context = /** @type {Context} */ (this.ctx);
    try {
      const page = await context.api.get(CAREGIVERS);
      /** @type {Array<{id: string, name: string, since: string}>} */
      const items = page.items ?? [];
      if (!items.length) {
        this.list.replaceChildren(h("p", { class: "empty" }, "Nobody helps with your album yet."));
        return;
      }
      this.list.replaceChildren(h("ul", { class: "rows", "aria-label": "Who helps you" }, ...items.map((item) =>
        h("li", { class: "row caregiver" },
          h("span", {}, h("strong", {}, item.name), h("span", { class: "hint" }, ` helps since ${readableDate(item.since.slice(0, 10))}`)),
          h("button", { type: "button", class: "danger", "aria-label": `Stop ${item.name} helping`, onclick: () => this.stop(item) }, "Stop helping")))));
    } catch (failure) {
      this.list.replaceChildren(h("p", { class: "error", role: "alert" }, said(failure)));
    }
  }

  /** @param {{id: string, name: string}} item */
  async stop(item) {
    const context = /** @type {Context} */ (this.ctx);
    if (!await confirmAction(`Stop ${item.name} helping with your album? They will not see it or add to it any more. The photos they added stay.`, "Stop helping")) return;
    try {
      await context.api.request("DELETE", `${CAREGIVERS}/${encodeURIComponent(item.id)}`);
      announce(`${item.name} no longer helps with your album.`);
    } catch (failure) {
      announce(said(failure));
    }
    await this.load();
  }
}
customElements.define("album-family", FamilyScreen);

// An invitation opened by the family member --------------------------------------------------------

export class AcceptHelpScreen extends HTMLElement {
  /** @param {Context} context @param {string} token */
  async attach(context, token) {
    this.replaceChildren(h("main", { class: "screen help-accept" }, h("h1", {}, "An invitation"), h("p", { class: "hint", role: "status" }, "Opening the invitation…")));
    let ownerName = "";
    try {
      ownerName = (await context.api.request("POST", `${CAREGIVERS}/invitations/look`, { body: { token } })).body.ownerName;
    } catch (failure) {
      this.replaceChildren(h("main", { class: "screen help-accept" }, h("h1", {}, "This invitation cannot be used"),
        h("p", { class: "error", role: "alert" }, said(failure)), back("#/", "Home")));
      return;
    }
    const whose = ownerName ? `${ownerName}'s album` : "an album";
    const name = /** @type {HTMLInputElement} */ (h("input", { id: "helper-name", autocomplete: "name", maxlength: "60", required: true }));
    const error = h("p", { class: "error", role: "alert", id: "helper-error" });
    const accept = /** @type {HTMLButtonElement} */ (h("button", { type: "submit" }, "Accept and help"));
    const form = h("form", { class: "stack", "aria-describedby": "helper-error", novalidate: true, onsubmit: async (/** @type {Event} */ event) => {
      event.preventDefault();
      if (!name.value.trim()) {
        error.textContent = "Say your name, as they know you (for example Anna).";
        name.focus();
        return;
      }
      accept.setAttribute("aria-busy", "true");
      try {
        const helped = (await context.api.request("POST", `${CAREGIVERS}/invitations/accept`, { body: { token, name: name.value.trim() } })).body;
        announce(`You now help with ${whose}.`);
        context.go(`#/helping/${encodeURIComponent(helped.owner)}`);
      } catch (failure) {
        error.textContent = said(failure);
      } finally {
        accept.removeAttribute("aria-busy");
      }
    } },
    h("label", { for: "helper-name" }, "Your name, as they know you (for example Anna)"), name, error, accept);
    this.replaceChildren(h("main", { class: "screen help-accept" },
      h("h1", {}, `Help with ${whose}`),
      h("p", { class: "lead" }, `You are invited to add photos and captions to ${whose}, with your own account. You will see only that album; they can stop it at any time.`),
      form, back("#/", "Not now")));
  }
}
customElements.define("album-help-accept", AcceptHelpScreen);
