// @ts-check
/**
 * iRemember's people on a photo (`album: { people: true }`, the manifest's `people`): the names
 * shown large under the photo ("Emma — your granddaughter"), a box on each face that opens the
 * person, and "Name someone in this photo": a tap on the face, then one of the people already
 * named or "Someone new" with their name and who they are to the user. Everything is the phone's
 * synced copy and goes through the outbox, so it works offline and shows at once. The rules are
 * people.js; a person's page and the list of people are person-page.js.
 */
import { PHOTOS } from "./album-base.js";
import { localId } from "./outbox.js";
import { FACE, PEOPLE, PERSON, boxAt, byName, caption, inPhoto, nameProblem } from "./people.js";
import { readAloud, switchedOn, userLanguage } from "./speak.js";
import { announce, h, showDialog } from "./ui.js";

/** @typedef {import("./album-base.js").Context} Context */
/** @typedef {import("./album-base.js").Photo} Photo */
/** @typedef {import("./people.js").Person} Person */
/** @typedef {import("./people.js").Face} Face */

/** Whether the app has people switched on. @param {Context} context */
export function hasPeople(context) {
  return switchedOn(context, "people");
}

/** The people on this phone, as the user sees them (queued changes included). @param {Context} context @returns {readonly Person[]} */
export function allPeople(context) {
  return context.sync.view(PERSON);
}

/** @param {Context} context @returns {readonly Face[]} */
export function allFaces(context) {
  return context.sync.view(FACE);
}

/** The ids a photo may be named by in a face: its id and the local id it had before it uploaded. @param {Context} context @param {Photo} photo */
function photoIds(context, photo) {
  const ids = [photo.id];
  for (const [local, real] of context.sync.resolved) if (real === photo.id) ids.push(local);
  return ids;
}

/** Who is in a photo, left to right. @param {Context} context @param {Photo} photo */
export function peopleIn(context, photo) {
  return inPhoto(allFaces(context), allPeople(context), photoIds(context, photo));
}

/** @param {string} id */
export function personHash(id) {
  return `#/person/${encodeURIComponent(id)}`;
}

/**
 * Where a person's name leads (null: nowhere, their name alone) and how the naming dialog asks
 * who they are; a caregiver's photo screen (album-helping.js) gives its own.
 * @typedef {{personHref?: ((id: string) => string) | null, relationLabel?: string}} PeopleOptions
 */

/**
 * The people of a photo in its view: boxes over the picture in `figure` and the names, large,
 * under it, with "Name someone in this photo". Follows sync by itself (a name added offline shows
 * at once, another phone's when it arrives). Null when people are off.
 * @param {Context} context @param {Photo} photo @param {HTMLElement} figure @param {PeopleOptions} [options]
 * @returns {HTMLElement | null}
 */
export function photoPeople(context, photo, figure, options = {}) {
  if (!hasPeople(context)) return null;
  const element = /** @type {PhotoPeople} */ (document.createElement("photo-people"));
  element.options = options;
  element.setup(context, photo, figure);
  return element;
}

class PhotoPeople extends HTMLElement {
  /** @type {Context | undefined} */
  ctx;
  /** @type {Photo | undefined} */
  photo;
  /** @type {HTMLElement | undefined} */
  figure;
  /** @type {HTMLElement | undefined} the boxes over the picture */
  layer;
  shown = "";
  /** @type {PeopleOptions} */
  options = {};
  onChange = () => this.draw();

  /**
   * A link to the person's page, or their name alone when this screen has none (a box on the face
   * is then only a picture: the names are listed under it).
   * @param {Person} person @param {Record<string, string>} attributes @param {...any} children
   */
  personLink(person, attributes, ...children) {
    const href = this.options.personHref === undefined ? personHash : this.options.personHref;
    if (href) return h("a", { href: href(person.id), ...attributes }, ...children);
    const { "aria-label": label, ...rest } = attributes;
    return h("span", label ? { ...rest, "aria-hidden": "true" } : rest, ...children);
  }

  /** @param {Context} context @param {Photo} photo @param {HTMLElement} figure */
  setup(context, photo, figure) {
    this.ctx = context;
    this.photo = photo;
    this.figure = figure;
    this.layer = h("div", { class: "faces" });
    figure.append(this.layer);
    this.className = "people-in-photo";
    this.draw();
  }

  connectedCallback() {
    this.ctx?.sync.addEventListener("change", this.onChange);
  }

  disconnectedCallback() {
    this.ctx?.sync.removeEventListener("change", this.onChange);
  }

  /** The photo as it is now (its id once the server gave it one). */
  current() {
    const context = /** @type {Context} */ (this.ctx);
    const photo = /** @type {Photo} */ (this.photo);
    return context.sync.one("album.photo", context.sync.resolve(photo.id)) ?? photo;
  }

  draw() {
    const context = /** @type {Context} */ (this.ctx);
    const photo = this.current();
    const named = peopleIn(context, photo);
    const key = JSON.stringify(named.map(({ face, person }) => [face.id, face.box, person.name, person.relationship]));
    if (key === this.shown && this.childElementCount) return;
    this.shown = key;
    /** @type {HTMLElement} */ (this.layer).replaceChildren(...named.map(({ face, person }) => {
      const box = this.personLink(person, { class: "face-box", "aria-label": `${caption(person)}: open their page` },
        h("span", { class: "face-name", "aria-hidden": "true" }, person.name));
      box.style.left = `${face.box.x * 100}%`;
      box.style.top = `${face.box.y * 100}%`;
      box.style.width = `${face.box.w * 100}%`;
      box.style.height = `${face.box.h * 100}%`;
      return box;
    }));
    this.replaceChildren(...[
      named.length ? h("h2", { id: "people-heading" }, "In this photo") : null,
      named.length ? h("ul", { class: "people-list", "aria-labelledby": "people-heading" }, ...named.map(({ face, person }) => h("li", {},
        this.personLink(person, { class: "person-name" },
          h("strong", {}, person.name), (person.relationship ?? "").trim() ? h("span", {}, ` — ${person.relationship}`) : null),
        h("button", { type: "button", class: "link", onclick: () => this.untag(face, person) }, `Take ${person.name} off this photo`)))) : null,
      named.length ? readAloud(context, () => peopleIn(context, this.current()).map(({ person }) => caption(person).replace(" — ", ", ")).join(". ") + ".",
        userLanguage, "who is in this photo") : null,
      h("button", { type: "button", class: "hero name-someone", onclick: () => this.startNaming() }, "Name someone in this photo")]
      .filter(/** @returns {node is HTMLElement} */ (node) => node !== null));
  }

  /** @param {Face} face @param {Person} person */
  async untag(face, person) {
    const context = /** @type {Context} */ (this.ctx);
    const photo = this.current();
    await context.sync.write({ method: "DELETE", path: `${PHOTOS}/${photo.id}/people/${face.id}`, kind: FACE, id: face.id });
    announce(`${person.name} taken off this photo.`);
  }

  /** Naming starts with a tap on the face: the picture takes one tap (or Enter: the middle). */
  startNaming() {
    const figure = /** @type {HTMLElement} */ (this.figure);
    const img = figure.querySelector("img");
    if (!img) {
      announce("The picture is not shown yet. Try again when it is.");
      return;
    }
    figure.querySelector(".tap-face")?.remove();
    const hint = h("p", { class: "tap-hint", id: "tap-hint", role: "status" }, "Tap on the face of the person you want to name.");
    const stop = () => {
      target.remove();
      hint.remove();
      cancel.remove();
      figure.classList.remove("naming");
    };
    const target = h("button", { type: "button", class: "tap-face", "aria-label": "Tap where their face is", "aria-describedby": "tap-hint",
      onclick: (/** @type {MouseEvent} */ event) => {
        const rect = img.getBoundingClientRect();
        // A keyboard's Enter has no position: the middle of the picture.
        const keyboard = event.detail === 0 || (event.clientX === 0 && event.clientY === 0);
        const x = keyboard ? 0.5 : (event.clientX - rect.left) / rect.width;
        const y = keyboard ? 0.5 : (event.clientY - rect.top) / rect.height;
        const photo = this.current();
        const box = boxAt(Math.min(Math.max(x, 0), 1), Math.min(Math.max(y, 0), 1), photo.width ?? img.naturalWidth ?? 4, photo.height ?? img.naturalHeight ?? 3);
        stop();
        this.choose(box);
      } });
    const cancel = h("button", { type: "button", class: "secondary", onclick: () => { stop(); /** @type {HTMLElement | null} */ (this.querySelector("button.name-someone"))?.focus(); } }, "Cancel naming");
    figure.classList.add("naming");
    figure.append(target);
    figure.after(hint);
    hint.after(cancel);
    target.focus();
  }

  /**
   * Who is in the box: one of the people already named, or someone new.
   * @param {import("./people.js").Box} box
   */
  choose(box) {
    const context = /** @type {Context} */ (this.ctx);
    const figure = /** @type {HTMLElement} */ (this.figure);
    const marker = h("div", { class: "face-box new", "aria-hidden": "true" });
    marker.style.left = `${box.x * 100}%`;
    marker.style.top = `${box.y * 100}%`;
    marker.style.width = `${box.w * 100}%`;
    marker.style.height = `${box.h * 100}%`;
    figure.append(marker);
    const already = new Set(peopleIn(context, this.current()).map(({ person }) => person.id));
    const known = byName(allPeople(context)).filter((p) => !already.has(p.id));
    const name = /** @type {HTMLInputElement} */ (h("input", { id: "new-person-name", autocomplete: "off", maxlength: "80", "aria-describedby": "new-person-error" }));
    const relationship = /** @type {HTMLInputElement} */ (h("input", { id: "new-person-relationship", autocomplete: "off", maxlength: "80",
      placeholder: "your granddaughter" }));
    const error = h("p", { class: "error", role: "alert", id: "new-person-error" });
    const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "confirm who-is-this", "aria-labelledby": "who-title" },
      h("h2", { id: "who-title" }, "Who is this?"),
      known.length ? h("ul", { class: "people-choices", "aria-label": "Your people" }, ...known.map((person) => h("li", {},
        h("button", { type: "button", class: "secondary person-choice", onclick: () => { dialog.close(); this.name(person, box); } }, caption(person)))))
        : null,
      h("form", { class: "stack", novalidate: true, onsubmit: (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        const problem = nameProblem(name.value);
        if (problem) {
          error.textContent = problem;
          name.focus();
          return;
        }
        dialog.close();
        this.nameNew(name.value.trim(), relationship.value.trim(), box);
      } },
      known.length ? h("h3", {}, "Someone new") : null,
      h("label", { for: "new-person-name" }, "Name"), name, error,
      h("label", { for: "new-person-relationship" }, this.options.relationLabel ?? "Who they are to you"), relationship,
      h("div", { class: "row" },
        h("button", { type: "button", class: "secondary", onclick: () => dialog.close() }, "Cancel"),
        h("button", { type: "submit" }, "Save name")))));
    dialog.addEventListener("close", () => {
      dialog.remove();
      marker.remove();
    });
    showDialog(dialog);
    (known.length ? /** @type {HTMLElement} */ (dialog.querySelector("button.person-choice")) : name).focus();
  }

  /** A new person, then their face: both queued in order (offline, the face waits for the person). @param {string} name @param {string} relationship @param {import("./people.js").Box} box */
  async nameNew(name, relationship, box) {
    const context = /** @type {Context} */ (this.ctx);
    const person = { id: localId(), name, relationship, note: "" };
    await context.sync.write({ method: "POST", path: PEOPLE, body: { name, relationship }, kind: PERSON, id: person.id });
    await this.name(person, box);
  }

  /** @param {Person} person @param {import("./people.js").Box} box */
  async name(person, box) {
    const context = /** @type {Context} */ (this.ctx);
    const photo = this.current();
    await context.sync.write({ method: "POST", path: `${PHOTOS}/${photo.id}/people`, body: { person: person.id, box, photo: photo.id },
      kind: FACE, id: localId() });
    announce(`${caption(person)}: named in this photo.`);
  }
}
customElements.define("photo-people", PhotoPeople);

/**
 * The slideshow's people, large under the picture: "Emma — your granddaughter". Returns what to
 * read aloud with the caption ("" when nobody is named or people are off).
 * @param {Context} context @param {HTMLElement} slot @param {Photo} photo
 */
export function slidePeople(context, slot, photo) {
  if (!hasPeople(context)) {
    slot.replaceChildren();
    return "";
  }
  const named = peopleIn(context, photo);
  slot.replaceChildren(...(named.length ? [h("ul", { class: "slide-people", "aria-label": "In this photo" },
    ...named.map(({ person }) => h("li", {}, h("strong", {}, person.name), (person.relationship ?? "").trim() ? ` — ${person.relationship}` : "")))] : []));
  return named.map(({ person }) => caption(person).replace(" — ", ", ")).join(". ");
}
