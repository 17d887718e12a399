// @ts-check
/**
 * iRemember's people screens: "People" (everyone named in the album, largest first by name) and a
 * person's page — their name and who they are to the user, large; every photo of them; Read aloud
 * when it is on; change their name or relationship; remove them (their photos stay). Both read the
 * phone's synced copy, so they open offline. album-people.js names people on a photo.
 */
import { AlbumElement, back, grid } from "./album-base.js";
import { allFaces, allPeople, hasPeople, personHash } from "./album-people.js";
import { PEOPLE, PERSON, byName, nameProblem, photosOf, spoken } from "./people.js";
import { readAloud, userLanguage } from "./speak.js";
import { announce, confirmAction, h, showDialog } from "./ui.js";

/** @typedef {import("./people.js").Person} Person */

export class PeopleScreen extends AlbumElement {
  render() {
    if (!hasPeople(this.ctx)) {
      this.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "People"), h("p", { class: "empty" }, "People are not switched on for this album."),
        back("#/", "Home")));
      return;
    }
    const people = byName(allPeople(this.ctx));
    const faces = allFaces(this.ctx);
    const photos = this.photos();
    this.releaseCells();
    this.replaceChildren(h("main", { class: "screen people" },
      h("div", { class: "toolbar" }, back("#/", "Home"), h("h1", {}, "People")),
      people.length
        ? h("ul", { class: "people-index", "aria-label": "Your people" }, ...people.map((person) => {
          const count = photosOf(faces, photos, person.id).length;
          return h("li", {}, h("a", { href: personHash(person.id), class: "person-link" },
            h("strong", {}, person.name),
            (person.relationship ?? "").trim() ? h("span", { class: "relationship" }, person.relationship) : null,
            h("span", { class: "count" }, count === 1 ? "1 photo" : `${count} photos`)));
        }))
        : h("p", { class: "empty" }, "No one is named yet. Open a photo and tap \"Name someone in this photo\".")));
  }
}
customElements.define("album-people", PeopleScreen);

export class PersonScreen extends AlbumElement {
  shown = "";
  /** @returns {Person | undefined} */
  person() {
    const id = this.ctx.sync.resolve(this.id_ ?? "");
    return this.ctx.sync.one(PERSON, id);
  }

  render() {
    const person = this.person();
    if (!person || !hasPeople(this.ctx)) {
      this.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "Person"),
        h("p", { class: "empty" }, "This person is not in your album any more."), back("#/people", "People")));
      return;
    }
    const photos = photosOf(allFaces(this.ctx), this.photos(), person.id);
    const key = JSON.stringify([person, photos.map((p) => `${p.id}@${p.version}`)]);
    if (this.shown === key) return;
    this.shown = key;
    const relationship = (person.relationship ?? "").trim();
    this.releaseCells();
    this.replaceChildren(h("main", { class: "screen person" },
      h("div", { class: "toolbar" }, back("#/people", "People")),
      h("h1", { class: "person-title" }, person.name),
      relationship ? h("p", { class: "relationship big" }, relationship) : null,
      person.note ? h("p", { class: "notes" }, person.note) : null,
      readAloud(this.ctx, () => { const now = this.person(); return now ? spoken(now) + (now.note ? ` ${now.note}` : "") : ""; }, userLanguage,
        `who ${person.name} is`),
      h("h2", { id: "person-photos" }, photos.length === 1 ? `1 photo of ${person.name}` : `${photos.length} photos of ${person.name}`),
      photos.length ? grid(this.ctx, photos, `Photos of ${person.name}`) : h("p", { class: "empty" }, `No photo of ${person.name} yet.`),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "secondary", onclick: () => this.edit() }, "Change name or relationship"),
        h("button", { type: "button", class: "danger", onclick: () => this.remove_() }, `Remove ${person.name} from your people`))));
  }

  edit() {
    const person = this.person();
    if (!person) return;
    const name = /** @type {HTMLInputElement} */ (h("input", { id: "edit-person-name", value: person.name, maxlength: "80", autocomplete: "off",
      "aria-describedby": "edit-person-error" }));
    const relationship = /** @type {HTMLInputElement} */ (h("input", { id: "edit-person-relationship", value: person.relationship ?? "", maxlength: "80",
      autocomplete: "off", placeholder: "your granddaughter" }));
    const error = h("p", { class: "error", role: "alert", id: "edit-person-error" });
    const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "confirm", "aria-labelledby": "edit-person-title" },
      h("form", { class: "stack", novalidate: true, onsubmit: (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        const problem = nameProblem(name.value);
        if (problem) {
          error.textContent = problem;
          name.focus();
          return;
        }
        dialog.close();
        const now = this.person();
        if (!now) return;
        this.ctx.sync.write({ method: "PATCH", path: `${PEOPLE}/${now.id}`, body: { name: name.value.trim(), relationship: relationship.value.trim() },
          kind: PERSON, id: now.id });
        announce("Saved.");
      } },
      h("h2", { id: "edit-person-title" }, `Change ${person.name}`),
      h("label", { for: "edit-person-name" }, "Name"), name, error,
      h("label", { for: "edit-person-relationship" }, "Who they are to you"), relationship,
      h("div", { class: "row" },
        h("button", { type: "button", class: "secondary", onclick: () => dialog.close() }, "Cancel"),
        h("button", { type: "submit" }, "Save")))));
    dialog.addEventListener("close", () => dialog.remove());
    showDialog(dialog);
    name.focus();
  }

  async remove_() {
    const person = this.person();
    if (!person) return;
    if (!(await confirmAction(`Remove ${person.name} from your people? Their name comes off every photo; the photos stay.`, "Remove"))) return;
    await this.ctx.sync.write({ method: "DELETE", path: `${PEOPLE}/${person.id}`, kind: PERSON, id: person.id });
    announce(`${person.name} removed.`);
    this.ctx.go("#/people");
  }
}
customElements.define("album-person", PersonScreen);
