// @ts-check
/**
 * What AR Notebook's screens share: `NotebookElement`, the app's screen on `ScreenElement` (which
 * follows the synced records and waits for the network) with the one thing of its own, a sentence
 * said beside the controls (a refusal, or that something waits for the network); the catalog, read
 * once and kept for offline; and the small dialogs (choices, a delete the server confirms, text).
 */
import { ApiError } from "./api.js";
import { keepCatalog, keptCatalog, N } from "./notebook-model.js";
import { ScreenElement } from "./screen-element.js";
import { askText, cancelButton, confirmAction, h } from "./ui.js";

/** @typedef {import("./screen-element.js").Context} Context */

/** @type {Promise<any> | null} */
let catalog = null;

/**
 * The catalog (page size, templates, covers, palette): read once per session and kept for opening
 * offline; offline, the copy kept.
 * @param {Context} context
 */
export function catalogOf(context) {
  catalog ??= context.api.get(`${N}/catalog`).then((answer) => { keepCatalog(answer); return answer; }).catch((error) => {
    catalog = null;
    const kept = keptCatalog();
    if (kept && error instanceof ApiError && error.offline) return kept;
    throw error;
  });
  return catalog;
}

export class NotebookElement extends ScreenElement {
  /** What the route named (a notebook's id, a share token), or "". */
  id_ = "";
  /**
   * What the screen says about the last thing asked of it (a refusal, or that it waits for the network).
   * @type {{text: string, alert: boolean, action?: [string, () => void]} | null}
   */
  said = null;

  load() {}

  /** The synced records changed: a screen that shows them says how it follows (by default it does not). */
  changed() {}

  /** Where the screen's sentence goes: next to its controls, redrawn with them (the same one kept, so it is not announced again). */
  saidSlot() {
    const kept = /** @type {HTMLElement | null} */ (this.querySelector(".nb-said"));
    if (kept && kept.dataset.said === JSON.stringify(this.said)) return kept;
    const slot = h("div", { class: "nb-said" });
    this.fillSaid(slot);
    return slot;
  }

  /** @param {HTMLElement} slot */
  fillSaid(slot) {
    const said = this.said;
    slot.dataset.said = JSON.stringify(said);
    slot.className = said ? `nb-said ${said.alert ? "alert" : "status"}` : "nb-said";
    slot.replaceChildren(...(said ? [h("p", { role: said.alert ? "alert" : "status" }, said.text), h("div", { class: "row" },
      said.action ? h("button", { type: "button", onclick: () => { this.say(null); said.action?.[1](); } }, said.action[0]) : null,
      h("button", { type: "button", class: "secondary", onclick: () => this.say(null) }, "OK"))] : []));
  }

  /**
   * Says something where the user is looking: beside the controls, scrolled into view; an alert for
   * a refusal, a status otherwise. `null` clears it.
   * @param {string | null} text @param {{alert?: boolean, action?: [string, () => void]}} [options]
   */
  say(text, options = {}) {
    const { alert = true, action } = options;
    this.said = text ? { text, alert, action } : null;
    const slot = /** @type {HTMLElement | null} */ (this.querySelector(".nb-said"));
    if (!slot) {
      if (text) window.dispatchEvent(new CustomEvent("quire:notice", { detail: text }));
      return;
    }
    this.fillSaid(slot);
    if (text) slot.scrollIntoView({ block: "nearest" });
  }

  /** Says the server's sentence for a refusal (or that the network is needed). @param {unknown} error @param {[string, () => void]} [action] */
  refused(error, action) {
    const text = error instanceof ApiError ? (error.offline ? "This needs the network; try again when you are online." : error.message)
      : "Something went wrong; try again.";
    this.say(text, { action });
  }
}

/**
 * A small dialog of choices (radio groups); resolves the chosen values, or null when cancelled.
 * @param {string} title
 * @param {Array<{name: string, label: string, options: Array<[string, string]>, swatches?: any[], value?: string}>} groups
 * @returns {Promise<Record<string, string> | null>}
 */
export function chooseDialog(title, groups) {
  return new Promise((resolve) => {
    const form = /** @type {HTMLFormElement} */ (h("form", { method: "dialog", class: "stack" }, h("h2", { id: "choose-title" }, title),
      ...groups.map((group) => h("fieldset", { class: "choices" }, h("legend", {}, group.label),
        ...group.options.map(([value, label], index) => {
          const swatch = group.swatches?.find((s) => s.id === value)?.hex;
          const chip = h("span", { class: "swatch-dot", "aria-hidden": "true" });
          if (swatch) chip.style.setProperty("--swatch", swatch);
          return h("label", { class: "choice" }, h("input", { type: "radio", name: group.name, value,
            checked: group.value ? group.value === value : index === 0 }), swatch ? chip : null, label);
        }))),
      h("div", { class: "row" }, cancelButton(),
        h("button", { type: "submit", value: "ok" }, "OK"))));
    const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "confirm", "aria-labelledby": "choose-title" }, form));
    dialog.addEventListener("close", () => {
      dialog.remove();
      if (dialog.returnValue !== "ok") return resolve(null);
      const data = new FormData(form);
      resolve(Object.fromEntries(groups.map((g) => [g.name, String(data.get(g.name) ?? "")])));
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/**
 * A delete the server confirms first: its 428 names what would go and the token that confirms
 * it; the person is asked in those words. Resolves whether it was deleted.
 * @param {NotebookElement} screen @param {string} path @returns {Promise<boolean>}
 * @param {(question: string, action: string) => Promise<boolean>} [ask] how it is asked (a dialog by default)
 */
export async function confirmedDelete(screen, path, ask = confirmAction) {
  try {
    await screen.ctx.api.request("DELETE", path);
    return true;
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 428) {
      screen.refused(error);
      return false;
    }
    if (!(await ask(error.problem?.detail?.split(" Repeat the request")[0] ?? error.message, "Delete"))) return false;
    try {
      await screen.ctx.api.request("DELETE", `${path}?confirm=${encodeURIComponent(error.problem?.confirm ?? "")}`);
      return true;
    } catch (failure) {
      screen.refused(failure);
      return false;
    }
  }
}

/** Text for the page, or a notebook's name. @param {string} title @param {string} label */
export function textDialog(title, label) {
  return askText({ title, label, id: "nb-text", action: "Add", multiline: true, required: "Type something first, or tap Cancel." });
}
