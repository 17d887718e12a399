// @ts-check
/**
 * iRemember's main menu (Choose From Phone, Take With Camera, Import from Internet, Recent, Album,
 * Share), adding a photo from the camera or the phone, Import from Internet, and moving the album
 * to a new phone.
 */
import * as Album from "./album.js";
import { AlbumElement, CACHE_SIZE, KIND, PHOTOS, back, pictureCache } from "./album-base.js";
import * as Cache from "./picture-cache.js";
import { ApiError } from "./api.js";
import { localId } from "./outbox.js";
import { announce, h, whereAmI } from "./ui.js";
import { caregiverLinks, helpingLink } from "./album-caregivers.js";
import { keptCaptions, watchKeptCaptions } from "./album-helping-captions.js";
import { onThisDaySection, updateOnThisDay } from "./home-on-this-day.js";
import { hasPeople } from "./album-people.js";
import { hasPush, pushSection } from "./push-settings.js";
import { hasMap } from "./album-map.js";
import { askToKeepOnce, keepingSection } from "./album-storage.js";

/** @typedef {import("./album-base.js").Context} Context */
/** @typedef {import("./album-base.js").Photo} Photo */

// The main menu -----------------------------------------------------------------------------------

const ICONS = {
  phone: "M4 5h16v14H4z M4 15l5-5 4 4 3-3 4 4",
  camera: "M3 8h4l2-3h6l2 3h4v11H3z M12 17a4 4 0 1 0 0-8 4 4 0 0 0 0 8",
  globe: "M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z M3 12h18 M12 3c3 3 3 15 0 18 M12 3c-3 3-3 15 0 18",
  clock: "M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z M12 7v5l3 3",
  album: "M4 4h7v7H4z M13 4h7v7h-7z M4 13h7v7H4z M13 13h7v7h-7z",
  share: "M12 15V3 M7 8l5-5 5 5 M5 12v8h14v-8",
  people: "M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8z M2 21v-1a7 7 0 0 1 14 0v1 M16 3.5a4 4 0 0 1 0 7.5 M18 14a6 6 0 0 1 4 6v1",
  map: "M3 6l6-2 6 2 6-2v14l-6 2-6-2-6 2z M9 4v14 M15 6v14",
};

/** @param {keyof typeof ICONS} name */
function icon(name) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "icon");
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", ICONS[name]);
  svg.append(path);
  return svg;
}

export class HomeScreen extends AlbumElement {
  /** A sync meanwhile changes the count, not the buttons (a file chooser may be open on one). */
  changed() {
    const lead = this.querySelector(".lead");
    if (lead) lead.textContent = this.lead();
    updateOnThisDay(this, this.ctx, this.photos(), lead);
  }

  lead() {
    const count = this.photos().length;
    return count ? `${count} photo${count === 1 ? "" : "s"} in your album.` : "Add your first photo: take one, or choose one from your phone.";
  }

  render() {
    /** @param {boolean} camera */
    const picker = (camera) => {
      const input = /** @type {HTMLInputElement} */ (h("input", { type: "file", accept: "image/*", hidden: true,
        capture: camera ? "environment" : undefined,
        onchange: () => { const file = input.files?.[0]; if (file) addPhoto(this.ctx, file, camera ? "camera" : "library"); } }));
      return [h("button", { type: "button", class: "tile", onclick: () => { askWhereAmI(); input.click(); } }, icon(camera ? "camera" : "phone"),
        camera ? "Take With Camera" : "Choose From Phone"), input];
    };
    /** @param {string} hash @param {keyof typeof ICONS} name @param {string} text */
    const tile = (hash, name, text) => h("a", { href: hash, class: "tile" }, icon(name), text);
    // A caregiver's captions written offline go once the phone is online, whichever screen is open.
    if (keptCaptions(this.ctx).length) watchKeptCaptions(this.ctx);
    this.replaceChildren(h("main", { class: "screen home" },
      h("h1", {}, "iRemember"),
      h("p", { class: "lead" }, this.lead()),
      helpingLink(this.ctx),
      onThisDaySection(this.ctx, this.photos()),
      h("nav", { class: "tiles", "aria-label": "Main menu" },
        ...picker(false), ...picker(true), tile("#/import", "globe", "Import from Internet"),
        tile("#/recent", "clock", "Recent"), tile("#/album", "album", "Album"), tile("#/share", "share", "Share"), hasPeople(this.ctx) ? tile("#/people", "people", "People") : null,
        hasMap(this.ctx) ? tile("#/map", "map", "Map") : null),
      h("a", { href: "#/move", class: "button secondary" }, "Use this album on a new phone"),
      caregiverLinks(this.ctx),
      h("a", { href: "#/settings", class: "button secondary" }, "Settings")));
  }
}
customElements.define("album-home", HomeScreen);

/** How long a chosen photo waits for where the phone is before it is written without it. */
const PLACE_WAIT_MS = 1000;
/** @type {Promise<GeolocationCoordinates | null> | null} where the phone is, asked as the picker opened */
let placeAsked = null;
/** Asks where the phone is as the picker opens, so choosing a photo overlaps the wait. */
function askWhereAmI() {
  placeAsked = whereAmI(300_000);
}

/**
 * A photo from the camera or the phone: where the phone is (for a photo without GPS) and its
 * clock go with it; it is in the album at once, and the mark-up screen opens.
 * @param {Context} context @param {File} file @param {"camera" | "library"} source
 */
export async function addPhoto(context, file, source) {
  if (!file.type.startsWith("image/")) {
    announce("That file is not a picture. Choose a photo.");
    return;
  }
  const busy = h("div", { class: "busy", role: "status" }, "Saving your photo…");
  document.body.append(busy);
  // The photo's own time when its EXIF says (as the server reads it), so its day is right at once,
  // offline too; else when the file was made (library) or now (camera).
  const exif = await file.slice(0, 256 * 1024).arrayBuffer().then(Album.exifTakenAt).catch(() => null);
  const takenAt = exif ?? Album.localTime(file.lastModified && source === "library" ? new Date(file.lastModified) : new Date());
  const query = new URLSearchParams({ source, takenAt });
  // At most a second more for where the phone is: the photo is kept on the phone only once written
  // (a reload or a closed tab during a longer wait, offline or indoors, lost the photo).
  const asked = placeAsked ?? whereAmI(300_000);
  placeAsked = null;
  const place = await Promise.race([asked, new Promise((resolve) => { window.setTimeout(() => resolve(null), PLACE_WAIT_MS); })]);
  if (place) {
    query.set("lat", String(place.latitude));
    query.set("lon", String(place.longitude));
    query.set("accuracy", String(Math.round(place.accuracy)));
  }
  const id = localId();
  await context.sync.write({ method: "POST", path: `${PHOTOS}?${query}`, body: file, contentType: file.type, kind: KIND, id,
    recordAt: "photo", local: { takenAt, tags: [], notes: "", source, hasMarkup: false, pendingImage: file } });
  busy.remove();
  askToKeepOnce();
  context.go(`#/photo/${encodeURIComponent(id)}/markup`);
}

// Import from Internet ----------------------------------------------------------------------------

export class ImportScreen extends AlbumElement {
  changed() {}

  render() {
    const error = h("p", { class: "error", role: "alert", id: "import-error" });
    const url = /** @type {HTMLInputElement} */ (h("input", { id: "import-url", type: "url", inputmode: "url", required: true,
      autocomplete: "off", placeholder: "https://…", "aria-describedby": "import-error" }));
    const ok = /** @type {HTMLButtonElement} */ (h("button", { type: "submit" }, "OK"));
    const form = h("form", { class: "stack", onsubmit: async (/** @type {Event} */ event) => {
      event.preventDefault();
      error.textContent = "";
      ok.disabled = true;
      ok.textContent = "Importing…";
      try {
        const answer = await this.ctx.api.request("POST", `${PHOTOS}/import`, { body: { url: url.value.trim(), takenAt: Album.localTime() },
          headers: { "Idempotency-Key": localId().slice(6) } });
        const photo = answer.body.photo;
        await this.ctx.sync.pull();
        this.ctx.go(`#/photo/${encodeURIComponent(photo.id)}/markup`);
      } catch (failure) {
        error.textContent = failure instanceof ApiError
          ? (failure.offline ? "Importing needs the internet. Try again when this phone is online." : failure.message)
          : "Something went wrong; try again.";
        ok.disabled = false;
        ok.textContent = "OK";
      }
    } },
    h("label", { for: "import-url" }, "Enter the address (URL) of a picture:"), url,
    h("div", { class: "row" }, ok, h("a", { href: "#/", class: "button secondary" }, "Cancel")), error);
    this.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "Import from Internet"), form));
  }
}
customElements.define("album-import", ImportScreen);

// Moving to a new phone ---------------------------------------------------------------------------

export class MoveScreen extends AlbumElement {
  changed() {}

  render() {
    const session = this.ctx.api.session;
    if (!session?.deviceSecret) {
      this.replaceChildren(h("main", { class: "screen" },
        h("div", { class: "toolbar" }, back("#/", "Home"), h("h1", {}, "A new phone")),
        h("p", { class: "lead" }, `You signed in as ${session?.username ?? "a user"}: on a new phone, sign in with the same user name and password.`),
        this.signOutButton()));
      return;
    }
    const code = Album.moveCode({ accountId: session.accountId, deviceSecret: session.deviceSecret });
    const link = `${location.origin}/#/move/${code}`;
    const field = /** @type {HTMLInputElement} */ (h("input", { id: "move-code", readonly: true, value: code }));
    const said = h("p", { class: "hint", role: "status" });
    this.replaceChildren(h("main", { class: "screen move" },
      h("div", { class: "toolbar" }, back("#/", "Home"), h("h1", {}, "A new phone")),
      h("p", { class: "lead" }, "To see this album on another phone, send this code to yourself, then open it there."),
      h("label", { for: "move-code" }, "Your album's code"), field,
      h("div", { class: "row" },
        h("button", { type: "button", onclick: async () => {
          field.select();
          try {
            await navigator.clipboard.writeText(code);
            said.textContent = "Copied. On the new phone, open this app and choose “I have a code”.";
          } catch {
            said.textContent = "Select the code above and copy it.";
          }
        } }, "Copy code"),
        typeof navigator.share === "function" ? h("button", { type: "button", class: "secondary",
          onclick: () => navigator.share({ title: "My iRemember album", url: link }).catch(() => {}) }, "Send to my other phone") : null),
      said,
      h("p", { class: "warning" }, "Keep this code to yourself: anyone who has it can see your photos."),
      this.signOutButton()));
  }

  signOutButton() {
    return h("button", { type: "button", class: "link", onclick: () => this.dispatchEvent(new CustomEvent("quire:sign-out", { bubbles: true })) },
      "Sign out of this phone");
  }
}
customElements.define("album-move", MoveScreen);

// Settings ----------------------------------------------------------------------------------------

/** How much of the phone the album's pictures may take (kept so the album opens offline). */
export class SettingsScreen extends AlbumElement {
  changed() {}

  render() {
    const now = String(Cache.budgetBytes(localStorage.getItem(CACHE_SIZE)) / (1024 * 1024));
    const used = h("p", { class: "hint", id: "cache-used", role: "status" }, "Counting the pictures kept on this phone…");
    const choice = /** @type {HTMLSelectElement} */ (h("select", { id: "cache-size", "aria-describedby": "cache-hint cache-used", onchange: async () => {
      localStorage.setItem(CACHE_SIZE, choice.value);
      await this.count(used);
      announce(`Pictures kept on this phone: up to ${choice.selectedOptions[0]?.textContent ?? ""}.`);
    } }, ...[...Cache.SIZES].sort((a, b) => a - b).map((mb) => h("option", { value: String(mb), selected: String(mb) === now },
      mb >= 1000 ? `${mb / 1000} GB` : `${mb} MB`, mb === Cache.DEFAULT_MB ? " (the usual)" : ""))));
    this.replaceChildren(h("main", { class: "screen settings" },
      h("div", { class: "toolbar" }, back("#/", "Home"), h("h1", {}, "Settings")),
      h("div", { class: "stack" },
        h("label", { for: "cache-size" }, "Pictures kept on this phone"), choice,
        h("p", { class: "hint", id: "cache-hint" }, "Photos you have looked at are kept on this phone, so the album opens without the internet. "
          + "When they take more than this, the ones you looked at longest ago go first; they come back from the internet when you look again."),
        used),
      keepingSection()));
    // Web Push (the push plugin): "Notify me on this phone" and the daily "On this day" alert.
    if (hasPush(this.ctx)) this.querySelector("main")?.append(pushSection(this.ctx, { onThisDay: hasPush(this.ctx, "on-this-day") }));
    this.count(used);
  }

  /** @param {HTMLElement} used */
  async count(used) {
    const { bytes, count } = await pictureCache(this.ctx);
    used.textContent = `Now: ${Cache.sizeWords(bytes)} in ${count} picture${count === 1 ? "" : "s"}.`;
  }
}
customElements.define("album-settings", SettingsScreen);
