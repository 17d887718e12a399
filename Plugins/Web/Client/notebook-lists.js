// @ts-check
/**
 * AR Notebook's screens around the notebook: the welcome and instructions (FR3.2.2), “My
 * notebooks” (mine and those shared with me, made, deleted after confirming; following sync), and a
 * shared link opened in the app.
 */
import { ApiError } from "./api.js";
import { catalogOf, chooseDialog, confirmedDelete, NotebookElement } from "./notebook-element.js";
import { keepShared, localNotebooks, N, NOTEBOOK } from "./notebook-model.js";
import { localId, newKey } from "./outbox.js";
import { announce, askText, h } from "./ui.js";

/** @typedef {import("./notebook-model.js").Notebook} Notebook */

// Welcome -----------------------------------------------------------------------------------------

export class WelcomeScreen extends NotebookElement {
  /**
   * The welcome is for a person new to AR Notebook, not for a phone new to an account: signed in
   * on another phone before, with notebooks there, this one opens on “My notebooks” (it opened
   * on the welcome, then on the cover of the last notebook).
   */
  async load() {
    this.replaceChildren(h("main", { class: "screen" }, h("p", { class: "hint", role: "status" }, "Opening…")));
    if (navigator.onLine) await this.ctx.sync.pull().catch(() => {});
    if (!this.isConnected) return;
    const { mine, shared } = localNotebooks(this.ctx.sync);
    if (mine.length + shared.length) {
      localStorage.setItem("quire.ar.welcomed", "1");
      history.replaceState(null, "", "#/notebooks");
      this.ctx.go("#/notebooks");
      return;
    }
    this.replaceChildren(h("main", { class: "screen welcome" },
      h("h1", {}, "Welcome to AR Notebook"),
      h("p", { class: "lead" }, "Your notebooks, in 3D, wherever you are."),
      h("ol", { class: "steps" },
        h("li", {}, "Swipe left or right on a page to turn it, or use the arrows."),
        h("li", {}, "Add a page, then write on it, paste what you copied, or add a picture."),
        h("li", {}, "Drag an item to move it; pinch it, or drag its corner, to resize it."),
        h("li", {}, "Turn the notebook round with the slider to see every side."),
        h("li", {}, "“View in your room” shows it over your camera, or on a table where your phone can."),
        h("li", {}, "Pin a notebook where you stand: people who come near it can open it.")),
      h("button", { type: "button", class: "hero", onclick: () => {
        localStorage.setItem("quire.ar.welcomed", "1");
        this.ctx.go("#/");
        announce("Opening your notebook.");
      } }, "Open my notebook")));
  }
}
customElements.define("nb-welcome", WelcomeScreen);

const OWNERS = "quire.ar.owners";

/**
 * Who shared each notebook shared with me (the server's answer to `GET …/shared` names them), kept
 * for the list offline. @param {Array<{notebook: {id: string}, ownerName?: string | null}>} items
 */
function keepOwners(items) {
  try {
    localStorage.setItem(OWNERS, JSON.stringify(Object.fromEntries(items.filter((i) => i.ownerName).map((i) => [i.notebook.id, i.ownerName]))));
  } catch {
    // Storage full or refused: the list says "read only" without the name.
  }
}

/** @param {string} id @returns {string | undefined} */
function ownerOf(id) {
  try {
    return JSON.parse(localStorage.getItem(OWNERS) ?? "{}")?.[id] ?? undefined;
  } catch {
    return undefined;
  }
}

// My notebooks -------------------------------------------------------------------------------------

export class NotebooksScreen extends NotebookElement {
  /** @type {{mine: Notebook[], shared: Notebook[]} | undefined} */
  lists;
  askedShared = false;
  shownAs = "";
  changeTimer = 0;

  /** Another device made, renamed or deleted a notebook: the list follows. */
  changed() {
    clearTimeout(this.changeTimer);
    this.changeTimer = window.setTimeout(() => { if (this.isConnected) this.load(); }, 150);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    clearTimeout(this.changeTimer);
  }

  /** The notebooks this phone has (from the sync feed, with what waits in the outbox): online and offline alike. */
  load() {
    this.lists = localNotebooks(this.ctx.sync);
    this.render();
    // Online, the shared ones as the server lists them (one shared before this phone's feed
    // began has not come through it; one whose link was taken back goes).
    if (navigator.onLine && !this.askedShared) {
      this.askedShared = true;
      this.ctx.api.get(`${N}/shared`).then((answer) => {
        keepOwners(answer.items);
        if (this.isConnected) this.render();
        return keepShared(this.ctx.sync, answer.items);
      }).catch(() => {});
    }
  }

  render() {
    const lists = /** @type {{mine: Notebook[], shared: Notebook[]}} */ (this.lists);
    const { mine, shared } = lists;
    const shownAs = JSON.stringify([mine, shared, this.said, shared.map((n) => ownerOf(n.id))]);
    if (shownAs === this.shownAs) return;
    this.shownAs = shownAs;
    /** @param {Notebook} notebook @param {string} note */
    const row = (notebook, note) => h("li", {}, h("a", { href: `#/n/${encodeURIComponent(notebook.id)}`, class: `big-link cover-${notebook.cover}` },
      h("span", {}, notebook.name), h("span", { class: "count" }, note)));
    this.draw(h("main", { class: "screen" },
      h("div", { class: "toolbar" }, h("h1", {}, "My notebooks"), h("button", { type: "button", onclick: () => this.create() }, "New notebook")),
      this.saidSlot(),
      h("ul", { class: "big-list", "aria-label": "My notebooks" }, ...mine.map((n) =>
        row(n, `${n.pageCount} page${n.pageCount === 1 ? "" : "s"}${n.pending ? " · waiting for the network" : ""}`))),
      shared.length ? h("h2", {}, "Shared with me") : null,
      shared.length ? h("ul", { class: "big-list", "aria-label": "Shared with me" }, ...shared.map((n) => {
        const owner = ownerOf(n.id);
        return row(n, owner ? `from ${owner} · read only` : "read only");
      })) : null,
      mine.length ? h("h2", {}, "Delete a notebook") : null,
      mine.length ? h("ul", { class: "chips" }, ...mine.map((n) => h("li", {},
        h("button", { type: "button", class: "danger", "aria-label": `Delete ${n.name}`, onclick: () => this.remove_(n) }, `Delete “${n.name}”`)))) : null));
  }

  /** A new notebook: its name, then its cover. Refused or offline, the name typed is kept to try again. @param {string} [typed] */
  async create(typed = "") {
    const name = await askText({ title: "New notebook", label: "Its name", id: "nb-text", action: "Add", multiline: true,
      required: "Type something first, or tap Cancel.", value: typed });
    if (!name) return;
    this.say(null);
    /** @type {[string, () => void]} */
    const again = ["Try again", () => this.create(name)];
    let catalogue;
    try {
      catalogue = await catalogOf(this.ctx);
    } catch (error) {
      return this.refused(error, again);
    }
    const choice = await chooseDialog("Its cover", [{ name: "cover", label: "Cover",
      options: catalogue.covers.map((/** @type {any} */ c) => [c.id, c.summary]) }]);
    if (!choice) return;
    const body = { name: name.trim(), cover: choice.cover };
    if (navigator.onLine && this.ctx.sync.state !== "offline") {
      try {
        const made = await this.ctx.api.request("POST", `${N}/notebooks`, { body, headers: { "Idempotency-Key": newKey() } });
        await this.ctx.api.request("POST", `${N}/open`, { body: { id: made.body.id } });
        await this.ctx.sync.pull();
        this.ctx.go(`#/n/${encodeURIComponent(made.body.id)}`);
        return;
      } catch (error) {
        if (!(error instanceof ApiError && error.offline)) return this.refused(error, again);
      }
    }
    // Offline: made on this phone now, on the server when the network returns.
    const id = localId();
    await this.ctx.sync.write({ method: "POST", path: `${N}/notebooks`, body, kind: NOTEBOOK, id });
    localStorage.setItem("quire.ar.last", id);
    this.ctx.go(`#/n/${encodeURIComponent(id)}`);
  }

  /** @param {Notebook} notebook */
  async remove_(notebook) {
    this.say(null);
    if (!(await confirmedDelete(this, `${N}/notebooks/${notebook.id}`))) return;
    await this.ctx.sync.pull();
    announce(`${notebook.name} deleted.`);
    this.load();
  }
}
customElements.define("nb-notebooks", NotebooksScreen);

/** A shared link opened in the app: the notebook becomes readable, then opens. */
export class AcceptScreen extends NotebookElement {
  async load() {
    this.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "Opening a shared notebook…")));
    try {
      const answer = await this.ctx.api.request("POST", `${N}/shared`, { body: { token: this.id_ } });
      this.ctx.go(`#/n/${encodeURIComponent(answer.body.notebook.id)}`);
    } catch (error) {
      // Offline: the link is the server's to open; it opens by itself once the network is back.
      const offline = error instanceof ApiError && error.offline;
      if (offline) this.whenOnline(() => this.load());
      this.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "A shared notebook"),
        offline ? h("p", { class: "warning", role: "status" }, "Opening a shared link needs the network; it opens when the phone is online.")
          : h("p", { class: "error", role: "alert" }, error instanceof ApiError ? error.message : "The link could not be opened."),
        h("a", { href: "#/", class: "button" }, "My notebook")));
    }
  }
}
customElements.define("nb-accept", AcceptScreen);
