// @ts-check
/**
 * AR Notebook's watch on the phone's surroundings, once per session: the battery (Battery Status
 * API, where the browser has it) reported to device-monitor, with the blocking alert at 5 % and
 * "I am charging" (FR3.2.18, UC-14); where the phone is (`watchPosition`) reported as it moves,
 * with a banner for a notebook pinned near (UC-13), also when sync's live connection says so.
 */
import { ApiError } from "./api.js";
import { N } from "./notebook-model.js";
import { h } from "./ui.js";

const DM = "/api/v1/device-monitor";

/** @typedef {{api: import("./api.js").Api, sync: import("./sync.js").Sync}} Context */

let watching = false;

/**
 * Once per session: the battery (where the browser tells it) reported to device-monitor, with the
 * blocking alert when it answers so; and where the phone is, reported as it moves, with a banner
 * for a notebook pinned near.
 * @param {Context} context
 */
export function watchSurroundings(context) {
  if (watching) return;
  watching = true;
  const battery = /** @type {any} */ (navigator).getBattery;
  if (typeof battery === "function") {
    battery.call(navigator).then((/** @type {any} */ state) => {
      const report = () => reportBattery(context, state);
      state.addEventListener?.("levelchange", report);
      state.addEventListener?.("chargingchange", report);
      report();
    }).catch(() => {});
  }
  if ("geolocation" in navigator) {
    let last = 0;
    navigator.geolocation.watchPosition((where) => {
      if (Date.now() - last < 20_000) return;
      last = Date.now();
      context.api.request("POST", `${N}/nearby`, { body: { latitude: where.coords.latitude, longitude: where.coords.longitude } })
        .then((answer) => { if (answer.body.items.length) nearbyBanner(answer.body.items[0]); }).catch(() => {});
    }, () => {}, { maximumAge: 30_000 });
  }
  context.sync.addEventListener("alert", (event) => {
    const message = /** @type {CustomEvent} */ (event).detail;
    if (message.kind === "notebooks.nearby" && message.data?.notebooks?.length) {
      const first = message.data.notebooks[0];
      nearbyBanner({ notebook: { id: first.id, name: first.name }, distanceMeters: first.distanceMeters });
    }
  });
}

/** @param {{notebook: {id: string, name: string}, distanceMeters: number}} hit */
function nearbyBanner(hit) {
  document.querySelector(".nearby-bar")?.remove();
  const bar = h("div", { class: "undo-bar nearby-bar", role: "status" },
    h("span", {}, `“${hit.notebook.name}” is pinned ${Math.round(hit.distanceMeters)} m from you`),
    h("a", { href: `#/n/${encodeURIComponent(hit.notebook.id)}`, class: "button", onclick: () => bar.remove() }, "Open"),
    h("button", { type: "button", class: "link", "aria-label": "Dismiss", onclick: () => bar.remove() }, "×"));
  document.body.append(bar);
}

/** @param {Context} context @param {{level: number, charging: boolean}} state */
async function reportBattery(context, state) {
  try {
    const status = (await context.api.request("POST", `${DM}/battery`,
      { body: { level: state.level, unit: "fraction", state: state.charging ? "charging" : "discharging" } })).body;
    const open = /** @type {HTMLDialogElement | null} */ (document.querySelector("dialog.battery"));
    if (status.alert && !open) batteryAlert(context, status.message);
    if (!status.alert && open) open.close();
  } catch {
    // No network: the alert comes with the next report.
  }
}

/** FR3.2.18: the alert that stays until the phone is charging. @param {Context} context @param {string} message */
function batteryAlert(context, message) {
  const said = h("p", { class: "error", role: "alert" });
  const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "confirm battery", role: "alertdialog", "aria-labelledby": "battery-title",
    "aria-describedby": "battery-message" },
  h("h2", { id: "battery-title" }, "Battery low"),
  h("p", { id: "battery-message" }, message),
  said,
  h("button", { type: "button", onclick: async () => {
    try {
      await context.api.request("POST", `${DM}/battery/charging`);
      dialog.close();
    } catch (error) {
      said.textContent = error instanceof ApiError ? error.message : "Try again.";
    }
  } }, "I am charging")));
  dialog.addEventListener("cancel", (event) => event.preventDefault()); // Escape does not close it
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}
