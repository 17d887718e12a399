// @ts-check
/**
 * A caregiver's screens of the albums they help with (album-caregivers.js has the user's side):
 * "Albums you help with" (#/helping), one album (#/helping/OWNER: its photos, "Add a photo",
 * "Restore access for Mum") and one photo (#/helping/OWNER/photo/ID: the picture, who added it,
 * its caption, the people in it, the caption recorded in their voice). They speak to the album's caregiver routes (`/api/v1/album/helping/OWNER/…`),
 * which reach that album and nothing else of its owner's; the phone keeps no copy (the album is
 * someone else's), so these screens need the network and say so. While seen, the album and the
 * open photo ask again every 10 s (`follow`): what Mum's phone changed shows, and a caption of the
 * helper's that Mum's words replaced is said, with "Bring mine back".
 */
import * as Album from "./album.js";
import { back } from "./album-base.js";
import { AcceptHelpScreen, FamilyScreen, HELPING, addedByFacts, hasCaregivers, linkPanel, said } from "./album-caregivers.js";
import { CAPTION_SENT, keptCaption, keptCaptions, saveCaption, watchKeptCaptions } from "./album-helping-captions.js";
import { HelpingStore, helpingContext } from "./album-helping-store.js";
import { photoPeople } from "./album-people.js";
import { CAPTION_VOICE, captionVoice } from "./album-voice.js";
import { ApiError } from "./api.js";
import { announce, confirmAction, h } from "./ui.js";

/** @typedef {import("./album-base.js").Context} Context */
/** @typedef {{owner: string, ownerName: string, name: string, since: string}} Helped */
/** @typedef {{id: string, version: number, takenAt: string, notes: string, tags: string[], addedBy?: string, captionBy?: string | null, place?: {key: string, label: string} | null}} HelpedPhoto */

/** The albums this account helps with. @param {Context} context @returns {Promise<Helped[]>} */
async function helped(context) {
  return (await context.api.get(HELPING)).items ?? [];
}

/** "Mum's album", or "The album" when its owner gave no name. @param {Helped | undefined} album */
function albumName(album) {
  return album?.ownerName ? `${album.ownerName}'s album` : "The album";
}

/** An object URL for a photo's rendition, fetched with this account's token. @param {Context} context @param {string} path */
async function picture(context, path) {
  const blob = await context.api.get(path);
  return URL.createObjectURL(blob);
}

/** How often a helper's open album or photo asks the server what changed, while the screen is seen (ms). */
const FOLLOW = 10_000;

/**
 * Runs `look` now and then while the page is seen and online, and at once when it is seen again
 * (the phone unlocked, the tab back in front) or back online: the helper's account has no live feed
 * of someone else's album (the live connection pokes an account about its own records), so its
 * screens ask. Answers the way to stop it.
 * @param {() => void} look @returns {() => void}
 */
function follow(look) {
  const seen = () => document.visibilityState === "visible" && navigator.onLine;
  const now = () => { if (seen()) look(); };
  const timer = window.setInterval(now, FOLLOW);
  document.addEventListener("visibilitychange", now);
  window.addEventListener("focus", now);
  window.addEventListener("online", now);
  return () => {
    window.clearInterval(timer);
    document.removeEventListener("visibilitychange", now);
    window.removeEventListener("focus", now);
    window.removeEventListener("online", now);
  };
}

/** Photos asked for at a time; "Show more photos" asks for the next ones (the list's cursor). */
const PAGE = 60;
/** The most photos shown that the open album still follows: the server's largest page. */
const FOLLOWED = 500;

/** @param {string} owner */
function albumPath(owner) {
  return `${HELPING}/${encodeURIComponent(owner)}`;
}

/**
 * The screen for a caregiver route (`#/family`, `#/help/TOKEN`, `#/helping/…`, `#/restore/…` on a
 * phone already signed in), or null for the album's other routes.
 * @param {Context} context @param {string[]} parts the route after `#/` @returns {HTMLElement | null}
 */
export function caregiverScreen(context, parts) {
  const [first, id] = parts;
  if (!["family", "help", "helping", "restore"].includes(first) || !hasCaregivers(context)) return null;
  if (first === "family") {
    const screen = new FamilyScreen();
    screen.attach(context);
    return screen;
  }
  if (first === "help" && id) {
    const screen = new AcceptHelpScreen();
    screen.attach(context, id);
    return screen;
  }
  if (first === "restore") {
    return h("main", { class: "screen" }, h("h1", {}, "Already open here"),
      h("p", { class: "lead" }, "This phone already has an album open. Open the restore link on the new phone instead."), back("#/", "Home"));
  }
  return helpingScreen(context, parts);
}

/**
 * The screen for `#/helping/…`.
 * @param {Context} context @param {string[]} parts the route after `#/`, starting with "helping"
 * @returns {HTMLElement}
 */
export function helpingScreen(context, parts) {
  const [, owner, sub, id] = parts;
  watchKeptCaptions(context);
  if (owner && sub === "photo" && id) return new HelpedPhotoScreen().attach(context, owner, id);
  if (owner) return new HelpedAlbumScreen().attach(context, owner);
  return new HelpingListScreen().attach(context);
}

class HelpingListScreen extends HTMLElement {
  /** @param {Context} context */
  attach(context) {
    const list = h("div", {}, h("p", { class: "hint", role: "status" }, "Looking for the albums you help with…"));
    this.replaceChildren(h("main", { class: "screen helping" },
      h("div", { class: "toolbar" }, back("#/", "Home"), h("h1", {}, "Albums you help with")), list));
    helped(context).then((albums) => {
      list.replaceChildren(albums.length
        ? h("ul", { class: "rows", "aria-label": "Albums you help with" }, ...albums.map((album) =>
          h("li", {}, h("a", { href: `#/helping/${encodeURIComponent(album.owner)}`, class: "button secondary" }, albumName(album)))))
        : h("p", { class: "empty" }, "You do not help with any album now. Ask for an invitation link."));
    }).catch((failure) => list.replaceChildren(h("p", { class: "error", role: "alert" }, said(failure))));
    return this;
  }
}
customElements.define("album-helping-list", HelpingListScreen);

class HelpedAlbumScreen extends HTMLElement {
  /** @type {Context | undefined} */
  ctx = undefined;
  owner = "";
  /** @type {Helped | undefined} */
  album = undefined;
  status = h("p", { class: "hint", role: "status" });
  photos = h("div", {}, h("p", { class: "hint" }, "Opening the album…"));
  restore = h("div", { class: "restore" });
  heading = h("h1", {}, "The album");
  restoreButton = h("button", { type: "button", class: "secondary", onclick: () => this.makeRestore() }, "Restore access");

  /** @param {Context} context @param {string} owner */
  attach(context, owner) {
    this.ctx = context;
    this.owner = owner;
    const input = /** @type {HTMLInputElement} */ (h("input", { type: "file", accept: "image/*", hidden: true,
      onchange: () => { const file = input.files?.[0]; if (file) this.add(file); } }));
    this.replaceChildren(h("main", { class: "screen helped" },
      h("div", { class: "toolbar" }, back("#/helping", "Albums"), this.heading),
      h("p", { class: "lead" }, "Photos and captions you add here show in their album, with your name."),
      h("button", { type: "button", class: "tile", onclick: () => input.click() }, "Add a photo"), input,
      this.status, this.photos,
      h("h2", {}, "A new or wiped phone?"),
      h("p", {}, "Make a link that opens their album on their new phone. It works once, for 15 minutes."),
      this.restoreButton, this.restore));
    this.sayKept();
    this.load();
    return this;
  }

  /** Captions written offline that wait for the network, said above the photos. */
  sayKept() {
    const waiting = keptCaptions(/** @type {Context} */ (this.ctx)).filter((caption) => caption.owner === this.owner).length;
    this.status.textContent = waiting ? `${waiting} caption${waiting === 1 ? "" : "s"} kept on this phone: sent when it is online.` : "";
  }

  onSent = () => { if (this.status.textContent?.includes("kept on this phone")) this.sayKept(); };
  /** Opened offline: the album shows once the phone is back online (no stale "needs the internet"). */
  onOnline = () => {
    if (this.photos.querySelector(".error")) this.load();
    if (this.status.textContent?.startsWith("You are offline")) this.sayKept();
  };

  /** Stops asking the server for changes to the album. */
  stopFollowing = () => {};

  connectedCallback() {
    // Photos added or captions changed meanwhile (on Mum's phone, by another helper) show here.
    this.stopFollowing = follow(() => this.refresh());
    window.addEventListener(CAPTION_SENT, this.onSent);
    // A kept caption refused (and so no longer kept) is counted no more.
    window.addEventListener("quire:waiting", this.onSent);
    window.addEventListener("online", this.onOnline);
  }

  disconnectedCallback() {
    this.stopFollowing();
    window.removeEventListener(CAPTION_SENT, this.onSent);
    window.removeEventListener("quire:waiting", this.onSent);
    window.removeEventListener("online", this.onOnline);
  }

  async load() {
    const context = /** @type {Context} */ (this.ctx);
    try {
      this.album = (await helped(context)).find((album) => album.owner === this.owner);
      if (!this.album) {
        this.photos.replaceChildren(h("p", { class: "error", role: "alert" }, "You do not help with this album (any more). Ask its owner to invite you again."));
        return;
      }
      this.heading.textContent = albumName(this.album);
      this.restoreButton.textContent = `Restore access for ${this.album.ownerName || "them"}`;
      const page = await context.api.get(`${albumPath(this.owner)}/photos?limit=${PAGE}`);
      if (!page.items?.length) {
        this.photos.replaceChildren(h("p", { class: "empty" }, "No photos yet. Add the first one."));
        return;
      }
      this.grid = h("ul", { class: "grid", "aria-label": "Photos" });
      this.photos.replaceChildren(this.grid, this.more);
      this.show(page);
    } catch (failure) {
      this.photos.replaceChildren(h("p", { class: "error", role: "alert" }, said(failure)));
    }
  }

  grid = h("ul", { class: "grid", "aria-label": "Photos" });
  cursor = "";
  more = h("div", { class: "more-photos" });
  /** The photos as shown: "id version" of each, to tell when the album changed. */
  shown = "";

  /**
   * The photos shown asked again, with room for a page of new ones (at most the server's largest
   * page): when a photo was added, deleted or changed, the grid shows it (the cells of photos
   * unchanged are kept, their pictures not fetched again), also after "Show more photos". While
   * the album has more than show, the grid still ends at the oldest photo it showed, and "Show
   * more photos" goes on from there (the list's cursor is a place in its order, not a count).
   */
  async refresh() {
    const context = /** @type {Context} */ (this.ctx);
    const shown = this.grid.childElementCount;
    if (!this.album || shown > FOLLOWED || this.photos.querySelector(".error")) return;
    const asked = await context.api.get(`${albumPath(this.owner)}/photos?limit=${Math.min(FOLLOWED, shown + PAGE)}`).catch(() => null);
    if (!asked) return;
    /** @type {{items?: HelpedPhoto[], nextCursor?: string | null}} */
    let page = asked;
    if (this.cursor) {
      const before = new Set([...this.grid.children].map((cell) => (/** @type {HTMLElement} */ (cell).dataset.key ?? "").split(" ")[0]));
      const items = asked.items ?? [];
      let last = items.length - 1;
      while (last >= 0 && !before.has(items[last].id)) last -= 1;
      if (last >= 0) page = { items: items.slice(0, last + 1), nextCursor: this.cursor };
    }
    if (signature(page) === this.shown) return;
    if (!page.items?.length) {
      this.photos.replaceChildren(h("p", { class: "empty" }, "No photos yet. Add the first one."));
      this.shown = "";
      return;
    }
    /** @type {Map<string, Element>} */
    const cells = new Map([...this.grid.children].map((cell) => [/** @type {HTMLElement} */ (cell).dataset.key ?? "", cell]));
    const grid = h("ul", { class: "grid", "aria-label": "Photos" });
    this.grid.replaceWith(grid);
    this.grid = grid;
    if (!grid.isConnected) this.photos.replaceChildren(grid, this.more);
    this.show(page, cells);
  }

  /**
   * A page of photos added to the grid, and "Show more photos" while the album has more.
   * @param {{items?: HelpedPhoto[], nextCursor?: string | null}} page @param {Map<string, Element>} [cells] cells shown before, by "id version"
   */
  show(page, cells) {
    const context = /** @type {Context} */ (this.ctx);
    this.shown = cells || !this.grid.childElementCount ? signature(page) : [this.shown, signature(page)].filter(Boolean).join(",");
    this.grid.append(...(page.items ?? []).map((photo) => {
      const before = cells?.get(`${photo.id} ${photo.version}`);
      if (before) return before;
      const by = photo.addedBy ? `, added by ${photo.addedBy}` : "";
      const cell = h("a", { href: `#/helping/${encodeURIComponent(this.owner)}/photo/${encodeURIComponent(photo.id)}`, class: "cell",
        "aria-label": `Photo from ${Album.dayLabel(Album.dayOf(photo))}${photo.notes ? `: ${photo.notes}` : ""}${by}` });
      picture(context, `${albumPath(this.owner)}/photos/${photo.id}/image/thumb`)
        .then((url) => cell.prepend(h("img", { src: url, alt: "" }))).catch(() => {});
      return h("li", { "data-key": `${photo.id} ${photo.version}` }, cell);
    }));
    this.cursor = page.nextCursor ?? "";
    this.more.replaceChildren(...(this.cursor ? [h("button", { type: "button", class: "secondary show-more", onclick: () => this.showMore() }, "Show more photos")] : []));
  }

  async showMore() {
    const context = /** @type {Context} */ (this.ctx);
    const button = this.more.querySelector("button");
    button?.setAttribute("aria-busy", "true");
    try {
      const shown = this.grid.childElementCount;
      this.show(await context.api.get(`${albumPath(this.owner)}/photos?${new URLSearchParams({ limit: String(PAGE), cursor: this.cursor })}`));
      announce(`${this.grid.childElementCount - shown} more photos.`);
      /** @type {HTMLElement | null} */ (this.grid.children[shown]?.querySelector("a") ?? null)?.focus();
    } catch (failure) {
      button?.removeAttribute("aria-busy");
      this.more.append(h("p", { class: "error", role: "alert" }, said(failure)));
    }
  }

  /** @param {File} file */
  async add(file) {
    const context = /** @type {Context} */ (this.ctx);
    if (!file.type.startsWith("image/")) {
      this.status.textContent = "That file is not a picture. Choose a photo.";
      return;
    }
    this.status.textContent = "Adding the photo…";
    const exif = await file.slice(0, 256 * 1024).arrayBuffer().then(Album.exifTakenAt).catch(() => null);
    const takenAt = exif ?? Album.localTime(file.lastModified ? new Date(file.lastModified) : new Date());
    try {
      const photo = (await context.api.request("POST", `${albumPath(this.owner)}/photos?${new URLSearchParams({ source: "library", takenAt })}`,
        { body: file, contentType: file.type })).body;
      this.status.textContent = "Added. Now write its caption.";
      context.go(`#/helping/${encodeURIComponent(this.owner)}/photo/${encodeURIComponent(photo.id)}`);
    } catch (failure) {
      // Nothing of someone else's album is kept here: the photo is the helper's, to choose again.
      this.status.textContent = failure instanceof ApiError && !failure.offline ? said(failure)
        : "You are offline: the photo was not added. Choose it again once this phone is online.";
    }
  }

  async makeRestore() {
    const context = /** @type {Context} */ (this.ctx);
    try {
      const link = (await context.api.request("POST", `${albumPath(this.owner)}/restore`, { body: { origin: location.origin } })).body;
      const who = this.album?.ownerName || "them";
      this.restore.replaceChildren(linkPanel(link, `Restore access for ${who}`,
        `Open this link on ${who === "them" ? "their" : `${who}'s`} new phone (or scan the code with it): their album opens there, signed in as before. Give it to nobody else.`,
        "restore"));
      this.restore.scrollIntoView({ block: "start" });
      announce("The restore link is ready.");
    } catch (failure) {
      this.restore.replaceChildren(h("p", { class: "error", role: "alert" }, said(failure)));
    }
  }
}
customElements.define("album-helped", HelpedAlbumScreen);

/** What tells one first page of photos from another. @param {{items?: HelpedPhoto[]}} page */
function signature(page) {
  return (page.items ?? []).map((photo) => `${photo.id} ${photo.version}`).join(",");
}

class HelpedPhotoScreen extends HTMLElement {
  /** @param {Context} context @param {string} owner @param {string} id @param {string} [keptBefore] words kept when it opened offline */
  attach(context, owner, id, keptBefore) {
    const path = `${albumPath(owner)}/photos/${encodeURIComponent(id)}`;
    const albumHash = `#/helping/${encodeURIComponent(owner)}`;
    this.replaceChildren(h("main", { class: "screen photo" }, h("p", { class: "hint", role: "status" }, "Opening the photo…")));
    const store = new HelpingStore(context, owner);
    const asUser = helpingContext(context, store);
    Promise.all([store.load(id), helped(context).catch(() => [])]).then(([photo, albums]) => {
      /** @type {HelpedPhoto} */
      let current = photo;
      const whom = albums.find((album) => album.owner === owner)?.ownerName || "them";
      const figure = h("figure", { class: "picture" });
      picture(context, `${path}/image/display`).then((url) => figure.prepend(h("img", { src: url, alt: `Photo from ${Album.dayLabel(Album.dayOf(photo))}` })))
        .catch(() => figure.prepend(h("p", { class: "empty" }, "The picture shows when this phone is online.")));
      const caption = /** @type {HTMLTextAreaElement} */ (h("textarea", { id: "helped-caption", rows: "3", maxlength: "10000" }));
      const kept = keptCaption(context, owner, id);
      caption.value = kept?.notes ?? photo.notes ?? "";
      const waiting = `Kept on this phone: it goes to ${whom === "them" ? "their" : `${whom}'s`} album when this phone is online.`;
      const sentMeanwhile = !kept && keptBefore !== undefined && photo.notes === keptBefore;
      const status = h("p", { class: "hint", role: "status" }, kept ? waiting : sentMeanwhile ? "Caption saved. It shows in their album." : "");
      // "Caption saved" is about the words as they were: typing on takes it away.
      caption.addEventListener("input", () => { if (status.textContent?.startsWith("Caption saved")) status.textContent = ""; });
      // A caption kept offline reached the album (sent from here, or once the phone came back online).
      this.onSent = (/** @type {Event} */ event) => {
        const sent = /** @type {CustomEvent} */ (event).detail;
        if (sent.owner !== owner || sent.id !== id || !sent.photo?.id) return;
        current = sent.photo;
        store.keep("album.photo", current);
        if (sent.broughtBack) caption.value = current.notes ?? "";
        status.textContent = sent.broughtBack ? "Brought back: the caption is as it was before yours." : "Caption saved. It shows in their album.";
      };
      window.addEventListener(CAPTION_SENT, this.onSent);
      const me = albums.find((album) => album.owner === owner)?.name ?? "";
      // The album as it is now, asked now and then while this screen is seen: a change there (Mum's
      // phone, another helper) shows here, and a caption of this helper's replaced is said.
      this.stopFollowing();
      this.stopFollowing = follow(async () => {
        const fresh = await store.api.request("GET", path).then((answer) => answer.body).catch(() => null);
        if (!fresh?.id || typeof fresh.version !== "number" || fresh.version <= current.version) return;
        const before = current;
        current = fresh;
        store.keep("album.photo", current);
        if ((fresh.notes ?? "") === (before.notes ?? "")) return;
        // Words typed here and not saved (or kept to send) stay as typed.
        const untouched = !keptCaption(context, owner, id) && caption.value === (before.notes ?? "");
        if (untouched) caption.value = fresh.notes ?? "";
        if (status.textContent?.startsWith("Caption saved") || status.textContent?.startsWith("Brought back")) status.textContent = "";
        const mine = (before.captionBy ?? null) === me && me && (before.notes ?? "") !== "";
        if (!mine) {
          if (!untouched) status.textContent = `The caption in ${whom === "them" ? "their" : `${whom}'s`} album changed meanwhile: “${fresh.notes ?? ""}”.`;
          return;
        }
        replacedCaption({ whom, by: fresh.captionBy, now: fresh.notes ?? "", yours: before.notes ?? "",
          bringBack: () => {
            caption.value = before.notes ?? "";
            return saveCaption(context, { owner, id, notes: before.notes ?? "", baseVersion: current.version });
          } });
      });
      const save = /** @type {HTMLButtonElement} */ (h("button", { type: "submit" }, "Save caption"));
      const form = h("form", { class: "stack", onsubmit: async (/** @type {Event} */ event) => {
        event.preventDefault();
        save.setAttribute("aria-busy", "true");
        try {
          current = store.one("album.photo", id) ?? current;
          // Written on the version the first unsent words were (the server merges over newer changes).
          const baseVersion = keptCaption(context, owner, id)?.baseVersion ?? current.version;
          const saved = await saveCaption(context, { owner, id, notes: caption.value, baseVersion });
          if (!saved) status.textContent = waiting;  // offline: kept, sent when online (onSent says so)
        } catch (failure) {
          status.textContent = said(failure);
        } finally {
          save.removeAttribute("aria-busy");
        }
      } }, h("label", { for: "helped-caption" }, "Caption"), caption, save, status);
      // Words typed but not saved (nor kept) are not dropped without a word: leaving asks first.
      const leave = back(albumHash, "Album");
      leave.addEventListener("click", async (event) => {
        if (caption.value === (keptCaption(context, owner, id)?.notes ?? current.notes ?? "")) return;
        event.preventDefault();
        if (await confirmAction("Your caption is not saved yet. Leave without it?", "Leave without it")) context.go(albumHash);
        else caption.focus();
      });
      this.replaceChildren(h("main", { class: "screen photo" },
        h("div", { class: "toolbar" }, leave, h("h1", {}, "Photo")),
        figure,
        photoPeople(asUser, photo, figure, { personHref: null, relationLabel: `Who they are to ${whom}` }),
        h("dl", { class: "facts" }, h("dt", {}, "Taken"), h("dd", {}, Album.dayLabel(Album.dayOf(photo))), ...addedByFacts(photo)),
        form,
        captionVoice(asUser, () => store.one("album.photo", id), { ...CAPTION_VOICE, path: (photoId) => `${path.slice(0, path.lastIndexOf("/"))}/${encodeURIComponent(photoId)}/voice`,
          record: "Record the caption in your voice", keep: true, by: () => "" })));
    }).catch((failure) => {
      // Opened offline: the helper's own words kept for this photo are shown, and the photo opens
      // by itself once the phone is online (sent meanwhile, it then says "Caption saved").
      const kept = keptCaption(context, owner, id);
      this.replaceChildren(h("main", { class: "screen photo" }, h("h1", {}, "Photo"),
        h("p", { class: "error", role: "alert" }, said(failure)),
        kept ? h("section", { class: "kept-caption", "aria-label": "Your caption, kept on this phone" },
          h("p", { class: "hint" }, "Your caption, kept on this phone: it goes to their album when this phone is online."),
          h("p", { class: "lead" }, kept.notes)) : null,
        back(albumHash, "Album")));
      if (failure instanceof ApiError && !failure.offline) return;
      let opened = false;
      const open = () => {
        window.removeEventListener(CAPTION_SENT, sent);
        if (!opened && this.isConnected) this.attach(context, owner, id, kept?.notes);
        opened = true;
      };
      // Its kept caption goes first (watchKeptCaptions, on the same event): the photo opens once it is saved.
      const sent = (/** @type {Event} */ event) => {
        const detail = /** @type {CustomEvent} */ (event).detail;
        if (detail.owner === owner && detail.id === id) open();
      };
      const again = () => {
        window.removeEventListener("online", again);
        if (!kept) return open();
        window.addEventListener(CAPTION_SENT, sent);
        window.setTimeout(open, 15_000);
      };
      window.addEventListener("online", again);
    });
    return this;
  }

  /** @type {(event: Event) => void} */
  onSent = () => {};
  /** Stops asking the server for changes to this photo. */
  stopFollowing = () => {};

  disconnectedCallback() {
    window.removeEventListener(CAPTION_SENT, this.onSent);
    this.stopFollowing();
  }
}
customElements.define("album-helped-photo", HelpedPhotoScreen);

/**
 * The helper's caption was replaced in the album (Mum wrote over it, maybe offline): said with the
 * words that replaced it and "Bring mine back" (hers saved again over them; it stays in the photo's
 * history either way), as the user's own phone says what its edit replaced.
 * @param {{whom: string, by: string | null | undefined, now: string, yours: string, bringBack: () => Promise<any>}} change
 */
function replacedCaption({ whom, by, now, yours, bringBack }) {
  const who = by || (whom === "them" ? "They" : whom);
  const text = now
    ? `${who} changed this caption: “${now}” replaced yours (“${yours}”).`
    : `${who} cleared this caption: yours (“${yours}”) is no longer in the album.`;
  window.dispatchEvent(new CustomEvent("quire:notice", { detail: { text, kind: "replaced", action: { label: "Bring mine back", run: async () => {
    try {
      const saved = await bringBack();
      announce(saved ? "Brought back: your caption shows in the album again." : "Kept on this phone: your caption goes back when this phone is online.");
    } catch (failure) {
      window.dispatchEvent(new CustomEvent("quire:notice", { detail: `Your caption “${yours}” was not brought back: ${said(failure)}` }));
    }
  } } } }));
}
