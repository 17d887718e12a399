// @ts-check
/**
 * Pins (FR3.2.17, UC-13): a notebook pinned at a place chosen with a coordinate picker (where the
 * phone is, one tap away, or any latitude and longitude typed), whether people who find it may edit
 * it, and the pin taken away. Its owner, and someone who found it pinned for editing, may move or
 * remove the pin (only the owner says who may edit). Pins need the network and say so.
 */
import { N } from "./notebook-model.js";
import { announce, cancelButton, confirmAction, h, showDialog, whereAmI } from "./ui.js";

/** @typedef {import("./screen-notebook.js").BookScreen} BookScreen */
/** @typedef {{latitude: number, longitude: number, allowEdits: boolean} | "remove" | null} PinChoice */

/**
 * The picker: latitude and longitude (the pin's place, or where the phone is), "Use where I am",
 * the owner's "People who find it may edit it", and "Remove the pin" when there is one.
 * @param {{latitude: number, longitude: number, allowEdits: boolean} | undefined} pin @param {boolean} owner
 * @returns {Promise<PinChoice>}
 */
function pickPlace(pin, owner) {
  return new Promise((resolve) => {
    const field = (/** @type {string} */ id, /** @type {number} */ min, /** @type {number} */ max, /** @type {number | undefined} */ value) =>
      /** @type {HTMLInputElement} */ (h("input", { id, type: "number", inputmode: "decimal", step: "any", min: String(min), max: String(max),
        value: value === undefined ? "" : String(value), autocomplete: "off", "aria-describedby": "nb-pin-error" }));
    const latitude = field("nb-pin-latitude", -90, 90, pin?.latitude);
    const longitude = field("nb-pin-longitude", -180, 180, pin?.longitude);
    const edits = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", id: "nb-pin-edits", checked: pin?.allowEdits ?? false }));
    const error = h("p", { class: "error", role: "alert", id: "nb-pin-error" });
    const here = async () => {
      error.textContent = "";
      const found = await whereAmI(60_000);
      if (!found) {
        error.textContent = "Your location is not available; allow it, or type the latitude and longitude.";
        return;
      }
      latitude.value = found.latitude.toFixed(6);
      longitude.value = found.longitude.toFixed(6);
      announce("Where you are is filled in.");
    };
    /** @type {PinChoice} */
    let chosen = null;
    const form = /** @type {HTMLFormElement} */ (h("form", { method: "dialog", class: "stack", novalidate: true, onsubmit: (/** @type {SubmitEvent} */ event) => {
      const action = event.submitter?.getAttribute("value");
      if (action === "cancel") return;
      if (action === "remove") {
        chosen = "remove";
        return;
      }
      const lat = Number(latitude.value), lon = Number(longitude.value);
      if (latitude.value.trim() === "" || longitude.value.trim() === "" || !(lat >= -90 && lat <= 90) || !(lon >= -180 && lon <= 180)) {
        event.preventDefault();
        error.textContent = "The latitude is a number from -90 to 90 and the longitude from -180 to 180; tap “Use where I am”, or type them.";
        latitude.focus();
        return;
      }
      chosen = { latitude: lat, longitude: lon, allowEdits: edits.checked };
    } },
    h("h2", { id: "nb-pin-title" }, "Pin the notebook"),
    h("p", { class: "hint" }, "People who come within about 100 m of the pin are told, and may open the notebook."),
    h("button", { type: "button", class: "secondary", onclick: here }, "Use where I am"),
    h("label", { for: "nb-pin-latitude" }, "Latitude"), latitude,
    h("label", { for: "nb-pin-longitude" }, "Longitude"), longitude,
    owner ? h("label", { class: "choice" }, edits, "People who find it may edit it") : null,
    error,
    h("div", { class: "row" },
      cancelButton(),
      pin ? h("button", { type: "submit", value: "remove", class: "danger" }, "Remove the pin") : null,
      h("button", { type: "submit", value: "ok" }, "Pin it"))));
    const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "confirm", "aria-labelledby": "nb-pin-title" }, form));
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(chosen);
    });
    showDialog(dialog);
    if (!pin) here();
  });
}

/** Pins the notebook where chosen, moves its pin, or takes it away. @param {BookScreen} screen */
export async function pin(screen) {
  const notebook = screen.content?.notebook;
  if (!notebook) return;
  const choice = await pickPlace(notebook.pin, notebook.access === "owner");
  if (!choice) return;
  const path = `${N}/notebooks/${notebook.id}/pin`;
  try {
    if (choice === "remove") {
      if (!(await confirmAction("Remove the notebook's pin? People near it will no longer be told about it.", "Remove the pin"))) return;
      await screen.ctx.api.request("DELETE", path);
    } else {
      await screen.ctx.api.request("PUT", path, { body: choice });
    }
    await screen.ctx.sync.pull();
    screen.reload();
    announce(choice === "remove" ? "The pin is removed." : "Pinned.");
  } catch (error) {
    screen.refused(error);
  }
}
