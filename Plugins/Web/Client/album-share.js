// @ts-check
/** Sharing: the Share screen (tap a photo to share it, how long new links work) and the links shared, each with Stop sharing. */
import * as Album from "./album.js";
import { AlbumElement, KIND, LINK_LIFE, LIVES, SHARE_NAMES, back, describe, grid, picture, sharePhoto } from "./album-base.js";
import { hasPeople } from "./album-people.js";
import { ApiError } from "./api.js";
import { announce, confirmAction, h } from "./ui.js";

/** @typedef {import("./album-base.js").Context} Context */
/** @typedef {import("./album-base.js").Photo} Photo */

/** A date and time as people say it: "Today, 14:05", "Tuesday, July 1, 2025, 09:00". @param {string} iso */
function moment(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const day = `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;
  return `${Album.dayLabel(day)}, ${String(date.getHours()).padStart(2, "0")}:${String(date.getMinutes()).padStart(2, "0")}`;
}

// Share -------------------------------------------------------------------------------------------

export class ShareScreen extends AlbumElement {
  /** How long the links made from now on work (kept on this phone). */
  lifeChoice() {
    const now = localStorage.getItem(LINK_LIFE) ?? "";
    const select = /** @type {HTMLSelectElement} */ (h("select", { id: "link-life", onchange: () => {
      localStorage.setItem(LINK_LIFE, select.value);
      announce(`New links work for: ${select.selectedOptions[0]?.textContent ?? ""}.`);
    } }, ...LIVES.map(([seconds, words]) => h("option", { value: seconds, selected: seconds === now }, words))));
    return select;
  }

  /** "Show people's names" on the photos shared from now on (with people on; kept on this phone). */
  namesChoice() {
    if (!hasPeople(this.ctx)) return null;
    const box = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", id: "share-names", onchange: () => {
      localStorage.setItem(SHARE_NAMES, box.checked ? "on" : "off");
      announce(box.checked ? "New links show people's names." : "New links leave people's names out.");
    } }));
    box.checked = localStorage.getItem(SHARE_NAMES) !== "off";
    return h("label", { class: "choice" }, box, "Show people's names on new links");
  }

  render() {
    this.releaseCells();
    const photos = Album.inTimeOrder(this.photos());
    this.replaceChildren(h("main", { class: "screen" },
      h("div", { class: "toolbar" }, back("#/", "Home"), h("h1", {}, "Share")),
      h("p", { class: "lead" }, "Tap the photo you want to share."),
      h("a", { href: "#/album/tags", class: "button secondary" }, "Share photos by tag instead"),
      h("div", { class: "stack" }, h("label", { for: "link-life" }, "New links work for"), this.lifeChoice()),
      this.namesChoice(),
      h("a", { href: "#/share/links", class: "button secondary" }, "Links I have shared"),
      photos.length ? grid(this.ctx, photos.slice(0, 60), "Photos to share", (photo) => `#/photo/${encodeURIComponent(photo.id)}`)
        : h("p", { class: "empty" }, "No photos yet. Go Home and take one.")));
    // A tap shares straight away (the photo screen has a Share button too). Each is named by its
    // day, time and caption, so no two read alike.
    const labels = Album.distinctLabels(photos.slice(0, 60).map((photo) => {
      const time = (photo.takenAt ?? "").slice(11, 16);
      const caption = (photo.notes ?? "").trim().replace(/\s+/g, " ");
      return `Share: ${describe(photo)}${time ? `, ${time}` : ""}${caption ? `: ${caption.length > 60 ? `${caption.slice(0, 59)}…` : caption}` : ""}`;
    }));
    for (const [index, cell] of [...this.querySelectorAll("a.cell")].entries()) {
      const photo = photos[index];
      cell.setAttribute("aria-label", labels[index]);
      cell.addEventListener("click", (event) => {
        event.preventDefault();
        sharePhoto(this.ctx, photo);
      });
    }
  }
}
customElements.define("album-share", ShareScreen);

/** Share links made from this album, newest first: what each shows, until when, and Stop sharing. */
export class SharedLinksScreen extends AlbumElement {
  changed() {}

  render() {
    const list = h("div", { class: "links", "aria-live": "polite" }, h("p", { class: "hint" }, "Looking for your links…"));
    this.replaceChildren(h("main", { class: "screen shared-links" },
      h("div", { class: "toolbar" }, back("#/share", "Share"), h("h1", {}, "Links I have shared")),
      h("p", { class: "hint" }, "Anyone with one of these links can see what it shows. Stop sharing, and the link stops working at once."),
      list));
    this.load(list);
  }

  /** @param {HTMLElement} list */
  async load(list) {
    /** @type {any[]} */
    let links;
    try {
      links = (await this.ctx.api.get("/api/v1/share-link/links?limit=200")).items ?? [];
    } catch (failure) {
      list.replaceChildren(h("p", { class: "empty" }, failure instanceof ApiError && !failure.offline ? failure.message
        : "The list of your links needs the internet. Try again when this phone is online."));
      return;
    }
    if (!links.length) {
      list.replaceChildren(h("p", { class: "empty" }, "You have not shared anything yet."));
      return;
    }
    const now = Date.now();
    list.replaceChildren(h("ul", { class: "big-list link-list", "aria-label": "Your links, newest first" }, ...links.map((link) => {
      const photo = link.resource?.photo ? this.ctx.sync.one(KIND, link.resource.photo) : undefined;
      const what = link.kind?.endsWith("search") ? "Photos from a search" : photo ? describe(photo) : "A photo";
      const stopped = Boolean(link.revokedAt), expired = !stopped && link.expiresAt && Date.parse(link.expiresAt) <= now;
      const state = stopped ? `Stopped ${moment(link.revokedAt)}` : expired ? `Ended ${moment(link.expiresAt)}`
        : link.expiresAt ? `Works until ${moment(link.expiresAt)}` : "Works until you stop sharing";
      const item = h("li", { class: `link${stopped || expired ? " ended" : ""}` },
        h("p", { class: "what" }, what),
        h("p", { class: "hint" }, `Shared ${moment(link.createdAt)}. `, h("strong", {}, state), "."));
      if (photo) picture(this.ctx, photo, "thumb").then((url) => item.prepend(h("img", { src: url, alt: "", class: "thumb" }))).catch(() => {});
      if (!stopped && !expired) {
        item.append(h("button", { type: "button", class: "danger", "aria-label": `Stop sharing: ${what}, shared ${moment(link.createdAt)}`,
          onclick: () => this.stop(link, what, list) }, "Stop sharing"));
      }
      return item;
    })));
  }

  /** @param {any} link @param {string} what @param {HTMLElement} list */
  async stop(link, what, list) {
    if (!(await confirmAction(`Stop sharing “${what}”? The link stops working for everyone who has it.`, "Stop sharing"))) return;
    try {
      await this.ctx.api.request("DELETE", `/api/v1/share-link/links/${encodeURIComponent(link.id)}`);
      announce("Stopped: the link does not work any more.");
    } catch (failure) {
      announce(failure instanceof ApiError && !failure.offline ? failure.message : "Stopping a link needs the internet. Try again when this phone is online.");
    }
    await this.load(list);
  }
}
customElements.define("album-shared-links", SharedLinksScreen);
